// Package hookrun runs one hook once, the way `hook-exec run` does: it
// opens the engine (an unreachable one is a failure of the run, not of the
// call), runs the hook through a fresh executor, stores the trace, and
// writes the final decision as a host reads it.
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
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/internal/session"
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
	// Stdout gets the decision in the hook's dialect; Stderr warnings, the
	// failure line and, outside the holaryn dialect, a deny's reason.
	Stdout, Stderr io.Writer
}

// ErrUnreadable: hook-exec cannot read the event in the hook's dialect
// (nor, for Claude Code, tell its event): the answer is exit 2.
var ErrUnreadable = errors.New("hook-exec cannot read the event")

// Run runs o.Hook on o.Event and writes the decision to o.Stdout. Every
// failure of the hook (an unreachable engine included) ends in a decision
// through the hook's failure policy, except an event hook-exec cannot read,
// which a blocking hook refuses whatever its policy: the policy is for
// failures of the hook, and letting such an event through would skip it.
// In the bernstein dialect a failure that ends in a refusal is no answer
// on stdout but Bernstein's exit status: ErrUnreadable (a blocking error,
// status 2) or ErrHookFailed (a hook failure, status 1), with a nil
// decision. Otherwise the error is for a call that cannot run (a
// *UsageError) or a decision that could not be written.
func Run(ctx context.Context, o Options) (*hook.Decision, error) {
	var trace *hook.Trace
	so := session.Options{Engine: o.Engine, StateDir: o.StateDir, Traces: true, Log: o.Stderr, Executor: executor.Options{
		MaxEventBytes: o.MaxEventBytes,
		OnTrace:       func(tr hook.Trace) { trace = &tr },
	}}
	if o.Session != "" {
		// The hook gets the session container's image and mounts: an engine
		// that does not answer cannot say what they are.
		so.Strict = true
	}
	s, err := session.Open(ctx, so)
	if err != nil {
		return nil, usage(err)
	}
	if o.Session != "" {
		if err := borrowSession(ctx, s.Engine, &o); err != nil {
			s.Close(session.DefaultDrain)
			return nil, err
		}
	}
	res, err := s.Executor.Run(ctx, o.Hook, o.Event)
	// An observational run goes on in the background: let it finish, bounded.
	if cerr := s.Close(o.Hook.Timeout + 10*time.Second); cerr != nil {
		fmt.Fprintf(o.Stderr, "hook-exec: %v\n", cerr)
	}
	if err != nil {
		return nil, usage(err)
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
	if f := res.Trace.Failure; f != nil && o.Hook.Dialect == hook.Bernstein && res.Decision.Action == hook.DenyAction {
		// Bernstein records a deny on stdout as the hook's own structured
		// refusal; a run that failed is not one (the line above says why).
		if f.Kind == hook.FailInvalidEvent {
			return nil, fmt.Errorf("%w: %s", ErrUnreadable, f.Message)
		}
		return nil, fmt.Errorf("%w: %s: %s", ErrHookFailed, f.Kind, f.Message)
	}
	point := ""
	if trace != nil {
		point = trace.Point
	}
	if d, p := hook.Sniff(o.Event); point == "" && d == o.Hook.Dialect {
		point = p // an event that did not read still names its point
	}
	if _, known := hook.ClaudeEvents[point]; o.Hook.Dialect == hook.Claude && !known && res.Decision.Action == hook.DenyAction {
		// No event to answer in Claude's JSON: exit 2 blocks whatever
		// Claude Code can block, the reason on stderr.
		fmt.Fprintln(o.Stderr, res.Decision.Reason)
		return nil, fmt.Errorf("%w: %s", ErrUnreadable, res.Decision.Reason)
	}
	out, err := hook.Encode(o.Hook.Dialect, point, res.Decision, res.Trace.Failure)
	if err == nil {
		_, err = o.Stdout.Write(out)
	}
	if err != nil {
		return nil, fmt.Errorf("write decision: %w", err)
	}
	if res.Decision.Action == hook.DenyAction && o.Hook.Dialect == hook.Arcturn {
		// Arcturn reads a blocking exit's reason from stderr; the other
		// hosts read it from the answer on stdout.
		fmt.Fprintln(o.Stderr, res.Decision.Reason)
	}
	return &res.Decision, nil
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
