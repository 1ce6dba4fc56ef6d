package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Issue 50's seed requirements, black-box through the CLI (on the local
// backend: owner hooks, no engine).

// TestSeedBernsteinPlainTextIsAnAllow (Q5). Seed 003: "Stdout that is
// empty, plain text, or non-object JSON is treated as an implicit allow."
func TestSeedBernsteinPlainTextIsAnAllow(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	event := `{"event":"preToolUse","task":null,"session_id":"s","workdir":"` + dir + `","env":{},"timestamp":1.5,"data":{}}`
	for name, out := range map[string]string{
		"empty": "", "plain text": "checked 3 files", "a line that only begins with {": "{not json",
		"non-object JSON": "[1, 2]", "a number": "42",
	} {
		script := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".sh")
		os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s\\n' '"+out+"'\n"), 0o644)
		r := hookExec(t, event, "run", "--backend", "local", "--state-dir", t.TempDir(), "--dialect", "bernstein", "--script", script)
		if r.code != exitOK || strings.TrimSpace(r.stdout) != `{"decision":"allow"}` {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want an allow", name, r.code, r.stdout, r.stderr)
		}
	}
	// Still refused, not plain text: a deny Python's json wrote with a
	// NaN, and one written over several lines.
	for name, out := range map[string]string{
		"a NaN":           `{"decision":"deny","reason":"no","data":{"score":NaN}}`,
		"over four lines": "{\n  \"decision\": \"deny\",\n  \"reason\": \"no\"\n}",
	} {
		script := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".sh")
		os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s\\n' '"+out+"'\n"), 0o644)
		r := hookExec(t, event, "run", "--backend", "local", "--state-dir", t.TempDir(), "--dialect", "bernstein", "--script", script)
		if r.code == exitOK || !strings.Contains(r.stderr, "invalid_decision") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want a refused decision", name, r.code, r.stdout, r.stderr)
		}
	}
	// A deny on an earlier line still counts behind a text line that
	// begins with {.
	script := filepath.Join(dir, "deny.sh")
	os.WriteFile(script, []byte("#!/bin/sh\necho '{\"decision\":\"deny\",\"reason\":\"no\"}'\necho '{not json'\n"), 0o644)
	r := hookExec(t, event, "run", "--backend", "local", "--state-dir", t.TempDir(), "--dialect", "bernstein", "--script", script)
	if !strings.Contains(r.stdout, `"decision":"deny"`) {
		t.Errorf("a deny before text: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// TestSeedTraceMembers (J1). Seed 000: "Every attempted handler execution
// creates a versioned, redacted trace with event and execution IDs, point,
// scope, duration, decision, exit status, timeout/truncation flags, and
// safe error text."
func TestSeedTraceMembers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := filepath.Join(dir, "h.sh")
	os.WriteFile(script, []byte("#!/bin/sh\necho '{\"schema_version\":1,\"action\":\"deny\",\"reason\":\"no\"}'\n"), 0o644)
	event := `{"schema_version":1,"event_id":"e-42","timestamp":0,"point":"tool.before","session_id":"s","depth":0,"data":{}}`
	trace := filepath.Join(dir, "trace.json")
	r := hookExec(t, event, "run", "--backend", "local", "--state-dir", t.TempDir(), "--script", script, "--trace", trace)
	if r.code != exitDeny {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	var tr map[string]any
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatal(err)
	}
	for member, want := range map[string]any{"schema_version": 1.0, "event_id": "e-42", "point": "tool.before", "scope": "owner",
		"final_action": "deny", "exit_code": 0.0, "timed_out": false, "truncated": false, "reason": "no"} {
		if got, ok := tr[member]; !ok || got != want {
			t.Errorf("trace %s = %v (present %v), want %v", member, got, ok, want)
		}
	}
	for _, member := range []string{"execution_id", "duration_ms", "failure"} {
		if _, ok := tr[member]; !ok {
			t.Errorf("trace has no %s: %s", member, b)
		}
	}
}

// TestSeedRegistryDiagnostics (J7). Seed 000: "Registry changes also emit
// diagnostics with the previous and current content-addressed versions."
// Disable and enable name the hook's version and state before and after;
// trust names the digest trusted before; an id the registry does not have
// is an error, not a silent success.
func TestSeedRegistryDiagnostics(t *testing.T) {
	t.Parallel()
	state, dir := t.TempDir(), t.TempDir()
	ex := hookExec(t, "", "hook", "examples", "forbidden-paths")
	doc := filepath.Join(dir, "hook.json")
	if ex.code != exitOK || os.WriteFile(doc, []byte(ex.stdout), 0o644) != nil {
		t.Fatalf("examples: %+v", ex)
	}
	if r := hookExec(t, "", "hook", "add", doc, "--state-dir", state); r.code != exitOK {
		t.Fatalf("add: %+v", r)
	}
	list := hookExec(t, "", "hook", "list", "--json", "--state-dir", state)
	var views []struct{ ID, Version, Scope string }
	if err := json.NewDecoder(strings.NewReader(list.stdout)).Decode(&views); err != nil || len(views) != 1 {
		t.Fatalf("list: %v %q", err, list.stdout)
	}
	id, version := views[0].ID, views[0].Version
	r := hookExec(t, "", "hook", "disable", id, "--state-dir", state)
	want := "hook " + id + " (" + views[0].Scope + "): " + version + " enabled -> " + version + " disabled by hook disable"
	if r.code != exitOK || !strings.Contains(r.stderr, want) {
		t.Errorf("disable: exit %d stderr %q, want %q", r.code, r.stderr, want)
	}
	r = hookExec(t, "", "hook", "enable", id, "--state-dir", state)
	if want := version + " disabled by hook disable -> " + version + " enabled"; r.code != exitOK || !strings.Contains(r.stderr, want) {
		t.Errorf("enable: exit %d stderr %q, want %q", r.code, r.stderr, want)
	}
	r = hookExec(t, "", "hook", "disable", "no-such-id", "--state-dir", state)
	if r.code != exitFail || !strings.Contains(r.stderr, `no hook "no-such-id"`) {
		t.Errorf("disable of no such hook: exit %d stderr %q", r.code, r.stderr)
	}
	// Trust: the digest trusted before, then the new one.
	ws := t.TempDir()
	project := strings.Replace(ex.stdout, `"scope": "global"`, `"scope": "project"`, 1)
	pdoc := filepath.Join(dir, "project.json")
	os.WriteFile(pdoc, []byte(project), 0o644)
	if r := hookExec(t, "", "hook", "install-project", ws, pdoc, "--state-dir", state); r.code != exitOK {
		t.Fatalf("install-project: %+v", r)
	}
	first := hookExec(t, "", "hook", "trust", ws, "--state-dir", state)
	if first.code != exitOK || !strings.Contains(first.stdout, "(previously trusted: -)") {
		t.Fatalf("first trust: %+v", first)
	}
	digest := strings.Fields(first.stdout[strings.LastIndex(first.stdout, "trusted "):])[1]
	again := hookExec(t, "", "hook", "trust", ws, "--state-dir", state)
	if !strings.Contains(again.stdout, "trusted "+digest+" (previously trusted: "+digest+")") {
		t.Errorf("trust again: %q", again.stdout)
	}
}

// TestSeedPluginHooksListedWithConsent (L8). Seed 000: "list also returns
// a plugins group per installed plugin with its hooks and consent state."
// A pending plugin's hook is listed in hook list (table and JSON) and in
// dry-run at its point, saying it does not run.
func TestSeedPluginHooksListedWithConsent(t *testing.T) {
	t.Parallel()
	state, src := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(src, "hooks"), 0o755)
	os.WriteFile(filepath.Join(src, "holaryn-plugin.toml"), []byte("name = \"acme\"\nversion = \"1.0.0\"\n"), 0o644)
	os.WriteFile(filepath.Join(src, "hooks.json"), []byte(`[{"schema_version":1,"id":"guard","point":"tool.before","timeout_seconds":5,"handler":{"kind":"script","script":"hooks/guard.sh"}}]`), 0o644)
	os.WriteFile(filepath.Join(src, "hooks/guard.sh"), []byte("#!/bin/sh\nexit 0\n"), 0o644)
	if r := hookExec(t, "", "plugin", "--state-dir", state, "install", src); r.code != exitOK {
		t.Fatalf("plugin install: %+v", r)
	}
	r := hookExec(t, "", "hook", "list", "--state-dir", state)
	if !regexp.MustCompile(`(?m)^acme\s+guard\s+tool\.before\s+blocking\s+script:hooks/guard\.sh\s+pending$`).MatchString(r.stdout) {
		t.Errorf("hook list does not list the pending plugin's hook: %q", r.stdout)
	}
	r = hookExec(t, "", "hook", "list", "--json", "--state-dir", state)
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	var entries []any
	var plugins struct {
		Plugins []struct {
			Name    string
			Entries []struct{ ID, Point, State string }
		}
	}
	if err := dec.Decode(&entries); err != nil || dec.Decode(&plugins) != nil || len(plugins.Plugins) != 1 || len(plugins.Plugins[0].Entries) != 1 ||
		plugins.Plugins[0].Entries[0].ID != "guard" || plugins.Plugins[0].Entries[0].State != "pending" {
		t.Errorf("hook list --json: %v %+v (%q)", err, plugins, r.stdout)
	}
	r = hookExec(t, "", "hook", "dry-run", "tool.before", "--state-dir", state)
	if r.code != exitOK || !strings.Contains(r.stdout, "plugin:acme/guard") || !strings.Contains(r.stdout, "plugin pending: does not run") {
		t.Errorf("dry-run does not show the pending plugin's hook: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	// A pending plugin's hook can be turned off before its consent.
	r = hookExec(t, "", "hook", "disable", "plugin:acme/guard", "--state-dir", state)
	if r.code != exitOK || !strings.Contains(r.stderr, "plugin pending -> ") {
		t.Errorf("disable of a pending plugin's hook: exit %d %q", r.code, r.stderr)
	}
}

// TestSeedHostRunHandlerWorksInTheWorkspace (D10). Seed 000: a handler
// that runs on the host has the workspace for its working directory ("each
// entry of the PATH a host-run handler receives or sets that names its
// working directory", "the workspace"). A session command hook on the
// local backend reports where it ran.
func TestSeedHostRunHandlerWorksInTheWorkspace(t *testing.T) {
	t.Parallel()
	ws, dir := t.TempDir(), t.TempDir()
	doc := filepath.Join(dir, "session.json")
	os.WriteFile(doc, []byte(`[{"schema_version":1,"id":"where","point":"tool.before","scope":"session","handler":{"kind":"command","command":["sh","-c","printf '{\"schema_version\":1,\"action\":\"deny\",\"reason\":\"%s\"}' \"$(pwd -P)\""]}}]`), 0o644)
	event := `{"schema_version":1,"event_id":"e1","timestamp":0,"point":"tool.before","session_id":"s","depth":0,"workspace":"` + ws + `","data":{}}`
	r := hookExec(t, event, "dispatch", "tool.before", "--backend", "local", "--state-dir", t.TempDir(), "--workspace", ws, "--session-hooks", doc)
	real, _ := filepath.EvalSymlinks(ws)
	if !strings.Contains(r.stdout, `"reason":"`+real+`"`) {
		t.Errorf("the command ran elsewhere than the workspace %s: exit %d stdout %q stderr %q", real, r.code, r.stdout, r.stderr)
	}
}

// TestSeedMutationsSchemaChecked (E7). Seed 000: "Every mutation is schema
// checked and the resulting action is evaluated again by the normal
// approval, path, tool, and governance policies." An event that carries
// its tool's argument schema (data.args_schema) refuses a modify whose
// args break it; without one, the trace says the check was of the shape.
func TestSeedMutationsSchemaChecked(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := filepath.Join(dir, "rewrite.sh")
	os.WriteFile(script, []byte(`#!/bin/sh
echo '{"schema_version":1,"action":"modify","reason":"normalize","mutations":{"args":{"path":"docs/notes.md","content":"hello","overwrite":true}}}'
`), 0o644)
	schema := `{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"],"additionalProperties":false}`
	event := func(data string) string {
		return `{"schema_version":1,"event_id":"e1","timestamp":0,"point":"tool.before","session_id":"s","depth":0,"data":` + data + `}`
	}
	trace := filepath.Join(dir, "with.json")
	r := hookExec(t, event(`{"tool_name":"write_file","args":{"path":"notes.md","content":"hello"},"args_schema":`+schema+`}`),
		"run", "--backend", "local", "--state-dir", t.TempDir(), "--script", script, "--trace", trace)
	b, _ := os.ReadFile(trace)
	if r.code != exitDeny || !strings.Contains(string(b), `"kind":"invalid_decision"`) || !strings.Contains(string(b), `has \"overwrite\", which the schema does not allow`) {
		t.Errorf("a modify that breaks the tool's schema: exit %d, stdout %q, trace %s", r.code, r.stdout, b)
	}
	trace = filepath.Join(dir, "without.json")
	r = hookExec(t, event(`{"tool_name":"write_file","args":{"path":"notes.md","content":"hello"}}`),
		"run", "--backend", "local", "--state-dir", t.TempDir(), "--script", script, "--trace", trace)
	b, _ = os.ReadFile(trace)
	if r.code != exitOK || !strings.Contains(r.stdout, `"action":"modify"`) || !strings.Contains(string(b), `"mutation_check":"shape only: the event carries no data.args_schema"`) {
		t.Errorf("a modify without a schema: exit %d, stdout %q, trace %s", r.code, r.stdout, b)
	}
}

// TestSeedMaxConcurrencyAcrossCalls (C4). Seed 000: "Output, time,
// concurrency, and process-tree lifetime are bounded", a hook's
// max_concurrency among them. Two dispatch calls at once (two executors,
// as two processes would be) of a session hook with max_concurrency 1
// never run it at once: its marks never interleave, and one of them
// queued for the other.
func TestSeedMaxConcurrencyAcrossCalls(t *testing.T) {
	t.Parallel()
	ws, dir, state := t.TempDir(), t.TempDir(), t.TempDir()
	marks := filepath.Join(dir, "marks")
	doc := filepath.Join(dir, "session.json")
	cmd := `echo start >> ` + marks + `; sleep 0.4; echo end >> ` + marks + `; echo '{"schema_version":1,"action":"allow"}'`
	os.WriteFile(doc, []byte(`[{"schema_version":1,"id":"one-at-a-time","point":"tool.before","scope":"session","max_concurrency":1,"timeout_seconds":30,"handler":{"kind":"command","command":["sh","-c",`+strconv.Quote(cmd)+`]}}]`), 0o644)
	event := `{"schema_version":1,"event_id":"e1","timestamp":0,"point":"tool.before","session_id":"s","depth":0,"workspace":"` + ws + `","data":{}}`
	var wg sync.WaitGroup
	results := make([]result, 2)
	for i := range results {
		wg.Go(func() {
			results[i] = hookExec(t, event, "dispatch", "tool.before", "--backend", "local", "--state-dir", state, "--workspace", ws, "--session-hooks", doc)
		})
	}
	wg.Wait()
	queued := 0
	for _, r := range results {
		if r.code != exitOK {
			t.Fatalf("dispatch: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
		}
		var out struct {
			Traces []struct {
				Phases struct {
					Queued int64 `json:"queued"`
				} `json:"phases_ms"`
			}
		}
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || len(out.Traces) != 1 {
			t.Fatalf("dispatch's answer %q: %v", r.stdout, err)
		}
		if out.Traces[0].Phases.Queued > 0 {
			queued++
		}
	}
	if b, _ := os.ReadFile(marks); string(b) != "start\nend\nstart\nend\n" {
		t.Errorf("the runs overlapped: %q", b)
	}
	if queued == 0 {
		t.Error("neither call's trace says it queued for the other")
	}
}

// TestSeedSessionEndDrainsObservers (F4). Seed 000: "Session shutdown
// performs a bounded drain of outstanding observers." An observer a
// boundary started (in a process of its own, after the boundary's answer)
// has ended by the time the session's end is answered.
func TestSeedSessionEndDrainsObservers(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("an observe process is found by /proc, on Linux only")
	}
	ws, dir, state := t.TempDir(), t.TempDir(), t.TempDir()
	mark := filepath.Join(dir, "observed")
	doc := filepath.Join(dir, "session.json")
	cmd := `sleep 1; echo done > ` + mark + `; echo '{"schema_version":1,"action":"allow"}'`
	os.WriteFile(doc, []byte(`[{"schema_version":1,"id":"slow-observer","point":"tool.after","scope":"session","mode":"observational","timeout_seconds":30,"handler":{"kind":"command","command":["sh","-c",`+strconv.Quote(cmd)+`]}}]`), 0o644)
	event := func(point string) string {
		return `{"schema_version":1,"event_id":"e1","timestamp":0,"point":"` + point + `","session_id":"sess-drain","depth":0,"workspace":"` + ws + `","data":{}}`
	}
	args := []string{"--backend", "local", "--state-dir", state, "--workspace", ws, "--session-hooks", doc}
	if r := hookExec(t, event("tool.after"), append([]string{"dispatch", "tool.after"}, args...)...); r.code != exitOK {
		t.Fatalf("tool.after: %+v", r)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Skip("the observer ended before the session did: nothing to drain on this machine")
	}
	if r := hookExec(t, event("session.end"), append([]string{"dispatch", "session.end"}, args...)...); r.code != exitOK {
		t.Fatalf("session.end: %+v", r)
	}
	if b, err := os.ReadFile(mark); err != nil || string(b) != "done\n" {
		t.Errorf("the session ended with its observer still running: %v", err)
	}
}

// TestSeedSessionEndCutsObserversShort (F4): "a bounded drain". An
// observer still running at the session's end's bound is stopped, and
// its processes with it: none outlives the session.
func TestSeedSessionEndCutsObserversShort(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("an observe process is found by /proc, on Linux only")
	}
	ws, dir, state := t.TempDir(), t.TempDir(), t.TempDir()
	pidFile := filepath.Join(dir, "sleeper")
	doc := filepath.Join(dir, "session.json")
	cmd := `sleep 300 & echo $! > ` + pidFile + `; wait; echo '{"schema_version":1,"action":"allow"}'`
	os.WriteFile(doc, []byte(`[{"schema_version":1,"id":"endless-observer","point":"tool.after","scope":"session","mode":"observational","timeout_seconds":600,"handler":{"kind":"command","command":["sh","-c",`+strconv.Quote(cmd)+`]}}]`), 0o644)
	event := func(point string) string {
		return `{"schema_version":1,"event_id":"e1","timestamp":0,"point":"` + point + `","session_id":"sess-cut","depth":0,"workspace":"` + ws + `","data":{}}`
	}
	args := []string{"--backend", "local", "--state-dir", state, "--workspace", ws, "--session-hooks", doc}
	if r := hookExec(t, event("tool.after"), append([]string{"dispatch", "tool.after"}, args...)...); r.code != exitOK {
		t.Fatalf("tool.after: %+v", r)
	}
	r := hookExec(t, event("session.end"), append([]string{"dispatch", "session.end"}, args...)...)
	if r.code != exitOK || !strings.Contains(r.stderr, "cut 1 observer run(s) short") {
		t.Fatalf("session.end: exit %d stderr %q", r.code, r.stderr)
	}
	b, err := os.ReadFile(pidFile)
	pid, perr := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || perr != nil {
		t.Fatalf("the observer never started its sleeper: %v %v", err, perr)
	}
	// The kill is sent by then; the kernel may take a moment to reap.
	for range 100 {
		if syscall.Kill(pid, 0) != nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("the observer's process %d outlived the session's end", pid)
}

// TestSeedCircuitAcrossCalls (R1). Seed 000: "After three consecutive
// failures, the per-session circuit opens." One-shot runs of a seed
// host's hook keep its circuit in the state directory: the fourth failing
// call in a session is refused without running it. A hook of the same id
// from another file has a circuit of its own, another session too, and a
// Claude Code hook runs at every call, as Claude Code runs it.
func TestSeedCircuitAcrossCalls(t *testing.T) {
	t.Parallel()
	state, dir, other := t.TempDir(), t.TempDir(), t.TempDir()
	marks := filepath.Join(t.TempDir(), "marks")
	failing := func(dir, dialect string, exit int) string {
		script := filepath.Join(dir, "fails.sh")
		os.WriteFile(script, []byte("#!/bin/sh\necho "+dialect+" >> "+marks+"\nexit "+strconv.Itoa(exit)+"\n"), 0o644)
		return script
	}
	holaryn := func(session string) string {
		return `{"schema_version":1,"event_id":"e1","timestamp":0,"point":"tool.before","session_id":"` + session + `","depth":0,"data":{}}`
	}
	failureOf := func(r result) string {
		t.Helper()
		var tr struct {
			Failure *struct {
				Kind string `json:"kind"`
			} `json:"failure"`
		}
		line, _, _ := strings.Cut(r.stderr[strings.Index(r.stderr, `{"schema_version"`):], "\n")
		if err := json.Unmarshal([]byte(line), &tr); err != nil || tr.Failure == nil {
			t.Fatalf("no failure in the trace: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
		}
		return tr.Failure.Kind
	}
	run := func(script, event string, more ...string) result {
		return hookExec(t, event, append([]string{"run", "--backend", "local", "--state-dir", state, "--script", script, "--failure-policy", "continue", "--trace", "-"}, more...)...)
	}
	script := failing(dir, "holaryn", 3)
	for i := 1; i <= 4; i++ {
		r := run(script, holaryn("s"))
		want := "exit_nonzero"
		if i == 4 {
			want = "circuit_open"
		}
		if got := failureOf(r); got != want || r.code != exitOK {
			t.Fatalf("call %d: failure %s, exit %d; want %s, let through (continue)", i, got, r.code, want)
		}
	}
	if b, _ := os.ReadFile(marks); strings.Count(string(b), "holaryn") != 3 {
		t.Errorf("the hook ran %d times, want 3: the open circuit runs it no more", strings.Count(string(b), "holaryn"))
	}
	if got := failureOf(run(script, holaryn("s2"))); got != "exit_nonzero" {
		t.Errorf("another session: failure %s, want the hook run (exit_nonzero)", got)
	}
	if got := failureOf(run(failing(other, "holaryn", 3), holaryn("s"))); got != "exit_nonzero" {
		t.Errorf("a hook of the same id from another file: failure %s, want it run (exit_nonzero)", got)
	}
	// Claude Code runs a hook at every event: a circuit would skip it.
	claude := failing(dir+"/..", "claude", 127)
	event := `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"cwd":"` + dir + `"}`
	for i := 1; i <= 4; i++ {
		if got := failureOf(run(claude, event, "--dialect", "claude")); got != "missing_program" {
			t.Fatalf("claude call %d: failure %s, want the hook run at every call (missing_program)", i, got)
		}
	}
	if b, _ := os.ReadFile(marks); strings.Count(string(b), "claude") != 4 {
		t.Errorf("the claude hook ran %d times, want 4", strings.Count(string(b), "claude"))
	}
}

// TestSeedDisabledAcrossCalls (R1): a one-shot hook that failure_policy
// disable turned off stays off in the calls after, until `hook enable`
// with the key its warning named.
func TestSeedDisabledAcrossCalls(t *testing.T) {
	t.Parallel()
	state, dir, other := t.TempDir(), t.TempDir(), t.TempDir()
	marks := filepath.Join(dir, "marks")
	script := filepath.Join(dir, "flaky.sh")
	os.WriteFile(script, []byte("#!/bin/sh\necho ran >> "+marks+"\nexit 3\n"), 0o644)
	in := func(ws string) string {
		return `{"schema_version":1,"event_id":"e1","timestamp":0,"point":"tool.before","session_id":"s","depth":0,"workspace":"` + ws + `","data":{}}`
	}
	event := in(dir)
	run := func() result {
		return hookExec(t, event, "run", "--backend", "local", "--state-dir", state, "--script", script, "--failure-policy", "disable", "--trace", "-")
	}
	r := run()
	key := regexp.MustCompile("`hook-exec hook enable (flaky.sh@[0-9a-f]{12})` turns it back on").FindStringSubmatch(r.stderr)
	if r.code != exitOK || key == nil {
		t.Fatalf("first call: exit %d stderr %q; want it let through, naming how to enable the hook", r.code, r.stderr)
	}
	if r := run(); !strings.Contains(r.stderr, `"policy_applied":"disabled"`) || r.code != exitOK {
		t.Errorf("second call: exit %d stderr %q; want the hook disabled, not run", r.code, r.stderr)
	}
	// The same script for another project is another hook: it runs.
	r = hookExec(t, in(other), "run", "--backend", "local", "--state-dir", state, "--script", script, "--failure-policy", "continue", "--trace", "-")
	if !strings.Contains(r.stderr, `"kind":"exit_nonzero"`) {
		t.Errorf("another workspace: stderr %q; want the hook run there", r.stderr)
	}
	if r := hookExec(t, "", "hook", "list", "--state-dir", state); !strings.Contains(r.stdout, "one-shot hook "+key[1]+": disabled (failure_policy disable: exit_nonzero)") {
		t.Errorf("hook list: stdout %q; want the disabled one-shot hook named", r.stdout)
	}
	if r := hookExec(t, "", "hook", "enable", key[1], "--state-dir", state); r.code != exitOK || !strings.Contains(r.stderr, "-> enabled") {
		t.Fatalf("hook enable %s: exit %d stderr %q", key[1], r.code, r.stderr)
	}
	run()
	if b, _ := os.ReadFile(marks); string(b) != "ran\nran\nran\n" {
		t.Errorf("the hook ran %q: want once before it was disabled, once in the other project, once after enable", b)
	}
}
