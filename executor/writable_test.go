package executor

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A --writable file's directory is copied; only the named file comes
// back, rewritten or removed, whatever else the hook wrote beside it.
func TestWritableCopyBack(t *testing.T) {
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".claude/hooks"), 0o755)
	os.WriteFile(filepath.Join(ws, ".claude/settings.json"), []byte(`{"hooks":{}}`), 0o644)
	os.WriteFile(filepath.Join(ws, ".claude/hooks/guard.sh"), []byte("exit 0\n"), 0o755)
	state := filepath.Join(ws, ".claude/ralph-loop.local.md")
	os.WriteFile(state, []byte("iteration: 1\n"), 0o640)

	wr, remove, err := prepareWritable(ws, []string{".claude/ralph-loop.local.md"}, false)
	if err != nil {
		t.Fatal(err)
	}
	w := wr[0]
	// The copy holds the directory as it is: the hook reads its siblings.
	for _, rel := range []string{"settings.json", "hooks/guard.sh", "ralph-loop.local.md"} {
		if _, err := os.Stat(filepath.Join(w.scratch, rel)); err != nil {
			t.Fatalf("the copy lacks %s: %v", rel, err)
		}
	}
	if got := w.copyBack(); got != "unchanged" {
		t.Fatalf("untouched: %q", got)
	}
	// The hook rewrites its state through a temporary file, and tries
	// to rewrite the host's settings too.
	os.WriteFile(filepath.Join(w.scratch, "ralph-loop.local.md.tmp.7"), []byte("iteration: 2\n"), 0o600)
	os.Rename(filepath.Join(w.scratch, "ralph-loop.local.md.tmp.7"), filepath.Join(w.scratch, "ralph-loop.local.md"))
	os.WriteFile(filepath.Join(w.scratch, "settings.json"), []byte(`{"hooks":{"PreToolUse":[]}}`), 0o600)
	if got := w.copyBack(); got != "rewritten" {
		t.Fatalf("rewritten: %q", got)
	}
	if b, _ := os.ReadFile(state); string(b) != "iteration: 2\n" {
		t.Fatalf("state %q", b)
	}
	if fi, _ := os.Stat(state); fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v: the file's own is kept", fi.Mode())
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".claude/settings.json")); string(b) != `{"hooks":{}}` {
		t.Fatalf("a sibling came back: %q", b)
	}
	if _, err := os.Stat(filepath.Join(ws, ".claude/ralph-loop.local.md.tmp.7")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the hook's temporary file came back: %v", err)
	}
	os.Remove(filepath.Join(w.scratch, "ralph-loop.local.md"))
	if got := w.copyBack(); got != "removed" {
		t.Fatalf("removed: %q", got)
	}
	if _, err := os.Stat(state); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the state is still there: %v", err)
	}
	os.Mkdir(filepath.Join(w.scratch, "ralph-loop.local.md"), 0o700)
	if got := w.copyBack(); !strings.Contains(got, "no regular file") {
		t.Fatalf("a directory in its place: %q", got)
	}
	remove()
	if _, err := os.Stat(w.scratch); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the copy is left: %v", err)
	}

	// A file that did not exist, and that the hook does not write.
	wr, remove, err = prepareWritable(ws, []string{".claude/new.local.md"}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer remove()
	if got := wr[0].copyBack(); got != "not written" {
		t.Fatalf("not written: %q", got)
	}
}

func TestWritableRefused(t *testing.T) {
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".claude"), 0o755)
	os.MkdirAll(filepath.Join(ws, "big"), 0o755)
	for i := range maxWritableDirFiles + 1 {
		os.WriteFile(filepath.Join(ws, "big", strings.Repeat("f", 1+i%50)+string(rune('a'+i/50))), nil, 0o644)
	}
	outside := t.TempDir()
	os.Symlink(outside, filepath.Join(ws, "out"))
	os.Symlink(filepath.Join(outside, "x"), filepath.Join(ws, ".claude/link.local.md"))
	os.WriteFile(filepath.Join(ws, ".claude/huge.local.md"), make([]byte, maxWritableBytes+1), 0o644)
	for rel, want := range map[string]string{
		"/etc/passwd":                 "not a clean path inside",
		"../x":                        "not a clean path inside",
		".claude/../x":                "not a clean path inside",
		".claude/settings.json":       "hook configuration",
		".claude/settings.local.json": "hook configuration",
		".cursor/hooks.json":          "hook configuration",
		".git/config":                 "git's own files",
		"out/state.md":                "is not a directory",
		"missing/state.md":            "its directory",
		".claude/link.local.md":       "not a regular file",
		".claude/huge.local.md":       "more than",
		"big/state.md":                "more than 512 entries",
	} {
		_, _, err := prepareWritable(ws, []string{rel}, false)
		if !errors.Is(err, ErrWritable) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", rel, err, want)
		}
	}
	if _, _, err := prepareWritable("", []string{"a"}, false); !errors.Is(err, ErrWritable) {
		t.Errorf("no workspace: %v", err)
	}
	if _, _, err := prepareWritable(ws, []string{".claude/a.md", ".claude/b.md"}, false); err == nil || !strings.Contains(err.Error(), "one file per directory") {
		t.Errorf("two in one directory: %v", err)
	}
	if m, _ := filepath.Glob(filepath.Join(os.TempDir(), "hookexec-writable-*")); len(m) > 0 {
		t.Errorf("copies left: %v", m)
	}
}

// A plugin's data directory is one right below ~/.claude/plugins/data, the
// caller's own, reached by no link; it is made when missing, as Claude
// Code makes it.
func TestPluginData(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	base := filepath.Join(home, ".claude/plugins/data")
	dir, err := pluginData(filepath.Join(base, "ralph-loop-claude-plugins-official"))
	if err != nil || dir != filepath.Join(base, "ralph-loop-claude-plugins-official") {
		t.Fatalf("%q %v", dir, err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Fatalf("not made: %v %v", fi, err)
	}
	outside := t.TempDir()
	os.Symlink(outside, filepath.Join(base, "link"))
	cases := map[string]string{
		"":                             "not a plugin's data directory",
		"relative/x":                   "not a plugin's data directory",
		base:                           "not a plugin's data directory",
		filepath.Join(base, "a/b"):     "not a plugin's data directory",
		filepath.Join(home, ".claude"): "not a plugin's data directory",
		filepath.Join(base, "link"):    "is a link",
		filepath.Join(base, "..", "x"): "not a plugin's data directory",
		outside:                        "not a plugin's data directory",
	}
	if os.Getuid() == 0 {
		other := filepath.Join(base, "other")
		os.Mkdir(other, 0o700)
		os.Chown(other, 65534, 65534)
		cases[other] = "not a directory of uid 0"
	}
	for in, want := range cases {
		if _, err := pluginData(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
}

// A hook that writes past the bound in its copy is ended; one within it
// is not.
func TestWatchWritable(t *testing.T) {
	for name, grow := range map[string]func(dir string){
		"bytes": func(dir string) {
			f, _ := os.Create(filepath.Join(dir, "big"))
			f.Truncate(maxWritableGrowBytes + 1) // sparse: no disk written
			f.Close()
		},
		"files": func(dir string) {
			for i := range maxWritableGrowEntries + 1 {
				os.WriteFile(filepath.Join(dir, "f"+strconv.Itoa(i)), nil, 0o600)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			w := &writable{scratch: t.TempDir()}
			ended := make(chan struct{})
			stop := watchWritable([]*writable{w}, func() { close(ended) })
			os.WriteFile(filepath.Join(w.scratch, "state.local.md"), []byte("iteration: 2\n"), 0o600)
			grow(w.scratch)
			<-ended // the watch ends the run; the test's own deadline bounds the wait
			if !stop() {
				t.Fatal("not reported")
			}
		})
	}
	w := &writable{scratch: t.TempDir()}
	os.WriteFile(filepath.Join(w.scratch, "state.local.md"), []byte("iteration: 2\n"), 0o600)
	stop := watchWritable([]*writable{w}, func() { t.Error("ended within the bound") })
	time.Sleep(3 * writableWatchInterval)
	if stop() {
		t.Fatal("reported within the bound")
	}
}
