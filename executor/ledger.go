package executor

import (
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
	// and may be forgotten.
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
}

type circuitKey struct{ hook, session string }

// memoryLedger is the default Ledger.
type memoryLedger struct {
	mu       sync.Mutex
	circuits map[circuitKey]Circuit
	disabled map[string]bool
}

func newMemoryLedger() *memoryLedger {
	return &memoryLedger{circuits: map[circuitKey]Circuit{}, disabled: map[string]bool{}}
}

func (l *memoryLedger) Circuit(hookID, session string, change func(*Circuit)) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := circuitKey{hookID, session}
	c := l.circuits[k]
	change(&c)
	if c == (Circuit{}) {
		delete(l.circuits, k)
	} else {
		l.circuits[k] = c
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
