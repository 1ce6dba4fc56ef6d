// Package dispatch runs every hook of a registry snapshot at one boundary
// and returns one answer: plugin hooks first, then the owner's, blocking
// hooks one after another (each matched against the event as the hooks
// before it left it) until one denies or an owner's asks for approval; a
// modify is applied and the next hook sees the new event. A plugin's
// request for approval ends the plugins' chain, never the owner's: the
// owner's hooks judge the event as the plugins left it, and the request
// stands only if they allow. Observational hooks then get the final event
// in the background.
package dispatch

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/host/chain"
	"github.com/hookexec/hook-exec/host/registry"
	"github.com/hookexec/hook-exec/internal/spans"
)

// ErrEvent is the class of events a boundary cannot take.
var ErrEvent = errors.New("invalid event")

// Options configure a Dispatcher.
type Options struct {
	Executor *executor.Executor
	// AllowRoots are the directories an event's workspace may lie in to be
	// mounted (read-only) into the hooks' sandboxes.
	AllowRoots []string
	// DeferObservers hands the observational hooks that run a process or
	// post a webhook back in Result.Deferred instead of starting them: a
	// process that answers a host and exits runs them in another that
	// outlives it. Builtins, bounded in-process code, still start here.
	DeferObservers bool
}

// Dispatcher runs boundaries. It is safe for concurrent use.
type Dispatcher struct {
	opts Options
}

// New returns a Dispatcher.
func New(opts Options) (*Dispatcher, error) {
	if opts.Executor == nil {
		return nil, errors.New("dispatch: no executor")
	}
	return &Dispatcher{opts: opts}, nil
}

// Result is a boundary's answer.
type Result struct {
	// Decision is the final one: the first deny or request_approval, else
	// modify (with the final args) when a hook changed them, else allow.
	Decision hook.Decision `json:"decision"`
	// Event is the final event, as the tool would now run it.
	Event jsontext.Value `json:"event"`
	// Traces are the blocking runs' traces, in run order; observational
	// runs report theirs through the executor's OnTrace.
	Traces []hook.Trace `json:"traces"`
	// Warnings are failures let through with a diagnostic (warn policy).
	Warnings []string `json:"warnings,omitzero"`
	// Observers is how many observational hooks were started (or, with
	// Options.DeferObservers, handed back in Deferred).
	Observers int `json:"observers"`
	// Deferred are the observational hooks to run on Event, with
	// Options.DeferObservers.
	Deferred []hook.Hook `json:"-"`
}

// Dispatch runs the snapshot's hooks at point for event. The error is for
// an event the boundary cannot take (its point differs, it does not
// parse); every failure of a hook goes through its failure policy and ends
// in the decision, and a hook that cannot run at all ends the chain with a
// deny.
func (d *Dispatcher) Dispatch(ctx context.Context, snap *registry.Snapshot, point string, event []byte) (*Result, error) {
	if err := hook.CheckPoint(point); err != nil {
		return nil, err
	}
	ev, err := hook.ParseEvent(event)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrEvent, err)
	}
	if ev.Point != point {
		return nil, fmt.Errorf("%w: the event's point is %q, the boundary's %q", ErrEvent, ev.Point, point)
	}
	// One span for the boundary, the runs' spans its children.
	ctx, end := spans.Boundary(ctx, point, ev.TraceID)
	res, err := d.dispatch(ctx, snap, point, event)
	if err != nil {
		end("", err)
		return nil, err
	}
	end(res.Decision.Action, nil)
	return res, nil
}

// dispatch is Dispatch on an event whose envelope is checked.
func (d *Dispatcher) dispatch(ctx context.Context, snap *registry.Snapshot, point string, event []byte) (*Result, error) {
	res := &Result{Decision: hook.Decision{SchemaVersion: 1, Action: hook.Allow}, Warnings: slices.Clone(snap.Warnings)}
	current := jsontext.Value(append([]byte(nil), event...))
	modified := false
	hooks := snap.At(point)
	subject, err := registry.SubjectOf(current)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrEvent, err)
	}
	for _, e := range snap.PausedAt(point) {
		if e.Def.Filters.Matches(subject) {
			res.Traces = append(res.Traces, d.opts.Executor.Paused(d.hookOf(e), current, e.Disabled))
		}
	}
	// A plugin's request for approval does not end the boundary: the
	// owner's hooks still judge the event as the plugins left it, their
	// deny wins, and the request is the answer only if they let it by.
	var asked *hook.Decision
	var stopped bool // a deny or an owner's request for approval is the answer
	blocking := slices.DeleteFunc(slices.Clone(hooks), func(e *registry.Entry) bool { return e.Def.Mode != hook.Blocking })
	last, err := chain.Run(ctx, d.opts.Executor, blocking, current, chain.Options[*registry.Entry]{
		Hook: func(_ int, e *registry.Entry, _ []byte) (hook.Hook, chain.Step) {
			if asked != nil && e.Origin == registry.Plugin {
				return hook.Hook{}, chain.Skip // the plugins' chain ended at the request
			}
			if !e.Def.Filters.Matches(subject) {
				return hook.Hook{}, chain.Skip
			}
			return d.hookOf(e), chain.Next
		},
		After: func(_ int, e *registry.Entry, r *executor.Result) (chain.Step, error) {
			res.Traces = append(res.Traces, r.Trace)
			if r.Warning != "" {
				res.Warnings = append(res.Warnings, r.Warning)
			}
			switch r.Decision.Action {
			case hook.RequestApproval:
				if e.Origin == registry.Plugin {
					asked = &r.Decision
					return chain.Next, nil
				}
				res.Decision, stopped = r.Decision, true
				return chain.Stop, nil
			case hook.Deny:
				res.Decision, stopped = r.Decision, true
			case hook.Modify:
				res.Decision.Reason = r.Decision.Reason
			}
			return chain.Next, nil
		},
		Rewrite: func(_ int, e *registry.Entry, event []byte, dec hook.Decision) ([]byte, error) {
			if dec.Action != hook.Modify {
				return event, nil
			}
			next, err := applyMutations(event, dec.Mutations)
			if err != nil {
				return nil, fmt.Errorf("hook %s: %w", e.ID, err)
			}
			if subject, err = registry.SubjectOf(next); err != nil {
				return nil, fmt.Errorf("%w: %w", ErrEvent, err)
			}
			modified = true
			return next, nil
		},
	})
	if re := (*chain.RunError)(nil); errors.As(err, &re) {
		// A hook that cannot run at all ends the chain closed: the
		// guards after it must not be skipped by a broken one.
		res.Decision = hook.Decision{SchemaVersion: 1, Action: hook.Deny, Reason: hook.Redact(fmt.Sprintf("hook %s cannot run: %v", blocking[re.Index].ID, re.Err))}
		res.Event = jsontext.Value(re.Event)
		return res, nil
	}
	if err != nil {
		return nil, err
	}
	current = jsontext.Value(last)
	if stopped {
		res.Event = current
		return res, nil
	}
	res.Event = current
	if asked != nil {
		res.Decision = *asked
		return res, nil
	}
	if modified {
		args, err := finalArgs(current)
		if err != nil {
			return nil, err
		}
		res.Decision.Action = hook.Modify
		res.Decision.Mutations = args
	}
	d.observe(ctx, hooks, subject, current, res)
	return res, nil
}

// observe starts the observational hooks of hooks that match subject on
// the final event (or hands them back, deferred), counting them in res.
func (d *Dispatcher) observe(ctx context.Context, hooks []*registry.Entry, subject *registry.Subject, current jsontext.Value, res *Result) {
	for _, e := range hooks {
		if e.Def.Mode != hook.Observational || !e.Def.Filters.Matches(subject) {
			continue
		}
		if d.opts.DeferObservers && e.Def.Handler.Kind != registry.KindBuiltin {
			res.Deferred = append(res.Deferred, d.hookOf(e))
			res.Observers++
			continue
		}
		if _, err := d.opts.Executor.Run(ctx, d.hookOf(e), current); err != nil {
			// The decision stands: an observer that cannot run is reported.
			res.Warnings = append(res.Warnings, hook.Redact(fmt.Sprintf("observer %s cannot run: %v", e.ID, err)))
			continue
		}
		res.Observers++
	}
}

// hookOf is the executor's view of an entry.
func (d *Dispatcher) hookOf(e *registry.Entry) hook.Hook {
	h := e.Hook()
	h.AllowRoots = d.opts.AllowRoots
	return h
}

// applyMutations replaces the members of the event's data that a validated
// modify names (only args, at tool.before: hook.ParseDecision checked it).
func applyMutations(event jsontext.Value, mutations []byte) (jsontext.Value, error) {
	var muts map[string]jsontext.Value
	if err := json.Unmarshal(mutations, &muts); err != nil {
		return nil, fmt.Errorf("mutations: %w", err)
	}
	var ev map[string]jsontext.Value
	if err := json.Unmarshal(event, &ev); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrEvent, err)
	}
	data := map[string]jsontext.Value{}
	if raw, ok := ev["data"]; ok {
		if err := json.Unmarshal(raw, &data); err != nil {
			return nil, fmt.Errorf("%w: data: %w", ErrEvent, err)
		}
	}
	maps.Copy(data, muts)
	b, err := json.Marshal(data, json.Deterministic(true))
	if err != nil {
		return nil, err
	}
	ev["data"] = b
	return json.Marshal(ev, json.Deterministic(true))
}

// finalArgs returns {"args": <the event's data.args>}.
func finalArgs(event jsontext.Value) ([]byte, error) {
	var ev struct {
		Data struct {
			Args jsontext.Value `json:"args"`
		} `json:"data"`
	}
	if err := json.Unmarshal(event, &ev); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrEvent, err)
	}
	return json.Marshal(map[string]jsontext.Value{"args": ev.Data.Args}, json.Deterministic(true))
}
