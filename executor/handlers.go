package executor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/executor/handler/builtin"
	"github.com/hookexec/hook-exec/executor/handler/webhook"
	"github.com/hookexec/hook-exec/hook"
)

// post runs a webhook handler: the event is the POST body, the answer is
// read as the hook's stdout (exit 0), all under the hook's timeout.
func (e *Executor) post(ctx context.Context, h *hook.Hook, env *hook.Envelope, event []byte, tr *hook.Trace) (*hook.Decision, *failure) {
	rctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	tr.Phases = &hook.Phases{}
	queued := time.Now()
	release, err := e.acquire(rctx, h)
	tr.Phases.Queued = time.Since(queued).Milliseconds()
	if err != nil {
		tr.TimedOut = true
		return nil, failBeforeStart(hook.FailTimeout, err)
	}
	defer release()
	o := e.opts.Webhook
	o.URL, o.Headers, o.MaxAnswerBytes = h.Webhook.URL, h.Webhook.Headers, h.MaxOutputBytes
	begin := time.Now()
	answer, err := webhook.Post(rctx, o, event)
	tr.Phases.Stream = time.Since(begin).Milliseconds()
	switch {
	case err == nil:
	case rctx.Err() != nil:
		tr.TimedOut = true
		return nil, fail(hook.FailTimeout, fmt.Errorf("webhook did not answer within its %v timeout: %w", h.Timeout, err))
	case errors.Is(err, webhook.ErrTooLarge):
		tr.Truncated = true
		return nil, fail(hook.FailOutputLimit, err)
	case errors.Is(err, webhook.ErrURL), errors.Is(err, webhook.ErrHeader):
		return nil, fail(hook.FailRefusedRule, err)
	default:
		return nil, fail(hook.FailWebhook, err)
	}
	tr.StdoutBytes = int64(len(answer))
	return judge(h, env, &backend.Outcome{Stdout: answer})
}

// builtin runs a reviewed in-process handler under the hook's timeout.
func (e *Executor) builtin(ctx context.Context, h *hook.Hook, _ *hook.Envelope, event []byte, tr *hook.Trace) (*hook.Decision, *failure) {
	rctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	tr.Phases = &hook.Phases{}
	begin := time.Now()
	d, err := builtin.Run(rctx, h.Builtin.Name, h.Builtin.Options, event, builtin.Env{StateDir: e.opts.StateDir, Log: e.log, Webhook: e.opts.Webhook})
	tr.Phases.Stream = time.Since(begin).Milliseconds()
	switch {
	case err == nil:
	case rctx.Err() != nil:
		tr.TimedOut = true
		return nil, fail(hook.FailTimeout, fmt.Errorf("builtin %s ran past its %v timeout: %w", h.Builtin.Name, h.Timeout, err))
	default:
		return nil, fail(hook.FailBuiltin, fmt.Errorf("builtin %s: %w", h.Builtin.Name, err))
	}
	tr.HandlerAction = d.Action
	if h.Mode == hook.Observational && d.Action != hook.Allow {
		return d, fail(hook.FailInvalidDecision, fmt.Errorf("an observational hook answered %s: it may only allow", d.Action))
	}
	if d.Action == hook.Modify {
		return nil, fail(hook.FailInvalidDecision, fmt.Errorf("builtin %s answered modify", h.Builtin.Name))
	}
	return d, nil
}
