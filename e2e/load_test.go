package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/internal/admission"
	"github.com/hookexec/hook-exec/launcher"
)

// engineLatency is an engine's measured cold latency: the median of a few
// trivial runs, one at a time, end to end through the executor.
type engineLatency struct {
	once sync.Once
	cold time.Duration
	err  error
}

var latencies sync.Map // engine name -> *engineLatency

// coldLatency measures (once per engine and process) how long a trivial
// hook takes cold on eng. Loads and timeouts of the load tests are sized
// from it, never from a constant tuned on a faster machine.
func coldLatency(t testing.TB, eng engineUnderTest) time.Duration {
	t.Helper()
	v, _ := latencies.LoadOrStore(eng.name, &engineLatency{})
	l := v.(*engineLatency)
	l.once.Do(func() {
		ex := newExecutor(t, eng.b, eng.refs)
		h := writeScript(t, launcher.Shell, trivial[launcher.Shell].script)
		h.ID = "latency-probe"
		h.Timeout = 2 * time.Minute // a bound for a measurement, not a load
		var samples []time.Duration
		for range 3 {
			start := time.Now()
			r, err := ex.Run(context.Background(), h, toolEvent("ls"))
			if err == nil && r.Trace.Failure != nil {
				err = fmt.Errorf("%s: %s", r.Trace.Failure.Kind, r.Trace.Failure.Message)
			}
			if err != nil {
				l.err = fmt.Errorf("measure cold latency on %s: %w", eng.name, err)
				return
			}
			samples = append(samples, time.Since(start))
		}
		slices.Sort(samples)
		l.cold = samples[len(samples)/2]
	})
	if l.err != nil {
		t.Fatal(l.err)
	}
	t.Logf("%s: cold latency of a trivial hook %v (median of 3)", eng.name, l.cold.Round(time.Millisecond))
	return l.cold
}

// TestOverload sends a burst of mixed hooks at once at an executor whose
// admission bound is fixed (a private limiter, Min = Max = 2, so that the
// bound cannot rise during the burst on an engine that takes it well),
// each with a timeout of five cold latencies. A creation takes less than
// a cold run (measured 0.8-0.9 of it on both engines), so at most about
// five rounds of two creations fit before a run's deadline; the burst is
// twice that, so the engine cannot start them all in time, and what it
// starts has room to finish under the burst's own load (a flood through
// dockerd slows the creations beside it: three and four cold latencies
// were measured too few in a full suite run). Every run must end in a
// decision with its own outcome or `overloaded` (shed before anything was
// created), some must be shed, and nothing may be left: no sandbox,
// goroutine or FIFO directory. Not parallel: it measures this process
// alone.
func TestOverload(t *testing.T) {
	mix := []struct {
		script string
		action hook.Action
		kind   hook.FailureKind // "" for success
		policy hook.FailurePolicy
	}{
		{trivial[launcher.Shell].script, hook.Allow, "", ""},
		{`printf '{"schema_version":1,"action":"deny","reason":"no"}\n'`, hook.Deny, "", ""},
		{"sleep 1000\n", hook.Deny, hook.FailTimeout, ""},
		{"yes\n", hook.Deny, hook.FailOutputLimit, ""},
		{"exit 5\n", hook.Allow, hook.FailExitNonzero, hook.PolicyContinue},
	}
	for _, eng := range engines(t) {
		t.Run(eng.name, func(t *testing.T) {
			cold := coldLatency(t, eng)
			const bound = 2
			limiter, err := admission.New(admission.Options{Initial: bound, Min: bound, Max: bound})
			if err != nil {
				t.Fatal(err)
			}
			ex, err := executor.New(executor.Options{
				Backend:        eng.b,
				MaxConcurrency: 256,
				Admission:      limiter,
				DefaultImage:   func(_ context.Context, l launcher.Lang) (string, error) { return eng.refs[l], nil },
			})
			if err != nil {
				t.Fatal(err)
			}
			timeout := 5 * cold
			burst := 2 * 5 * bound
			t.Logf("burst of %d (twice 5 rounds of admission bound %d), timeout %v (5 x cold latency)", burst, bound, timeout.Round(time.Millisecond))
			hooks := make([]hook.Hook, len(mix))
			for i, m := range mix {
				hooks[i] = writeScript(t, launcher.Shell, m.script)
				hooks[i].ID = fmt.Sprintf("overload-%d", i)
				hooks[i].MaxConcurrency = burst
				hooks[i].Timeout = timeout
				if m.policy != "" {
					hooks[i].FailurePolicy = m.policy
				}
			}
			// Two runs teach the private limiter this engine's creation time.
			for range 2 {
				if r, err := ex.Run(context.Background(), hooks[0], toolEvent("ls")); err != nil || r.Trace.Failure != nil {
					t.Fatalf("a run before the burst: %v %+v", err, r)
				}
			}
			settle(eng)
			baseGoroutines := goleak.IgnoreCurrent()
			fifo0 := fifoDirs()
			var mu sync.Mutex
			counts := map[string]int{}
			var wg sync.WaitGroup
			for i := range burst {
				m := mix[i%len(mix)]
				wg.Go(func() {
					// A session per run: a session's circuit would stop the failing ones.
					ev := strings.Replace(string(toolEvent("ls")), `"session_id":"sess_e2e"`, fmt.Sprintf(`"session_id":"overload-%d"`, i), 1)
					r, err := ex.Run(context.Background(), hooks[i%len(mix)], []byte(ev))
					mu.Lock()
					defer mu.Unlock()
					if err != nil {
						t.Errorf("run %d: no decision: %v", i, err)
						return
					}
					got := hook.FailureKind("")
					if r.Trace.Failure != nil {
						got = r.Trace.Failure.Kind
					}
					counts[string(got)]++
					switch got {
					case hook.FailOverloaded:
						if r.Trace.ExitCode != nil {
							t.Errorf("run %d: shed as overloaded after its sandbox ran (exit %d)", i, *r.Trace.ExitCode)
						}
						if r.Trace.Phases == nil || r.Trace.Phases.Create != 0 {
							t.Errorf("run %d: shed as overloaded, yet phases %+v", i, r.Trace.Phases)
						}
					case m.kind:
						if r.Decision.Action != m.action {
							t.Errorf("run %d (%q): action %s, want %s", i, m.script, r.Decision.Action, m.action)
						}
					default:
						t.Errorf("run %d (%q): failure %q (%+v), want %q or overloaded", i, m.script, got, r.Trace.Failure, m.kind)
					}
				})
			}
			wg.Wait()
			t.Logf("outcomes %v; limiter %+v, limit now %d", counts, ex.Admission().Stats(), ex.Admission().Limit())
			if counts[string(hook.FailOverloaded)] == 0 {
				t.Errorf("no run of a burst of %d at timeout %v was shed: the bound did not hold or the test did not overload", burst, timeout)
			}
			settle(eng)
			if left := ownContainers(context.Background()); len(left) > 0 {
				t.Errorf("%d sandboxes left: %v", len(left), left)
			}
			if fifo1 := fifoDirs(); fifo1 > fifo0 {
				t.Errorf("containerd FIFO directories grew from %d to %d", fifo0, fifo1)
			}
			if err := goleak.Find(baseGoroutines,
				goleak.IgnoreAnyFunction("net/http.(*persistConn).readLoop"),
				goleak.IgnoreAnyFunction("net/http.(*persistConn).writeLoop")); err != nil {
				t.Error(err)
			}
		})
	}
}
