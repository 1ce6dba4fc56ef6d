// Package chain runs a host's hooks for one event, in order: each hook
// runs on the event as the hooks before it left it, and the first deny
// ends the chain. What else ends it (a request for approval, a failure),
// which hooks are passed over and how an answer rewrites the event are
// the host's rules, given as Options: dispatch, Arcturn and Bernstein
// each run their chain here.
package chain

import (
	"context"
	"fmt"

	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
)

// Step says how a chain goes on.
type Step int

const (
	Next Step = iota // run the link / go on to the next one
	Skip             // pass this link over
	Stop             // end the chain here
)

// Options are a host's rules for its chain of links (L: the host's own
// description of a hook).
type Options[L any] struct {
	// Hook is the hook link i runs on the event as it now is, or Skip or
	// Stop instead of running it. Required.
	Hook func(i int, l L, event []byte) (hook.Hook, Step)
	// Input is what a hook reads, given the event; nil: the event itself.
	Input func(event []byte) ([]byte, error)
	// After is given each run's result in run order, except a run its
	// matcher passed over (executor.Result.Skipped). Stop ends the chain
	// after it; a deny ends it whatever After says.
	After func(i int, l L, r *executor.Result) (Step, error)
	// Rewrite is the event as an answer that does not end the chain
	// leaves it (a modify); nil: no answer changes the event.
	Rewrite func(i int, l L, event []byte, d hook.Decision) ([]byte, error)
}

// RunError is a link whose hook the executor could not run at all (a
// definition it refuses, a closed executor): the chain ended there.
type RunError struct {
	Index int
	// Event is the event as the hooks before it left it.
	Event []byte
	Err   error
}

func (e *RunError) Error() string { return fmt.Sprintf("link %d: %v", e.Index, e.Err) }
func (e *RunError) Unwrap() error { return e.Err }

// Run runs links in order on ex, starting from event, and returns the
// event as the last hook left it. An error from the host's rules is
// returned as it is; a hook that cannot run is a *RunError.
func Run[L any](ctx context.Context, ex *executor.Executor, links []L, event []byte, o Options[L]) ([]byte, error) {
	for i, l := range links {
		h, step := o.Hook(i, l, event)
		if step == Skip {
			continue
		}
		if step == Stop {
			break
		}
		in := event
		if o.Input != nil {
			var err error
			if in, err = o.Input(event); err != nil {
				return nil, err
			}
		}
		r, err := ex.Run(ctx, h, in)
		if err != nil {
			return nil, &RunError{Index: i, Event: event, Err: err}
		}
		if r.Skipped {
			continue
		}
		if o.After != nil {
			step, err := o.After(i, l, r)
			if err != nil {
				return nil, err
			}
			if step == Stop {
				break
			}
		}
		if r.Decision.Action == hook.Deny {
			break
		}
		if o.Rewrite != nil {
			if event, err = o.Rewrite(i, l, event, r.Decision); err != nil {
				return nil, err
			}
		}
	}
	return event, nil
}
