package telemetry

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/hookexec/hook-exec/internal/spans"
)

// Spans is the tracer provider that exports the spans of runs and
// boundaries (package spans) over OTLP, where the standard environment
// names an endpoint.
type Spans struct {
	tp *sdktrace.TracerProvider
}

// NewSpans returns the exporter the environment asks for, or nil (no
// span is made) when OTEL_EXPORTER_OTLP_ENDPOINT and
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT are unset or OTEL_SDK_DISABLED is
// true. The protocol is http/protobuf (the specification's default; an
// OTEL_EXPORTER_OTLP_PROTOCOL of grpc is refused with an error: its
// exporter would add a gRPC gateway to every command's start); the exporter
// reads the other OTEL_EXPORTER_OTLP_* variables (headers, timeout,
// certificates) itself.
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
	default:
		return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL %q: hook-exec sends http/protobuf", proto)
	}
	if err != nil {
		return nil, fmt.Errorf("OTLP exporter: %w", err)
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(semconv.ServiceName("hook-exec")))
	if err != nil {
		res = resource.Default()
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res), sdktrace.WithIDGenerator(eventTraceIDs{}))
	otel.SetTracerProvider(tp)
	spans.Enable()
	return &Spans{tp: tp}, nil
}

// Shutdown sends what is left, within ctx.
func (s *Spans) Shutdown(ctx context.Context) error {
	if s == nil {
		return nil
	}
	return s.tp.Shutdown(ctx)
}

// eventTraceIDs makes a root span's trace id the event's, when the context
// carries one (spans.EventTraceID); otherwise, and for span ids, random
// ones.
type eventTraceIDs struct{}

func (eventTraceIDs) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	tid, ok := spans.EventTraceID(ctx)
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
