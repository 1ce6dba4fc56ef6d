package executor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hookexec/hook-exec/hook"
)

// A --writable file's directory is copied; only the named files come
// back, rewritten or removed, whatever else the hook wrote beside them.
func TestWritableCopyBack(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".claude/hooks"), 0o755)
	os.WriteFile(filepath.Join(ws, ".claude/settings.json"), []byte(`{"hooks":{}}`), 0o644)
	os.WriteFile(filepath.Join(ws, ".claude/hooks/guard.sh"), []byte("exit 0\n"), 0o755)
	state := filepath.Join(ws, ".claude/ralph-loop.local.md")
	os.WriteFile(state, []byte("iteration: 1\n"), 0o640)

	ds, remove, err := prepareWritable(ws, []string{".claude/ralph-loop.local.md", ".claude/other.local.md"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 1 || len(ds[0].files) != 2 || ds[0].path() != filepath.Join(ws, ".claude") {
		t.Fatalf("two files of one directory: %+v", ds)
	}
	d := ds[0]
	// The copy holds the directory as it is: the hook reads its siblings.
	for _, rel := range []string{"settings.json", "hooks/guard.sh", "ralph-loop.local.md"} {
		if _, err := os.Stat(filepath.Join(d.scratch, rel)); err != nil {
			t.Fatalf("the copy lacks %s: %v", rel, err)
		}
	}
	if got := strings.Join(d.copyBack(), "; "); got != ".claude/ralph-loop.local.md: unchanged; .claude/other.local.md: not written" {
		t.Fatalf("untouched: %q", got)
	}
	// The hook rewrites its state through a temporary file, writes its
	// second file, and tries to rewrite the host's settings too.
	os.WriteFile(filepath.Join(d.scratch, "ralph-loop.local.md.tmp.7"), []byte("iteration: 2\n"), 0o600)
	os.Rename(filepath.Join(d.scratch, "ralph-loop.local.md.tmp.7"), filepath.Join(d.scratch, "ralph-loop.local.md"))
	os.WriteFile(filepath.Join(d.scratch, "other.local.md"), []byte("x\n"), 0o600)
	os.WriteFile(filepath.Join(d.scratch, "settings.json"), []byte(`{"hooks":{"PreToolUse":[]}}`), 0o600)
	if got := strings.Join(d.copyBack(), "; "); got != ".claude/ralph-loop.local.md: rewritten; .claude/other.local.md: rewritten" {
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
	entries, _ := os.ReadDir(filepath.Join(ws, ".claude"))
	if len(entries) != 4 {
		t.Fatalf("the hook's temporary file, or install's, is left: %v", entries)
	}
	os.Remove(filepath.Join(d.scratch, "ralph-loop.local.md"))
	// The hook leaves a link where its file was: never followed.
	os.Symlink("/etc/passwd", filepath.Join(d.scratch, "other.local.md.link"))
	os.Rename(filepath.Join(d.scratch, "other.local.md.link"), filepath.Join(d.scratch, "other.local.md"))
	if got := strings.Join(d.copyBack(), "; "); got != ".claude/ralph-loop.local.md: removed; .claude/other.local.md: not copied back: not a regular file (a link is not followed)" {
		t.Fatalf("removed, and a link: %q", got)
	}
	if _, err := os.Stat(state); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the state is still there: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".claude/other.local.md")); string(b) != "x\n" {
		t.Fatalf("the link's target came back: %q", b)
	}
	// A second name of the file (a hard link) is not the hook's own file.
	os.WriteFile(filepath.Join(d.scratch, "ralph-loop.local.md"), []byte("iteration: 3\n"), 0o600)
	os.Link(filepath.Join(d.scratch, "ralph-loop.local.md"), filepath.Join(d.scratch, "second"))
	if got := d.copyBack()[0]; got != ".claude/ralph-loop.local.md: not copied back: 2 names (a hard link)" {
		t.Fatalf("a hard link: %q", got)
	}
	remove()
	if _, err := os.Stat(d.tmp); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the copy is left: %v", err)
	}
}

// Run by root, the copy is the hook's (uid 65534) only in its directory
// and its named files: root's other files keep their owner and mode.
func TestWritableCopyAsRoot(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("chown needs root")
	}
	t.Setenv("TMPDIR", t.TempDir())
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".claude/hooks"), 0o755)
	os.WriteFile(filepath.Join(ws, ".claude/token"), []byte("secret"), 0o600)
	os.WriteFile(filepath.Join(ws, ".claude/s.local.md"), []byte("1"), 0o644)
	os.WriteFile(filepath.Join(ws, ".claude/theirs"), []byte("2"), 0o600)
	os.Chown(filepath.Join(ws, ".claude/theirs"), 1000, 1000)
	os.Chown(filepath.Join(ws, ".claude/s.local.md"), 1000, 1000)
	ds, remove, err := prepareWritable(ws, []string{".claude/s.local.md"}, &owner{65534, 65534})
	if err != nil {
		t.Fatal(err)
	}
	defer remove()
	d := ds[0]
	for rel, want := range map[string]string{".": "65534 0700", "s.local.md": "65534 0644", "token": "0 0600", "hooks": "0 0755", "theirs": "1000 0600", "..": "0 0700"} {
		fi, err := os.Lstat(filepath.Join(ds[0].scratch, rel))
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%d %04o", fi.Sys().(*syscall.Stat_t).Uid, fi.Mode().Perm()); got != want {
			t.Errorf("%s: %s, want %s", rel, got, want)
		}
	}
	// The hook (owner of the directory) renames root's file, which it
	// cannot read, to its named file: that file does not go back.
	os.Rename(filepath.Join(d.scratch, "token"), filepath.Join(d.scratch, "s.local.md"))
	if got := d.copyBack()[0]; got != ".claude/s.local.md: not copied back: not the hook's own file (owned by uid 0)" {
		t.Fatalf("root's file renamed: %q", got)
	}
	// Its own file goes back as the workspace file's owner's.
	os.WriteFile(filepath.Join(d.scratch, "new"), []byte("3"), 0o644)
	os.Chown(filepath.Join(d.scratch, "new"), 65534, 65534)
	os.Rename(filepath.Join(d.scratch, "new"), filepath.Join(d.scratch, "s.local.md"))
	if got := d.copyBack()[0]; got != ".claude/s.local.md: rewritten" {
		t.Fatalf("its own file: %q", got)
	}
	if fi, err := os.Stat(filepath.Join(ws, ".claude/s.local.md")); err != nil || fi.Sys().(*syscall.Stat_t).Uid != 1000 {
		t.Fatalf("the file's owner is not kept: %v", err)
	}
}

func TestWritableRefused(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".claude"), 0o755)
	os.MkdirAll(filepath.Join(ws, "sub/.git"), 0o755)
	os.MkdirAll(filepath.Join(ws, "big"), 0o755)
	for i := range maxWritableDirFiles + 1 {
		os.WriteFile(filepath.Join(ws, "big", "f"+strconv.Itoa(i)), nil, 0o644)
	}
	outside := t.TempDir()
	os.Symlink(outside, filepath.Join(ws, "out"))
	os.Symlink(filepath.Join(outside, "x"), filepath.Join(ws, ".claude/link.local.md"))
	os.WriteFile(filepath.Join(ws, ".claude/huge.local.md"), make([]byte, maxWritableBytes+1), 0o644)
	syscall.Mkfifo(filepath.Join(ws, ".claude/fifo.local.md"), 0o644)
	for rel, want := range map[string]string{
		"/etc/passwd":                 "not a clean path inside",
		"../x":                        "not a clean path inside",
		".claude/../x":                "not a clean path inside",
		".claude/settings.json":       "configuration",
		".claude/settings.local.json": "configuration",
		".cursor/hooks.json":          "configuration",
		"tools/.mcp.json":             "configuration",
		".git/config":                 "git's files",
		".GIT/config":                 "git's files",
		".claude/Settings.local.json": "configuration",
		"sub/.Mcp.json":               "configuration",
		".cursor/mcp.json":            "configuration",
		".gemini/.env":                "configuration",
		".claude/\u017Fettings.json":  "not a plain name",
		".claude/SETTIN~1.JSO":        "not a plain name",
		".claude/settings.json.":      "not a plain name",
		".claude/state .md":           "not a plain name",
		"sub/.git/config":             "git's files",
		"out/state.md":                "is not a directory",
		"out/":                        "is not a directory",
		".claude/hooks/guard.sh":      "the host runs what is there",
		".claude/skills/deploy/":      "the host runs what is there",
		".claude/agents/x.md":         "the host runs what is there",
		"logs/.claude/skills/":        "below the workspace's top",
		".husky/pre-commit":           "files tools run",
		"sub/.envrc":                  "a file tools run",
		"package.json":                "a file tools run",
		".claude/":                    "a host's own directory",
		".Cursor/hooks/":              "the host runs what is there",
		"sub/.git/":                   "git's files",
		"../state/":                   "not a clean path",
		".claude/link.local.md":       "not a regular file",
		".claude/fifo.local.md":       "not a regular file",
	} {
		_, _, err := prepareWritable(ws, []string{rel}, nil)
		if !errors.Is(err, ErrWritable) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", rel, err, want)
		}
	}
	// Past a copy's bounds (a log that grew): refused, never run read-only
	// (a guard that cannot write its log under set -e exits 1: an allow).
	for rel, want := range map[string]string{".claude/huge.local.md": "more than", "big/state.md": "more than 512 entries: trim it"} {
		if _, _, err := prepareWritable(ws, []string{rel}, nil); !errors.Is(err, ErrWritable) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", rel, err, want)
		}
	}
	if _, _, err := prepareWritable("", []string{"a/b"}, nil); !errors.Is(err, ErrWritable) {
		t.Errorf("no workspace: %v", err)
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
	dir, err := pluginData(filepath.Join(base, "ralph-loop-claude-plugins-official"), ".claude/plugins/data")
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
	// A directory on the way that others may write: they could put
	// another one there (a link to /) before the mount.
	shared := filepath.Join(t.TempDir(), "shared")
	os.MkdirAll(filepath.Join(shared, ".claude/plugins/data"), 0o755)
	os.Chmod(shared, 0o777)
	cases[filepath.Join(shared, ".claude/plugins/data/x")] = "anyone may write " + shared
	if os.Getuid() == 0 {
		// root with a user's HOME (sudo -E): that user could.
		theirs := filepath.Join(t.TempDir(), "theirs")
		os.MkdirAll(filepath.Join(theirs, ".claude/plugins/data"), 0o755)
		os.Chown(theirs, 1000, 1000)
		cases[filepath.Join(theirs, ".claude/plugins/data/x")] = theirs + " is uid 1000's"
		// A group other than root's own may write a directory on the way.
		grouped := filepath.Join(t.TempDir(), "grouped")
		os.MkdirAll(filepath.Join(grouped, ".claude/plugins/data"), 0o755)
		os.Chmod(grouped, 0o775)
		os.Chown(grouped, 0, 1000)
		cases[filepath.Join(grouped, ".claude/plugins/data/x")] = "group 1000 may write " + grouped
		other := filepath.Join(base, "other")
		os.Mkdir(other, 0o700)
		os.Chown(other, 65534, 65534)
		cases[other] = "not a directory of uid 0"
	}
	for in, want := range cases {
		if strings.HasPrefix(in, shared) {
			t.Setenv("HOME", shared)
		} else if os.Getuid() == 0 && (strings.Contains(in, "/theirs/") || strings.Contains(in, "/grouped/")) {
			t.Setenv("HOME", filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(in)))))
		} else {
			t.Setenv("HOME", home)
		}
		if _, err := pluginData(in, ".claude/plugins/data"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
		if _, err := os.Lstat(in); strings.HasSuffix(in, "/data/x") && !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%q was made before it was refused", in)
		}
	}
	// The caller's own group may write them (umask 002, a user private
	// group): root's is group 0, "root".
	if os.Getuid() == 0 {
		own := filepath.Join(t.TempDir(), "own")
		os.MkdirAll(filepath.Join(own, ".claude/plugins/data"), 0o775)
		os.Chmod(filepath.Join(own, ".claude/plugins/data"), 0o775)
		t.Setenv("HOME", own)
		if _, err := pluginData(filepath.Join(own, ".claude/plugins/data/x"), ".claude/plugins/data"); err != nil {
			t.Errorf("a directory its owner's own group may write: %v", err)
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
			w := &writableDir{scratch: t.TempDir()}
			ended := make(chan struct{})
			stop := watchGrowth([]watched{{dir: w.scratch}}, func() { close(ended) })
			os.WriteFile(filepath.Join(w.scratch, "state.local.md"), []byte("iteration: 2\n"), 0o600)
			grow(w.scratch)
			<-ended // the watch ends the run; the test's own deadline bounds the wait
			if stop() == nil {
				t.Fatal("not reported")
			}
		})
	}
	// Nested past a path's length: the walk cannot see what is below.
	deep := t.TempDir()
	r, err := os.OpenRoot(deep)
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		name := strings.Repeat("d", 250)
		r.Mkdir(name, 0o700)
		sub, err := r.OpenRoot(name)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		r = sub
	}
	r.Close()
	if withinBounds(deep) {
		t.Error("a tree nested past a path's length is within the bounds")
	}
	if err := removeTree(deep); err != nil {
		t.Errorf("the deep tree is not removed: %v", err)
	}
	if os.Getuid() != 0 {
		// The hook takes the read bit from a directory it made.
		hidden := filepath.Join(t.TempDir(), "copy")
		os.MkdirAll(filepath.Join(hidden, "d/e"), 0o700)
		os.WriteFile(filepath.Join(hidden, "d/e/big"), []byte("x"), 0o600)
		os.Chmod(filepath.Join(hidden, "d"), 0o300)
		if withinBounds(hidden) {
			t.Error("a directory the walk cannot read is within the bounds")
		}
		if err := removeTree(hidden); err != nil {
			t.Errorf("not removed: %v", err)
		}
	}
	w := &writableDir{scratch: t.TempDir()}
	os.WriteFile(filepath.Join(w.scratch, "state.local.md"), []byte("iteration: 2\n"), 0o600)
	stop := watchGrowth([]watched{{dir: w.scratch}}, func() { t.Error("ended within the bound") })
	time.Sleep(3 * writableWatchInterval)
	if stop() != nil {
		t.Fatal("reported within the bound")
	}
}

// gc's sweep takes the run directories a killed hook-exec left, and only
// those old enough that no run can still use them.
func TestSweepTemp(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	old, _ := os.MkdirTemp("", writablePrefix)
	os.WriteFile(filepath.Join(old, "state.local.md"), []byte("1"), 0o600)
	os.Chtimes(old, time.Now().Add(-48*time.Hour), time.Now().Add(-48*time.Hour))
	fresh, _ := os.MkdirTemp("", transcriptPrefix)
	other, _ := os.MkdirTemp("", "somebody-else-")
	os.Chtimes(other, time.Now().Add(-48*time.Hour), time.Now().Add(-48*time.Hour))
	n, err := SweepTemp(24 * time.Hour)
	if err != nil || n != 1 {
		t.Fatalf("swept %d: %v", n, err)
	}
	for dir, want := range map[string]bool{old: false, fresh: true, other: true} {
		if _, err := os.Stat(dir); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", dir, err == nil, want)
		}
	}
}

// A directory named with a trailing slash is the hook's whole: every file
// it leaves there goes back (made, rewritten, removed), never a host's
// configuration, a link or an executable; a missing one is made.
func TestWritableWholeDirectory(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	ws := t.TempDir()
	ds, remove, err := prepareWritable(ws, []string{".claude/hook-state/"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer remove()
	if fi, err := os.Lstat(filepath.Join(ws, ".claude/hook-state")); err != nil || !fi.IsDir() {
		t.Fatalf("the missing directory is not made: %v", err)
	}
	d := ds[0]
	if !d.whole || d.source() != d.scratch || d.path() != filepath.Join(ws, ".claude/hook-state") {
		t.Fatalf("%+v", d)
	}
	if got := strings.Join(d.copyBack(), "; "); got != ".claude/hook-state/: unchanged" {
		t.Fatalf("untouched: %q", got)
	}
	os.WriteFile(filepath.Join(d.scratch, "calls-s1.count"), []byte("1\n"), 0o755)
	os.MkdirAll(filepath.Join(d.scratch, "sub"), 0o700)
	os.WriteFile(filepath.Join(d.scratch, "sub/log"), []byte("x\n"), 0o600)
	os.WriteFile(filepath.Join(d.scratch, "settings.json"), []byte("{}"), 0o600)
	os.Symlink("/etc/passwd", filepath.Join(d.scratch, "link"))
	got := strings.Join(d.copyBack(), "; ")
	want := ".claude/hook-state/calls-s1.count: made; .claude/hook-state/settings.json: not copied back: a name that stays read-only; .claude/hook-state/sub/log: made"
	if got != want {
		t.Fatalf("made:\n got %q\nwant %q", got, want)
	}
	fi, err := os.Stat(filepath.Join(ws, ".claude/hook-state/calls-s1.count"))
	if err != nil || fi.Mode().Perm()&0o111 != 0 {
		t.Fatalf("the made file: %v %v (never executable)", fi, err)
	}
	for _, rel := range []string{"settings.json", "link"} {
		if _, err := os.Lstat(filepath.Join(ws, ".claude/hook-state", rel)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s came back: %v", rel, err)
		}
	}

	// The next run starts from what the last left, and removes a file.
	ds2, remove2, err := prepareWritable(ws, []string{".claude/hook-state/"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer remove2()
	d = ds2[0]
	os.WriteFile(filepath.Join(d.scratch, "calls-s1.count"), []byte("2\n"), 0o600)
	os.Remove(filepath.Join(d.scratch, "sub/log"))
	if got := strings.Join(d.copyBack(), "; "); got != ".claude/hook-state/calls-s1.count: rewritten; .claude/hook-state/sub/log: removed" {
		t.Fatalf("second run: %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".claude/hook-state/calls-s1.count")); string(b) != "2\n" {
		t.Fatalf("count %q", b)
	}
}

// A file of the workspace's top directory: its copy alone is mounted; a
// missing one is made for the mount and taken away when left empty.
func TestWritableTopFile(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	ws := t.TempDir()
	ds, remove, err := prepareWritable(ws, []string{"gemini.log"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer remove()
	d := ds[0]
	if !d.single || d.path() != filepath.Join(ws, "gemini.log") || d.source() != filepath.Join(d.scratch, "gemini.log") {
		t.Fatalf("%+v", d)
	}
	if fi, err := os.Lstat(d.path()); err != nil || fi.Size() != 0 {
		t.Fatalf("the mount's target: %v", err)
	}
	if got := strings.Join(d.copyBack(), "; "); got != "gemini.log: not written" {
		t.Fatalf("left empty: %q", got)
	}
	if _, err := os.Lstat(d.path()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the file made for the mount is left: %v", err)
	}

	os.WriteFile(filepath.Join(ws, "gemini.log"), []byte("a\n"), 0o640)
	ds, remove2, err := prepareWritable(ws, []string{"gemini.log"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer remove2()
	d = ds[0]
	f, _ := os.OpenFile(d.source(), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("b\n")
	f.Close()
	if got := strings.Join(d.copyBack(), "; "); got != "gemini.log: rewritten" {
		t.Fatalf("appended: %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "gemini.log")); string(b) != "a\nb\n" {
		t.Fatalf("log %q", b)
	}
	for _, rel := range []string{"settings.json", ".env"} {
		if _, _, err := prepareWritable(ws, []string{rel}, nil); !errors.Is(err, ErrWritable) {
			t.Errorf("%s: %v", rel, err)
		}
	}
}

// A run that failed writing in the read-only project says so, naming the
// approval that lets it; one that answered, or wrote elsewhere, does not.
func TestReadOnlyHint(t *testing.T) {
	h := &hook.Hook{Dialect: hook.Gemini, Workspace: "/work/p"}
	bash := []byte("scan...\n/tmp/x/hook.sh: line 71: /work/p/rules/audit.log: Read-only file system\n")
	want := "\nhook-exec: the project is read-only to hooks, and this one could not write rules/audit.log: `hook-exec install gemini --writable rules/audit.log` lets it (a copy of it, written back)"
	if got := readOnlyHint(h, 1, bash); got != want {
		t.Errorf("bash: %q", got)
	}
	py := []byte("OSError: [Errno 30] Read-only file system: '/work/p/gemini.log'\n")
	if got := readOnlyHint(h, 1, py); !strings.Contains(got, "could not write gemini.log: `hook-exec install gemini --writable gemini.log`") {
		t.Errorf("python: %q", got)
	}
	for stderr, want := range map[string]string{
		"mkdir: cannot create directory ‘/work/p/logs’: Read-only file system\n":          "logs/",
		"mkdir: can't create directory '/work/p/logs/a': Read-only file system\n":         "logs/a/",
		"  os.makedirs(d)\nOSError: [Errno 30] Read-only file system: '/work/p/memory'\n": "memory/",
	} {
		if got := readOnlyHint(h, 1, []byte(stderr)); !strings.Contains(got, "--writable "+want+"`") {
			t.Errorf("%q: %q, want %s", stderr, got, want)
		}
	}
	for name, tc := range map[string]struct {
		code   int
		stderr string
	}{
		"a block":               {2, string(bash)},
		"an answer":             {0, string(bash)},
		"outside the project":   {1, "/etc/x: Read-only file system\n"},
		"a host's settings":     {1, "/work/p/.claude/settings.json: Read-only file system\n"},
		"another failure":       {1, "/work/p/x.log: Permission denied\n"},
		"a sibling's directory": {1, "/work/pp/x.log: Read-only file system\n"},
	} {
		if got := readOnlyHint(h, tc.code, []byte(tc.stderr)); got != "" {
			t.Errorf("%s: %q", name, got)
		}
	}
}

// A whole directory's copy back removes only what the hook removed of its
// own: never a file the walk did not read (a name that stays read-only,
// past the bound), nor one the hook could not read in the workspace.
func TestWritableWholeRemovesOnlyItsOwn(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	ws := t.TempDir()
	st := filepath.Join(ws, "st")
	os.MkdirAll(filepath.Join(st, "sub dir"), 0o755)
	for _, name := range []string{"My Notes.txt", "settings.json", "sub dir/x", "zz.log"} {
		os.WriteFile(filepath.Join(st, name), []byte("keep\n"), 0o644)
	}
	ds, remove, err := prepareWritable(ws, []string{"st/"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer remove()
	ds[0].copyBack() // the hook did nothing
	for _, name := range []string{"My Notes.txt", "settings.json", "sub dir/x", "zz.log"} {
		if _, err := os.Stat(filepath.Join(st, name)); err != nil {
			t.Errorf("%s is gone after a run that did nothing: %v", name, err)
		}
	}
	// The hook removes its log and makes more files than a copy back takes.
	os.Remove(filepath.Join(ds[0].scratch, "zz.log"))
	for i := range maxWritableDirFiles + 10 {
		os.WriteFile(filepath.Join(ds[0].scratch, fmt.Sprintf("a%04d", i)), nil, 0o644)
	}
	got := strings.Join(ds[0].copyBack(), "; ")
	if !strings.Contains(got, "nothing removed") {
		t.Errorf("past the bound: %q", got)
	}
	if _, err := os.Stat(filepath.Join(st, "zz.log")); err != nil {
		t.Errorf("a copy read in part removed zz.log: %v", err)
	}
}

// The empty file a single one's mount was given is taken away on every
// way out (a preparation refused after it, a run that never copied back),
// and left when another run wrote it meanwhile.
func TestWritableMadeFileTakenAway(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	ws := t.TempDir()
	log := filepath.Join(ws, "gemini.log")
	// A directory past its bound, copied after the log's placeholder.
	os.MkdirAll(filepath.Join(ws, "big"), 0o755)
	for i := range maxWritableDirFiles + 1 {
		os.WriteFile(filepath.Join(ws, "big", "f"+strconv.Itoa(i)), nil, 0o644)
	}
	if _, _, err := prepareWritable(ws, []string{"gemini.log", "big/"}, nil); !errors.Is(err, ErrWritable) {
		t.Fatalf("%v", err)
	}
	if _, err := os.Lstat(log); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a refused preparation left gemini.log: %v", err)
	}
	// Prepared, then ended without a copy back (an overflow).
	_, remove, err := prepareWritable(ws, []string{"gemini.log"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(log); err != nil {
		t.Fatalf("no placeholder to mount: %v", err)
	}
	remove()
	if _, err := os.Lstat(log); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("remove left the placeholder: %v", err)
	}
	// Another run writes it meanwhile: it stays.
	_, remove, err = prepareWritable(ws, []string{"gemini.log"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(log, []byte("another run's\n"), 0o644)
	remove()
	if b, err := os.ReadFile(log); err != nil || string(b) != "another run's\n" {
		t.Fatalf("another run's write: %q %v", b, err)
	}
}

// In a run of root's, a whole directory's file the hook could not read in
// the workspace keeps its owner in the copy, and never goes back removed.
func TestWritableWholeAsRoot(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root: the copies are chowned to the runner")
	}
	t.Setenv("TMPDIR", t.TempDir())
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, "st"), 0o755)
	os.WriteFile(filepath.Join(ws, "st/secret"), []byte("s\n"), 0o600)
	os.WriteFile(filepath.Join(ws, "st/count"), []byte("1\n"), 0o644)
	ds, remove, err := prepareWritable(ws, []string{"st/"}, &owner{65534, 65534})
	if err != nil {
		t.Fatal(err)
	}
	defer remove()
	d := ds[0]
	for name, uid := range map[string]uint32{"secret": 0, "count": 65534, ".": 65534} {
		o, err := ownerOf(filepath.Join(d.scratch, name))
		if err != nil || o.Uid != uid {
			t.Errorf("%s in the copy: uid %d %v, want %d", name, o.Uid, err, uid)
		}
	}
	os.Remove(filepath.Join(d.scratch, "secret"))
	d.copyBack()
	if _, err := os.Stat(filepath.Join(ws, "st/secret")); err != nil {
		t.Errorf("a file the hook could not read was removed: %v", err)
	}
}
