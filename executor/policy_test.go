package executor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/hook"
)

func TestCircuitOpensOnThirdFailureAndClosesOnSuccess(t *testing.T) {
	t.Parallel()
	f := &fakeBackend{out: backend.Outcome{ExitCode: 1}}
	ex, _ := New(Options{Backend: f, CircuitCooldown: time.Minute})
	// The circuits' clock is the test's: a slow machine cannot turn the
	// cool-down into a flake.
	var clockMu sync.Mutex
	clock := time.Now()
	ex.now = func() time.Time { clockMu.Lock(); defer clockMu.Unlock(); return clock }
	h := newHook(t, "echo\n")
	h.FailurePolicy = hook.PolicyContinue
	kinds := func(n int) []hook.FailureKind {
		var ks []hook.FailureKind
		for range n {
			r, err := ex.Run(context.Background(), h, []byte(event))
			if err != nil {
				t.Fatal(err)
			}
			ks = append(ks, r.Trace.Failure.Kind)
		}
		return ks
	}
	got := kinds(5)
	want := []hook.FailureKind{hook.FailExitNonzero, hook.FailExitNonzero, hook.FailExitNonzero, hook.FailCircuitOpen, hook.FailCircuitOpen}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("failure kinds of 5 runs (-want +got):\n%s", diff)
	}
	if len(f.runs) != 3 {
		t.Fatalf("launches = %d, want 3", len(f.runs))
	}
	if st := ex.Stats(); st.CircuitsOpened != 1 || st.CircuitsOpen != 1 {
		t.Errorf("Stats: %d circuits opened, %d open; want the one (not again for the runs it refused), open", st.CircuitsOpened, st.CircuitsOpen)
	}
	// Another session's circuit is its own.
	other := strings.Replace(event, `"session_id":"s1"`, `"session_id":"s2"`, 1)
	if r, _ := ex.Run(context.Background(), h, []byte(other)); r.Trace.Failure.Kind != hook.FailExitNonzero {
		t.Fatalf("session s2 saw %s", r.Trace.Failure.Kind)
	}
	// After the cool-down one trial runs; its success closes the circuit.
	clockMu.Lock()
	clock = clock.Add(time.Minute)
	clockMu.Unlock()
	f.mu.Lock()
	f.out = backend.Outcome{Stdout: []byte(`{"schema_version":1,"action":"allow"}`)}
	hold := make(chan struct{})
	f.hold = hold // the trial stays in flight until released
	launches := len(f.runs)
	f.mu.Unlock()
	trial := make(chan *Result, 1)
	go func() {
		r, _ := ex.Run(context.Background(), h, []byte(event))
		trial <- r
	}()
	for {
		f.mu.Lock()
		n := f.inFlight
		f.mu.Unlock()
		if n == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	// While the trial is in flight, the circuit stays open to every other run.
	for i := range 4 {
		if r, _ := ex.Run(context.Background(), h, []byte(event)); r.Trace.Failure == nil || r.Trace.Failure.Kind != hook.FailCircuitOpen {
			t.Fatalf("run %d beside the trial: %+v, want circuit_open", i, r.Trace.Failure)
		}
	}
	f.mu.Lock()
	f.hold = nil
	f.mu.Unlock()
	close(hold)
	if r := <-trial; r.Trace.Failure != nil {
		t.Fatalf("the trial: %+v", r.Trace.Failure)
	}
	f.mu.Lock()
	trials := len(f.runs) - launches
	f.mu.Unlock()
	if trials != 1 {
		t.Fatalf("%d launches while half-open, want exactly one trial", trials)
	}
	for i := range 3 {
		r, _ := ex.Run(context.Background(), h, []byte(event))
		if r.Trace.Failure != nil {
			t.Fatalf("run %d after the trial: %+v", i, r.Trace.Failure)
		}
	}
	if st := ex.Stats(); st.CircuitsOpen != 0 || st.CircuitsOpened != 1 {
		t.Errorf("Stats after the trial closed it: %d open, %d opened; want 0 and 1", st.CircuitsOpen, st.CircuitsOpened)
	}
}

func TestUntrustedHooksNeedIsolation(t *testing.T) {
	t.Parallel()
	for _, scope := range []hook.Scope{hook.ScopePlugin, hook.ScopeProject, hook.ScopeOwner} {
		f := &fakeBackend{local: true, out: backend.Outcome{Stdout: []byte(`{"schema_version":1,"action":"allow"}`)}}
		h := newHook(t, "echo\n")
		h.Scope = scope
		if scope == hook.ScopePlugin {
			h.SHA256 = sha256Hex("echo\n") // approved: what is refused is the backend
		}
		r := run(t, f, h, event)
		if scope == hook.ScopeOwner {
			if r.Trace.Failure != nil {
				t.Errorf("owner hook on a local backend: failure = %+v, want none", r.Trace.Failure)
			}
			if len(f.runs) != 1 {
				t.Errorf("owner hook on a local backend: launches = %d, want 1", len(f.runs))
			}
			continue
		}
		if r.Trace.Failure == nil || r.Trace.Failure.Kind != hook.FailNotIsolated {
			t.Errorf("%s hook on a local backend: failure = %+v, want kind %s", scope, r.Trace.Failure, hook.FailNotIsolated)
		}
		if len(f.runs) != 0 {
			t.Errorf("%s hook on a local backend: launches = %d, want 0", scope, len(f.runs))
		}
		if r.Decision.Action != hook.Deny {
			t.Errorf("%s hook on a local backend: action = %q, want %q", scope, r.Decision.Action, hook.Deny)
		}
	}
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestPluginHookNeedsApproval(t *testing.T) {
	t.Parallel()
	f := &fakeBackend{out: backend.Outcome{Stdout: []byte(`{"schema_version":1,"action":"allow"}`)}}
	h := newHook(t, "echo\n")
	h.Scope = hook.ScopePlugin
	r := run(t, f, h, event)
	if r.Trace.Failure == nil || r.Trace.Failure.Kind != hook.FailRefusedUnapproved {
		t.Errorf("plugin hook without a digest: failure %+v, want refused_unapproved", r.Trace.Failure)
	}
	if len(f.runs) != 0 {
		t.Errorf("%d launches of an unapproved plugin hook, want 0", len(f.runs))
	}
	if r.Decision.Action != hook.Deny {
		t.Errorf("action %s, want deny (failure_policy deny)", r.Decision.Action)
	}
	h.SHA256 = sha256Hex("echo\n")
	if r := run(t, f, h, event); r.Trace.Failure != nil {
		t.Errorf("approved plugin hook: failure %+v", r.Trace.Failure)
	}
	h.Env = map[string]string{"MODE": "strict"}
	ex, _ := New(Options{Backend: f})
	if _, err := ex.Run(context.Background(), h, []byte(event)); !errors.Is(err, hook.ErrInvalid) {
		t.Errorf("plugin hook with env: err = %v, want hook.ErrInvalid", err)
	}
}

func TestConcurrencyBounds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name          string
		perHook, glob int
		want          int
	}{{"per hook", 2, 16, 2}, {"global", 8, 3, 3}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := &fakeBackend{delay: 30 * time.Millisecond, out: backend.Outcome{Stdout: []byte(`{"schema_version":1,"action":"allow"}`)}}
			ex, _ := New(Options{Backend: f, MaxConcurrency: tc.glob})
			h := newHook(t, "echo\n")
			h.MaxConcurrency = tc.perHook
			var wg sync.WaitGroup
			for range 10 {
				wg.Go(func() {
					r, err := ex.Run(context.Background(), h, []byte(event))
					if err != nil {
						t.Errorf("run: %v", err)
						return
					}
					if r.Trace.Failure != nil {
						t.Errorf("run: failure = %+v, want none", r.Trace.Failure)
					}
				})
			}
			wg.Wait()
			if f.maxSeen != tc.want {
				t.Fatalf("%d runs in flight at once, want %d", f.maxSeen, tc.want)
			}
		})
	}
	// Waiting for a slot counts against the timeout.
	f := &fakeBackend{delay: time.Second, out: backend.Outcome{Stdout: []byte(`{"schema_version":1,"action":"allow"}`)}}
	ex, _ := New(Options{Backend: f})
	h := newHook(t, "echo\n")
	h.MaxConcurrency, h.Timeout = 1, 100*time.Millisecond
	var wg sync.WaitGroup
	results := make([]*Result, 2)
	for i := range 2 {
		wg.Go(func() { results[i], _ = ex.Run(context.Background(), h, []byte(event)) })
	}
	wg.Wait()
	for i, r := range results {
		if r.Trace.Failure == nil {
			t.Errorf("run %d past its timeout: failure = nil, want one", i)
		}
	}
}

func TestShutdownDrainsWithinBound(t *testing.T) {
	t.Parallel()
	f := &fakeBackend{delay: time.Hour, out: backend.Outcome{TimedOut: true}}
	var mu sync.Mutex
	var traces []hook.Trace
	ex, _ := New(Options{Backend: f, OnTrace: func(tr hook.Trace) { mu.Lock(); traces = append(traces, tr); mu.Unlock() }})
	h := newHook(t, "echo\n")
	h.Mode, h.Timeout = hook.Observational, time.Hour
	for range 3 {
		if _, err := ex.Run(context.Background(), h, []byte(event)); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := ex.Shutdown(ctx); err == nil {
		t.Fatal("Shutdown reported a full drain of hour-long runs")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("Shutdown took %v", d)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(traces) != 3 {
		t.Fatalf("%d traces after shutdown, want 3", len(traces))
	}
}

const (
	arcturnPre  = `{"event":"preToolUse","toolName":"bash","input":{"command":"rm -rf /"},"cwd":"/w"}`
	arcturnPost = `{"event":"postToolUse","toolName":"bash","input":{"command":"ls"},"resultText":"x","isError":false,"cwd":"/w"}`
	bernPre     = `{"event":"preToolUse","task":"T-1","session_id":"s-a","workdir":"/w","env":{"BERNSTEIN_FOO":"bar","BERNSTEIN_API_TOKEN":"t"},"timestamp":1.5,"data":{"session_id":"s-a","tool":"shell.run","args":{"command":"ls"}}}`
)

func TestDialects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		dialect  hook.Dialect
		matcher  string
		event    string
		out      backend.Outcome
		action   hook.Action
		kind     hook.FailureKind
		warning  bool
		skipped  bool
		wantText string
	}{
		{"arcturn exit 0 allows", hook.Arcturn, "", arcturnPre, backend.Outcome{Stdout: []byte("anything")}, hook.Allow, "", false, false, ""},
		{"arcturn exit 2 denies with stderr", hook.Arcturn, "bash", arcturnPre, backend.Outcome{ExitCode: 2, Stderr: []byte("refusing rm\n")}, hook.Deny, "", false, false, "refusing rm"},
		{"arcturn other exit fails open", hook.Arcturn, "", arcturnPre, backend.Outcome{ExitCode: 1}, hook.Allow, hook.FailExitNonzero, true, false, ""},
		{"arcturn timeout fails open", hook.Arcturn, "", arcturnPre, backend.Outcome{ExitCode: 137, TimedOut: true}, hook.Allow, hook.FailTimeout, true, false, ""},
		{"arcturn postToolUse cannot veto", hook.Arcturn, "", arcturnPost, backend.Outcome{ExitCode: 2, Stderr: []byte("no")}, hook.Allow, "", true, false, ""},
		{"arcturn matcher prefix", hook.Arcturn, "ba*", arcturnPre, backend.Outcome{ExitCode: 2}, hook.Deny, "", false, false, "blocked by preToolUse hook"},
		{"arcturn matcher misses", hook.Arcturn, "mcp_*", arcturnPre, backend.Outcome{ExitCode: 2}, hook.Allow, "", false, true, ""},
		{"bernstein empty is allow", hook.Bernstein, "", bernPre, backend.Outcome{}, hook.Allow, "", false, false, ""},
		{"bernstein plain text is allow", hook.Bernstein, "", bernPre, backend.Outcome{Stdout: []byte("hello\n[1,2]\n")}, hook.Allow, "", false, false, ""},
		{"bernstein deny", hook.Bernstein, "", bernPre, backend.Outcome{Stdout: []byte("log line\n{\"decision\": \"deny\", \"reason\": \"shell.run blocked\"}\n")}, hook.Deny, "", false, false, "shell.run blocked"},
		{"bernstein exit 1 is a failure", hook.Bernstein, "", bernPre, backend.Outcome{ExitCode: 1, Stdout: []byte(`{"decision":"allow"}`)}, hook.Deny, hook.FailExitNonzero, false, false, ""},
		{"bernstein exit 2 halts", hook.Bernstein, "", bernPre, backend.Outcome{ExitCode: 2, Stderr: []byte("halt")}, hook.Deny, "", false, false, "halt"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := &fakeBackend{out: tc.out}
			h := newHook(t, "echo\n")
			h.Dialect, h.Matcher = tc.dialect, tc.matcher
			r := run(t, f, h, tc.event)
			if r.Decision.Action != tc.action {
				t.Errorf("action = %q, want %q", r.Decision.Action, tc.action)
			}
			if r.Skipped != tc.skipped {
				t.Errorf("skipped = %v, want %v", r.Skipped, tc.skipped)
			}
			if (r.Warning != "") != tc.warning {
				t.Errorf("warning = %q, want one: %v", r.Warning, tc.warning)
			}
			if (tc.kind == "") != (r.Trace.Failure == nil) || (tc.kind != "" && r.Trace.Failure.Kind != tc.kind) {
				t.Errorf("failure = %+v, want kind %q", r.Trace.Failure, tc.kind)
			}
			if !strings.Contains(r.Decision.Reason, tc.wantText) {
				t.Errorf("reason %q lacks %q", r.Decision.Reason, tc.wantText)
			}
			if tc.skipped && len(f.runs) != 0 {
				t.Fatal("a hook whose matcher missed was launched")
			}
		})
	}
}

func TestBernsteinEnvironment(t *testing.T) {
	t.Parallel()
	f := &fakeBackend{}
	h := newHook(t, "echo\n")
	h.Dialect = hook.Bernstein
	run(t, f, h, bernPre)
	env := strings.Join(f.runs[0].Spec.Env, " ")
	for _, want := range []string{"BERNSTEIN_EVENT=preToolUse", "BERNSTEIN_TASK_ID=T-1", "BERNSTEIN_SESSION_ID=s-a", "BERNSTEIN_WORKDIR=/w", "BERNSTEIN_FOO=bar"} {
		if !strings.Contains(env, want) {
			t.Errorf("env %q lacks %s", env, want)
		}
	}
	for _, leak := range []string{"TOKEN", "HOLARYN"} {
		if strings.Contains(env, leak) {
			t.Errorf("env %q carries %s", env, leak)
		}
	}
	// A cross-CLI event missing a required key is refused before any script runs.
	f = &fakeBackend{}
	r := run(t, f, h, strings.Replace(bernPre, `"tool":"shell.run",`, "", 1))
	if len(f.runs) != 0 {
		t.Errorf("missing key: launches = %d, want 0", len(f.runs))
	}
	if r.Trace.Failure == nil || r.Trace.Failure.Kind != hook.FailInvalidEvent {
		t.Fatalf("missing key: failure = %+v, want kind %s", r.Trace.Failure, hook.FailInvalidEvent)
	}
	if !strings.Contains(r.Trace.Failure.Message, `"tool"`) {
		t.Errorf("missing key: failure message = %q, want it to name %q", r.Trace.Failure.Message, `"tool"`)
	}
}

// The seed refuses a project's process handlers where nothing isolates
// them; a trusted project's builtin is reviewed in-process code and runs
// there (a forbidden-path guard used to deny every call), a plugin's does
// not.
func TestBuiltinsOnALocalBackend(t *testing.T) {
	t.Parallel()
	const ev = `{"schema_version":1,"point":"tool.before","session_id":"s","depth":0,"data":{"tool_name":"write_file","args":{"path":"notes.md"}}}`
	for scope, want := range map[hook.Scope]hook.Action{hook.ScopeProject: hook.Allow, hook.ScopePlugin: hook.Deny, hook.ScopeOwner: hook.Allow} {
		f := &fakeBackend{local: true}
		h := hook.Hook{ID: "fp", Scope: scope, Builtin: &hook.Builtin{Name: "forbidden-path"}}
		r := run(t, f, h, ev)
		if r.Decision.Action != want {
			t.Errorf("%s forbidden-path on a local backend: %s (%+v), want %s", scope, r.Decision.Action, r.Trace.Failure, want)
		}
		if scope == hook.ScopePlugin && (r.Trace.Failure == nil || r.Trace.Failure.Kind != hook.FailNotIsolated) {
			t.Errorf("plugin builtin: failure %+v, want not_isolated", r.Trace.Failure)
		}
	}
}

// Second reader: an arcturn hook whose pin no longer matched was denied
// three times and then allowed: the open circuit counted as the hook's own
// failure, which Arcturn's contract lets through. An open circuit is as
// much the hook's own as the failures that opened it.
func TestArcturnCircuitOfARefusedHookStaysClosed(t *testing.T) {
	t.Parallel()
	const ev = `{"event":"preToolUse","toolName":"bash","input":{"command":"rm -rf /"},"cwd":"/w"}`
	for _, tc := range []struct {
		name string
		pin  bool // pinned to other bytes: refused_changed, never run
		want hook.Action
	}{{"a changed script", true, hook.Deny}, {"a hook that exits 1", false, hook.Allow}} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeBackend{out: backend.Outcome{ExitCode: 1}}
			ex, err := New(Options{Backend: f, CircuitCooldown: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			h := newHook(t, "echo\n")
			h.Dialect = hook.Arcturn
			if tc.pin {
				h.SHA256 = sha256Hex("other bytes\n")
			}
			for i := range 5 {
				r, err := ex.Run(context.Background(), h, []byte(ev))
				if err != nil {
					t.Fatal(err)
				}
				if r.Decision.Action != tc.want {
					t.Fatalf("run %d (%s): %s, want %s", i+1, r.Trace.Failure.Kind, r.Decision.Action, tc.want)
				}
			}
		})
	}
}

// Seed 000: "Session shutdown performs a bounded drain of outstanding
// observers." DrainSession waits for a session's observers, cuts those
// still running at its bound short (each traced), and leaves other
// sessions' alone.
func TestDrainSessionIsBounded(t *testing.T) {
	t.Parallel()
	f := &fakeBackend{delay: time.Hour, out: backend.Outcome{TimedOut: true}}
	var mu sync.Mutex
	var traces []hook.Trace
	ex, _ := New(Options{Backend: f, OnTrace: func(tr hook.Trace) { mu.Lock(); traces = append(traces, tr); mu.Unlock() }})
	h := newHook(t, "echo\n")
	h.Mode, h.Timeout = hook.Observational, time.Hour
	other := strings.Replace(event, `"session_id":"`, `"session_id":"other-`, 1)
	for _, ev := range []string{event, event, other} {
		if _, err := ex.Run(context.Background(), h, []byte(ev)); err != nil {
			t.Fatal(err)
		}
	}
	session, _ := hook.ParseEnvelope(hook.Holaryn, []byte(event))
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if waited, cut := ex.DrainSession(ctx, session.SessionID); waited != 0 || cut != 2 {
		t.Errorf("drain: waited %d, cut %d; want 0 and 2", waited, cut)
	}
	mu.Lock()
	n := len(traces)
	mu.Unlock()
	if n != 2 {
		t.Errorf("%d traces after the drain, want the session's 2 (the other session's observer runs on)", n)
	}
	sctx, scancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer scancel()
	ex.Shutdown(sctx)
}
