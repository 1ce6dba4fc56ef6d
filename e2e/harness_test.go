package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/host/dispatch"
	"github.com/hookexec/hook-exec/host/registry"
	"github.com/hookexec/hook-exec/launcher"
)

// pathStats is one path's latency summary.
type pathStats struct {
	Path string  `json:"path"`
	Lang string  `json:"lang"`
	Runs int     `json:"runs"`
	P50  float64 `json:"p50_ms"`
	P90  float64 `json:"p90_ms"`
	P99  float64 `json:"p99_ms"`
	// Ratio is to the script run by the host itself (the floor a user
	// compares with); RatioDocker to a plain `docker run`.
	Ratio       float64 `json:"ratio_p50_to_host"`
	RatioDocker float64 `json:"ratio_p50_to_docker_run"`
}

// phaseStats is one path's median time per phase (from the traces), and
// how many of its runs took a pooled sandbox.
type phaseStats struct {
	Path    string  `json:"path"`
	Lang    string  `json:"lang"`
	Queued  float64 `json:"queued_ms"`
	Create  float64 `json:"create_ms"`
	Start   float64 `json:"start_ms"`
	Stream  float64 `json:"stream_ms"`
	Exit    float64 `json:"exit_ms"`
	Cleanup float64 `json:"cleanup_ms"`
	Pooled  int     `json:"pooled_runs"`
	Runs    int     `json:"runs"`
}

func medianMS(v []int64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return float64(s[len(s)/2])
}

type throughput struct {
	Backend     string  `json:"backend"`
	Mode        string  `json:"mode"` // pooled (a fresh sandbox per run, started ahead) or reused
	Concurrency int     `json:"concurrency"`
	Runs        int     `json:"runs"`
	HooksPerSec float64 `json:"hooks_per_s"` // answered runs per second
	P50         float64 `json:"p50_ms"`      // of the answered runs
	P99         float64 `json:"p99_ms"`
	// Shed: runs the engine's admission ended as overloaded (the pool ran
	// dry and a cold creation could not fit the run's timeout).
	Shed int `json:"shed"`
}

// BenchmarkHarness (`make bench`) runs a trivial .sh and .py hook through
// every path, interleaved in one process: `docker run --rm -i --network
// none` (the naive host's baseline), hook-exec cold on Docker and on
// containerd, pooled on Docker and on containerd, the same four under
// gVisor (runsc, when set up; pools of 2: each sandbox carries a kernel of
// its own), cold and pooled pods on the Kubernetes backend (in its pass,
// `make bench-k8s`; pools of 2), reused sandboxes (Options.Reuse) on each
// engine; then
// sustained throughput, pooled and reused, at concurrency 1, 4 and 8. It prints medians,
// p90, p99, hooks/s and ratios to the baseline, and writes the same to
// bench/results.json. HOOKEXEC_BENCH_RUNS sets the runs per path (20),
// HOOKEXEC_BENCH_GAP_MS the pause between rounds (500).
func BenchmarkHarness(b *testing.B) {
	engs := engines(b)
	runs, gap := 20, 500*time.Millisecond
	if n, err := strconv.Atoi(os.Getenv("HOOKEXEC_BENCH_RUNS")); err == nil && n > 0 {
		runs = n
	}
	if n, err := strconv.Atoi(os.Getenv("HOOKEXEC_BENCH_GAP_MS")); err == nil && n >= 0 {
		gap = time.Duration(n) * time.Millisecond
	}
	event := toolEvent("ls")
	type path struct {
		name string
		run  func(lang launcher.Lang, h hook.Hook) error
	}
	// The traces of the measured rounds, by path name and language.
	var tracesMu sync.Mutex
	traces := map[string][]hook.Trace{}
	measuring := false
	exec1 := func(name string, ex *executor.Executor) func(launcher.Lang, hook.Hook) error {
		return func(lang launcher.Lang, h hook.Hook) error {
			r, err := ex.Run(context.Background(), h, event)
			if err == nil && (r.Trace.Failure != nil || r.Decision.Action != hook.Allow) {
				err = fmt.Errorf("action %s, failure %+v", r.Decision.Action, r.Trace.Failure)
			}
			if err == nil && measuring {
				tracesMu.Lock()
				traces[name+"|"+string(lang)] = append(traces[name+"|"+string(lang)], r.Trace)
				tracesMu.Unlock()
			}
			return err
		}
	}
	pools := map[string]*executor.Executor{}
	var paths []path
	// The floor: the host runs the script itself, as Claude Code does
	// without hook-exec.
	paths = append(paths, path{"the host runs the script", func(lang launcher.Lang, h hook.Hook) error {
		interp := "sh"
		if lang == launcher.Python {
			interp = "python3"
		}
		cmd := exec.Command(interp, filepath.Join(h.PluginDir, h.Script))
		cmd.Stdin = bytes.NewReader(event)
		out, err := cmd.Output()
		if err == nil && !bytes.Contains(out, []byte(`"allow"`)) {
			err = fmt.Errorf("the host's run answered %q", out)
		}
		return err
	}})
	paths = append(paths, path{"docker run --rm -i --network none", func(lang launcher.Lang, _ hook.Hook) error {
		entry, code := "sh", trivial[lang].baseline
		if lang == launcher.Python {
			entry = "python"
		}
		cmd := exec.Command("docker", "run", "--rm", "-i", "--network", "none", "--entrypoint", entry, engs[0].refs[lang], "-c", code)
		cmd.Stdin = bytes.NewReader(event)
		out, err := cmd.Output()
		if err == nil && !bytes.Contains(out, []byte(`"allow"`)) {
			err = fmt.Errorf("baseline answered %q", out)
		}
		return err
	}})
	// `hook-exec run` as a host's hook command runs it: a process per
	// event, a cold sandbox, the engine opened and the trace stored.
	bin, state := cli(b), b.TempDir()
	for _, eng := range engs {
		paths = append(paths, path{"hook-exec run (a process per event) " + eng.label(), func(lang launcher.Lang, h hook.Hook) error {
			cmd := exec.Command(bin, "run", "--backend", eng.name, "--state-dir", state, "--script", filepath.Join(h.PluginDir, h.Script))
			cmd.Stdin = bytes.NewReader(event)
			out, err := cmd.Output()
			if err == nil && !bytes.Contains(out, []byte(`"allow"`)) {
				err = fmt.Errorf("hook-exec run answered %q", out)
			}
			return err
		}})
	}
	// The same command line handed to the user's server: pooled fresh
	// sandboxes (the default), and reused ones (server start --reuse).
	servers := map[string]*testServer{}
	viaServer := func(s *testServer) func(launcher.Lang, hook.Hook) error {
		return func(lang launcher.Lang, h hook.Hook) error {
			cmd := exec.Command(bin, append([]string{"run", "--script", filepath.Join(h.PluginDir, h.Script)}, s.engineFlags()...)...)
			cmd.Env = append(os.Environ(), "HOOKEXEC_SERVER="+s.sock)
			cmd.Stdin = bytes.NewReader(event)
			out, err := cmd.Output()
			if err == nil && !bytes.Contains(out, []byte(`"allow"`)) {
				err = fmt.Errorf("hook-exec run via the server answered %q", out)
			}
			return err
		}
	}
	for _, eng := range engs {
		for _, mode := range []string{"pooled", "reused"} {
			var extra []string
			if mode == "reused" {
				extra = []string{"--reuse"}
			}
			s := startServer(b, eng, extra...)
			servers[mode+" "+eng.label()] = s
			paths = append(paths, path{"hook-exec run via the server, " + mode + " " + eng.label(), viaServer(s)})
		}
	}
	requireRunsc(b)
	// crun where it runs (not on a hybrid cgroup hierarchy): its rows, or
	// none and why.
	if err := crun.unsupported(); err != nil {
		b.Logf("no crun rows: %v", err)
	} else if crun.once.Do(crun.setup); crun.err != nil {
		b.Logf("no crun rows: %v", crun.err)
	}
	// Podman's rows with HOOKEXEC_E2E_PODMAN=1 (make bench sets it).
	all := slices.Concat(engs, runsc.engs, crun.engs, podmanEngines(b), k8sEngines(b))
	for _, eng := range all {
		name := "hook-exec cold " + eng.label()
		paths = append(paths, path{name, exec1(name, newExecutor(b, eng.b, eng.refs))})
	}
	// Through the engine's attach, what an engine in a VM (macOS, Docker
	// Desktop, colima) or a remote one gets, on the same engines.
	for _, eng := range attachEngines(b) {
		name := "hook-exec cold " + eng.label() + ", attach"
		paths = append(paths, path{name, exec1(name, newExecutor(b, eng.b, eng.refs))})
		ex, err := executor.New(executor.Options{Backend: eng.b, Pool: 8, MaxConcurrency: 16,
			DefaultImage: func(_ context.Context, l launcher.Lang) (string, error) { return eng.refs[l], nil }})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { ex.Shutdown(context.Background()) })
		pools[eng.label()+", attach"] = ex
		name = "hook-exec pooled " + eng.label() + ", attach"
		paths = append(paths, path{name, exec1(name, ex)})
	}
	for _, eng := range all {
		size := 8
		if eng.runtime == backend.Runsc || eng.name == "kubernetes" {
			size = 2
		}
		ex, err := executor.New(executor.Options{Backend: eng.b, Pool: size, MaxConcurrency: 16,
			DefaultImage: func(_ context.Context, l launcher.Lang) (string, error) { return eng.refs[l], nil }})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { ex.Shutdown(context.Background()) })
		pools[eng.label()] = ex
		name := "hook-exec pooled " + eng.label()
		paths = append(paths, path{name, exec1(name, ex)})
	}
	// Reused sandboxes (Options.Reuse): runc only, as reuse is.
	reusers := map[string]*executor.Executor{}
	for _, eng := range engs {
		ex, err := executor.New(executor.Options{Backend: eng.b, Reuse: true, MaxConcurrency: 16,
			DefaultImage: func(_ context.Context, l launcher.Lang) (string, error) { return eng.refs[l], nil }})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { ex.Shutdown(context.Background()) })
		reusers[eng.name] = ex
		name := "hook-exec reused " + eng.label()
		paths = append(paths, path{name, exec1(name, ex)})
	}
	// A boundary through the registry and the chain: twenty hooks whose
	// filters do not match, and the pooled hook that does.
	snaps := map[launcher.Lang]*registry.Snapshot{}
	disp, err := dispatch.New(dispatch.Options{Executor: pools["containerd"]})
	if err != nil {
		b.Fatal(err)
	}
	dispatchName := "hook-exec dispatch pooled containerd (1 of 21 match)"
	paths = append(paths, path{dispatchName, func(lang launcher.Lang, _ hook.Hook) error {
		res, err := disp.Dispatch(context.Background(), snaps[lang], "tool.before", event)
		if err == nil && (len(res.Traces) != 1 || res.Traces[0].Failure != nil || res.Decision.Action != hook.Allow) {
			err = fmt.Errorf("dispatch answered %+v", res)
		}
		if err == nil && measuring {
			tracesMu.Lock()
			traces[dispatchName+"|"+string(lang)] = append(traces[dispatchName+"|"+string(lang)], res.Traces[0])
			tracesMu.Unlock()
		}
		return err
	}})
	hooks := map[launcher.Lang]hook.Hook{}
	for _, lang := range []launcher.Lang{launcher.Shell, launcher.Python} {
		h := writeScript(b, lang, trivial[lang].script)
		h.MaxConcurrency = 16
		hooks[lang] = h
		snaps[lang] = benchSnapshot(b, h)
		// Warm the pools' shapes, and a reused sandbox, before measuring.
		for _, ex := range pools {
			ex.Run(context.Background(), h, event)
		}
		for _, s := range servers {
			viaServer(s)(lang, h)
		}
		for _, ex := range reusers {
			ex.Run(context.Background(), h, event)
		}
	}
	time.Sleep(3 * time.Second)
	rss0 := rssKB()

	var stats []pathStats
	b.ResetTimer()
	measuring = true
	for _, lang := range []launcher.Lang{launcher.Shell, launcher.Python} {
		samples := make([][]time.Duration, len(paths))
		for range runs {
			for i, p := range paths {
				start := time.Now()
				if err := p.run(lang, hooks[lang]); err != nil {
					b.Fatalf("%s (%s): %v", p.name, lang, err)
				}
				samples[i] = append(samples[i], time.Since(start))
			}
			// Agents call tools seconds apart: the pool refills between calls.
			// HOOKEXEC_BENCH_GAP_MS=0 measures pooled runs back to back, where
			// the refill competes with the run for the two cores.
			time.Sleep(gap)
		}
		host, docker := ms(pct(samples[0], 50)), ms(pct(samples[1], 50))
		for i, p := range paths {
			p50 := ms(pct(samples[i], 50))
			stats = append(stats, pathStats{Path: p.name, Lang: string(lang), Runs: runs,
				P50: p50, P90: ms(pct(samples[i], 90)), P99: ms(pct(samples[i], 99)),
				Ratio: p50 / host, RatioDocker: p50 / docker})
		}
	}

	measuring = false
	// The servers' runs are traced in their state directories: the measured
	// rounds' are the last runs of each language there (the warm-up's
	// first).
	for _, eng := range engs {
		for _, mode := range []string{"pooled", "reused"} {
			name := "hook-exec run via the server, " + mode + " " + eng.label()
			for _, tr := range servers[mode+" "+eng.label()].traces(b) {
				for lang, ref := range eng.refs {
					if tr.Image == ref {
						traces[name+"|"+string(lang)] = append(traces[name+"|"+string(lang)], tr)
					}
				}
			}
			for _, lang := range []launcher.Lang{launcher.Shell, launcher.Python} {
				k := name + "|" + string(lang)
				traces[k] = traces[k][max(0, len(traces[k])-runs):]
			}
		}
	}
	var phases []phaseStats
	for _, lang := range []launcher.Lang{launcher.Shell, launcher.Python} {
		for _, p := range paths {
			trs, ok := traces[p.name+"|"+string(lang)]
			if !ok {
				continue // a path outside this process (the host's, docker's, the CLI's)
			}
			var q, c, st, sm, ex, cl []int64
			ps := phaseStats{Path: p.name, Lang: string(lang), Runs: len(trs)}
			for _, tr := range trs {
				if tr.Pooled {
					ps.Pooled++
				}
				if ph := tr.Phases; ph != nil {
					q, c, st, sm, ex, cl = append(q, ph.Queued), append(c, ph.Create), append(st, ph.Start),
						append(sm, ph.Stream), append(ex, ph.Exit), append(cl, ph.Cleanup)
				}
			}
			ps.Queued, ps.Create, ps.Start = medianMS(q), medianMS(c), medianMS(st)
			ps.Stream, ps.Exit, ps.Cleanup = medianMS(sm), medianMS(ex), medianMS(cl)
			phases = append(phases, ps)
		}
	}

	var tput []throughput
	// Pooled under runc and crun, and reused (runc only, as reuse is).
	for _, mode := range []string{"pooled", "reused"} {
		for _, eng := range slices.Concat(engs, crun.engs) {
			ex := pools[eng.label()]
			if mode == "reused" {
				if eng.runtime != "" {
					continue
				}
				ex = reusers[eng.name]
			}
			for _, c := range []int{1, 4, 8} {
				n := runs * c
				var mu sync.Mutex
				var lat []time.Duration
				shed := 0
				work := make(chan int)
				var wg sync.WaitGroup
				start := time.Now()
				for range c {
					wg.Go(func() {
						for i := range work {
							t0 := time.Now()
							// A session of its own per run: a shed run is a failure,
							// and three in one session would open the hook's circuit,
							// which is not what this measures.
							ev := bytes.Replace(event, []byte(`"sess_e2e"`), fmt.Appendf(nil, `"sess_tput_%d"`, i), 1)
							r, err := ex.Run(context.Background(), hooks[launcher.Shell], ev)
							took := time.Since(t0)
							mu.Lock()
							switch {
							case err == nil && r.Trace.Failure != nil && r.Trace.Failure.Kind == hook.FailOverloaded:
								shed++
							case err != nil:
								b.Errorf("throughput run: %v", err)
							case r.Trace.Failure != nil:
								b.Errorf("throughput run: failure = %+v, want none", r.Trace.Failure)
							case r.Decision.Action != hook.Allow:
								b.Errorf("throughput run: action = %q, want %q", r.Decision.Action, hook.Allow)
							default:
								lat = append(lat, took)
							}
							mu.Unlock()
						}
					})
				}
				for i := range n {
					work <- i
				}
				close(work)
				wg.Wait()
				el := time.Since(start)
				tput = append(tput, throughput{Backend: eng.label(), Mode: mode, Concurrency: c, Runs: n, Shed: shed,
					HooksPerSec: float64(len(lat)) / el.Seconds(), P50: ms(pct(lat, 50)), P99: ms(pct(lat, 99))})
			}
		}
	}
	// A host's hook commands, as a host feels them with a server running:
	// the host's own run of the script, and each server's, one caller or
	// hosts at once, each its own process per event, a gap after every call
	// (what one server does in the background after a call, a refill or a
	// reset, is not charged to another's). Ratios are to the host's run at
	// the same concurrency, in the same rounds. Measured after two calls per
	// host at that concurrency, which grow the servers' pools and reused
	// sandboxes to the demand.
	type hostsAtOnce struct {
		Server string  `json:"server"`
		Hosts  int     `json:"hosts"`
		Runs   int     `json:"runs"`
		P50    float64 `json:"p50_ms"`
		P99    float64 `json:"p99_ms"`
		Ratio  float64 `json:"ratio_p50_to_host"`
	}
	type caller struct {
		name string
		call func() error
	}
	const hostName, goName = "the host runs the script", "a Go program that does nothing"
	callers := []caller{{hostName, func() error { return paths[0].run(launcher.Shell, hooks[launcher.Shell]) }}}
	// The floor of any Go client a host starts per event: a Go program that
	// does nothing but read stdin and answer (hook-exec's front is one).
	goNothing := buildGoNothing(b)
	callers = append(callers, caller{goName, func() error {
		cmd := exec.Command(goNothing)
		cmd.Stdin = bytes.NewReader(event)
		out, err := cmd.Output()
		if err == nil && !bytes.Contains(out, []byte(`"allow"`)) {
			err = fmt.Errorf("the Go program answered %q", out)
		}
		return err
	}})
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		s := servers[name]
		callers = append(callers, caller{name, func() error { return viaServer(s)(launcher.Shell, hooks[launcher.Shell]) }})
	}
	var crowd []hostsAtOnce
	for _, hosts := range []int{1, 4} {
		atOnce := func(c caller, record func(time.Duration, error)) {
			var wg sync.WaitGroup
			for range hosts {
				wg.Go(func() {
					t0 := time.Now()
					err := c.call()
					record(time.Since(t0), err)
				})
			}
			wg.Wait()
			time.Sleep(gap)
		}
		for range 2 {
			for _, c := range callers {
				atOnce(c, func(time.Duration, error) {})
			}
		}
		lat := make([][]time.Duration, len(callers))
		var mu sync.Mutex
		for range runs {
			for i, c := range callers {
				atOnce(c, func(took time.Duration, err error) {
					mu.Lock()
					defer mu.Unlock()
					if err != nil {
						b.Errorf("%s, %d hosts: %v", c.name, hosts, err)
					}
					lat[i] = append(lat[i], took)
				})
			}
		}
		host := ms(pct(lat[0], 50))
		for i, c := range callers {
			p50 := ms(pct(lat[i], 50))
			crowd = append(crowd, hostsAtOnce{Server: c.name, Hosts: hosts, Runs: len(lat[i]), P50: p50, P99: ms(pct(lat[i], 99)), Ratio: p50 / host})
		}
	}
	rss1 := rssKB()
	b.StopTimer()

	fmt.Printf("\n%-48s %-4s %8s %8s %8s %8s %9s\n", "path", "lang", "p50 ms", "p90 ms", "p99 ms", "vs host", "vs docker")
	for _, s := range stats {
		fmt.Printf("%-48s %-4s %8.1f %8.1f %8.1f %8.1fx %8.2fx\n", s.Path, s.Lang, s.P50, s.P90, s.P99, s.Ratio, s.RatioDocker)
	}
	fmt.Printf("\nmedian ms per phase (from the traces)\n%-40s %-4s %7s %7s %7s %7s %7s %7s %7s\n", "path", "lang", "queued", "create", "start", "stream", "exit", "cleanup", "pooled")
	for _, p := range phases {
		fmt.Printf("%-40s %-4s %7.0f %7.0f %7.0f %7.0f %7.0f %7.0f %4d/%-2d\n", p.Path, p.Lang, p.Queued, p.Create, p.Start, p.Stream, p.Exit, p.Cleanup, p.Pooled, p.Runs)
	}
	fmt.Printf("\n%-12s %-7s %6s %6s %10s %8s %8s %6s\n", "trivial .sh", "mode", "conc", "runs", "hooks/s", "p50 ms", "p99 ms", "shed")
	for _, t := range tput {
		fmt.Printf("%-12s %-7s %6d %6d %10.1f %8.1f %8.1f %6d\n", t.Backend, t.Mode, t.Concurrency, t.Runs, t.HooksPerSec, t.P50, t.P99, t.Shed)
	}
	fmt.Printf("\n%-26s %6s %6s %8s %8s %8s %9s\n", "a host's hook command", "hosts", "runs", "p50 ms", "p99 ms", "vs host", "p99/p50")
	for _, c := range crowd {
		name := c.Server
		if name != hostName && name != goName {
			name = "via server, " + name
		}
		fmt.Printf("%-26s %6d %6d %8.1f %8.1f %7.1fx %8.1fx\n", name, c.Hosts, c.Runs, c.P50, c.P99, c.Ratio, c.P99/c.P50)
	}
	fmt.Printf("\nprocess RSS with the pools (8 per shape, 2 under runsc and on kubernetes) and the reused sandboxes warm: %d kB at start, %d kB at end\n", rss0, rss1)
	res := map[string]any{"latency": stats, "phases": phases, "throughput": tput, "hosts_at_once": crowd, "rss_kb_start": rss0, "rss_kb_end": rss1, "gap_ms": gap.Milliseconds(),
		"note": "ratio_p50_to_host = p50 / p50 of the host running the script itself (sh or python3 on the file, the event on stdin), ratio_p50_to_docker_run = p50 / p50 of `docker run --rm -i --network none`, both in the same run"}
	js, _ := json.MarshalIndent(res, "", "  ")
	os.MkdirAll(filepath.Join("..", "bench"), 0o755)
	if err := os.WriteFile(filepath.Join("..", "bench", "results.json"), append(js, '\n'), 0o644); err != nil {
		b.Error(err)
	}
}

// benchSnapshot is a registry with twenty tool.before hooks filtered to a
// tool the event does not name, and h (16 at once, as the pooled paths run it).
func benchSnapshot(b *testing.B, h hook.Hook) *registry.Snapshot {
	var defs []string
	for i := range 20 {
		defs = append(defs, fmt.Sprintf(`{"schema_version":1,"id":"other-%02d","point":"tool.before","scope":"session","order":%d,`+
			`"filters":{"tools":["never_%d"],"paths":["protected/**"]},"handler":{"kind":"script","script":%q}}`, i, i, i, h.Script))
	}
	defs = append(defs, fmt.Sprintf(`{"schema_version":1,"id":%q,"point":"tool.before","scope":"session","order":10,"max_concurrency":16,`+
		`"failure_policy":"deny","handler":{"kind":"script","script":%q}}`, h.ID, h.Script))
	snap, err := registry.Take(registry.Sources{Session: []byte("[" + strings.Join(defs, ",") + "]"), SessionDir: h.PluginDir})
	if err != nil {
		b.Fatal(err)
	}
	return snap
}

// buildGoNothing builds a Go program that reads stdin and allows: the start
// of a Go process, which hook-exec's front pays before its request leaves.
func buildGoNothing(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	src := "package main\n\nimport (\n\t\"io\"\n\t\"os\"\n)\n\nfunc main() {\n\tio.Copy(io.Discard, os.Stdin)\n\tos.Stdout.WriteString(`{\"schema_version\":1,\"action\":\"allow\"}` + \"\\n\")\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module nothing\n\ngo 1.24\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command("go", "build", "-o", "nothing", ".")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("build the Go program: %v: %s", err, out)
	}
	return filepath.Join(dir, "nothing")
}
