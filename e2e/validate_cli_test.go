package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// The registry commands on documents that must be refused whole, through
// the built CLI; nothing here starts a sandbox.

// wantRefused checks a registry command's refusal: exit 1, the reason on
// stderr, and no crash (a Go panic exits 2 with a stack).
func wantRefused(t *testing.T, r cliResult, what string, names ...string) {
	t.Helper()
	if strings.Contains(r.stderr, "goroutine ") {
		first, _, _ := strings.Cut(r.stderr, "\n")
		t.Errorf("%s: exit %d with a Go crash: %s", what, r.code, first)
		return
	}
	if r.code != 1 {
		t.Errorf("%s: exit %d, want 1; stdout %q stderr %q", what, r.code, r.stdout, r.stderr)
	}
	for _, n := range names {
		wantIn(t, what+": stderr", r.stderr, n)
	}
	if r.stdout != "" {
		t.Errorf("%s: printed %q for a refused document", what, r.stdout)
	}
}

// Issue 31: a number no float64 holds crashed validate, add and list
// (registry.(*Definition).Version), and project and session documents
// holding one were accepted and trusted.
func TestValidateCLIRefusesNonFiniteNumbers(t *testing.T) {
	t.Parallel()
	state, dir, ws := t.TempDir(), t.TempDir(), t.TempDir()
	doc := func(scope, number string) string {
		return `{"schema_version":1,"id":"inf","point":"tool.before","scope":"` + scope + `",` +
			`"filters":{"data":{"x":` + number + `}},"handler":{"kind":"command","command":["true"]}}`
	}
	files(t, dir, map[string]string{
		"global.json":   doc("global", "1e999"),
		"negative.json": doc("global", "-1e999"),
		"project.json":  doc("project", "1e999"),
		"session.json":  doc("session", "1E+99999999999"),
	})
	st := "--state-dir=" + state
	for _, name := range []string{"global.json", "negative.json", "project.json", "session.json"} {
		r := hookExec(t, nil, nil, "hook", "validate", filepath.Join(dir, name))
		wantRefused(t, r, "validate "+name, name, "/filters/data/x", "does not fit a finite float64")
	}
	wantRefused(t, hookExec(t, nil, nil, "hook", st, "add", filepath.Join(dir, "global.json")), "add", "/filters/data/x")
	wantRefused(t, hookExec(t, nil, nil, "hook", st, "install-project", ws, filepath.Join(dir, "project.json")), "install-project", "/filters/data/x")
	// Written by hand, the project document cannot be trusted either.
	files(t, filepath.Join(ws, ".holaryn"), map[string]string{"hooks.json": doc("project", "1e999")})
	wantRefused(t, hookExec(t, nil, nil, "hook", st, "trust", ws), "trust", "does not validate", "/filters/data/x")
	wantRefused(t, hookExec(t, nil, nil, "hook", st, "list", "--session-hooks", filepath.Join(dir, "session.json")), "list", "/filters/data/x")
}

// Issue 31: an owner document whose script path is absolute validated and
// was added, then every dispatch failed with refused_rule. Every load path
// now applies the rules a run applies (executor.Check), naming the rule.
func TestValidateCLIRefusesWhatRunsRefuse(t *testing.T) {
	t.Parallel()
	state, dir, ws, plug := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	abs := filepath.Join(dir, "guard.sh")
	doc := func(scope string) string {
		return `{"schema_version":1,"id":"guard","point":"tool.before","scope":"` + scope + `","handler":{"kind":"script","script":"` + abs + `"}}`
	}
	files(t, dir, map[string]string{
		"guard.sh":     allowAll,
		"global.json":  doc("global"),
		"project.json": doc("project"),
		"session.json": doc("session"),
	})
	rule := "script path is absolute"
	st := "--state-dir=" + state
	for _, name := range []string{"global.json", "project.json", "session.json"} {
		wantRefused(t, hookExec(t, nil, nil, "hook", "validate", filepath.Join(dir, name)), "validate "+name, name, "member /handler/script", rule)
	}
	wantRefused(t, hookExec(t, nil, nil, "hook", st, "add", filepath.Join(dir, "global.json")), "add", "/handler/script", rule)
	wantRefused(t, hookExec(t, nil, nil, "hook", st, "install-project", ws, filepath.Join(dir, "project.json")), "install-project", "/handler/script", rule)
	wantRefused(t, hookExec(t, nil, nil, "hook", st, "list", "--session-hooks", filepath.Join(dir, "session.json")), "list", "/handler/script", rule)

	// A plugin whose command line no program can receive (a NUL byte) used
	// to install, load and take consent; every run then failed.
	files(t, plug, map[string]string{
		"holaryn-plugin.toml": `name = "nul"`,
		"hooks.json":          `{"schema_version":1,"id":"g","point":"tool.before","handler":{"kind":"command","command":["sh","-c","a\u0000b"]}}`,
	})
	r := hookExec(t, nil, nil, "plugin", st, "install", plug)
	r.wantCode(t, 0) // installed, shown as not loaded
	wantIn(t, "plugin install: stdout", r.stdout, "state: not-loaded")
	wantIn(t, "plugin install: stdout", r.stdout, "member /handler/command/2")
	wantIn(t, "plugin install: stdout", r.stdout, "NUL byte")
}
