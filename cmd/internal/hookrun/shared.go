package hookrun

import (
	"context"
	"io"
	"time"

	"github.com/hookexec/hook-exec/backend/engine"
	"github.com/hookexec/hook-exec/cmd/internal/stack"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/host/dispatch"
)

// Shared is what a hook-exec server lends the commands it runs, in place
// of the stack each would open for its one call: the engine, and an
// executor for each kind of call, whose options are those the call's own
// would have, so that a call decides through the server as it does in a
// process of its own.
type Shared struct {
	Engine *engine.Engine
	// OneShot runs run's hook for the hosts that run every hook at every
	// event (keepsCircuits). Its ledger forgets: no circuit opens, no
	// failure policy disables a hook for the calls after.
	OneShot *executor.Executor
	// Kept runs run's hook for the seed hosts and their chains (arcturn,
	// bernstein), with the state directory's ledger every process shares,
	// keyed by each hook's definition.
	Kept *executor.Executor
	// Registry runs dispatch's hooks and their observers, with the state
	// directory's ledger every process shares.
	Registry *executor.Executor
}

// Share opens a server's executors on stack s, each with xo (pool,
// reuse, via), the state directory (a kept /tmp, the audit log) and its
// kind's ledger.
func Share(s *stack.Stack, stateDir string, xo executor.Options) (*Shared, error) {
	xo.StateDir = stateDir
	one := xo
	one.Ledger = forgetful{}
	oneShot, err := s.Also(one)
	if err != nil {
		return nil, err
	}
	kept, err := s.Also(keptOptions(xo, stateDir))
	if err != nil {
		return nil, err
	}
	reg := xo
	reg.Ledger, reg.SharedSlots = dispatch.StateLedger(stateDir), true
	registry, err := s.Also(reg)
	if err != nil {
		return nil, err
	}
	return &Shared{Engine: s.Engine, OneShot: oneShot, Kept: kept, Registry: registry}, nil
}

// keepsCircuits reports whether d's host keeps a hook's circuit and
// disabled state across its events, as the seeds' hosts do (seed 000:
// "After three consecutive failures, the per-session circuit opens"), so
// that one-shot calls keep them in the state directory. The other hosts
// run every hook at every event: a circuit there would skip a hook its
// host runs, and answer other than the host would.
func keepsCircuits(d hook.Dialect) bool {
	return d == hook.Holaryn || d == hook.Arcturn || d == hook.Bernstein
}

// keptOptions are xo with the state directory's ledger, keyed by
// definition: a one-shot call's hook ids are unique only within it.
func keptOptions(xo executor.Options, stateDir string) executor.Options {
	xo.Ledger, xo.LedgerByDefinition = dispatch.StateLedger(stateDir), true
	return xo
}

// call is one call's engine and executor: the server's, or a stack of
// its own that end closes.
type call struct {
	Engine   *engine.Engine
	Executor *executor.Executor
	own      *stack.Stack
}

// end closes the call's own stack, waiting at most drain for the runs in
// flight; the server's go on. The process exits next: the removals of its
// sandboxes go on in its reaper, not before its answer and exit (a Docker
// removal took 100-250 ms a call here).
func (c *call) end(drain time.Duration) error {
	if c.own == nil {
		return nil
	}
	return c.own.Leave(drain)
}

// warnTo is ctx under which the call's runs warn on stderr: a process's
// own executor does (stack.Options.Log); the server's does so for the
// calls that give it a writer.
func (c *call) warnTo(ctx context.Context, stderr io.Writer) context.Context {
	if c.own != nil {
		return ctx
	}
	return executor.WithLogger(ctx, executor.TextLogger(stderr))
}

// kind is which of a server's executors a call runs on.
type kind int

const (
	callOneShot kind = iota
	callKept
	callRegistry
)

// oneShotOf is the kind of a one-shot call of dialect d.
func oneShotOf(d hook.Dialect) kind {
	if keepsCircuits(d) {
		return callKept
	}
	return callOneShot
}

// begin returns sh's executor of kind k, or, with no server (sh nil), a
// stack opened by open.
func (sh *Shared) begin(k kind, open func() (*stack.Stack, error)) (*call, error) {
	if sh != nil {
		ex := sh.OneShot
		switch k {
		case callKept:
			ex = sh.Kept
		case callRegistry:
			ex = sh.Registry
		}
		return &call{Engine: sh.Engine, Executor: ex}, nil
	}
	s, err := open()
	if err != nil {
		return nil, err
	}
	return &call{Engine: s.Engine, Executor: s.Executor, own: s}, nil
}

// forgetful is the ledger of a call that runs in a server as it would in
// a process of its own: every circuit is closed, no hook is disabled.
type forgetful struct{}

func (forgetful) Circuit(_, _ string, change func(*executor.Circuit)) error {
	var c executor.Circuit
	change(&c)
	return nil
}

func (forgetful) Disable(string, string) error { return nil }
func (forgetful) Disabled(string) bool         { return false }
