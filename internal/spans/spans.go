// Package spans makes the OpenTelemetry spans of hook runs and of the
// boundaries that run them, through the global tracer provider: nothing at
// all until a program turns them on (telemetry.NewSpans does, where
// OTEL_EXPORTER_OTLP_* asks). A run's span is made from its trace once it
// is over, with the trace's own times: a child for each phase.
package spans

import (
	"context"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/hookexec/hook-exec/hook"
)

// Scope names hook-exec's tracer.
const Scope = "github.com/hookexec/hook-exec"

var enabled atomic.Bool

// Enable turns spans on, once a tracer provider is installed.
func Enable() { enabled.Store(true) }

type traceIDKey struct{}

// EventTraceID is the trace id a root span made under ctx takes: the
// event's (see withEventTrace), read by the provider's id generator.
func EventTraceID(ctx context.Context) (trace.TraceID, bool) {
	id, ok := ctx.Value(traceIDKey{}).(trace.TraceID)
	return id, ok
}

// withEventTrace puts the event's trace id (32 hex digits) under ctx for a
// root span; with a span already in ctx, or an id that is not one, ctx.
func withEventTrace(ctx context.Context, traceID string) context.Context {
	if trace.SpanContextFromContext(ctx).IsValid() {
		return ctx
	}
	id, err := trace.TraceIDFromHex(traceID)
	if err != nil || !id.IsValid() {
		return ctx
	}
	return context.WithValue(ctx, traceIDKey{}, id)
}

// Boundary starts the span of one boundary (a dispatch): the runs under the
// context it returns are its children. end ends it with the boundary's
// final action, or its error.
func Boundary(ctx context.Context, point, traceID string) (context.Context, func(hook.Action, error)) {
	if !enabled.Load() {
		return ctx, func(hook.Action, error) {}
	}
	ctx, sp := otel.Tracer(Scope).Start(withEventTrace(ctx, traceID), "boundary "+point,
		trace.WithAttributes(attribute.String("hookexec.point", point)))
	return ctx, func(action hook.Action, err error) {
		sp.SetAttributes(attribute.String("hookexec.action", string(action)))
		if err != nil {
			sp.SetStatus(codes.Error, err.Error())
		}
		sp.End()
	}
}

// Run makes the span of a run that is over from its trace: from its start
// for its duration, a child for each phase one after another; under ctx's
// span (a boundary's), else in the event's trace when its trace_id is one.
func Run(ctx context.Context, tr *hook.Trace) {
	if !enabled.Load() {
		return
	}
	failure := ""
	if tr.Failure != nil {
		failure = string(tr.Failure.Kind)
	}
	attrs := []attribute.KeyValue{
		attribute.String("hookexec.hook.id", tr.HookID), attribute.String("hookexec.dialect", tr.Dialect),
		attribute.String("hookexec.point", tr.Point), attribute.String("hookexec.backend", tr.Backend),
		attribute.String("hookexec.action", string(tr.FinalAction)), attribute.String("hookexec.execution_id", tr.ExecutionID),
		attribute.Bool("hookexec.pooled", tr.Pooled), attribute.Bool("hookexec.reused", tr.Reused),
	}
	if failure != "" {
		attrs = append(attrs, attribute.String("hookexec.failure", failure))
	}
	if tr.ExitCode != nil {
		attrs = append(attrs, attribute.Int("hookexec.exit_code", *tr.ExitCode))
	}
	tracer := otel.Tracer(Scope)
	start := tr.StartedAt
	ctx, run := tracer.Start(withEventTrace(ctx, tr.TraceID), "hook "+tr.HookID, trace.WithTimestamp(start), trace.WithAttributes(attrs...))
	if failure != "" {
		run.SetStatus(codes.Error, failure)
	}
	if p := tr.Phases; p != nil {
		at := start
		for _, ph := range []struct {
			name string
			ms   int64
		}{{"queued", p.Queued}, {"create", p.Create}, {"start", p.Start}, {"stream", p.Stream}, {"exit", p.Exit}, {"cleanup", p.Cleanup}} {
			end := at.Add(time.Duration(ph.ms) * time.Millisecond)
			_, child := tracer.Start(ctx, ph.name, trace.WithTimestamp(at))
			child.End(trace.WithTimestamp(end))
			at = end
		}
	}
	run.End(trace.WithTimestamp(start.Add(time.Duration(tr.DurationMS) * time.Millisecond)))
}
