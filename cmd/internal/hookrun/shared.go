package hookrun

import (
	"context"
	"io"
	"time"

	"github.com/hookexec/hook-exec/backend/engine"
	"github.com/hookexec/hook-exec/cmd/internal/stack"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/host/dispatch"
)

// Shared is what a hook-exec server lends the commands it runs, in place
// of the stack each would open for its one call: the engine, and an
// executor for each kind of call, whose options are those the call's own
// would have, so that a call decides through the server as it does in a
// process of its own.
type Shared struct {
	Engine *engine.Engine
	// OneShot runs run's hook and the host chains (arcturn, bernstein). Its
	// ledger forgets: a process's circuits and the hooks its failure policy
	// disabled end with its one call, and so they do here.
	OneShot *executor.Executor
	// Registry runs dispatch's hooks and their observers, with the state
	// directory's ledger every process shares.
	Registry *executor.Executor
}

// Share opens a server's executors on stack s, each with xo (pool,
// reuse, via) and its kind's ledger.
func Share(s *stack.Stack, stateDir string, xo executor.Options) (*Shared, error) {
	one := xo
	one.Ledger = forgetful{}
	oneShot, err := s.Also(one)
	if err != nil {
		return nil, err
	}
	reg := xo
	reg.Ledger, reg.StateDir, reg.SharedSlots = dispatch.StateLedger(stateDir), stateDir, true
	registry, err := s.Also(reg)
	if err != nil {
		return nil, err
	}
	return &Shared{Engine: s.Engine, OneShot: oneShot, Registry: registry}, nil
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

// begin returns sh's executor of the kind (registry or one-shot), or, with
// no server (sh nil), a stack opened by open.
func (sh *Shared) begin(registry bool, open func() (*stack.Stack, error)) (*call, error) {
	if sh != nil {
		ex := sh.OneShot
		if registry {
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
