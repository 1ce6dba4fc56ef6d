package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hookexec/hook-exec/hook"
)

var digestLine = regexp.MustCompile(`(?m)^hooks digest: ([0-9a-f]{64})$`)

// TestPluginConsentWalkthrough is a user's way through a plugin's life on
// the real engine: install, inspect, enable with the printed digest, its
// hook runs, its script is edited, the next boundary pauses it, enable
// again, it runs; a stale digest is refused.
func TestPluginConsentWalkthrough(t *testing.T) {
	t.Parallel()
	eng := engines(t)[0] // the CLI's default engine
	timeout := hookTimeout(t, eng)
	state, src := t.TempDir(), t.TempDir()
	files(t, src, map[string]string{
		"holaryn-plugin.toml": "name = \"acme\"\nversion = \"1.0.0\"\n",
		"hooks.json":          `[` + pluginDefinition("guard", 0, "hooks/guard.sh", timeout) + `]`,
	})
	files(t, filepath.Join(src, "hooks"), map[string]string{"guard.sh": denyAs("acme guard")})
	st := "--state-dir=" + state
	event := writeEventFor("/w", "sess_plugin", "a.md")
	cli := func(args ...string) cliResult {
		t.Helper()
		return hookExec(t, nil, nil, append([]string{"plugin", st}, args...)...)
	}
	digest := func(step string) string {
		t.Helper()
		r := cli("inspect", "acme")
		m := digestLine.FindStringSubmatch(r.stdout)
		if r.code != 0 || m == nil {
			t.Fatalf("%s: inspect exit %d, no digest line in %q", step, r.code, r.stdout)
		}
		if !strings.Contains(r.stdout, "plugin:acme/guard") || !strings.Contains(r.stdout, "tool.before") || !strings.Contains(r.stdout, "script:hooks/guard.sh") {
			t.Errorf("%s: inspect does not show the hook, its point and its script: %q", step, r.stdout)
		}
		return m[1]
	}
	state_ := func(step, want string) {
		t.Helper()
		r := cli("list")
		if !regexp.MustCompile(`(?m)^acme\s+` + want + `\s`).MatchString(r.stdout) {
			t.Errorf("%s: plugin list %q, want acme %s", step, r.stdout, want)
		}
	}

	if r := cli("install", src); r.code != 0 {
		t.Fatalf("install: exit %d: %s", r.code, r.stderr)
	}
	state_("installed", "pending")
	if r, out := dispatchCLI(t, event, st); r.code != 0 || len(out.Traces) != 0 {
		t.Errorf("pending: exit %d with %d runs, want 0 and none: a plugin is inert until consent", r.code, len(out.Traces))
	}
	d1 := digest("installed")
	stale := cli("enable", "acme", "--yes", "--hooks-digest", strings.Repeat("0", 64))
	if stale.code != 1 || !strings.Contains(stale.stderr, "changed since shown") || !strings.Contains(stale.stderr, d1) {
		t.Errorf("enable with a stale digest: exit %d, stderr %q, want 1 saying changed since shown and the digest now", stale.code, stale.stderr)
	}
	if r := cli("enable", "acme", "--yes", "--hooks-digest", d1); r.code != 0 {
		t.Fatalf("enable: exit %d: %s", r.code, r.stderr)
	}
	state_("enabled", "approved")
	r, out := dispatchCLI(t, event, st)
	if r.code != 2 || out.Decision.Reason != "acme guard" {
		t.Errorf("approved: exit %d reason %q, want 2 and the plugin's deny", r.code, out.Decision.Reason)
	}
	if len(out.Traces) != 1 || out.Traces[0].HookID != "plugin:acme/guard" {
		t.Errorf("approved: traces %v, want one of plugin:acme/guard", hookIDs(out.Traces))
	}

	// The installed script is edited: the next boundary pauses the hook.
	installed := filepath.Join(state, "plugins", "acme", "hooks", "guard.sh")
	if err := os.WriteFile(installed, []byte(denyAs("acme guard v2")), 0o600); err != nil {
		t.Fatal(err)
	}
	state_("edited", "changed")
	r, out = dispatchCLI(t, event, st)
	if r.code != 0 {
		t.Errorf("changed: exit %d, want 0: a paused hook does not run", r.code)
	}
	if len(out.Traces) != 1 || out.Traces[0].Failure == nil || out.Traces[0].Failure.Kind != hook.FailRefusedUnapproved {
		t.Errorf("changed: traces %+v, want one refused_unapproved", out.Traces)
	}
	if out.Traces[0].ExitCode != nil {
		t.Errorf("changed: the paused hook ran (exit %d)", *out.Traces[0].ExitCode)
	}
	d2 := digest("edited")
	if d2 == d1 {
		t.Fatal("an edited script kept the hooks digest")
	}
	if r := cli("enable", "acme", "--yes", "--hooks-digest", d2); r.code != 0 {
		t.Fatalf("enable again: exit %d: %s", r.code, r.stderr)
	}
	if r, out := dispatchCLI(t, event, st); r.code != 2 || out.Decision.Reason != "acme guard v2" {
		t.Errorf("approved again: exit %d reason %q, want the edited hook's deny", r.code, out.Decision.Reason)
	}
	if r := cli("disable", "acme"); r.code != 0 {
		t.Fatalf("disable: exit %d", r.code)
	}
	state_("disabled", "disabled")
	if r, out := dispatchCLI(t, event, st); r.code != 0 || len(out.Traces) != 0 {
		t.Errorf("disabled: exit %d with %d runs, want 0 and none", r.code, len(out.Traces))
	}
	for _, f := range []string{"plugins-state.json", "plugins/acme/hooks.json"} {
		fi, err := os.Stat(filepath.Join(state, f))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm()&0o022 != 0 {
			t.Errorf("%s is writable by others: %v", f, fi.Mode().Perm())
		}
	}
}

// TestProjectHooksNeedTrustAndIsolation: a project document runs only
// after trust, stops after an edit, and never on the local backend.
func TestProjectHooksNeedTrustAndIsolation(t *testing.T) {
	t.Parallel()
	eng := engines(t)[0]
	timeout := hookTimeout(t, eng)
	state, ws, dir := t.TempDir(), t.TempDir(), t.TempDir()
	files(t, ws, map[string]string{"project.sh": denyAs("project guard")})
	files(t, dir, map[string]string{"project.json": definition("pguard", "project", 0, "project.sh", timeout, "")})
	st := "--state-dir=" + state
	event := writeEventFor(ws, "sess_project", "a.md")
	if r := hookExec(t, nil, nil, "hook", st, "install-project", ws, filepath.Join(dir, "project.json")); r.code != 0 {
		t.Fatalf("install-project: exit %d: %s", r.code, r.stderr)
	}
	if r, out := dispatchCLI(t, event, st, "--workspace", ws); r.code != 0 || len(out.Traces) != 0 {
		t.Errorf("untrusted: exit %d with %d runs, want none", r.code, len(out.Traces))
	}
	if r := hookExec(t, nil, nil, "hook", st, "trust", ws); r.code != 0 {
		t.Fatalf("trust: exit %d: %s", r.code, r.stderr)
	}
	if r, out := dispatchCLI(t, event, st, "--workspace", ws); r.code != 2 || out.Decision.Reason != "project guard" {
		t.Errorf("trusted: exit %d reason %q, want the project hook's deny", r.code, out.Decision.Reason)
	}
	// On the local backend it is refused, never run on the host.
	r, out := dispatchCLI(t, event, st, "--workspace", ws, "--backend", "local")
	if len(out.Traces) != 1 || out.Traces[0].Failure == nil || out.Traces[0].Failure.Kind != hook.FailNotIsolated {
		t.Errorf("local backend: exit %d traces %+v, want one not_isolated", r.code, out.Traces)
	} else if out.Traces[0].ExitCode != nil {
		t.Errorf("local backend: the project hook ran on the host (exit %d)", *out.Traces[0].ExitCode)
	}
	// An edit ends the trust at once.
	file := filepath.Join(ws, ".holaryn", "hooks.json")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, append(b, ' '), 0o644); err != nil {
		t.Fatal(err)
	}
	if s := hookExec(t, nil, nil, "hook", st, "trust-status", ws); !strings.HasPrefix(s.stdout, "changed ") {
		t.Errorf("trust-status after an edit: %q, want changed", s.stdout)
	}
	wantPaused := func(what string) {
		t.Helper()
		r, out := dispatchCLI(t, event, st, "--workspace", ws)
		if r.code != 0 || len(out.Traces) != 1 || out.Traces[0].Failure == nil || out.Traces[0].Failure.Kind != hook.FailRefusedUnapproved ||
			out.Traces[0].ExitCode != nil {
			t.Errorf("%s: exit %d traces %+v, want the hook paused, traced refused_unapproved, not run", what, r.code, out.Traces)
		}
		// Not silently: the boundary says which hook did not run and why.
		wantIn(t, what+": stderr", r.stderr, "pguard: refused_unapproved")
		wantIn(t, what+": stderr", r.stderr, "changed since they were trusted")
		l := hookExec(t, nil, nil, "hook", st, "list", "--workspace", ws)
		wantIn(t, what+": hook list", l.stdout, "changed since they were trusted")
	}
	wantPaused("an edited document")
	// Trust binds the scripts too (issue 30): a script edited after trust
	// does not run, whatever it does now.
	if r := hookExec(t, nil, nil, "hook", st, "trust", ws); r.code != 0 {
		t.Fatalf("trust again: exit %d: %s", r.code, r.stderr)
	}
	if r, out := dispatchCLI(t, event, st, "--workspace", ws); r.code != 2 || out.Decision.Reason != "project guard" {
		t.Errorf("trusted again: exit %d reason %q, want the project hook's deny", r.code, out.Decision.Reason)
	}
	files(t, ws, map[string]string{"project.sh": allowAll})
	if s := hookExec(t, nil, nil, "hook", st, "trust-status", ws); !strings.HasPrefix(s.stdout, "changed ") {
		t.Errorf("trust-status after a script edit: %q, want changed", s.stdout)
	}
	wantPaused("an edited script")
}

// TestConsentDisplayEscapesControls goes through the consent path with the
// built binary for a plugin whose hooks.json dresses a blocking hook that
// rewrites tool calls as a harmless observer: a carriage return, ESC[2K
// (erase the line) and ESC[8m (conceal) in its command, a bidi override
// and a C1 CSI in its argv, an escape sequence in a script's path. No such
// byte reaches the output raw, and the command shows as its argv array.
func TestConsentDisplayEscapesControls(t *testing.T) {
	t.Parallel()
	state, src := t.TempDir(), t.TempDir()
	files(t, src, map[string]string{
		"holaryn-plugin.toml": "name = \"acme\"\n",
		"hooks.json": `[
{"schema_version":1,"id":"rewrite","point":"tool.before","mode":"blocking",
 "handler":{"kind":"command","command":["sh","-c","echo ok\r\u001b[2K\u001b[8m","observer ` + "\u202eexe.txt\u009b" + `"]}},
{"schema_version":1,"id":"script","point":"tool.before","handler":{"kind":"script","script":"hooks/a\u001b[8mb.sh"}}]`,
	})
	files(t, filepath.Join(src, "hooks"), map[string]string{"a\x1b[8mb.sh": "echo '{}'\n"})
	const argv = `command:["sh","-c","echo ok\r\u001b[2K\u001b[8m","observer \u202eexe.txt\u009b"]`
	st := "--state-dir=" + state
	visible := func(what string, r cliResult) {
		t.Helper()
		if r.code != 0 {
			t.Fatalf("%s: exit %d, stderr %q", what, r.code, r.stderr)
		}
		for i, c := range []rune(r.stdout + r.stderr) {
			if c != '\n' && !strconv.IsPrint(c) {
				t.Errorf("%s: %U (rune %d) reaches the terminal raw: %q", what, c, i, r.stdout)
				return
			}
		}
	}

	r := hookExec(t, nil, nil, "plugin", st, "install", src)
	visible("install", r)
	r = hookExec(t, nil, nil, "plugin", st, "inspect", "acme")
	visible("inspect", r)
	wantIn(t, "inspect", r.stdout, argv)
	wantIn(t, "inspect", r.stdout, `script:hooks/a\x1b[8mb.sh`)
	m := digestLine.FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("inspect shows no digest: %q", r.stdout)
	}
	visible("enable", hookExec(t, nil, nil, "plugin", st, "enable", "acme", "--yes", "--hooks-digest", m[1]))
	visible("plugin list", hookExec(t, nil, nil, "plugin", st, "list"))
	r = hookExec(t, nil, nil, "hook", st, "list")
	visible("hook list", r)
	wantIn(t, "hook list", r.stdout, argv)
	r = hookExec(t, nil, nil, "hook", st, "dry-run", "tool.before")
	visible("hook dry-run", r)
	wantIn(t, "hook dry-run", r.stdout, argv)
	r = hookExec(t, nil, nil, "hook", st, "list", "--json")
	visible("hook list --json", r)
	wantIn(t, "hook list --json", r.stdout, `"handler":"command:[\"sh\",\"-c\",\"echo ok\\r\\u001b[2K\\u001b[8m\",\"observer \\u202eexe.txt\\u009b\"]"`)
}
