package dispatch

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hookexec/hook-exec/backend/local"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/host/registry"
)

// BenchmarkDispatchNoneMatch is a boundary's own cost: twenty registered
// hooks whose filters do not match the event, so nothing runs. It reports
// the time per boundary (the snapshot of the 20 definitions, then the
// chain) and their ratio to reading the event once
// (hook.ParseEvent), measured in the same process.
func BenchmarkDispatchNoneMatch(b *testing.B) {
	var defs []string
	for i := range 20 {
		defs = append(defs, fmt.Sprintf(`{"schema_version":1,"id":"h%02d","point":"tool.before","scope":"session","order":%d,`+
			`"filters":{"tools":["never_%d"],"paths":["protected/**"],"categories":["fs.delete"]},"handler":{"kind":"script","script":"x.sh"}}`, i, i, i))
	}
	src := registry.Sources{Session: []byte("[" + strings.Join(defs, ",") + "]"), SessionDir: b.TempDir()}
	ex, err := executor.New(executor.Options{Backend: local.New()})
	if err != nil {
		b.Fatal(err)
	}
	defer ex.Shutdown(context.Background())
	d, _ := New(Options{Executor: ex})
	event := []byte(writeEvent)
	var base, take, run time.Duration
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		if _, err := hook.ParseEvent(event); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		// A one-shot `hook-exec dispatch` takes its snapshot at every boundary.
		snap, err := registry.Take(src)
		if err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		res, err := d.Dispatch(context.Background(), snap, "tool.before", event)
		if err != nil || len(res.Traces) != 0 {
			b.Fatalf("dispatch: %v %+v", err, res)
		}
		base, take, run = base+t1.Sub(t0), take+t2.Sub(t1), run+time.Since(t2)
	}
	b.ReportMetric(float64(take.Microseconds())/float64(b.N)/1000, "snapshot-ms/op")
	b.ReportMetric(float64(run.Microseconds())/float64(b.N)/1000, "dispatch-ms/op")
	b.ReportMetric(float64(take+run)/float64(base), "ratio-to-parse-event")
}
