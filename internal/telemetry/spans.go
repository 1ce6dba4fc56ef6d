package telemetry

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/hookexec/hook-exec/hook"
)

// Spans exports each run as an OpenTelemetry span with a child for each
// phase, over OTLP, where the standard environment names an endpoint.
type Spans struct {
	tp     *sdktrace.TracerProvider
	tracer trace.Tracer
}

// NewSpans returns the exporter the environment asks for, or nil (no
// span is made) when OTEL_EXPORTER_OTLP_ENDPOINT and
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT are unset or OTEL_SDK_DISABLED is
// true. OTEL_EXPORTER_OTLP_PROTOCOL picks grpc or http/protobuf (the
// default); the exporter reads the other OTEL_EXPORTER_OTLP_* variables
// (headers, timeout, certificates) itself.
func NewSpans(ctx context.Context) (*Spans, error) {
	if strings.EqualFold(os.Getenv("OTEL_SDK_DISABLED"), "true") ||
		(os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "") {
		return nil, nil
	}
	var exp *otlptrace.Exporter
	var err error
	proto := os.Getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if proto == "" {
		proto = os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	switch proto {
	case "", "http/protobuf":
		exp, err = otlptracehttp.New(ctx)
	case "grpc":
		exp, err = otlptracegrpc.New(ctx)
	default:
		return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL %q: want grpc or http/protobuf", proto)
	}
	if err != nil {
		return nil, fmt.Errorf("OTLP exporter: %w", err)
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(semconv.ServiceName("hook-exec")))
	if err != nil {
		res = resource.Default()
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res), sdktrace.WithIDGenerator(eventTraceIDs{}))
	return &Spans{tp: tp, tracer: tp.Tracer("github.com/hookexec/hook-exec")}, nil
}

// Observe makes the span of one run from its trace: from its start for its
// duration, a child for each phase one after another, in the event's
// trace when the event has a valid trace_id.
func (s *Spans) Observe(tr hook.Trace) {
	if s == nil {
		return
	}
	ctx := context.Background()
	if id, err := trace.TraceIDFromHex(tr.TraceID); err == nil && id.IsValid() {
		ctx = context.WithValue(ctx, traceIDKey{}, id)
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
	start := tr.StartedAt
	ctx, run := s.tracer.Start(ctx, "hook "+tr.HookID, trace.WithTimestamp(start), trace.WithAttributes(attrs...), trace.WithSpanKind(trace.SpanKindInternal))
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
			_, child := s.tracer.Start(ctx, ph.name, trace.WithTimestamp(at))
			child.End(trace.WithTimestamp(end))
			at = end
		}
	}
	run.End(trace.WithTimestamp(start.Add(time.Duration(tr.DurationMS) * time.Millisecond)))
}

// Shutdown sends what is left, within ctx.
func (s *Spans) Shutdown(ctx context.Context) error {
	if s == nil {
		return nil
	}
	return s.tp.Shutdown(ctx)
}

type traceIDKey struct{}

// eventTraceIDs makes a root span's trace id the event's, when the context
// carries one; otherwise, and for span ids, random ones.
type eventTraceIDs struct{}

func (eventTraceIDs) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	tid, ok := ctx.Value(traceIDKey{}).(trace.TraceID)
	if !ok {
		rand.Read(tid[:])
	}
	return tid, eventTraceIDs{}.NewSpanID(ctx, tid)
}

func (eventTraceIDs) NewSpanID(context.Context, trace.TraceID) trace.SpanID {
	var sid trace.SpanID
	for !sid.IsValid() {
		rand.Read(sid[:])
	}
	return sid
}
