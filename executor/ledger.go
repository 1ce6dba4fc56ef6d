package executor

import (
	"maps"
	"slices"
	"sync"
	"time"
)

// Ledger keeps what outlives one run: each hook's circuit per session and
// the hooks turned off by failure_policy disable. The executor's own keeps
// them in memory for its life; a host that runs one process per boundary
// gives one backed by its state directory, so the third failure opens the
// circuit whichever process saw it.
type Ledger interface {
	// Circuit applies change to the circuit of (hook, session) atomically
	// and stores the result; a circuit changed to its zero value is closed
	// and may be forgotten, and so may those [PruneCircuits] drops. change
	// must depend on nothing but the circuit it is given: a ledger may call
	// it more than once (first on a closed circuit, to learn whether there
	// is anything to store) and keeps what the last call left.
	Circuit(hookID, session string, change func(*Circuit)) error
	// Disable turns the hook off; Disabled reports it.
	Disable(hookID, reason string) error
	Disabled(hookID string) bool
}

// Circuit is one hook's record of consecutive failures in one session.
type Circuit struct {
	Failures int       `json:"failures"`
	OpenedAt time.Time `json:"opened_at,omitzero"` // zero while closed
	// TrialAt is when a half-open trial run was let through; a trial
	// older than the cool-down (its process died) lets another through.
	TrialAt time.Time `json:"trial_at,omitzero"`
	// FailedAt is when the last failure was counted.
	FailedAt time.Time `json:"failed_at,omitzero"`
	// NotOwn: a failure counted was not the hook's own (it could not run):
	// the open circuit is not either, whatever the dialect's contract says
	// of a hook's own failures.
	NotOwn bool `json:"not_own,omitzero"`
}

// How long ledgers keep circuits, and how many sessions'. Forgetting a
// circuit only lets its hook run again, as in a new session.
const (
	// ClosedKept: failures that did not open the circuit count as
	// consecutive for this long after the last one.
	ClosedKept = time.Hour
	// OpenKept: an open circuit is kept this long after it opened or let
	// its last trial through, long past any cool-down.
	OpenKept = 24 * time.Hour
	// MaxSessions: beyond this many sessions with a circuit, the sessions
	// whose circuits changed least recently are forgotten first.
	MaxSessions = 256
)

// changed is when the circuit last changed.
func (c Circuit) changed() time.Time { return latest(c.FailedAt, c.OpenedAt, c.TrialAt) }

func latest(ts ...time.Time) time.Time {
	var l time.Time
	for _, t := range ts {
		if t.After(l) {
			l = t
		}
	}
	return l
}

// kept reports whether a ledger keeps c at now. A circuit recorded before
// FailedAt existed and never opened has no time: it is not kept.
func (c Circuit) kept(now time.Time) bool {
	switch {
	case c == (Circuit{}):
		return false
	case c.OpenedAt.IsZero():
		return now.Sub(c.FailedAt) <= ClosedKept
	}
	return now.Sub(c.changed()) <= OpenKept
}

// PruneCircuits removes from circuits (hook id, then session id) what a
// ledger may forget at now: closed circuits, failures older than
// ClosedKept, open circuits older than OpenKept, and then, beyond
// MaxSessions sessions, the sessions whose latest change is the oldest.
// It reports whether it removed anything.
func PruneCircuits(circuits map[string]map[string]Circuit, now time.Time) bool {
	pruned := false
	last := map[string]time.Time{} // session -> its latest change
	for h, sessions := range circuits {
		for s, c := range sessions {
			if !c.kept(now) {
				delete(sessions, s)
				pruned = true
				continue
			}
			last[s] = latest(last[s], c.changed())
		}
		if len(sessions) == 0 {
			delete(circuits, h)
			pruned = true
		}
	}
	if len(last) <= MaxSessions {
		return pruned
	}
	order := slices.SortedFunc(maps.Keys(last), func(a, b string) int { return last[a].Compare(last[b]) })
	for _, s := range order[:len(order)-MaxSessions] {
		for h, sessions := range circuits {
			delete(sessions, s)
			if len(sessions) == 0 {
				delete(circuits, h)
			}
		}
	}
	return true
}

// memoryLedger is the default Ledger.
type memoryLedger struct {
	mu       sync.Mutex
	circuits map[string]map[string]Circuit // hook id, then session id
	disabled map[string]bool
	now      func() time.Time // the clock the circuits are stamped with
}

func newMemoryLedger(now func() time.Time) *memoryLedger {
	return &memoryLedger{circuits: map[string]map[string]Circuit{}, disabled: map[string]bool{}, now: now}
}

func (l *memoryLedger) Circuit(hookID, session string, change func(*Circuit)) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	per := l.circuits[hookID]
	c, known := per[session]
	change(&c)
	switch {
	case c == (Circuit{}):
		delete(per, session)
		if len(per) == 0 {
			delete(l.circuits, hookID)
		}
	case known:
		per[session] = c
	default:
		// Only a new circuit makes the ledger grow: prune then, so that a
		// long-lived executor keeps no more than a state file would.
		if per == nil {
			per = map[string]Circuit{}
			l.circuits[hookID] = per
		}
		per[session] = c
		PruneCircuits(l.circuits, l.now())
	}
	return nil
}

func (l *memoryLedger) Disable(hookID, _ string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.disabled[hookID] = true
	return nil
}

func (l *memoryLedger) Disabled(hookID string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.disabled[hookID]
}

// OpenCounter is a Ledger that can count its open circuits (half-open ones
// with a trial in flight included), for Stats.
type OpenCounter interface {
	OpenCircuits() int
}

// CountOpen counts the open circuits of a ledger's record.
func CountOpen(circuits map[string]map[string]Circuit) int {
	n := 0
	for _, per := range circuits {
		for _, c := range per {
			if !c.OpenedAt.IsZero() {
				n++
			}
		}
	}
	return n
}

func (l *memoryLedger) OpenCircuits() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return CountOpen(l.circuits)
}
