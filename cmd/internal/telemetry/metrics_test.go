package telemetry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hookexec/hook-exec/hook"
)

func scrape(t *testing.T, h http.Handler, path string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	b, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, string(b)
}

// wantLine asserts that the exposition holds exactly this sample line.
func wantLine(t *testing.T, body, line string) {
	t.Helper()
	for _, l := range strings.Split(body, "\n") {
		if l == line {
			return
		}
	}
	t.Errorf("no line %q in:\n%s", line, grep(body, strings.SplitN(line, "{", 2)[0]))
}

func grep(body, prefix string) string {
	var out []string
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// The counters move by exactly the runs observed, by their labels; the
// phase histograms count each run once per phase; a run that never reached
// a sandbox has no phases.
func TestObserveCountsRuns(t *testing.T) {
	m := New(func() Source { return Source{Backend: "docker"} })
	phases := &hook.Phases{Create: 120, Start: 30, Stream: 12, Exit: 1}
	m.Observe(hook.Trace{Dialect: "claude", Point: "PreToolUse", Backend: "docker", FinalAction: hook.Allow, DurationMS: 170, Phases: phases})
	m.Observe(hook.Trace{Dialect: "claude", Point: "PreToolUse", Backend: "docker", FinalAction: hook.Allow, DurationMS: 20, Phases: phases, Pooled: true})
	m.Observe(hook.Trace{Dialect: "claude", Point: "PreToolUse", Backend: "docker", FinalAction: hook.Deny, DurationMS: 25, Phases: phases, Reused: true,
		Failure: &hook.Failure{Kind: hook.FailTimeout}})
	m.Observe(hook.Trace{Point: "tool.before", Backend: "docker", FinalAction: hook.Deny, Failure: &hook.Failure{Kind: hook.FailRefusedRule}})
	m.Request("command", "ok")
	_, body := scrape(t, m.Handler(nil), "/metrics")
	wantLine(t, body, `hookexec_runs_total{action="allow",backend="docker",dialect="claude",point="PreToolUse"} 2`)
	wantLine(t, body, `hookexec_runs_total{action="deny",backend="docker",dialect="claude",point="PreToolUse"} 1`)
	wantLine(t, body, `hookexec_runs_total{action="deny",backend="docker",dialect="holaryn",point="tool.before"} 1`)
	wantLine(t, body, `hookexec_run_failures_total{backend="docker",kind="timeout"} 1`)
	wantLine(t, body, `hookexec_run_failures_total{backend="docker",kind="refused_rule"} 1`)
	wantLine(t, body, `hookexec_run_duration_seconds_count{backend="docker"} 4`)
	for _, phase := range []string{"queued", "create", "start", "stream", "exit", "cleanup"} {
		wantLine(t, body, fmt.Sprintf(`hookexec_run_phase_seconds_count{backend="docker",phase="%s"} 3`, phase))
	}
	wantLine(t, body, `hookexec_run_phase_seconds_bucket{backend="docker",phase="create",le="0.1"} 0`)
	wantLine(t, body, `hookexec_run_phase_seconds_bucket{backend="docker",phase="create",le="0.25"} 3`)
	wantLine(t, body, `hookexec_runs_pooled_total{backend="docker"} 1`)
	wantLine(t, body, `hookexec_runs_reused_total{backend="docker"} 1`)
	wantLine(t, body, `hookexec_server_requests_total{kind="command",outcome="ok"} 1`)
	wantLine(t, body, `hookexec_reused_idle_sandboxes{backend="docker"} 0`)
}

// A point is a host's word: past maxPoints distinct ones, the rest count
// as "other", so that no event can grow the label set without bound.
func TestPointLabelIsBounded(t *testing.T) {
	m := New(func() Source { return Source{Backend: "containerd"} })
	for i := range maxPoints + 5 {
		m.Observe(hook.Trace{Point: fmt.Sprintf("p%d", i), Backend: "containerd", FinalAction: hook.Allow})
	}
	_, body := scrape(t, m.Handler(nil), "/metrics")
	if n := strings.Count(body, "hookexec_runs_total{"); n != maxPoints+1 {
		t.Errorf("%d runs_total series, want %d (the first %d points and other)", n, maxPoints+1, maxPoints)
	}
	wantLine(t, body, `hookexec_runs_total{action="allow",backend="containerd",dialect="holaryn",point="other"} 5`)
}

// /healthz answers while the process does; /readyz says what is not ready.
func TestHealthAndReadiness(t *testing.T) {
	m := New(func() Source { return Source{} })
	notReady := errors.New("the engine does not answer")
	var readyErr error
	h := m.Handler(func(context.Context) error { return readyErr })
	if code, body := scrape(t, h, "/healthz"); code != 200 || body != "ok\n" {
		t.Errorf("/healthz: %d %q", code, body)
	}
	if code, _ := scrape(t, h, "/readyz"); code != 200 {
		t.Errorf("/readyz when ready: %d", code)
	}
	readyErr = notReady
	if code, body := scrape(t, h, "/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, notReady.Error()) {
		t.Errorf("/readyz when not ready: %d %q, want 503 saying why", code, body)
	}
}
