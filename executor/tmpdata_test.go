package executor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hookexec/hook-exec/hook"
)

// A kept /tmp is a 0700 directory of the caller's state, where the plan
// says, held for the run; one that is a link is refused by name; without
// a state directory there is none. One past the bound is emptied when no
// run holds it, and only then.
func TestTmpData(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	project := t.TempDir()
	h := &hook.Hook{ID: "h", Scope: hook.ScopeProject, TmpData: true, PluginDir: project, Script: ".claude/hooks/x.sh"}
	k, err := openTmpData(state, h, project, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if want := hook.TmpDataDir(state, project, false); k.dir != want {
		t.Errorf("kept in %s, the plan says %s", k.dir, want)
	}
	if fi, err := os.Lstat(k.dir); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Errorf("kept /tmp %s: %v, %v; want a 0700 directory", k.dir, fi, err)
	}
	if hook.TmpDataDir(state, project, true) == k.dir {
		t.Errorf("root's runs that stay root's share %s with the others", k.dir)
	}
	// Another run of the key, at the same time: the same directory, and
	// what the first left is there.
	os.WriteFile(filepath.Join(k.dir, "count"), []byte("2\n"), 0o600)
	k2, err := openTmpData(state, h, project, nil, false)
	if err != nil || k2.dir != k.dir {
		t.Fatalf("again: %v, %v; want %s", k2, err, k.dir)
	}
	if b, _ := os.ReadFile(filepath.Join(k.dir, "count")); string(b) != "2\n" {
		t.Errorf("the hook's counter became %q", b)
	}
	// Past the bound while the second run holds it: the first's release
	// leaves it (the second still writes there); the second's empties it,
	// the directory itself kept.
	for i := range maxWritableGrowEntries + 1 {
		os.WriteFile(filepath.Join(k.dir, fmt.Sprint(i)), nil, 0o600)
	}
	k2.private = "hook-exec.run2"
	os.Mkdir(filepath.Join(k.dir, k2.private), 0o700)
	before, _ := os.Lstat(k.dir)
	if emptied, err := k.release(true); emptied || err != nil {
		t.Errorf("released while another run holds it: emptied %v, %v", emptied, err)
	}
	if _, err := os.Lstat(filepath.Join(k.dir, k2.private)); err != nil {
		t.Errorf("a live run's directory went: %v", err)
	}
	if emptied, err := k2.release(true); !emptied || err != nil {
		t.Errorf("the last run's release: emptied %v, %v; want it emptied", emptied, err)
	}
	if ents, _ := os.ReadDir(k.dir); len(ents) != 0 {
		t.Errorf("left %d entries", len(ents))
	}
	if after, err := os.Lstat(k.dir); err != nil || !os.SameFile(before, after) {
		t.Errorf("the directory was replaced (%v): a bind of it would lose it", err)
	}

	if _, err := openTmpData("", h, project, nil, false); !errors.Is(err, ErrTmpData) {
		t.Errorf("no state directory: err = %v, want ErrTmpData", err)
	}

	// A link where the directory should be is never followed.
	linked := t.TempDir()
	target := hook.TmpDataDir(linked, project, false)
	os.MkdirAll(filepath.Dir(target), 0o700)
	os.Symlink(t.TempDir(), target)
	if _, err := openTmpData(linked, h, project, nil, false); !errors.Is(err, ErrTmpData) {
		t.Errorf("a link: err = %v, want ErrTmpData", err)
	}
}

// The hooks of one plugin, of one project, share a kept /tmp; those of
// another never see it.
func TestTmpDataTree(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		h    hook.Hook
		ws   string
		want string
	}{
		{hook.Hook{PluginRoot: "/p/plugin/", Scope: hook.ScopePlugin, Script: "/p/plugin/hooks/a.sh"}, "/w", "/p/plugin"},
		{hook.Hook{Scope: hook.ScopeProject, ScriptRoot: "/w/.claude/hooks", Script: "/w/.claude/hooks/a.sh"}, "/w", "/w"},
		{hook.Hook{Scope: hook.ScopeOwner, ScriptRoot: "/home/u/.claude/hooks", Script: "/home/u/.claude/hooks/a.sh"}, "/w", "/home/u/.claude/hooks"},
		{hook.Hook{Scope: hook.ScopeOwner, PluginDir: "/home/u/bin", Script: "guard.sh"}, "/w", "/home/u/bin"},
		{hook.Hook{ID: "cmd", Scope: hook.ScopeOwner, Command: []string{"jq"}}, "", "id:cmd"},
	} {
		if got := c.h.TmpDataTree(c.ws); got != c.want {
			t.Errorf("%+v in %s: tree %q, want %q", c.h, c.ws, got, c.want)
		}
	}
}

// What a run that was ended left of the launcher's goes, even where the
// script took its permissions away, and a link in its place is removed,
// not followed; nothing else of the kept /tmp goes.
func TestRemoveIn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "keep"), nil, 0o600)
	private := "hook-exec.hookexec_1"
	os.MkdirAll(filepath.Join(dir, private, "locked"), 0o700)
	os.WriteFile(filepath.Join(dir, private, "locked", "f"), nil, 0o600)
	os.Chmod(filepath.Join(dir, private, "locked"), 0)
	os.Symlink(outside, filepath.Join(dir, private+".missing"))
	os.WriteFile(filepath.Join(dir, "count"), []byte("1"), 0o600)
	if err := removeIn(dir, private, private+".missing"); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || ents[0].Name() != "count" {
		t.Errorf("left %v, want the hook's count alone", ents)
	}
	if _, err := os.Stat(filepath.Join(outside, "keep")); err != nil {
		t.Errorf("the link was followed: %v", err)
	}
}
