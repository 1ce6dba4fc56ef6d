package executor

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/hook"
)

func TestPruneCircuits(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	circuits := map[string]map[string]Circuit{
		"h": {
			"fresh-failures":  {Failures: 2, FailedAt: ago(ClosedKept - time.Minute)},
			"stale-failures":  {Failures: 2, FailedAt: ago(ClosedKept + time.Minute)},
			"before-failedat": {Failures: 1}, // written before failed_at existed
			"open":            {Failures: 3, FailedAt: ago(2 * time.Hour), OpenedAt: ago(2 * time.Hour)},
			"open-trial":      {Failures: 3, OpenedAt: ago(OpenKept + time.Hour), TrialAt: ago(time.Hour)},
			"open-stale":      {Failures: 3, FailedAt: ago(OpenKept + time.Minute), OpenedAt: ago(OpenKept + time.Minute)},
			"closed":          {},
		},
		"gone": {"s": {Failures: 1, FailedAt: ago(2 * ClosedKept)}},
	}
	if !PruneCircuits(circuits, now) {
		t.Error("PruneCircuits reported nothing removed")
	}
	want := map[string]map[string]Circuit{"h": {
		"fresh-failures": circuits["h"]["fresh-failures"],
		"open":           circuits["h"]["open"],
		"open-trial":     circuits["h"]["open-trial"],
	}}
	if diff := cmp.Diff(want, circuits); diff != "" {
		t.Errorf("kept (-want +got):\n%s", diff)
	}
	if PruneCircuits(circuits, now) {
		t.Error("a second prune removed something")
	}
}

func TestPruneCircuitsKeepsTheNewestSessions(t *testing.T) {
	t.Parallel()
	now := time.Now()
	circuits := map[string]map[string]Circuit{"a": {}, "b": {}}
	// Sessions 0..MaxSessions+9, the higher the more recent; each has a
	// circuit of hook a, the even ones one of hook b too, which for the
	// oldest ten is the more recent of their two.
	for i := range MaxSessions + 10 {
		s := fmt.Sprintf("s%03d", i)
		at := now.Add(-time.Duration(MaxSessions+10-i) * time.Second)
		circuits["a"][s] = Circuit{Failures: 1, FailedAt: at.Add(-time.Minute)}
		if i%2 == 0 {
			circuits["b"][s] = Circuit{Failures: 1, FailedAt: at}
		}
	}
	PruneCircuits(circuits, now)
	sessions := map[string]bool{}
	for _, per := range circuits {
		for s := range per {
			sessions[s] = true
		}
	}
	if len(sessions) != MaxSessions {
		t.Fatalf("%d sessions kept, want %d", len(sessions), MaxSessions)
	}
	// The ten dropped are the ten whose latest change is the oldest: the
	// odd sessions among the oldest (their only circuit is a minute older).
	for i := range MaxSessions + 10 {
		s := fmt.Sprintf("s%03d", i)
		if dropped := !sessions[s]; dropped != (i%2 == 1 && i < 20) {
			t.Errorf("session %s dropped = %v", s, dropped)
		}
	}
	if _, ok := circuits["b"]["s000"]; !ok {
		t.Error("a kept session lost its circuit of another hook")
	}
}

// Issue 30 item 12: the ledger kept every failing session for the
// executor's life; a long-lived one (serve) grew without bound.
func TestMemoryLedgerIsBounded(t *testing.T) {
	t.Parallel()
	ex, _ := New(Options{Backend: &fakeBackend{out: backend.Outcome{ExitCode: 1}}})
	h := newHook(t, "echo\n")
	h.FailurePolicy = hook.PolicyContinue
	for i := range MaxSessions + 20 {
		ev := strings.Replace(event, `"session_id":"s1"`, fmt.Sprintf(`"session_id":"s%d"`, i), 1)
		if _, err := ex.Run(context.Background(), h, []byte(ev)); err != nil {
			t.Fatal(err)
		}
	}
	l := ex.ledger.(*memoryLedger)
	l.mu.Lock()
	n := len(l.circuits[h.ID])
	_, oldest := l.circuits[h.ID]["s0"]
	_, newest := l.circuits[h.ID][fmt.Sprintf("s%d", MaxSessions+19)]
	l.mu.Unlock()
	if n != MaxSessions || oldest || !newest {
		t.Errorf("%d sessions kept (oldest kept: %v, newest: %v), want the newest %d", n, oldest, newest, MaxSessions)
	}
}
