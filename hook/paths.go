package hook

import (
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// PathArgument is a tool call's argument that names a path.
type PathArgument struct {
	Name  string // the argument's name (paths[1] for an element of a list)
	Value string
}

// PathArguments returns every path a tool call's args name: each member,
// at any depth (edits[0].file_path), whose name says path (path,
// file_path, outputFile, destination, paths and the like), a string or
// every string of a list.
func PathArguments(args jsontext.Value) []PathArgument {
	var out []PathArgument
	var walk func(name string, pathy bool, v jsontext.Value)
	walk = func(name string, pathy bool, v jsontext.Value) {
		switch v.Kind() {
		case '"':
			var one string
			if pathy && json.Unmarshal(v, &one) == nil && one != "" {
				out = append(out, PathArgument{Name: name, Value: one})
			}
		case '[':
			var list []jsontext.Value
			json.Unmarshal(v, &list)
			for i, e := range list {
				walk(name+"["+strconv.Itoa(i)+"]", pathy, e)
			}
		case '{':
			var m map[string]jsontext.Value
			json.Unmarshal(v, &m)
			for k, e := range m {
				n := k
				if name != "" {
					n = name + "." + k
				}
				walk(n, pathArgName(k), e)
			}
		}
	}
	walk("", false, args)
	return out
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
