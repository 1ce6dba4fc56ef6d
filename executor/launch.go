package executor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/internal/admission"
	"github.com/hookexec/hook-exec/launcher"
	"github.com/hookexec/hook-exec/sandbox"
)

// launch runs the sandbox: a pooled one when the pool has its shape,
// else a new one admitted by the engine's limiter (container backends),
// else the backend's own run (local).
func (e *Executor) launch(ctx context.Context, h *hook.Hook, lang launcher.Lang, spec *sandbox.Spec, vars []string, script, event []byte, queued time.Time, tr *hook.Trace) (*backend.Outcome, *failure) {
	// The shell launcher's sandboxes have sh for a channel's wrapper, and
	// are streamed once.
	spec.Channel = lang == launcher.Shell || lang == launcher.Node
	var w backend.Warm
	refill := func() {}
	// Pooled sandboxes run a launcher (commands start their own) that
	// takes no arguments: a script with arguments starts its own too, as
	// does one with files of its own (the env file it hands back, a transcript,
	// --writable).
	if lang != "" && !ownFiles(h) {
		w, refill = e.warm(lang, spec)
	}
	defer refill()
	if w != nil {
		tr.Pooled = true
		tr.Phases.Queued = time.Since(queued).Milliseconds()
		stdin, err := launcher.PoolInput(lang, vars, script, event)
		if err != nil {
			w.Discard()
			return nil, fail(hook.FailRefusedRule, err)
		}
		out, err := w.Run(ctx, stdin, h.MaxOutputBytes)
		if err != nil {
			return nil, classifyRunError(lang, spec.Argv[0], err)
		}
		out.Phases.Create, out.Phases.Start = 0, 0 // paid ahead
		return out, nil
	}
	stdin := make([]byte, 0, len(script)+len(event))
	stdin = append(append(stdin, script...), event...)
	if e.warmer == nil {
		tr.Phases.Queued = time.Since(queued).Milliseconds()
		out, err := e.opts.Backend.Run(ctx, &backend.Run{Spec: spec, Stdin: stdin, MaxOutput: h.MaxOutputBytes})
		if err != nil {
			return nil, classifyRunError(lang, spec.Argv[0], err)
		}
		return out, nil
	}
	ticket, err := e.admit.Acquire(ctx)
	tr.Phases.Queued = time.Since(queued).Milliseconds()
	switch {
	case errors.Is(err, admission.ErrOverloaded):
		return nil, fail(hook.FailOverloaded, err)
	case err != nil:
		tr.TimedOut = true
		return nil, failBeforeStart(hook.FailTimeout, fmt.Errorf("waiting for the engine: %w", err))
	}
	w, err = e.warmer.Warm(ctx, spec)
	switch {
	case err == nil:
		ticket.Done(true)
	case errors.Is(err, backend.ErrPrepareTimeout):
		ticket.Cancel()
		tr.TimedOut = true
		return nil, failBeforeStart(hook.FailTimeout, fmt.Errorf("hook ran past its %v timeout while its sandbox was made", h.Timeout))
	case errors.Is(err, backend.ErrEngine):
		ticket.Done(false)
		return nil, classifyRunError(lang, spec.Argv[0], err)
	default:
		ticket.Cancel()
		return nil, classifyRunError(lang, spec.Argv[0], err)
	}
	out, err := w.Run(ctx, stdin, h.MaxOutputBytes)
	if err != nil {
		return nil, classifyRunError(lang, spec.Argv[0], err)
	}
	return out, nil
}

// recordOutcome copies what the sandbox reported into the trace.
func recordOutcome(out *backend.Outcome, tr *hook.Trace) {
	code := out.ExitCode
	tr.ExitCode = &code
	tr.Signal = out.Signal
	tr.TimedOut, tr.Truncated, tr.OOMKilled = out.TimedOut, out.Truncated, out.OOMKilled
	tr.StdoutBytes, tr.StderrBytes = out.StdoutBytes, out.StderrBytes
	tr.StderrExcerpt = excerpt(out.Stderr)
	p := out.Phases
	tr.Phases.Create, tr.Phases.Start = p.Create.Milliseconds(), p.Start.Milliseconds()
	tr.Phases.Stream, tr.Phases.Exit, tr.Phases.Cleanup = p.Stream.Milliseconds(), p.Exit.Milliseconds(), p.Cleanup.Milliseconds()
}

// warm takes a pooled sandbox for the run, or nil for a cold start, and
// the refill to call when the run is over.
func (e *Executor) warm(lang launcher.Lang, spec *sandbox.Spec) (backend.Warm, func()) {
	if e.pool == nil {
		return nil, func() {}
	}
	return e.pool.take(lang, spec)
}
