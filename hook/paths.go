package hook

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"

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

var (
	// ErrLinkLoop: following a path's links took more hops than the
	// kernel allows (a loop): where it leads cannot be told.
	ErrLinkLoop = errors.New("more than 40 links to follow")
	// ErrProcLink: a path goes through a /proc link whose target only the
	// agent's process knows (another process's cwd or root, an open file
	// under fd/ or map_files/, exe), or through /proc/self/cwd with no
	// workspace to stand for it.
	ErrProcLink = errors.New("goes through a /proc link only the agent's process can follow")
)

// maxLinks is the kernel's bound on the links one path walk follows.
const maxLinks = 40

// PathForms returns the readings of a path a path check must hold to: the
// lexical one, then the resolved one when it differs (see ResolvePath). A
// path inside the workspace is given relative to it. An error says the
// resolved reading is in doubt: a check that must not miss fails safe.
func PathForms(p, workspace string) ([]string, error) {
	lex := LexicalPath(p, workspace)
	res, err := ResolvePath(p, workspace)
	if res == lex {
		return []string{lex}, err
	}
	return []string{lex, res}, err
}

// LexicalPath is the path as the file tools take it: from the workspace
// when relative (a leading \ too, on Windows), .. folded, relative to the
// workspace when inside it.
func LexicalPath(p, workspace string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	if !path.IsAbs(p) && workspace != "" {
		p = path.Join(workspace, p)
	}
	return relTo(path.Clean(p), workspace)
}

// ResolvePath is the file a path reaches: from the workspace when
// relative, links followed (dangling ones too, to where they point) as the
// kernel walks a path, so a .. after a link goes up from where the link
// led. /proc/self/cwd (thread-self, a task of self) is the workspace and
// /proc/self/root is /: hook-exec's own /proc entries say nothing of the
// agent's. A target inside the workspace is given by its path from the
// workspace root. The error (ErrLinkLoop, ErrProcLink, or a link that
// cannot be read) says the answer, the best one found, is in doubt.
func ResolvePath(p, workspace string) (string, error) {
	p = strings.ReplaceAll(p, `\`, "/")
	if !path.IsAbs(p) {
		if workspace == "" {
			return path.Clean(p), nil
		}
		p = workspace + "/" + p
	}
	ws := workspace
	if r, err := filepath.EvalSymlinks(workspace); workspace != "" && err == nil {
		ws = filepath.ToSlash(r) // "" would read as "."
	}
	cur, err := walk(p, ws)
	if err != nil {
		err = &fs.PathError{Op: "resolve", Path: p, Err: err}
	}
	if workspace != "" {
		if rel := relTo(cur, ws); rel != cur {
			return rel, err
		}
	}
	return relTo(cur, workspace), err
}

// walk follows p's links component by component from /, ws standing for
// the agent's working directory. It goes on past a doubt (returned at the
// end) so that the best reading is still found; a loop ends it.
func walk(p, ws string) (string, error) {
	var doubt error
	comps := strings.Split(p, "/")
	cur := "/"
	for hops := 0; len(comps) > 0; {
		c := comps[0]
		comps = comps[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = path.Dir(cur)
			continue
		}
		next := path.Join(cur, c)
		if to, ok, err := procEntry(cur, c, ws); ok {
			cur = to
			if doubt == nil {
				doubt = err
			}
			continue
		}
		target, err := os.Readlink(next)
		if err != nil {
			// Not a link, or not there (a write would create it): taken
			// as written. Any other failure hides what is there.
			if doubt == nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
				doubt = err
			}
			cur = next
			continue
		}
		if hops++; hops > maxLinks {
			return path.Clean(p), ErrLinkLoop // the kernel would refuse it: as written
		}
		if path.IsAbs(target) {
			cur = "/"
		}
		comps = append(strings.Split(target, "/"), comps...)
	}
	return cur, doubt
}

// A process's directory in /proc, and any place inside one. The caller's
// own is self, thread-self or one of their tasks; a number is some process.
var (
	procProcess = regexp.MustCompile(`^/proc/(self|thread-self|[0-9]+)(/task/[0-9]+)?$`)
	inProcess   = regexp.MustCompile(`^/proc/(self|thread-self|[0-9]+)(/|$)`)
)

// procEntry reads component c below cur when it leads into a process's
// directory in /proc, whose links would answer for hook-exec and not for
// the agent: ok is false for any other place. The agent's cwd is the
// workspace and its root is /; what another process or an open file
// refers to is a doubt.
func procEntry(cur, c, ws string) (to string, ok bool, doubt error) {
	next := path.Join(cur, c)
	if !inProcess.MatchString(next) {
		return "", false, nil
	}
	m := procProcess.FindStringSubmatch(cur)
	if m == nil {
		return next, true, nil // the process's directory itself, or a file in it
	}
	own := m[1] == "self" || m[1] == "thread-self"
	switch {
	case own && c == "root":
		return "/", true, nil
	case own && c == "cwd" && ws != "":
		return ws, true, nil
	case c == "cwd" || c == "root" || c == "fd" || c == "map_files" || c == "exe":
		return next, true, ErrProcLink
	}
	return next, true, nil
}

// relTo is p relative to dir when inside it, else p.
func relTo(p, dir string) string {
	if dir == "" {
		return p
	}
	dir = path.Clean(strings.ReplaceAll(dir, `\`, "/"))
	if p == dir {
		return "."
	}
	if rel, ok := strings.CutPrefix(p, strings.TrimSuffix(dir, "/")+"/"); ok {
		return rel
	}
	return p
}
