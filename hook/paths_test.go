package hook

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

func TestPathArg(t *testing.T) {
	for name, want := range map[string]bool{
		"path": true, "file_path": true, "filePath": true, "outputFile": true, "output_path": true,
		"destination": true, "paths": true, "notebook_path": true, "content": false, "command": false, "old_string": false,
	} {
		if got := pathArgName(name); got != want {
			t.Errorf("pathArgName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestPathArguments(t *testing.T) {
	got := PathArguments([]byte(`{"file_path":"a","paths":["b","c"],"content":"d","outputFile":"","n":1}`))
	want := map[string]string{"file_path": "a", "paths[0]": "b", "paths[1]": "c"}
	if len(got) != len(want) {
		t.Fatalf("PathArguments = %+v, want %v", got, want)
	}
	for _, p := range got {
		if want[p.Name] != p.Value {
			t.Errorf("%s = %q, want %q", p.Name, p.Value, want[p.Name])
		}
	}
}

func TestPathArgumentsAtAnyDepth(t *testing.T) {
	got := map[string]string{}
	for _, p := range PathArguments([]byte(`{"paths":[1,".env",{"x":2}],"edits":[{"file_path":"a/.git/config","old_string":"x"}],"options":{"output":{"destination":"d"}}}`)) {
		got[p.Name] = p.Value
	}
	want := map[string]string{"paths[1]": ".env", "edits[0].file_path": "a/.git/config", "options.output.destination": "d"}
	if len(got) != len(want) {
		t.Fatalf("PathArguments = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
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
