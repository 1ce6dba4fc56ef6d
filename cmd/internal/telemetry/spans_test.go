package telemetry

import (
	"context"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/internal/spans"
)

// collector is an in-process OTLP/HTTP receiver of spans.
type collector struct {
	mu    sync.Mutex
	spans []*tracepb.Span
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	var req coltracepb.ExportTraceServiceRequest
	if r.URL.Path != "/v1/traces" || proto.Unmarshal(b, &req) != nil {
		http.Error(w, "not an OTLP trace export", http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			c.spans = append(c.spans, ss.Spans...)
		}
	}
	c.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-protobuf")
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Write(out)
}

// A protocol other than http/protobuf is refused, naming it.
func TestSpansRefuseGRPC(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4317")
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
	if s, err := NewSpans(context.Background()); s != nil || err == nil || !strings.Contains(err.Error(), `"grpc"`) {
		t.Fatalf("NewSpans = %v, %v; want an error naming grpc", s, err)
	}
}

// Without an endpoint in the environment, no exporter and no span.
func TestNoSpansWithoutAnEndpoint(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	s, err := NewSpans(context.Background())
	if s != nil || err != nil {
		t.Fatalf("NewSpans = %v, %v; want nil, nil", s, err)
	}
	if err := s.Shutdown(context.Background()); err != nil { // a nil Spans does nothing
		t.Fatal(err)
	}
}

// Each run is one span with a child for each phase, laid from its start;
// the event's trace_id is the span's trace id; a run that never reached a
// sandbox has no children; a failure is the span's error; a boundary's
// runs are its children, in the event's trace.
func TestSpansReachACollector(t *testing.T) {
	col := &collector{}
	srv := httptest.NewServer(col)
	defer srv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
	s, err := NewSpans(context.Background())
	if err != nil || s == nil {
		t.Fatalf("NewSpans: %v, %v", s, err)
	}
	const traceID, boundaryTrace = "4bf92f3577b34da6a3ce929d0e0e4736", "0af7651916cd43dd8448eb211c80319c"
	start := time.Unix(1_800_000_000, 0)
	ctx := context.Background()
	spans.Run(ctx, &hook.Trace{HookID: "guard", Dialect: "holaryn", Point: "tool.before", Backend: "docker", FinalAction: hook.Allow,
		TraceID: traceID, StartedAt: start, DurationMS: 40, Phases: &hook.Phases{Queued: 1, Stream: 30, Exit: 2}})
	spans.Run(ctx, &hook.Trace{HookID: "broken", Backend: "docker", FinalAction: hook.Deny, TraceID: "not-hex", StartedAt: start,
		Failure: &hook.Failure{Kind: hook.FailRefusedRule}})
	bctx, end := spans.Boundary(ctx, "tool.before", boundaryTrace)
	spans.Run(bctx, &hook.Trace{HookID: "first", TraceID: boundaryTrace, StartedAt: start})
	spans.Run(bctx, &hook.Trace{HookID: "second", TraceID: boundaryTrace, StartedAt: start})
	end(hook.Deny, nil)
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	col.mu.Lock()
	defer col.mu.Unlock()
	if len(col.spans) != 1+6+1+3 {
		t.Fatalf("%d spans %v, want 11: a run with 6 phases, a run refused before it started, a boundary of two runs", len(col.spans), names(col.spans))
	}
	byName := map[string]*tracepb.Span{}
	for _, sp := range col.spans {
		byName[sp.Name] = sp
	}
	guard, broken, boundary := byName["hook guard"], byName["hook broken"], byName["boundary tool.before"]
	if guard == nil || broken == nil || boundary == nil {
		t.Fatalf("spans %v: want hook guard, hook broken and boundary tool.before", names(col.spans))
	}
	if got := hex.EncodeToString(guard.TraceId); got != traceID {
		t.Errorf("the run's trace id %s, want the event's %s", got, traceID)
	}
	if hex.EncodeToString(broken.TraceId) == traceID || len(broken.ParentSpanId) != 0 {
		t.Errorf("a run without a valid trace_id: trace %x parent %x, want a new trace of its own", broken.TraceId, broken.ParentSpanId)
	}
	if broken.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR {
		t.Errorf("the failed run's status %v, want an error", broken.Status)
	}
	if got := time.Duration(guard.EndTimeUnixNano - guard.StartTimeUnixNano); got != 40*time.Millisecond {
		t.Errorf("the run's span lasts %v, want its 40 ms", got)
	}
	at := uint64(start.UnixNano())
	for _, phase := range []struct {
		name string
		ms   uint64
	}{{"queued", 1}, {"create", 0}, {"start", 0}, {"stream", 30}, {"exit", 2}, {"cleanup", 0}} {
		c := byName[phase.name]
		if c == nil {
			t.Fatalf("no %s span among %v", phase.name, names(col.spans))
		}
		if string(c.ParentSpanId) != string(guard.SpanId) || string(c.TraceId) != string(guard.TraceId) {
			t.Errorf("%s is not a child of the run's span", phase.name)
		}
		if c.StartTimeUnixNano != at || c.EndTimeUnixNano != at+phase.ms*uint64(time.Millisecond) {
			t.Errorf("%s from %d to %d, want %d for %d ms", phase.name, c.StartTimeUnixNano, c.EndTimeUnixNano, at, phase.ms)
		}
		at += phase.ms * uint64(time.Millisecond)
	}
	if hex.EncodeToString(boundary.TraceId) != boundaryTrace || len(boundary.ParentSpanId) != 0 {
		t.Errorf("the boundary: trace %x parent %x, want the root of the event's trace", boundary.TraceId, boundary.ParentSpanId)
	}
	for _, n := range []string{"hook first", "hook second"} {
		if sp := byName[n]; sp == nil || string(sp.ParentSpanId) != string(boundary.SpanId) || string(sp.TraceId) != string(boundary.TraceId) {
			t.Errorf("%s is not a child of the boundary's span", n)
		}
	}
}

func names(spans []*tracepb.Span) []string {
	var n []string
	for _, s := range spans {
		n = append(n, s.Name)
	}
	sort.Strings(n)
	return n
}
