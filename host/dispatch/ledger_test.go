package dispatch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/internal/statefile"
)

// exitBackend answers every run with one exit code (0: an allow), without
// a process: these tests are about what the ledger keeps.
type exitBackend struct{ code int }

func (exitBackend) Name() string    { return "fake" }
func (exitBackend) Isolating() bool { return false }
func (exitBackend) Close() error    { return nil }
func (b exitBackend) Run(context.Context, *backend.Run) (*backend.Outcome, error) {
	if b.code != 0 {
		return &backend.Outcome{ExitCode: b.code}, nil
	}
	return &backend.Outcome{Stdout: []byte(`{"schema_version":1,"action":"allow"}`)}, nil
}

// ledgerRunner runs one owner command hook in a session on a ledger,
// failing or not.
func ledgerRunner(t *testing.T, ledger executor.Ledger) func(fail bool, session string) {
	t.Helper()
	exs := map[bool]*executor.Executor{}
	for _, fail := range []bool{false, true} {
		code := 0
		if fail {
			code = 1
		}
		ex, err := executor.New(executor.Options{Backend: exitBackend{code}, Ledger: ledger})
		if err != nil {
			t.Fatal(err)
		}
		exs[fail] = ex
	}
	h := hook.Hook{ID: "flaky", Command: []string{"check"}, FailurePolicy: hook.PolicyContinue}
	return func(fail bool, session string) {
		t.Helper()
		ev := fmt.Sprintf(`{"schema_version":1,"event_id":"e1","point":"tool.before","session_id":%q,"depth":0,"data":{"args":{}}}`, session)
		r, err := exs[fail].Run(context.Background(), h, []byte(ev))
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Trace.Failure != nil; got != fail {
			t.Fatalf("session %s: failure %+v, want failed = %v", session, r.Trace.Failure, fail)
		}
	}
}

func readCircuits(t *testing.T, state string) map[string]executor.Circuit {
	t.Helper()
	var doc circuitsDoc
	if err := statefile.Read(filepath.Join(state, "circuits.json"), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Circuits["flaky"]
}

// Issue 30 item 12: a boundary with no failure and no circuit for its
// session wrote circuits.json (the first one in a state directory) and
// took its lock twice per hook; now it only reads.
func TestStateLedgerHealthyBoundaryWritesNothing(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	run := ledgerRunner(t, StateLedger(state))
	run(false, "s1")
	for _, f := range []string{"circuits.json", "circuits.json.lock"} {
		if _, err := os.Stat(filepath.Join(state, f)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("a healthy boundary in a new state directory made %s (stat: %v)", f, err)
		}
	}
	run(true, "other") // another session's circuit: the file exists now
	file := filepath.Join(state, "circuits.json")
	before, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	run(false, "s1")
	after, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) {
		t.Error("a healthy boundary replaced circuits.json")
	}
	// A success in a session with a circuit closes it: that is written.
	run(false, "other")
	if c, ok := readCircuits(t, state)["other"]; ok {
		t.Errorf("a success left the circuit %+v", c)
	}
}

// Issue 30 item 12: circuits.json kept every failing session forever.
func TestStateLedgerKeepsTheNewestSessions(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	run := ledgerRunner(t, StateLedger(state))
	n := executor.MaxSessions + 20
	for i := range n {
		run(true, fmt.Sprintf("s%03d", i))
	}
	kept := readCircuits(t, state)
	if len(kept) != executor.MaxSessions {
		t.Errorf("%d sessions kept after %d failing ones, want %d", len(kept), n, executor.MaxSessions)
	}
	for i := range n {
		s := fmt.Sprintf("s%03d", i)
		if _, ok := kept[s]; ok != (i >= 20) {
			t.Errorf("session %s kept = %v, want only the newest %d", s, ok, executor.MaxSessions)
		}
	}
}

func TestStateLedgerAgesCircuitsOut(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	clock := time.Now() // the pruning clock; runs stamp the real time
	l := &stateLedger{dir: state, now: func() time.Time { return clock }}
	run := ledgerRunner(t, l)
	run(true, "failed-once")
	for range executor.CircuitThreshold {
		run(true, "opened")
	}
	if c := readCircuits(t, state)["opened"]; c.OpenedAt.IsZero() {
		t.Fatalf("circuit %+v, want it open", c)
	}
	// A failure counted at the ledger's time, as the executor counts one.
	failAt := func(session string) {
		t.Helper()
		err := l.Circuit("flaky", session, func(c *executor.Circuit) { c.Failures++; c.FailedAt = clock })
		if err != nil {
			t.Fatal(err)
		}
	}
	clock = clock.Add(executor.ClosedKept + time.Minute)
	failAt("later") // a write prunes
	kept := readCircuits(t, state)
	if _, ok := kept["failed-once"]; ok {
		t.Errorf("failures older than %v kept: %+v", executor.ClosedKept, kept["failed-once"])
	}
	if _, ok := kept["opened"]; !ok {
		t.Errorf("an open circuit went after %v, before %v", executor.ClosedKept, executor.OpenKept)
	}
	clock = clock.Add(executor.OpenKept)
	failAt("latest")
	kept = readCircuits(t, state)
	if _, ok := kept["opened"]; ok {
		t.Errorf("an open circuit kept past %v", executor.OpenKept)
	}
	if _, ok := kept["latest"]; !ok || len(kept) != 1 {
		t.Errorf("kept %v, want only the latest session's circuit", kept)
	}
}
