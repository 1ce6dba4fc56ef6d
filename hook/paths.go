package hook

import (
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// PathArgument is a tool call's argument that names a path.
type PathArgument struct {
	Name  string // the argument's name (paths[1] for an element of a list)
	Value string
}

// PathArguments returns every path a tool call's args name: each argument
// whose name says path (path, file_path, outputFile, destination, paths
// and the like), a string or a list of strings.
func PathArguments(args jsontext.Value) []PathArgument {
	var m map[string]jsontext.Value
	if json.Unmarshal(args, &m) != nil {
		return nil
	}
	var out []PathArgument
	for name, v := range m {
		if !pathArgName(name) {
			continue
		}
		switch v.Kind() {
		case '"':
			var one string
			if json.Unmarshal(v, &one) == nil && one != "" {
				out = append(out, PathArgument{Name: name, Value: one})
			}
		case '[':
			var list []string
			json.Unmarshal(v, &list)
			for i, p := range list {
				if p != "" {
					out = append(out, PathArgument{Name: name + "[" + itoa(i) + "]", Value: p})
				}
			}
		}
	}
	return out
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// pathArgName says whether an argument's name names a path.
func pathArgName(name string) bool {
	n := strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(name))
	switch n {
	case "path", "paths", "file", "files", "filename", "filenames", "destination", "dest", "source", "src",
		"target", "dir", "directory", "cwd", "from", "to":
		return true
	}
	for _, suffix := range []string{"path", "paths", "file", "files", "dir", "directory"} {
		if strings.HasSuffix(n, suffix) {
			return true
		}
	}
	return false
}
