package hook

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

func TestArgKindOf(t *testing.T) {
	t.Parallel()
	for kind, names := range map[argKind][]string{
		pathArg: {
			// Claude Code: Write, Edit, MultiEdit, Read, NotebookEdit, Glob, Grep, LS.
			"file_path", "notebook_path", "path",
			// Gemini CLI: read_file, write_file, replace, list_directory, read_many_files, run_shell_command.
			"absolute_path", "dir_path", "paths", "directory",
			// Cursor: edit_file, read_file, delete_file, list_dir, edit_notebook.
			"target_file", "relative_workspace_path", "target_notebook",
			// Common names of path arguments elsewhere, any casing and separator.
			"source", "target", "src", "dest", "dst", "destination", "from", "to", "filename", "pathname",
			"dirname", "output", "out", "location", "cwd", "folder", "root", "file", "files", "filePath",
			"FilePath", "file-path", "outputFile", "output_path", "output_dir", "outDir", "workspace_folder",
			"project_root", "save_location", "copy_destination", "file_name", "dirs", "folders", "sources",
			"targets", "outputs", "locations", "filenames", "directories",
		},
		uriArg: {"uri", "url", "uris", "urls", "documentUri", "file_url", "textDocumentURI"},
		notPath: {"content", "command", "old_string", "new_string", "pattern", "query", "name", "edits",
			"description", "tool_name", "timeout", "is_background", "replace_all", "offset", "limit"},
	} {
		for _, name := range names {
			if got := argKindOf(name); got != kind {
				t.Errorf("argKindOf(%q) = %d, want %d", name, got, kind)
			}
		}
	}
}

// paths is PathArguments as name -> value, failing on an error.
func paths(t *testing.T, args string) map[string]string {
	t.Helper()
	got, err := PathArguments([]byte(args))
	if err != nil {
		t.Fatalf("PathArguments(%s): %v", args, err)
	}
	m := map[string]string{}
	for _, p := range got {
		m[p.Name] = p.Value
	}
	return m
}

func TestPathArguments(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args string
		want map[string]string
	}{
		{`{"file_path":"a","paths":["b","c"],"content":"d","outputFile":"","n":1}`,
			map[string]string{"file_path": "a", "paths[0]": "b", "paths[1]": "c"}},
		{`{"paths":[1,".env",{"x":2}],"edits":[{"file_path":"a/.git/config","old_string":"x"}],"options":{"output":{"destination":"d"}}}`,
			map[string]string{"paths[1]": ".env", "edits[0].file_path": "a/.git/config", "options.output.destination": "d"}},
		// Names tools give their path arguments.
		{`{"dst":".env","output":"o","pathname":"p","location":"l","dirname":"dn","target_file":"tf","absolute_path":"/ap","dir_path":"dp"}`,
			map[string]string{"dst": ".env", "output": "o", "pathname": "p", "location": "l", "dirname": "dn", "target_file": "tf", "absolute_path": "/ap", "dir_path": "dp"}},
		{`{"cwd":"c","directory":"d","folder":"f","root":"r","from":"a","to":"b","src":"s","dest":"t","source":"u","target":"v"}`,
			map[string]string{"cwd": "c", "directory": "d", "folder": "f", "root": "r", "from": "a", "to": "b", "src": "s", "dest": "t", "source": "u", "target": "v"}},
		// file: URIs are paths, percent-decoded; other schemes are not.
		{`{"uri":"file:///ws/.env","url":"file://localhost/ws/a%20b.txt","documentUri":"file:/ws/x?q=1#f"}`,
			map[string]string{"uri": "/ws/.env", "url": "/ws/a b.txt", "documentUri": "/ws/x"}},
		{`{"uri":"https://example.com/.env","url":"s3://bucket/key","fileUrl":"mailto:a@b"}`, map[string]string{}},
		{`{"uri":"docs/a.md","path":"file:///C:/w/%2Eenv","file":"file://server/share/x","src":"file:a%zz"}`,
			map[string]string{"uri": "docs/a.md", "path": "C:/w/.env", "file": "//server/share/x", "src": "a%zz"}},
		// A path argument's text is a path even when it looks like a URI.
		{`{"path":"https:/x/.env","file":"C:/x"}`, map[string]string{"path": "https:/x/.env", "file": "C:/x"}},
		// Objects in a path list: their path-naming members and their name.
		{`{"files":[{"name":".env","content":"A=1"},{"path":"b","mode":"0644"}]}`,
			map[string]string{"files[0].name": ".env", "files[1].path": "b"}},
		{`{"target":{"file":{"name":"n"},"line":3},"attachments":[{"name":"not a path"}]}`,
			map[string]string{"target.file.name": "n"}},
		{`{"uris":["file:///a",{"name":"file:///b"},"http://c"]}`, map[string]string{"uris[0]": "/a", "uris[1].name": "/b"}},
		{`{"name":"tool","content":{"name":"x"}}`, map[string]string{}},
	} {
		got := paths(t, tc.args)
		if len(got) != len(tc.want) {
			t.Errorf("PathArguments(%s) = %v, want %v", tc.args, got, tc.want)
			continue
		}
		for k, v := range tc.want {
			if got[k] != v {
				t.Errorf("PathArguments(%s): %s = %q, want %q", tc.args, k, got[k], v)
			}
		}
	}
}

func TestPathArgumentsInOrder(t *testing.T) {
	t.Parallel()
	got, err := PathArguments([]byte(`{"to":"1","from":"2","paths":["3","4"],"m":{"file":"5"}}`))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range got {
		names = append(names, p.Name)
	}
	if want := []string{"to", "from", "paths[0]", "paths[1]", "m.file"}; !slices.Equal(names, want) {
		t.Errorf("names %q, want the document's order %q", names, want)
	}
}

func TestPathArgumentsStopsEarly(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat(`{"a":`, maxArgDepth) + `{"path":".env"}` + strings.Repeat("}", maxArgDepth)
	found := `{"file_path":"first",`
	for _, tc := range []struct{ name, args, want string }{
		{"deeper than the bound", found + `"x":` + deep + `}`, "is more than 32 levels deep"},
		{"not JSON", found + `"x":[1,}`, "invalid character"},
	} {
		got, err := PathArguments([]byte(tc.args))
		if !errors.Is(err, ErrArgs) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want ErrArgs saying %q", tc.name, err, tc.want)
		}
		if len(got) != 1 || got[0].Value != "first" {
			t.Errorf("%s: found %+v, want what came before", tc.name, got)
		}
	}
	ok := strings.Repeat(`{"a":`, maxArgDepth-1) + `{"path":".env"}` + strings.Repeat("}", maxArgDepth-1)
	if got, err := PathArguments([]byte(ok)); err != nil || len(got) != 1 {
		t.Errorf("at the bound: %+v, %v; want the path", got, err)
	}
}

// workspace makes a workspace with protected/ and links into it, out of
// it and in circles, and returns its path as given and as resolved.
func workspace(t *testing.T) (ws, real string) {
	t.Helper()
	ws = filepath.Join(t.TempDir(), "ws")
	for _, d := range []string{"protected", "docs", "locked/inner"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{
		"link":    "protected",                             // relative
		"abslink": filepath.Join(ws, "protected"),          // absolute
		"dangle":  "protected/new.txt",                     // a write would create it
		"up":      "docs/..",                               // .. inside a link
		"loop":    "loop2",                                 // a circle
		"loop2":   "loop",                                  //
		"cwd":     "/proc/self/cwd/protected",              // the agent's cwd
		"fd":      "/proc/self/fd/1",                       // an open file of the agent's
		"root":    "/proc/thread-self/root" + ws + "/docs", // the agent's root
	} {
		if err := os.Symlink(target, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	real, err := filepath.EvalSymlinks(ws)
	if err != nil {
		t.Fatal(err)
	}
	return ws, real
}

func TestResolvePath(t *testing.T) {
	t.Parallel()
	ws, real := workspace(t)
	long := strings.Repeat("n", 300)
	for _, tc := range []struct {
		path, workspace string
		want            string
		err             error // the sentinel, or nil
	}{
		{"notes.md", ws, "notes.md", nil},
		{"link/secret.txt", ws, "protected/secret.txt", nil},
		{ws + "/link/secret.txt", ws, "protected/secret.txt", nil},
		{"abslink/a/../b", ws, "protected/b", nil},
		{"dangle", ws, "protected/new.txt", nil},
		{"up/protected/x", ws, "protected/x", nil},
		{"link/../docs", ws, "docs", nil},
		{`link\x`, ws, "protected/x", nil},
		{"/proc/self/cwd/protected/x", ws, "protected/x", nil},
		{"/proc/thread-self/cwd/protected/x", ws, "protected/x", nil},
		{"/proc/self/task/1/cwd/protected/x", ws, "protected/x", nil},
		{"/proc/./self/cwd/protected/x", ws, "protected/x", nil},
		{"/proc/self/cwd/../x", ws, path.Dir(real) + "/x", nil},
		{"/proc/self/root" + ws + "/link/x", ws, "protected/x", nil},
		{"cwd/x", ws, "protected/x", nil},
		{"root/x", ws, "docs/x", nil},
		{"/proc/cpuinfo", ws, "/proc/cpuinfo", nil},
		{"/proc/self/status", ws, "/proc/self/status", nil},
		{"/proc/1/cwd/protected/x", ws, "/proc/1/cwd/protected/x", ErrProcLink},
		{"/proc/1/root/etc/passwd", ws, "/proc/1/root/etc/passwd", ErrProcLink},
		{"/proc/self/fd/3/x", ws, "/proc/self/fd/3/x", ErrProcLink},
		{"fd", ws, "/proc/self/fd/1", ErrProcLink},
		{"/proc/self/cwd/x", "", "/proc/self/cwd/x", ErrProcLink},
		{"loop/x", ws, "loop/x", ErrLinkLoop},
		{long + "/x", ws, long + "/x", syscall.ENAMETOOLONG}, // readlink fails: what is there is unknown
		{"docs/x", "", "docs/x", nil},                        // relative, no workspace: nothing to follow
	} {
		got, err := ResolvePath(tc.path, tc.workspace)
		if got != tc.want {
			t.Errorf("ResolvePath(%q) = %q, want %q", tc.path, got, tc.want)
		}
		if !errors.Is(err, tc.err) || (err == nil) != (tc.err == nil) {
			t.Errorf("ResolvePath(%q): error %v, want %v", tc.path, err, tc.err)
		}
		var pe *fs.PathError
		if tc.err != nil && (!errors.As(err, &pe) || pe.Op != "resolve" || !strings.HasSuffix(pe.Path, strings.ReplaceAll(tc.path, `\`, "/"))) {
			t.Errorf("ResolvePath(%q): error %#v does not name the path resolved", tc.path, err)
		}
	}
}

func TestResolvePathUnreadable(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("root reads a directory of mode 0")
	}
	ws, _ := workspace(t)
	locked := filepath.Join(ws, "locked")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	got, err := ResolvePath("locked/inner/x", ws)
	if !errors.Is(err, fs.ErrPermission) {
		t.Errorf("ResolvePath through a directory it cannot read: error %v, want permission denied", err)
	}
	if got != "locked/inner/x" {
		t.Errorf("ResolvePath = %q, want the path as written", got)
	}
}

func TestPathForms(t *testing.T) {
	t.Parallel()
	ws, _ := workspace(t)
	for _, tc := range []struct {
		path string
		want []string
	}{
		{"docs/a.md", []string{"docs/a.md"}},
		{ws + "/docs/./a.md", []string{"docs/a.md"}},
		{"link/x", []string{"link/x", "protected/x"}},
		{"../out.txt", []string{path.Dir(ws) + "/out.txt"}},
		{"/proc/self/cwd/protected/x", []string{"/proc/self/cwd/protected/x", "protected/x"}},
	} {
		got, err := PathForms(tc.path, ws)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("PathForms(%q) = %q, %v; want %q", tc.path, got, err, tc.want)
		}
	}
	got, err := PathForms("loop", ws)
	if !errors.Is(err, ErrLinkLoop) || len(got) == 0 || got[0] != "loop" {
		t.Errorf("PathForms(loop) = %q, %v; want the lexical form and ErrLinkLoop", got, err)
	}
}

// FuzzPathArguments holds the token walk to a walk over the decoded tree:
// the same paths under the same names, ErrArgs exactly when the args do
// not read or nest deeper than the bound.
func FuzzPathArguments(f *testing.F) {
	for _, s := range []string{
		`{"file_path":"a","paths":["b","c"],"content":"d","outputFile":"","n":1}`,
		`{"files":[{"name":".env","content":"A=1"},{"path":"b"}]}`,
		`{"uri":"file:///ws/.env","url":"https://x/.env","dst":".env","path":"file:///C:/w/%2Eenv"}`,
		`{"target":{"file":{"name":"n"}},"a.b":"x","a":{"b":"y"}}`,
		strings.Repeat(`[`, maxArgDepth+1) + strings.Repeat(`]`, maxArgDepth+1),
		`{"path":"x",}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		got, err := PathArguments(args)
		var tree any
		if len(args) == 0 {
			if err != nil || got != nil {
				t.Fatalf("no args: %v, %v", got, err)
			}
			return
		}
		if !jsontext.Value(args).IsValid() {
			if !errors.Is(err, ErrArgs) {
				t.Fatalf("args that do not read: error %v, want ErrArgs", err)
			}
			return
		}
		if json.Unmarshal(args, &tree) != nil {
			return // a number beyond float64: the tree cannot hold it
		}
		var want []PathArgument
		depth := treePaths(tree, "", notPath, 0, &want)
		if depth > maxArgDepth {
			if !errors.Is(err, ErrArgs) {
				t.Fatalf("args %d levels deep: error %v, want ErrArgs", depth, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("error %v on args that read", err)
		}
		key := func(p PathArgument) string { return p.Name + "\x00" + p.Value }
		gotKeys, wantKeys := make([]string, 0, len(got)), make([]string, 0, len(want))
		for _, p := range got {
			gotKeys = append(gotKeys, key(p))
		}
		for _, p := range want {
			wantKeys = append(wantKeys, key(p))
		}
		slices.Sort(gotKeys)
		slices.Sort(wantKeys)
		if !slices.Equal(gotKeys, wantKeys) {
			t.Fatalf("PathArguments(%s) = %q, the tree's walk %q", args, gotKeys, wantKeys)
		}
	})
}

// treePaths walks a decoded tree as PathArguments walks tokens and returns
// the deepest level it reached.
func treePaths(v any, name string, k argKind, depth int, out *[]PathArgument) int {
	deepest := depth
	switch v := v.(type) {
	case string:
		if p, ok := k.pathOf(v); ok {
			*out = append(*out, PathArgument{Name: name, Value: p})
		}
	case []any:
		for i, e := range v {
			deepest = max(deepest, treePaths(e, fmt.Sprintf("%s[%d]", name, i), k, depth+1, out))
		}
	case map[string]any:
		for key, e := range v {
			n := key
			if name != "" {
				n = name + "." + key
			}
			deepest = max(deepest, treePaths(e, n, memberKind(key, k), depth+1, out))
		}
	}
	return deepest
}

// TestDocsListPathNames: the list of path argument names in
// docs/configuration.md is the code's.
func TestDocsListPathNames(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, names := range [][]string{pathSuffixes, pathAlone, uriNames} {
		for _, n := range names {
			if !strings.Contains(string(b), "`"+n+"`") {
				t.Errorf("docs/configuration.md does not list the path argument name `%s`", n)
			}
		}
	}
}

// FuzzPathForms: the lexical reading comes first; in an empty workspace a
// relative path that does not climb out reaches what it says, unless in
// doubt (a name too long to look up).
func FuzzPathForms(f *testing.F) {
	for _, s := range []string{"notes.md", "link/secret.txt", "/proc/self/cwd/protected/x", "a/../../b", `config\.env`, "/proc/1/cwd/x", "./a//b/", ""} {
		f.Add(s)
	}
	ws := f.TempDir()
	f.Fuzz(func(t *testing.T, p string) {
		forms, err := PathForms(p, ws)
		if len(forms) == 0 || forms[0] != LexicalPath(p, ws) {
			t.Fatalf("PathForms(%q) = %q, want the lexical reading first", p, forms)
		}
		slashed := strings.ReplaceAll(p, `\`, "/")
		if err == nil && !path.IsAbs(slashed) && !slices.Contains(strings.Split(slashed, "/"), "..") && len(forms) != 1 {
			t.Fatalf("PathForms(%q) = %q: nothing to follow in an empty workspace", p, forms)
		}
	})
}
