package e2e

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/launcher"
)

// soakRuns is the number of runs per backend: HOOKEXEC_SOAK_RUNS, or a
// short soak for the ordinary test run (`make soak` asks for 1000).
func soakRuns() int {
	if n, err := strconv.Atoi(os.Getenv("HOOKEXEC_SOAK_RUNS")); err == nil && n > 0 {
		return n
	}
	return 48
}

func rssKB() int {
	b, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	return -1
}

func openFDs() int {
	ents, _ := os.ReadDir("/proc/self/fd")
	return len(ents)
}

func fifoDirs() int {
	ents, _ := os.ReadDir("/run/containerd/fifo")
	return len(ents)
}

// TestSoak runs mixed hooks (allow, deny, timeout, flood, fork bomb, oom,
// refused) at concurrency 8 on each backend, then checks that nothing is
// left: no container, no goroutine, no fd, no FIFO directory, and that
// memory stayed flat. It is not parallel: it measures this process alone.
func TestSoak(t *testing.T) {
	engs := engines(t)
	mix := []struct {
		script string
		hook   func(*hook.Hook)
		action hook.Action
	}{
		{"cat >/dev/null\n" + shAllow + "\n", nil, hook.Allow},
		{`printf '{"schema_version":1,"action":"deny","reason":"no"}\n'`, nil, hook.Deny},
		{"sleep 1000\n", func(h *hook.Hook) { h.Timeout = 0 }, hook.Deny},
		{"yes\n", nil, hook.Deny},
		{"bomb() { bomb | bomb & }\nbomb\nsleep 1000\n", func(h *hook.Hook) { h.Timeout = 0 }, hook.Deny},
		{"x=aaaaaaaaaaaaaaaa\nwhile :; do x=\"$x$x\"; done\n", func(h *hook.Hook) { h.Memory = 64 << 20 }, hook.Deny},
		{"echo hi\r\n", nil, hook.Deny},
		{"cat >/dev/null\n" + shAllow + "\n", nil, hook.Allow},
	}
	n := soakRuns()
	for _, eng := range engs {
		t.Run(eng.name, func(t *testing.T) {
			// Eight at a time wait for the admission bound: the sleeping and
			// forking hooks get a timeout that covers that wait (sized from
			// the measured cold latency, three times over), the others a
			// generous bound of their own.
			cold := coldLatency(t, eng)
			ex, err := executor.New(executor.Options{
				Backend:        eng.b,
				MaxConcurrency: 8,
				DefaultImage:   func(_ context.Context, l launcher.Lang) (string, error) { return eng.refs[l], nil },
			})
			if err != nil {
				t.Fatal(err)
			}
			hooks := make([]hook.Hook, len(mix))
			for i, m := range mix {
				hooks[i] = writeScript(t, launcher.Shell, m.script)
				hooks[i].ID = fmt.Sprintf("soak-%d", i)
				hooks[i].MaxConcurrency = 8
				hooks[i].Timeout = 60 * time.Second
				if m.hook != nil {
					m.hook(&hooks[i])
				}
				if hooks[i].Timeout == 0 {
					hooks[i].Timeout = time.Duration(3*(8/max(ex.Admission().Limit(), 1)+2)) * cold
				}
			}
			// Warm up, so that the baseline holds the clients' steady state.
			if _, err := ex.Run(context.Background(), hooks[0], toolEvent("ls")); err != nil {
				t.Fatal(err)
			}
			settle(eng)
			baseGoroutines := goleak.IgnoreCurrent()
			fds0, rss0, fifo0 := openFDs(), rssKB(), fifoDirs()
			start := time.Now()
			counts := map[string]int{}
			var mu sync.Mutex
			work := make(chan int)
			var wg sync.WaitGroup
			for range 8 {
				wg.Go(func() {
					for i := range work {
						m := mix[i%len(mix)]
						// A session per run: the circuit of a session would otherwise
						// stop the failing scripts after three runs.
						ev := strings.Replace(string(toolEvent("ls")), `"session_id":"sess_e2e"`, fmt.Sprintf(`"session_id":"soak-%d"`, i), 1)
						r, err := ex.Run(context.Background(), hooks[i%len(mix)], []byte(ev))
						mu.Lock()
						switch {
						case err != nil:
							t.Errorf("run %d: %v", i, err)
						case r.Decision.Action != m.action:
							t.Errorf("run %d (%q): %s, want %s (%+v)", i, m.script, r.Decision.Action, m.action, r.Trace.Failure)
						}
						kind := "ok"
						if err == nil && r.Trace.Failure != nil {
							kind = string(r.Trace.Failure.Kind)
						}
						counts[kind]++
						mu.Unlock()
					}
				})
			}
			for i := range n {
				work <- i
			}
			close(work)
			wg.Wait()
			settle(eng)
			fds1, rss1, fifo1 := openFDs(), rssKB(), fifoDirs()
			t.Logf("soak on %s: %d runs in %v, outcomes %v; fds %d -> %d, RSS %d -> %d kB, FIFO dirs %d -> %d",
				eng.name, n, time.Since(start).Round(time.Millisecond), counts, fds0, fds1, rss0, rss1, fifo0, fifo1)
			if left := ownContainers(context.Background()); len(left) > 0 {
				t.Errorf("%d containers left", len(left))
			}
			if fds1 > fds0 {
				t.Errorf("open fds grew from %d to %d", fds0, fds1)
			}
			if fifo1 > fifo0 {
				t.Errorf("containerd FIFO directories grew from %d to %d", fifo0, fifo1)
			}
			// Flat: the heap a run needs is returned; allow for the GC's slack, not growth per run.
			if rss1 > rss0+32<<10 {
				t.Errorf("RSS grew from %d kB to %d kB over %d runs", rss0, rss1, n)
			}
			// The engine client's pooled keep-alive connections are not leaks (the
			// fd count above bounds them); everything else must be gone.
			if err := goleak.Find(baseGoroutines,
				goleak.IgnoreAnyFunction("net/http.(*persistConn).readLoop"),
				goleak.IgnoreAnyFunction("net/http.(*persistConn).writeLoop")); err != nil {
				t.Error(err)
			}
		})
	}
}

// settle waits for background cleanups and closes idle engine connections,
// so that what is left open is what leaks.
func settle(eng engineUnderTest) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	eng.b.WaitCleanup(ctx)
	time.Sleep(100 * time.Millisecond)
	if eng.name == "docker" {
		dock.Client().Close() // closes the idle connections only: the client stays usable
	}
}
