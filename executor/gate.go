package executor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/hook"
)

// gate refuses a run before anything is launched: recursion depth, an open
// circuit, an untrusted hook on a backend that does not isolate.
func (e *Executor) gate(h *hook.Hook, env *hook.Envelope) *failure {
	if env.Depth >= hook.MaxDepth {
		return fail(hook.FailDepthExceeded, fmt.Errorf("event depth %d: hooks nest at most %d deep", env.Depth, hook.MaxDepth))
	}
	if h.Scope == hook.ScopePlugin && h.Script != "" && h.SHA256 == "" {
		return fail(hook.FailRefusedUnapproved, fmt.Errorf("plugin hook %s has no approved digest: a plugin's script runs only pinned to what its owner approved (--sha256, or consent through `hook-exec plugin enable`)", h.ID))
	}
	if f := e.admitCircuit(h, env); f != nil {
		return f
	}
	// The seed refuses a project's process handlers where nothing isolates
	// them, and a plugin's builtins too; a trusted project's builtin is
	// reviewed in-process code, as an owner's is.
	if h.Scope.Untrusted() && !e.opts.Backend.Isolating() && !(h.Builtin != nil && h.Scope == hook.ScopeProject) {
		if h.Builtin != nil {
			return fail(hook.FailNotIsolated, fmt.Errorf("%w: %s hook %s: a plugin's builtins run only in isolated sessions (docker, containerd), not %s",
				backend.ErrNotIsolated, h.Scope, h.ID, e.opts.Backend.Name()))
		}
		return fail(hook.FailNotIsolated, fmt.Errorf("%w: %s hook %s runs only on an isolating backend (docker, containerd), not %s",
			backend.ErrNotIsolated, h.Scope, h.ID, e.opts.Backend.Name()))
	}
	return nil
}

// admitCircuit refuses a run while the hook's circuit in this session is
// open; after the cool-down it lets one trial run through.
func (e *Executor) admitCircuit(h *hook.Hook, env *hook.Envelope) *failure {
	var refused *failure
	err := e.ledger.Circuit(e.ledgerKey(h, env), env.SessionID, func(c *Circuit) {
		refused = nil // a ledger may call this more than once: the last call decides
		if c.OpenedAt.IsZero() {
			return
		}
		now := e.now()
		if now.Sub(c.OpenedAt) >= e.opts.CircuitCooldown && (c.TrialAt.IsZero() || now.Sub(c.TrialAt) >= e.opts.CircuitCooldown) {
			c.TrialAt = now
			return
		}
		refused = fail(hook.FailCircuitOpen, fmt.Errorf("hook %s failed %d times in a row in session %q: its circuit is open", h.ID, c.Failures, env.SessionID))
		refused.own = !c.NotOwn // as own as the failures that opened it
	})
	if err != nil {
		e.log.Warn("circuit ledger unreadable: the run goes ahead", "hook", h.ID, "err", err)
	}
	return refused
}

// recordCircuit counts consecutive failures; a success closes the circuit.
func (e *Executor) recordCircuit(h *hook.Hook, env *hook.Envelope, f *failure) {
	opened := false // by this failure: the last call of change says
	err := e.ledger.Circuit(e.ledgerKey(h, env), env.SessionID, func(c *Circuit) {
		opened = false
		if f == nil {
			*c = Circuit{}
			return
		}
		c.Failures++
		c.TrialAt, c.FailedAt = time.Time{}, e.now()
		c.NotOwn = c.NotOwn || !f.own
		if c.Failures >= CircuitThreshold {
			c.OpenedAt = e.now()
			opened = c.Failures == CircuitThreshold
		}
	})
	if opened && err == nil {
		e.circuitsOpened.Add(1)
	}
	if err != nil {
		e.log.Warn("circuit ledger not written", "hook", h.ID, "err", err)
	}
}

// acquire takes a global and a per-hook slot, waiting no longer than ctx.
func (e *Executor) acquire(ctx context.Context, h *hook.Hook) (release func(), err error) {
	e.mu.Lock()
	per, ok := e.perHook[h.ID]
	if !ok {
		per = make(chan struct{}, h.MaxConcurrency)
		e.perHook[h.ID] = per
	}
	e.mu.Unlock()
	select {
	case per <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("no concurrency slot for hook %s before the timeout (max_concurrency %d)", h.ID, cap(per))
	}
	shared := func() {}
	if e.opts.SharedSlots && e.opts.StateDir != "" {
		var err error
		if shared, err = sharedSlot(ctx, e.opts.StateDir, definition(h), h.ID, h.MaxConcurrency); err != nil {
			<-per
			return nil, err
		}
	}
	select {
	case e.global <- struct{}{}:
	case <-ctx.Done():
		shared()
		<-per
		return nil, fmt.Errorf("no global concurrency slot before the timeout (%d runs in flight)", cap(e.global))
	}
	return func() { <-e.global; shared(); <-per }, nil
}

// sharedSlotPoll is the pause between tries of the slot files: no event
// says another process released one.
const sharedSlotPoll = 20 * time.Millisecond

// sharedSlot takes one of n slot files of hook id in the state directory
// (a lock the kernel releases with a dead process), waiting no longer than
// ctx: max_concurrency across every process that shares the directory.
func sharedSlot(ctx context.Context, stateDir, key, id string, n int) (release func(), err error) {
	sum := sha256.Sum256([]byte(key))
	dir := filepath.Join(stateDir, "hook-slots", hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	for {
		for i := range n {
			l := flock.New(filepath.Join(dir, strconv.Itoa(i)), flock.SetPermissions(0o600))
			ok, err := l.TryLock()
			if err != nil {
				return nil, fmt.Errorf("hook %s's concurrency slot: %w", id, err)
			}
			if ok {
				return func() { l.Unlock() }, nil
			}
			l.Close()
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("no concurrency slot for hook %s before the timeout: its max_concurrency %d runs are in flight, in this process or another", id, n)
		case <-time.After(sharedSlotPoll):
		}
	}
}

func (e *Executor) isDisabled(h *hook.Hook, env *hook.Envelope) bool {
	return e.ledger.Disabled(e.ledgerKey(h, env))
}

// definition is the hook as one definition: its id where it comes from (a
// project's hook of an id is not a global one's, nor another project's).
func definition(h *hook.Hook) string {
	return strings.Join(append([]string{h.ID, string(h.Scope), h.PluginDir, h.Script}, h.Command...), "\x00")
}

// LedgerKey is the name an executor with Options.LedgerByDefinition keeps
// h's circuits and disabled state under, for an event of workspace ws:
// its id, and a digest of its definition and of where it runs (the
// workspace, h's or the event's, and the image: the same script for
// another project is another hook). `hook-exec hook enable` takes it.
func LedgerKey(h *hook.Hook, ws string) string {
	if h.Workspace != "" {
		ws = h.Workspace
	}
	if ws != "" {
		ws = filepath.Clean(ws)
	}
	sum := sha256.Sum256([]byte(definition(h) + "\x00" + ws + "\x00" + h.Image))
	return h.ID + "@" + hex.EncodeToString(sum[:6])
}

// ledgerKey is h's name in the ledger for env (nil: an event that did
// not read).
func (e *Executor) ledgerKey(h *hook.Hook, env *hook.Envelope) string {
	if !e.opts.LedgerByDefinition {
		return h.ID
	}
	ws := ""
	if env != nil {
		ws = env.Workspace
	}
	return LedgerKey(h, ws)
}
