package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hookexec/hook-exec/hook"
)

// TestHostileNotificationTemplates: the hostile notification
// messages, through the CLI as a user meets them. A plugin's nested ranges
// over numbers are refused at install, the rule named. A plugin's printf
// that pads by the event's length and an owner's nested ranges (an owner's
// message may hold them) load, run at a boundary and fail at their bounds:
// the dispatch answers well within the hooks' timeout and each trace names
// the bound. Before the bounds the ranges ran for minutes in hook-exec's
// own process, past the timeout.
func TestHostileNotificationTemplates(t *testing.T) {
	t.Parallel()
	eng := engines(t)[0] // the CLI's default engine: a plugin's builtin runs only in an isolated session
	timeout := hookTimeout(t, eng)
	state := t.TempDir()
	st := "--state-dir=" + state
	notification := func(id, scope, message string) string {
		if scope != "" {
			scope = `"scope":"` + scope + `",`
		}
		return fmt.Sprintf(`{"schema_version":1,"id":%q,%s"point":"tool.before","mode":"observational","timeout_seconds":%g,`+
			`"handler":{"kind":"builtin","builtin":"notification","options":{"message":%q}}}`, id, scope, timeout.Seconds(), message)
	}
	const loops = `{{range 100000}}{{range 100000}}{{end}}{{end}}`
	plugin := func(name, hooks string) cliResult {
		t.Helper()
		src := files(t, t.TempDir(), map[string]string{"holaryn-plugin.toml": "name = \"" + name + "\"\n", "hooks.json": hooks})
		return hookExec(t, nil, nil, "plugin", st, "install", src)
	}

	r := plugin("loops", notification("loops", "", loops))
	if !regexp.MustCompile(`(?m)^state: not-loaded$`).MatchString(r.stdout) || !strings.Contains(r.stdout, "range over 100000: a project or plugin message ranges only over a field of the event") {
		t.Errorf("install: exit %d stdout %q, want not-loaded naming the range over a number", r.code, r.stdout)
	}

	if r := plugin("pad", notification("pad", "", `{{printf "%0*d" (len .data.args.path) 0}}`)); r.code != 0 {
		t.Fatalf("install pad: exit %d: %s", r.code, r.stderr)
	}
	m := digestLine.FindStringSubmatch(hookExec(t, nil, nil, "plugin", st, "inspect", "pad").stdout)
	if m == nil {
		t.Fatal("inspect pad: no hooks digest")
	}
	if r := hookExec(t, nil, nil, "plugin", st, "enable", "pad", "--yes", "--hooks-digest", m[1]); r.code != 0 {
		t.Fatalf("enable pad: exit %d: %s", r.code, r.stderr)
	}
	owner := files(t, t.TempDir(), map[string]string{"loops.json": notification("loops", "global", loops)})
	if r := hookExec(t, nil, nil, "hook", st, "add", owner+"/loops.json"); r.code != 0 {
		t.Fatalf("hook add: exit %d: %s", r.code, r.stderr)
	}

	// Killed at twice the timeout: before the bounds it ran for minutes.
	ctx, cancel := context.WithTimeout(context.Background(), 2*timeout)
	defer cancel()
	path := strings.Repeat("a", 297) + ".md" // 300 bytes: the width printf would pad to
	cmd := exec.CommandContext(ctx, cli(t), "dispatch", "tool.before", st)
	cmd.Stdin = bytes.NewReader(writeEventFor("/w", "sess_notify", path))
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	stdout, err := cmd.Output()
	elapsed := time.Since(start)
	if ctx.Err() != nil {
		t.Fatalf("dispatch still ran after %v, twice the hooks' timeout: killed", elapsed)
	}
	var out dispatchOut
	if err != nil || json.Unmarshal(stdout, &out) != nil || out.Decision.Action != hook.Allow {
		t.Errorf("dispatch: %v, stdout %q; want exit 0 and allow: observers cannot decide", err, stdout)
	}
	t.Logf("dispatch with the two hostile observers answered in %v (hooks' timeout %v)", elapsed, timeout)
	if elapsed >= timeout {
		t.Errorf("dispatch answered after %v, not within the hooks' %v timeout", elapsed, timeout)
	}
	for id, bound := range map[string]string{
		"plugin:pad/pad": "printf: width 300, more than 256",
		"loops":          "ran more than 1000 steps",
	} {
		tr := hookExec(t, nil, nil, "traces", st, "--hook-id", id, "--json")
		var got hook.Trace
		if err := json.Unmarshal([]byte(strings.SplitN(tr.stdout, "\n", 2)[0]), &got); err != nil {
			t.Errorf("%s: no trace (%q)", id, tr.stdout)
			continue
		}
		if f := got.Failure; f == nil || f.Kind != hook.FailBuiltin || !strings.Contains(f.Message, bound) {
			t.Errorf("%s: failure %+v, want builtin_error naming %q", id, f, bound)
		}
	}
}
