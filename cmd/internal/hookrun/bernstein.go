package hookrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/hookexec/hook-exec/backend/engine"
	"github.com/hookexec/hook-exec/cmd/internal/stack"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/host/bernstein"
	"github.com/hookexec/hook-exec/internal/tracestore"
)

// BernsteinOptions are one event through a Bernstein project's hooks, the
// way `hook-exec bernstein hooks dry-run` fires it.
type BernsteinOptions struct {
	Project string // its root: bernstein.yaml and .bernstein/hooks/
	Event   string
	Data    []byte // the payload's data member; nil: the empty context (bernstein.Run)
	Engine  engine.Options
	// StateDir holds the traces and the denials' audit log
	// (bernstein-denials.jsonl; "": tracestore.DefaultDir).
	StateDir       string
	JSON           bool
	Stdout, Stderr io.Writer
	Shared         *Shared // the server running this call (nil: none)
}

// ErrHookFailed: a hook of the chain failed (Bernstein's HookFailure).
var ErrHookFailed = errors.New("a hook failed")

// Bernstein runs the chain and reports it: "DENIED: <event> blocked by
// <hook>: <reason>" (Bernstein's own line) with the audit record appended
// to the state directory's log, or the failure, or ALLOWED. A payload or
// declaration that does not read is a usage error.
func Bernstein(ctx context.Context, o BernsteinOptions) (*bernstein.Result, error) {
	hooks, err := bernstein.Discover(o.Project)
	if err != nil {
		return nil, usage(err)
	}
	stateDir, err := StateDir(o.StateDir)
	if err != nil {
		return nil, usage(err)
	}
	c, err := o.Shared.begin(callKept, func() (*stack.Stack, error) {
		return openStack(ctx, o.Engine, stateDir, o.Stderr, keptOptions(executor.Options{}, stateDir))
	})
	if err != nil {
		return nil, err
	}
	defer c.end(stack.DefaultDrain)
	res, err := bernstein.Run(c.warnTo(ctx, o.Stderr), c.Executor, o.Project, o.Event, hooks[o.Event], o.Data, bernstein.Context{Workdir: o.Project})
	if err != nil {
		if errors.Is(err, hook.ErrInvalid) {
			return nil, usage(err)
		}
		return nil, err
	}
	if d := res.Denied; d != nil {
		d.Reason = hook.Redact(d.Reason)
		d.Data = hook.RedactJSON(d.Data)
		if log, err := tracestore.Log(stateDir, "bernstein-denials", 1<<20, 3); err == nil {
			if err := log.AppendJSON(d); err != nil {
				fmt.Fprintf(o.Stderr, "hook-exec: audit: %v\n", err)
			}
		}
	}
	if o.JSON {
		b, err := json.Marshal(res)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(o.Stdout, "%s\n", b)
	} else {
		for _, h := range res.Skipped {
			fmt.Fprintf(o.Stdout, "skipped %s: a pluggy plugin: Bernstein loads it, hook-exec does not\n", h.Label)
		}
		for _, r := range res.Records {
			fmt.Fprintf(o.Stdout, "%s answered %s: an allow to Bernstein, the record kept\n", r.Hook, r.Raw)
		}
		switch {
		case res.Denied != nil:
			fmt.Fprintf(o.Stdout, "DENIED: %s blocked by %s: %s\n", o.Event, res.Denied.Hook, res.Denied.Reason)
		case res.Failed != "":
			fmt.Fprintf(o.Stdout, "FAILED: %s: %s\n", o.Event, res.Failed)
		default:
			fmt.Fprintf(o.Stdout, "ALLOWED: %s (%d hook(s) ran)\n", o.Event, len(res.Traces))
			before := string(o.Data)
			if o.Data == nil {
				before = "{}" // the empty context
			}
			if len(res.Traces) > 0 && string(res.Data) != before {
				fmt.Fprintf(o.Stdout, "data after the chain: %s\n", res.Data)
			}
		}
	}
	if res.Failed != "" {
		return res, fmt.Errorf("%w: %s", ErrHookFailed, res.Failed)
	}
	return res, nil
}
