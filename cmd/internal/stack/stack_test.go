package stack

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/backend/engine"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/internal/tracestore"
)

// A run's trace is stored, then handed to the caller's OnTrace; Close
// drains and closes.
func TestStackStoresTraces(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var got []hook.Trace
	s, err := Open(context.Background(), Options{Engine: engine.Options{Backend: "local"}, StateDir: dir, Traces: true,
		Executor: executor.Options{OnTrace: func(tr hook.Trace) { got = append(got, tr) }}})
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "a.sh")
	if err := os.WriteFile(script, []byte("echo '{\"schema_version\":1,\"action\":\"allow\"}'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := hook.Hook{ID: "stored", PluginDir: dir, Script: "a.sh", Timeout: 10 * time.Second}
	if _, err := s.Executor.Run(context.Background(), h, []byte(`{"schema_version":1,"point":"tool.before","data":{"tool":"shell","args":{"command":"ls"}}}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(DefaultDrain); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].HookID != "stored" {
		t.Fatalf("OnTrace got %d traces (%+v), want the one run's", len(got), got)
	}
	st, err := tracestore.Open(dir, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := st.Query(tracestore.Query{HookID: "stored"})
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != 1 || stored[0].ExecutionID != got[0].ExecutionID {
		t.Fatalf("store holds %d traces, want the run's %s", len(stored), got[0].ExecutionID)
	}
}

// An engine that does not answer fails a strict Open; otherwise it opens
// as unavailable and each run fails as the engine's.
func TestStackUnreachableEngine(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix://"+filepath.Join(t.TempDir(), "none.sock"))
	t.Setenv("HOOKEXEC_REAPER", "0")
	eo := engine.Options{Backend: "docker"}
	if _, err := Open(context.Background(), Options{Engine: eo, Strict: true, StateDir: t.TempDir()}); !errors.Is(err, backend.ErrEngine) {
		t.Fatalf("strict Open on an unreachable engine: %v, want ErrEngine", err)
	}
	var log bytes.Buffer
	s, err := Open(context.Background(), Options{Engine: eo, StateDir: t.TempDir(), Log: &log})
	if err != nil {
		t.Fatalf("Open: %v, want an unavailable engine", err)
	}
	defer s.Close(DefaultDrain)
	h := hook.Hook{ID: "g", PluginDir: t.TempDir(), Script: "g.sh", Timeout: 5 * time.Second}
	if err := os.WriteFile(filepath.Join(h.PluginDir, "g.sh"), []byte("exit 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := s.Executor.Run(context.Background(), h, []byte(`{"schema_version":1,"point":"tool.before","data":{"tool":"shell","args":{"command":"ls"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if f := r.Trace.Failure; f == nil || f.Kind != hook.FailEngineError {
		t.Fatalf("failure = %+v, want %s", f, hook.FailEngineError)
	}
	if r.Decision.Action != hook.Deny {
		t.Errorf("action = %s, want deny (a blocking hook fails closed)", r.Decision.Action)
	}
}
