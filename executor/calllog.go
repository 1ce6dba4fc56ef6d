package executor

import (
	"context"
	"log/slog"
)

type callLogKey struct{}

// WithLogger gives the runs under ctx a logger of their own for what they
// warn of, in place of Options.Logger: a server's executor serves many
// callers, and each caller's warnings go to its own stderr, as they would
// from an executor of its own.
func WithLogger(ctx context.Context, l *slog.Logger) context.Context {
	return context.WithValue(ctx, callLogKey{}, l.Handler())
}

// callHandler sends a record to the handler its context names, else to
// the executor's own.
type callHandler struct{ own slog.Handler }

func (h callHandler) of(ctx context.Context) slog.Handler {
	if ctx != nil {
		if c, ok := ctx.Value(callLogKey{}).(slog.Handler); ok {
			return c
		}
	}
	return h.own
}

func (h callHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.of(ctx).Enabled(ctx, l)
}
func (h callHandler) Handle(ctx context.Context, r slog.Record) error {
	return h.of(ctx).Handle(ctx, r)
}
func (h callHandler) WithAttrs(as []slog.Attr) slog.Handler { return callHandler{h.own.WithAttrs(as)} }
func (h callHandler) WithGroup(n string) slog.Handler       { return callHandler{h.own.WithGroup(n)} }
