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
// says; one that is a link, or that a run left past the bound, is refused
// by name; without a state directory there is none.
func TestTmpData(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	project := t.TempDir()
	h := &hook.Hook{ID: "h", Scope: hook.ScopeProject, TmpData: true, PluginDir: project, Script: ".claude/hooks/x.sh"}
	dir, err := tmpData(state, h, project, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := hook.TmpDataDir(state, project); dir != want {
		t.Errorf("kept in %s, the plan says %s", dir, want)
	}
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Errorf("kept /tmp %s: %v, %v; want a 0700 directory", dir, fi, err)
	}
	// Again: the same directory, and what the hook left is there.
	os.WriteFile(filepath.Join(dir, "count"), []byte("2\n"), 0o600)
	if again, err := tmpData(state, h, project, nil); err != nil || again != dir {
		t.Errorf("again: %s, %v; want %s", again, err, dir)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "count")); string(b) != "2\n" {
		t.Errorf("the hook's counter became %q", b)
	}

	if _, err := tmpData("", h, project, nil); !errors.Is(err, ErrTmpData) {
		t.Errorf("no state directory: err = %v, want ErrTmpData", err)
	}

	// A link where the directory should be is never followed.
	linked := t.TempDir()
	other := &hook.Hook{ID: "o", Scope: hook.ScopeProject, TmpData: true}
	target := hook.TmpDataDir(linked, project)
	os.MkdirAll(filepath.Dir(target), 0o700)
	os.Symlink(t.TempDir(), target)
	if _, err := tmpData(linked, other, project, nil); !errors.Is(err, ErrTmpData) {
		t.Errorf("a link: err = %v, want ErrTmpData", err)
	}

	// Past the bound (entries): refused, saying to empty it.
	full := t.TempDir()
	fd := hook.TmpDataDir(full, project)
	os.MkdirAll(fd, 0o700)
	for i := range maxWritableGrowEntries + 1 {
		os.WriteFile(filepath.Join(fd, fmt.Sprint(i)), nil, 0o600)
	}
	if _, err := tmpData(full, other, project, nil); !errors.Is(err, ErrTmpData) {
		t.Errorf("past the bound: err = %v, want ErrTmpData", err)
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
// script took its permissions away; nothing else of the kept /tmp does.
func TestRemovePrivate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	private := "hook-exec.hookexec_1"
	os.MkdirAll(filepath.Join(dir, private, "locked"), 0o700)
	os.WriteFile(filepath.Join(dir, private, "locked", "f"), nil, 0o600)
	os.Chmod(filepath.Join(dir, private, "locked"), 0)
	os.MkdirAll(filepath.Join(dir, private+".missing", "bin"), 0o700)
	os.WriteFile(filepath.Join(dir, "count"), []byte("1"), 0o600)
	if err := removePrivate(dir, private); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || ents[0].Name() != "count" {
		t.Errorf("left %v, want the hook's count alone", ents)
	}
}
