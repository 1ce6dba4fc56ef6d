package install

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// cloneOf copies project dir to a new path, as a teammate's clone has it:
// another home and state directory, no record of the install.
func cloneOf(t *testing.T, o Options, dir string) (Options, string) {
	t.Helper()
	root := t.TempDir()
	clone := filepath.Join(root, "clone")
	if out, err := exec.Command("cp", "-a", dir, clone).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v: %s", err, out)
	}
	c := o
	c.ProjectDir, c.Home, c.StateDir = clone, filepath.Join(root, "home"), filepath.Join(root, "state")
	return c, clone
}

// A committed file, pulled into a clone and edited there (a permission,
// a hook of the teammate's own), is uninstalled by the clone from what
// was committed beside it: install's commands back as they were written,
// the teammate's edits kept; and installed again from it.
func TestCommittedFileMerged(t *testing.T) {
	const original = `{
  "permissions": {"allow": ["Bash(ls:*)"]},
  "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/guard.sh"},
    {"type": "command", "command": "jq -r .tool_input.command | grep -q rm && exit 2 || exit 0"}
  ]}]}
}
`
	o, dir := project(t, map[string]string{".claude/settings.json": original, ".claude/hooks/guard.sh": "#!/bin/sh\nexit 0\n"})
	h := Hosts["claude"]
	install(t, h, o)
	installed, _ := os.ReadFile(filepath.Join(dir, ".claude/settings.json"))
	if bytes.Contains(installed, []byte(dir)) || bytes.Contains(installed, []byte(o.StateDir)) {
		t.Fatalf("the committed file names this machine's paths:\n%s", installed)
	}
	c, clone := cloneOf(t, o, dir)
	path := filepath.Join(clone, ".claude/settings.json")
	// The teammate's check reads what was committed: which hooks are
	// pinned (to scripts that still match), nothing drifted.
	r, err := Inspect(h, Options{Settings: Project, ProjectDir: clone, Home: c.Home, StateDir: c.StateDir, Front: c.Front, Repository: true})
	if err != nil || r.Installed != 1 || len(r.Drifts) != 0 || len(r.Pinned) != 2 || r.Pinned[0].Script != filepath.Join(clone, ".claude/hooks/guard.sh") {
		t.Fatalf("the clone's check: %+v %v", r, err)
	}
	edited := strings.Replace(string(installed), `"Bash(ls:*)"`, `"Bash(ls:*)", "Bash(make:*)"`, 1)
	edited = strings.Replace(edited, `"hooks": [`, `"hooks": [{"type": "command", "command": "echo mine"}, `, 1)
	os.WriteFile(path, []byte(edited), 0o644)
	// Installed again in the clone, from the committed record: the same
	// two hooks approved, the teammate's own added.
	p, err := Prepare(h, c)
	if err != nil {
		t.Fatal(err)
	}
	if f := p.Files[0]; !f.Reinstall || !f.Committed || !f.Edited || len(f.Hooks) != 3 {
		t.Fatalf("reinstall in the clone: %+v", f)
	}
	p.Close()
	if _, err := Uninstall(h, c, false); err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(original, `"Bash(ls:*)"`, `"Bash(ls:*)", "Bash(make:*)"`, 1)
	want = strings.Replace(want, `"hooks": [`+"\n", `"hooks": [{"type": "command", "command": "echo mine"}, `+"\n", 1)
	if got, _ := os.ReadFile(path); string(got) != want {
		t.Fatalf("uninstall in the clone left\n%s\nwant\n%s", got, want)
	}
	if _, err := os.Stat(filepath.Join(clone, ".claude/hook-exec")); !os.IsNotExist(err) {
		t.Fatalf("the side directory is left: %v", err)
	}
}

// A teammate who trusted the committed pins pulls a re-install that adds
// a hook: the pulled commands are install's (the side record says so),
// not hooks running outside.
func TestPulledReinstall(t *testing.T) {
	o, dir := project(t, map[string]string{
		".claude/settings.json":  `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo one"}]}]}}`,
		".claude/hooks/guard.sh": "#!/bin/sh\nexit 0\n",
	})
	h := Hosts["claude"]
	install(t, h, o)
	c, clone := cloneOf(t, o, dir)
	p, err := Prepare(h, c)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.AsCommitted(); err != nil {
		t.Fatalf("trust: %v", err)
	}
	if err := approved(p).Apply(); err != nil {
		t.Fatal(err)
	}
	// Upstream: the hooks' owner adds one and installs again.
	path := filepath.Join(dir, ".claude/settings.json")
	if _, err := Uninstall(h, o, false); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo one"},{"type":"command","command":"echo two"}]}]}}`), 0o644)
	install(t, h, o)
	// The pull.
	for _, rel := range []string{".claude/settings.json", ".claude/hook-exec"} {
		os.RemoveAll(filepath.Join(clone, rel))
		if out, err := exec.Command("cp", "-a", filepath.Join(dir, rel), filepath.Join(clone, rel)).CombinedOutput(); err != nil {
			t.Fatalf("cp: %v: %s", err, out)
		}
	}
	_, drifts, err := Check(h, c)
	for _, d := range drifts {
		if d.Outside {
			t.Errorf("a pulled install's hook taken for one outside: %+v", d)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
}
