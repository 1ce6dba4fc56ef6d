// Package hookrun is what the commands that run hooks do after their
// flags (run, dispatch, observe, the Arcturn and Bernstein chains): open a
// stack (an unreachable engine is a failure of the run, not of the
// call), run the hooks, store the traces, and answer as the host reads it.
package hookrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/hookexec/hook-exec/backend/engine"
	"github.com/hookexec/hook-exec/cmd/internal/stack"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
)

// UsageError is a call that cannot run as given: an unknown backend, a
// session on a backend without sessions, a hook the executor refuses.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usage(err error) error { return &UsageError{err} }

// Options are one run.
type Options struct {
	Hook  hook.Hook
	Event []byte
	// Engine opens the backend; Sweep is implied.
	Engine engine.Options
	// Session is a Docker session container whose image (unless
	// Hook.Image is set) and mounts the hook gets.
	Session string
	// MaxEventBytes is the largest event accepted (0: the executor's default).
	MaxEventBytes int64
	// StateDir is the trace store ("": tracestore.DefaultDir). A store that
	// cannot be written is a warning, never a change of decision.
	StateDir string
	// TraceFile gets the trace JSON ("": none, "-": Stderr).
	TraceFile string
	// Stdout gets the answer in the hook's dialect; Stderr warnings, the
	// failure line and the line the host reads there (hook.Host.Answer).
	Stdout, Stderr io.Writer
	// Shared is the server running this call (nil: it opens a stack of
	// its own). Its executors keep the engine, Sweep and MaxEventBytes
	// they were made with.
	Shared *Shared
}

// Run runs o.Hook on o.Event and answers as its host reads a hook command
// (hook.Host.Answer): the answer on o.Stdout, a line on o.Stderr, and the
// exit status it returns. Every failure of the hook (an unreachable engine
// included) ends in a decision through the hook's failure policy, except
// an event hook-exec cannot read, which a blocking hook refuses whatever
// its policy: the policy is for failures of the hook, and letting such an
// event through would skip it. The error is for a call that cannot run (a
// *UsageError) or an answer that could not be written.
func Run(ctx context.Context, o Options) (_ *hook.Decision, exit int, _ error) {
	var trace *hook.Trace
	// The executor's state (the audit builtin's log, the hooks' kept
	// /tmp) is the one the traces go to.
	stateDir, _ := StateDir(o.StateDir)
	so := stack.Options{Engine: o.Engine, StateDir: o.StateDir, Traces: true, Log: o.Stderr, Executor: executor.Options{
		StateDir:      stateDir,
		MaxEventBytes: o.MaxEventBytes,
		Via:           "process",
		OnTrace:       func(tr hook.Trace) { trace = &tr },
	}}
	if o.Session != "" {
		// The hook gets the session container's image and mounts: an engine
		// that does not answer cannot say what they are.
		so.Strict = true
	}
	k := oneShotOf(o.Hook.Dialect)
	if k == callKept {
		so.Executor = keptOptions(so.Executor, stateDir)
	}
	c, err := o.Shared.begin(k, func() (*stack.Stack, error) { return stack.Open(ctx, so) })
	if err != nil {
		return nil, 0, usage(err)
	}
	if o.Session != "" {
		if err := borrowSession(ctx, c.Engine, &o); err != nil {
			c.end(stack.DefaultDrain)
			return nil, 0, err
		}
	}
	res, err := c.Executor.Run(c.warnTo(ctx, o.Stderr), o.Hook, o.Event)
	// An observational run goes on in the background: let it finish, bounded.
	if cerr := c.end(o.Hook.Timeout + 10*time.Second); cerr != nil {
		fmt.Fprintf(o.Stderr, "hook-exec: %v\n", cerr)
	}
	if err != nil {
		return nil, 0, usage(err)
	}
	if c.own == nil && !res.Skipped && !res.Async {
		trace = &res.Trace // the server's executor calls no OnTrace of this call's
	}
	if trace != nil {
		if f := trace.Failure; f != nil {
			fmt.Fprintf(o.Stderr, "hook-exec: %s: %s (failure_policy %s)\n", f.Kind, f.Message, trace.PolicyApplied)
			if d, _ := hook.Sniff(o.Event); f.Kind == hook.FailInvalidEvent && d != "" && d != o.Hook.Dialect {
				fmt.Fprintf(o.Stderr, "hook-exec: the event looks like a %s payload: name it with --dialect %s\n", d, d)
			}
		}
		if err := writeTrace(o.TraceFile, *trace, o.Stderr); err != nil {
			fmt.Fprintf(o.Stderr, "hook-exec: write trace: %v\n", err)
		}
	}
	point := ""
	if trace != nil {
		point = trace.Point
	}
	if d, p := hook.Sniff(o.Event); point == "" && d == o.Hook.Dialect {
		point = p // an event that did not read still names its point
	}
	ans, err := o.Hook.Dialect.Host().Answer(point, res.Decision, res.Trace.Failure)
	if err == nil && ans.Stdout != nil {
		_, err = o.Stdout.Write(ans.Stdout)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("write decision: %w", err)
	}
	if ans.Stderr != "" {
		fmt.Fprintln(o.Stderr, ans.Stderr)
	}
	return &res.Decision, ans.Exit, nil
}

// borrowSession gives the hook a Docker session container's image and mounts.
func borrowSession(ctx context.Context, eng *engine.Engine, o *Options) error {
	if eng.Docker() == nil {
		return usage(errors.New("--session needs the docker backend"))
	}
	s, err := eng.Docker().SessionOf(ctx, o.Session)
	if err != nil {
		return usage(fmt.Errorf("--session: %w", err))
	}
	if o.Hook.Image == "" {
		o.Hook.Image = s.Image
	}
	for _, m := range s.Mounts {
		o.Hook.Mounts = append(o.Hook.Mounts, hook.Mount{Source: m.Source, Target: m.Target, Volume: m.Volume})
	}
	return nil
}

func writeTrace(path string, tr hook.Trace, stderr io.Writer) error {
	if path == "" {
		return nil
	}
	b, err := json.Marshal(tr)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if path == "-" {
		_, err = stderr.Write(b)
		return err
	}
	return os.WriteFile(path, b, 0o600)
}
