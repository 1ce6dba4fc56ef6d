package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/host/dispatch"
	"github.com/hookexec/hook-exec/host/registry"
)

// dispatchOut is what `hook-exec dispatch` prints.
type dispatchOut struct {
	Decision hook.Decision   `json:"decision"`
	Event    json.RawMessage `json:"event"`
	Traces   []hook.Trace    `json:"traces"`
}

func dispatchCLI(t *testing.T, event []byte, args ...string) (cliResult, dispatchOut) {
	t.Helper()
	r := hookExec(t, event, nil, append([]string{"dispatch", "tool.before"}, args...)...)
	var out dispatchOut
	if r.code == 0 || r.code == 2 || r.code == 3 {
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatalf("dispatch stdout is not a result: %q (stderr %q)", r.stdout, r.stderr)
		}
	}
	return r, out
}

// denyAs is a hook that denies with reason name.
func denyAs(name string) string {
	return `cat >/dev/null; echo '{"schema_version":1,"action":"deny","reason":"` + name + `"}'`
}

func TestDispatchCLIOverrideAcrossOwnerScopes(t *testing.T) {
	t.Parallel()
	eng := engines(t)[0] // the CLI's default engine
	timeout := hookTimeout(t, eng)
	state, ws, dir := t.TempDir(), t.TempDir(), t.TempDir()
	files(t, dir, map[string]string{"global.sh": denyAs("global"), "profile.sh": denyAs("profile"), "session.sh": denyAs("session")})
	files(t, ws, map[string]string{"project.sh": denyAs("project")})
	docs := map[string]string{
		"global.json":  definition("tag", "global", 0, "global.sh", timeout, ""),
		"profile.json": definition("tag", "profile", 0, "profile.sh", timeout, ""),
		"project.json": definition("tag", "project", 0, "project.sh", timeout, ""),
		"session.json": definition("tag", "session", 0, "session.sh", timeout, ""),
	}
	files(t, dir, docs)
	st := "--state-dir=" + state
	event := writeEventFor(ws, "sess_scopes", "a.md")
	reason := func(step string, args ...string) {
		t.Helper()
		r, out := dispatchCLI(t, event, append([]string{st}, args...)...)
		if r.code != 2 {
			t.Fatalf("%s: exit %d, want 2 (deny); stderr %q", step, r.code, r.stderr)
		}
		if out.Decision.Reason != step {
			t.Errorf("%s: the hook that ran was %q's", step, out.Decision.Reason)
		}
		if len(out.Traces) != 1 {
			t.Errorf("%s: %d hooks ran, want 1: one id, one hook", step, len(out.Traces))
		}
	}
	mustCLI := func(args ...string) {
		t.Helper()
		if r := hookExec(t, nil, nil, append([]string{"hook", st}, args...)...); r.code != 0 {
			t.Fatalf("hook %s: exit %d: %s", strings.Join(args, " "), r.code, r.stderr)
		}
	}
	mustCLI("add", filepath.Join(dir, "global.json"))
	reason("global")
	mustCLI("add", filepath.Join(dir, "profile.json"), "--profile", "review")
	reason("profile", "--profile", "review")
	mustCLI("install-project", ws, filepath.Join(dir, "project.json"))
	reason("profile", "--profile", "review", "--workspace", ws) // written, not trusted: it does not run
	mustCLI("trust", ws)
	reason("project", "--profile", "review", "--workspace", ws)
	reason("session", "--profile", "review", "--workspace", ws, "--session-hooks", filepath.Join(dir, "session.json"))
}

func TestDispatchCLIRefusesPluginIDInOwnerDocument(t *testing.T) {
	t.Parallel()
	requireEngines(t)
	state, dir := t.TempDir(), t.TempDir()
	files(t, dir, map[string]string{
		"allow.sh":     allowAll,
		"session.json": definition("plugin:acme/guard", "session", 0, "allow.sh", 10*time.Second, ""),
	})
	doc := filepath.Join(dir, "session.json")
	v := hookExec(t, nil, nil, "hook", "validate", doc)
	if v.code != 1 {
		t.Errorf("validate: exit %d, want 1", v.code)
	}
	if !strings.Contains(v.stderr, "plugin namespace") {
		t.Errorf("validate: stderr %q does not say the plugin namespace is refused", v.stderr)
	}
	r, _ := dispatchCLI(t, writeEventFor("/w", "sess_ns", "a.md"), "--state-dir="+state, "--session-hooks", doc)
	// Nothing runs from a document that does not validate, and the
	// boundary is refused: a host never reads that as "go on".
	if r.code != 2 {
		t.Errorf("dispatch: exit %d, want 2", r.code)
	}
	if !strings.Contains(r.stdout, `"action":"deny"`) {
		t.Errorf("dispatch: stdout %q, want a deny", r.stdout)
	}
	if !strings.Contains(r.stderr, "/id") {
		t.Errorf("dispatch: stderr %q does not name the member", r.stderr)
	}
	if a := hookExec(t, nil, nil, "hook", "--state-dir="+state, "add", doc); a.code != 1 {
		t.Errorf("add: exit %d, want 1", a.code)
	}
}

func TestDispatchCLICircuitAcrossProcesses(t *testing.T) {
	t.Parallel()
	eng := engines(t)[0]
	timeout := hookTimeout(t, eng)
	state, dir := t.TempDir(), t.TempDir()
	files(t, dir, map[string]string{
		"fail.sh":      `cat >/dev/null; exit 1`,
		"session.json": definition("flaky", "session", 0, "fail.sh", timeout, `,"failure_policy":"continue"`),
	})
	var kinds []hook.FailureKind
	for i := range 4 {
		// One process per boundary, as a host that shells out would run it.
		r, out := dispatchCLI(t, writeEventFor("/w", "sess_circuit", "a.md"), "--state-dir="+state, "--session-hooks", filepath.Join(dir, "session.json"))
		if r.code != 0 {
			t.Fatalf("dispatch %d: exit %d, want 0 (failure_policy continue); stderr %q", i+1, r.code, r.stderr)
		}
		if len(out.Traces) != 1 || out.Traces[0].Failure == nil {
			t.Fatalf("dispatch %d: traces %+v, want one failed run", i+1, out.Traces)
		}
		kinds = append(kinds, out.Traces[0].Failure.Kind)
	}
	want := []hook.FailureKind{hook.FailExitNonzero, hook.FailExitNonzero, hook.FailExitNonzero, hook.FailCircuitOpen}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("failure kinds of four dispatch processes in one session (-want +got):\n%s", diff)
	}
	// Another session's circuit is its own.
	_, out := dispatchCLI(t, writeEventFor("/w", "sess_other", "a.md"), "--state-dir="+state, "--session-hooks", filepath.Join(dir, "session.json"))
	if len(out.Traces) != 1 || out.Traces[0].Failure == nil || out.Traces[0].Failure.Kind != hook.FailExitNonzero {
		t.Errorf("another session: traces %+v, want the hook run (exit_nonzero)", out.Traces)
	}
}

func TestDispatchDisableTakesEffectAtNextBoundary(t *testing.T) {
	t.Parallel()
	eng := engines(t)[1]
	cold := coldLatency(t, eng)
	timeout := hookTimeout(t, eng)
	state, dir := t.TempDir(), t.TempDir()
	// Long enough that the next boundary comes while it runs.
	slow := 2*time.Second + 3*cold
	files(t, dir, map[string]string{"slow.sh": `cat >/dev/null; sleep ` + seconds(slow) + `; echo '{"schema_version":1,"action":"deny","reason":"slow guard"}'`})
	if _, err := registry.Add(state, mustDefs(t, definition("slow", "global", 0, "slow.sh", timeout+slow, "")), dir); err != nil {
		t.Fatal(err)
	}
	d, _ := dispatch.New(dispatch.Options{Executor: newExecutor(t, eng.b, eng.refs)})
	first, err := registry.Take(registry.Sources{StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	type outcome struct {
		res *dispatch.Result
		err error
		at  time.Time
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := d.Dispatch(context.Background(), first, "tool.before", writeEventFor("/w", "sess_dis", "a.md"))
		done <- outcome{res, err, time.Now()}
	}()
	if err := registry.SetDisabled(state, "slow", "disabled by hook disable"); err != nil {
		t.Fatal(err)
	}
	disabledAt := time.Now()
	next, err := registry.Take(registry.Sources{StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	res, err := d.Dispatch(context.Background(), next, "tool.before", writeEventFor("/w", "sess_dis", "b.md"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Decision.Action != hook.Allow || len(res.Traces) != 0 {
		t.Errorf("next boundary: %s with %d runs, want allow with none", res.Decision.Action, len(res.Traces))
	}
	o := <-done
	if o.err != nil {
		t.Fatal(o.err)
	}
	if !o.at.After(disabledAt) {
		t.Fatal("the first boundary ended before the disable: nothing was in flight")
	}
	if o.res.Decision.Action != hook.Deny || o.res.Decision.Reason != "slow guard" {
		t.Errorf("the run in flight answered %s %q, want its own deny: a disable does not disturb it", o.res.Decision.Action, o.res.Decision.Reason)
	}
	if len(o.res.Traces) == 1 && o.res.Traces[0].Failure != nil {
		t.Errorf("the run in flight failed: %+v", o.res.Traces[0].Failure)
	}
}

// seconds is d as sleep(1) takes it.
func seconds(d time.Duration) string { return fmt.Sprintf("%.2f", d.Seconds()) }

// Issue 31: dispatch held the host's answer until every observational hook
// had finished (4.1 s for a 4 s observer). The answer now comes at once and
// the observer runs on in a process of its own (`hook-exec observe`), its
// trace in the store when it is done, and that process gone after it.
func TestDispatchAnswersBeforeObservers(t *testing.T) {
	t.Parallel()
	eng := engines(t)[0]
	cold := coldLatency(t, eng)
	timeout := hookTimeout(t, eng)
	// Longer than a cold run by far, so that waiting for it would show.
	sleep := max(4*time.Second, 8*cold)
	state, dir := t.TempDir(), t.TempDir()
	files(t, dir, map[string]string{
		"allow.sh": allowAll,
		"slow.sh":  fmt.Sprintf(`cat >/dev/null; sleep %s; echo '{"schema_version":1,"action":"allow"}'`, seconds(sleep)),
		"session.json": "[" + definition("guard", "session", 0, "allow.sh", timeout, "") + "," +
			definition("slow-observer", "session", 1, "slow.sh", timeout+sleep, `,"mode":"observational","failure_policy":"warn"`) + "]",
	})
	begin := time.Now()
	r, out := dispatchCLI(t, writeEventFor("/w", "sess_observe", "a.md"), "--state-dir="+state, "--session-hooks", filepath.Join(dir, "session.json"))
	took := time.Since(begin)
	if r.code != 0 || out.Decision.Action != hook.Allow || len(out.Traces) != 1 {
		t.Fatalf("dispatch: exit %d, %+v; stderr %q", r.code, out, r.stderr)
	}
	if took >= sleep {
		t.Errorf("dispatch answered after %v: it waited for the %v observer", took, sleep)
	}
	// The observer's trace reaches the store once it is done.
	deadline := time.Now().Add(sleep + timeout + 20*cold)
	var found cliResult
	for time.Now().Before(deadline) {
		found = hookExec(t, nil, nil, "traces", "--state-dir", state, "--hook-id", "slow-observer", "--json")
		if strings.Contains(found.stdout, `"hook_id":"slow-observer"`) {
			break
		}
		time.Sleep(cold)
	}
	wantIn(t, "the observer's trace", found.stdout, `"final_action":"allow"`)
	if strings.Contains(found.stdout, `"failure"`) && !strings.Contains(found.stdout, `"failure":null`) {
		t.Errorf("the observer failed: %s", found.stdout)
	}
	// Its process ends with it.
	for time.Now().Before(deadline) {
		if !observerRunning(state) {
			return
		}
		time.Sleep(cold)
	}
	t.Errorf("hook-exec observe for %s still runs", state)
}

// observerRunning reports whether a `hook-exec observe` process for the
// state directory runs.
func observerRunning(state string) bool {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(b), "observe\x00--state-dir\x00"+state+"\x00") {
			return true
		}
	}
	return false
}
