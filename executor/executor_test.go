package executor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/launcher"
	"github.com/hookexec/hook-exec/sandbox"
)

// fakeBackend answers every run with a fixed outcome or error; it stands in
// for an engine in these unit tests only (the e2e suites use the real one).
type fakeBackend struct {
	mu       sync.Mutex
	out      backend.Outcome
	err      error
	runs     []*backend.Run
	local    bool          // not isolating
	delay    time.Duration // each run takes this long (or until ctx ends)
	hold     chan struct{} // when set, each run waits until it is closed
	inFlight int
	maxSeen  int
}

func (f *fakeBackend) Name() string    { return "fake" }
func (f *fakeBackend) Isolating() bool { return !f.local }
func (f *fakeBackend) Close() error    { return nil }
func (f *fakeBackend) Run(ctx context.Context, r *backend.Run) (*backend.Outcome, error) {
	f.mu.Lock()
	f.inFlight++
	f.maxSeen = max(f.maxSeen, f.inFlight)
	hold := f.hold
	f.mu.Unlock()
	if hold != nil {
		<-hold
	}
	if f.delay > 0 {
		select {
		case <-time.After(f.delay):
		case <-ctx.Done():
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.inFlight--
	f.runs = append(f.runs, r)
	if f.err != nil {
		return nil, f.err
	}
	o := f.out
	if ctx.Err() != nil { // as a real backend: the deadline kills the run
		o = backend.Outcome{ExitCode: 137, TimedOut: true, Signal: "SIGKILL"}
	}
	return &o, nil
}

const event = `{"schema_version":1,"event_id":"e1","point":"tool.before","session_id":"s1","depth":0,"data":{"args":{}}}`

func newHook(t *testing.T, body string) hook.Hook {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "h.sh"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return hook.Hook{ID: "h", PluginDir: dir, Script: "h.sh", Image: "img"}
}

func run(t *testing.T, f *fakeBackend, h hook.Hook, ev string) *Result {
	t.Helper()
	ex, err := New(Options{Backend: f})
	if err != nil {
		t.Fatal(err)
	}
	r, err := ex.Run(context.Background(), h, []byte(ev))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestOutcomeClassification(t *testing.T) {
	t.Parallel()
	allow := []byte(`{"schema_version":1,"action":"allow"}`)
	tests := []struct {
		name string
		out  backend.Outcome
		err  error
		kind hook.FailureKind
	}{
		{"ok", backend.Outcome{Stdout: allow}, nil, ""},
		{"timeout", backend.Outcome{ExitCode: 137, TimedOut: true}, nil, hook.FailTimeout},
		{"truncated", backend.Outcome{ExitCode: 137, Truncated: true}, nil, hook.FailOutputLimit},
		{"oom", backend.Outcome{ExitCode: 137, OOMKilled: true}, nil, hook.FailOOM},
		{"nonzero", backend.Outcome{ExitCode: 3, Stdout: allow}, nil, hook.FailExitNonzero},
		{"launcher short", backend.Outcome{ExitCode: launcher.ExitShortScript, Stderr: []byte("hook-launcher: short script: read 1 of 9 bytes\n")}, nil, hook.FailLauncherError},
		{"launcher missing dd", backend.Outcome{ExitCode: launcher.ExitMissingProgram, Stderr: []byte("hook-launcher: missing program: dd (the image must ...)\n")}, nil, hook.FailMissingProgram},
		{"script exits 122 itself", backend.Outcome{ExitCode: launcher.ExitMissingProgram}, nil, hook.FailExitNonzero},
		{"bad decision", backend.Outcome{Stdout: []byte("yes")}, nil, hook.FailInvalidDecision},
		{"start: no sh", backend.Outcome{}, fmt.Errorf("%w: exec: \"sh\": executable file not found in $PATH", backend.ErrStart), hook.FailMissingProgram},
		{"start: other", backend.Outcome{}, fmt.Errorf("%w: cgroup trouble", backend.ErrStart), hook.FailLauncherError},
		{"engine", backend.Outcome{}, fmt.Errorf("%w: connection refused", backend.ErrEngine), hook.FailEngineError},
		{"image", backend.Outcome{}, fmt.Errorf("%w: img", backend.ErrImageNotFound), hook.FailEngineError},
		{"not isolated", backend.Outcome{}, backend.ErrNotIsolated, hook.FailNotIsolated},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := run(t, &fakeBackend{out: tc.out, err: tc.err}, newHook(t, "echo\n"), event)
			if tc.kind == "" {
				if r.Trace.Failure != nil {
					t.Errorf("failure = %+v, want none", r.Trace.Failure)
				}
				if r.Decision.Action != hook.Allow {
					t.Errorf("action = %q, want %q", r.Decision.Action, hook.Allow)
				}
				return
			}
			if r.Trace.Failure == nil || r.Trace.Failure.Kind != tc.kind {
				t.Fatalf("failure = %+v, want kind %s", r.Trace.Failure, tc.kind)
			}
			if r.Decision.Action != hook.Deny {
				t.Errorf("action = %q, want %q", r.Decision.Action, hook.Deny)
			}
			if r.Trace.PolicyApplied != "deny" {
				t.Errorf("trace policy applied = %q, want %q", r.Trace.PolicyApplied, "deny")
			}
			if !strings.Contains(r.Decision.Reason, string(tc.kind)) {
				t.Errorf("reason = %q, want it to contain %q", r.Decision.Reason, tc.kind)
			}
		})
	}
}

func TestLaunchInputs(t *testing.T) {
	t.Parallel()
	f := &fakeBackend{out: backend.Outcome{Stdout: []byte(`{"schema_version":1,"action":"allow"}`)}}
	h := newHook(t, "echo hi\n")
	h.Env = map[string]string{"MODE": "x"}
	h.Memory, h.Pids = 64<<20, 8
	run(t, f, h, event)
	r := f.runs[0]
	if string(r.Stdin) != "echo hi\n"+event {
		t.Fatalf("stdin %q: want the script then the event", r.Stdin)
	}
	if r.Spec.Argv[0] != "sh" {
		t.Errorf("argv[0] = %q, want %q (argv %q)", r.Spec.Argv[0], "sh", r.Spec.Argv)
	}
	if last := r.Spec.Argv[len(r.Spec.Argv)-1]; last != "8" {
		t.Errorf("last argv = %q, want %q (argv %q)", last, "8", r.Spec.Argv)
	}
	if r.Spec.Image != "img" {
		t.Errorf("image = %q, want %q", r.Spec.Image, "img")
	}
	if r.Spec.Memory != 64<<20 {
		t.Errorf("memory = %d, want %d", r.Spec.Memory, 64<<20)
	}
	if r.Spec.Pids != 8 {
		t.Errorf("pids = %d, want 8", r.Spec.Pids)
	}
	if !r.Spec.ReadOnlyRoot {
		t.Error("read-only root = false, want true")
	}
	if r.MaxOutput != 65536 {
		t.Errorf("max output = %d, want 65536", r.MaxOutput)
	}
	env := strings.Join(r.Spec.Env, " ")
	for _, want := range []string{"MODE=x", "HOLARYN_HOOK_POINT=tool.before", "HOLARYN_HOOK_ID=h", "PYTHONUTF8=1"} {
		if !strings.Contains(env, want) {
			t.Errorf("env %q lacks %s", env, want)
		}
	}
	if r.Spec.Labels[sandbox.LabelExecution] == "" {
		t.Error("no execution label")
	}
}

func TestRefusedBeforeLaunch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		event string
		body  string
		sha   string
		kind  hook.FailureKind
	}{
		{"depth", strings.Replace(event, `"depth":0`, `"depth":3`, 1), "echo\n", "", hook.FailDepthExceeded},
		{"bad event", `{"point":1}`, "echo\n", "", hook.FailInvalidEvent},
		{"crlf", event, "echo\r\n", "", hook.FailRefusedRule},
		{"changed", event, "echo\n", strings.Repeat("a", 64), hook.FailRefusedChanged},
		{"bad pin", event, "echo\n", "xyz", hook.FailRefusedRule},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := &fakeBackend{}
			h := newHook(t, tc.body)
			h.SHA256 = tc.sha
			r := run(t, f, h, tc.event)
			if r.Trace.Failure == nil || r.Trace.Failure.Kind != tc.kind {
				t.Errorf("failure = %+v, want kind %s", r.Trace.Failure, tc.kind)
			}
			if len(f.runs) != 0 {
				t.Errorf("launches = %d, want 0", len(f.runs))
			}
		})
	}
	ex, _ := New(Options{Backend: &fakeBackend{}, MaxEventBytes: 10})
	r, _ := ex.Run(context.Background(), newHook(t, "echo\n"), []byte(event))
	if r.Trace.Failure == nil || r.Trace.Failure.Kind != hook.FailInvalidEvent {
		t.Fatalf("oversized event: failure = %+v, want kind %s", r.Trace.Failure, hook.FailInvalidEvent)
	}
	if !strings.Contains(r.Trace.Failure.Message, "limit") {
		t.Errorf("oversized event: failure message = %q, want it to contain %q", r.Trace.Failure.Message, "limit")
	}
}

func TestFailurePolicies(t *testing.T) {
	t.Parallel()
	timeout := backend.Outcome{ExitCode: 137, TimedOut: true}
	for _, tc := range []struct {
		policy  hook.FailurePolicy
		mode    hook.Mode
		action  hook.Action
		warning bool
	}{
		{hook.PolicyDeny, hook.Blocking, hook.Deny, false},
		{hook.PolicyContinue, hook.Blocking, hook.Allow, false},
		{hook.PolicyWarn, hook.Blocking, hook.Allow, true},
		{hook.PolicyDisable, hook.Blocking, hook.Allow, true},
	} {
		t.Run(string(tc.policy)+"/"+string(tc.mode), func(t *testing.T) {
			t.Parallel()
			h := newHook(t, "echo\n")
			h.FailurePolicy, h.Mode = tc.policy, tc.mode
			r := run(t, &fakeBackend{out: timeout}, h, event)
			if r.Decision.Action != tc.action {
				t.Errorf("action = %q, want %q", r.Decision.Action, tc.action)
			}
			if (r.Warning != "") != tc.warning {
				t.Errorf("warning = %q, want one: %v", r.Warning, tc.warning)
			}
			if r.Trace.PolicyApplied != string(tc.policy) {
				t.Errorf("trace policy applied = %q, want %q", r.Trace.PolicyApplied, tc.policy)
			}
		})
	}
}

func TestDisableTurnsTheHookOff(t *testing.T) {
	t.Parallel()
	f := &fakeBackend{out: backend.Outcome{ExitCode: 1}}
	ex, _ := New(Options{Backend: f})
	h := newHook(t, "echo\n")
	h.FailurePolicy = hook.PolicyDisable
	for range 3 {
		if _, err := ex.Run(context.Background(), h, []byte(event)); err != nil {
			t.Fatal(err)
		}
	}
	if len(f.runs) != 1 {
		t.Fatalf("a disabled hook was launched %d times", len(f.runs))
	}
}

func TestObservationalMayOnlyAllow(t *testing.T) {
	t.Parallel()
	h := newHook(t, "echo\n")
	h.Mode = hook.Observational
	traces := make(chan hook.Trace, 1)
	ex, _ := New(Options{Backend: &fakeBackend{out: backend.Outcome{Stdout: []byte(`{"schema_version":1,"action":"deny","reason":"x"}`)}},
		OnTrace: func(tr hook.Trace) { traces <- tr }})
	r, err := ex.Run(context.Background(), h, []byte(event))
	if err != nil {
		t.Fatalf("observational run: %v", err)
	}
	if !r.Async {
		t.Error("observational run: async = false, want true")
	}
	if r.Decision.Action != hook.Allow {
		t.Errorf("observational run: action = %q, want %q", r.Decision.Action, hook.Allow)
	}
	if err := ex.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	tr := <-traces
	if tr.Failure == nil || tr.Failure.Kind != hook.FailInvalidDecision {
		t.Errorf("observational deny: failure = %+v, want kind %s", tr.Failure, hook.FailInvalidDecision)
	}
	if tr.FinalAction != hook.Allow {
		t.Errorf("observational deny: final action = %q, want %q", tr.FinalAction, hook.Allow)
	}
	if tr.HandlerAction != hook.Deny {
		t.Errorf("observational deny: handler action = %q, want %q", tr.HandlerAction, hook.Deny)
	}
	if tr.PolicyApplied != "warn" {
		t.Errorf("observational deny: policy applied = %q, want %q", tr.PolicyApplied, "warn")
	}
	if _, err := ex.Run(context.Background(), h, []byte(event)); !errors.Is(err, ErrShutdown) {
		t.Fatalf("run after shutdown: %v", err)
	}
}

func TestTraceIsRedacted(t *testing.T) {
	t.Parallel()
	secret := "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	var got hook.Trace
	ex, _ := New(Options{Backend: &fakeBackend{err: fmt.Errorf("%w: token %s rejected", backend.ErrEngine, secret),
		out: backend.Outcome{}}, OnTrace: func(tr hook.Trace) { got = tr }})
	r, _ := ex.Run(context.Background(), newHook(t, "echo\n"), []byte(event))
	if strings.Contains(fmt.Sprint(got), secret) {
		t.Errorf("secret in trace: %+v", got)
	}
	if strings.Contains(r.Decision.Reason, secret) {
		t.Errorf("secret in reason: %q", r.Decision.Reason)
	}
	f := &fakeBackend{out: backend.Outcome{ExitCode: 1, Stderr: []byte("password=hunter2 failed\n")}}
	r = run(t, f, newHook(t, "echo\n"), event)
	if strings.Contains(r.Trace.StderrExcerpt, "hunter2") {
		t.Errorf("stderr excerpt = %q, want %q redacted", r.Trace.StderrExcerpt, "hunter2")
	}
	if !strings.Contains(r.Trace.StderrExcerpt, "failed") {
		t.Errorf("stderr excerpt = %q, want it to keep %q", r.Trace.StderrExcerpt, "failed")
	}
}

// TestStderrExcerptCutAfterRedaction: the excerpt keeps the end of stderr;
// a private key whose BEGIN line falls before the cut must not leave its
// body and END line in the trace.
func TestStderrExcerptCutAfterRedaction(t *testing.T) {
	t.Parallel()
	var key strings.Builder
	key.WriteString("-----BEGIN RSA PRIVATE KEY-----\n")
	for i := range 40 {
		fmt.Fprintf(&key, "MIIEowIBAAKCAQEA%048d\n", i)
	}
	key.WriteString("-----END RSA PRIVATE KEY-----\n")
	stderr := key.String() + strings.Repeat("still failing\n", 40)
	if len(stderr)-stderrExcerptBytes < len("-----BEGIN RSA PRIVATE KEY-----") || len(stderr)-stderrExcerptBytes > key.Len()-200 {
		t.Fatalf("stderr of %d bytes: the cut at the last %d must fall inside the key", len(stderr), stderrExcerptBytes)
	}
	r := run(t, &fakeBackend{out: backend.Outcome{ExitCode: 1, Stderr: []byte(stderr)}}, newHook(t, "echo\n"), event)
	for _, leak := range []string{"MIIEowIBAAKCAQEA", "PRIVATE KEY"} {
		if strings.Contains(r.Trace.StderrExcerpt, leak) {
			t.Errorf("stderr excerpt holds %q:\n%s", leak, r.Trace.StderrExcerpt)
		}
	}
	if !strings.HasSuffix(r.Trace.StderrExcerpt, "still failing\n") {
		t.Errorf("stderr excerpt %q lost the end of stderr", r.Trace.StderrExcerpt)
	}
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	ex, _ := New(Options{Backend: &fakeBackend{}})
	for _, h := range []hook.Hook{
		{Script: "a.sh", Mode: hook.Observational, FailurePolicy: hook.PolicyDeny},
		{Script: "a.sh", Env: map[string]string{"AWS_SECRET_ACCESS_KEY": "x"}},
		{},
	} {
		if _, err := ex.Run(context.Background(), h, []byte(event)); err == nil {
			t.Errorf("accepted %+v", h)
		}
	}
	if _, err := New(Options{}); err == nil {
		t.Error("executor without backend")
	}
}

func TestWarningsAreLoggedWithFields(t *testing.T) {
	t.Parallel()
	var log bytes.Buffer
	f := &fakeBackend{out: backend.Outcome{ExitCode: 5}}
	ex, err := New(Options{Backend: f, Logger: TextLogger(&log)})
	if err != nil {
		t.Fatal(err)
	}
	h := newHook(t, "exit 5\n")
	h.ID = "fmt-check"
	h.FailurePolicy = hook.PolicyWarn
	r, err := ex.Run(context.Background(), h, []byte(event))
	if err != nil {
		t.Fatal(err)
	}
	line := log.String()
	for _, want := range []string{"level=WARN", `msg="hook fmt-check failed (exit_nonzero)`, "hook=fmt-check", "execution=" + r.Trace.ExecutionID} {
		if !strings.Contains(line, want) {
			t.Errorf("log %q lacks %q", line, want)
		}
	}
	if strings.Contains(line, "time=") {
		t.Errorf("log %q carries a time stamp; the host stamps its own", line)
	}
}
