// Package doctor reports what each engine on this machine gives a hook
// sandbox and what it costs: versions, storage, cgroups, security options,
// runtimes (runsc included), reference images, and the measured latency
// of a trivial hook, cold and pooled, each fact with advice where one
// applies. It is for a user deciding how to run hook-exec.
package doctor

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/moby/moby/client"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/backend/containerd"
	"github.com/hookexec/hook-exec/backend/docker"
	"github.com/hookexec/hook-exec/backend/engine"
	"github.com/hookexec/hook-exec/cmd/internal/stack"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/images"
)

// Fact is one thing found about an engine.
type Fact struct {
	Topic string `json:"topic"`
	Value string `json:"value"`
	// Advice says what to do about it, where anything can be done.
	Advice string `json:"advice,omitempty"`
}

// Latency is the measured duration of a trivial hook.
type Latency struct {
	Runtime string `json:"runtime"` // runc, runsc, crun
	Mode    string `json:"mode"`    // cold, pooled
	// Stream is how the runs' stdin and output went: "channel" (FIFOs of
	// this machine's, which the engine must see) or "attach" (the engine's
	// own streams: an engine in a VM, a remote one, gVisor).
	Stream   string  `json:"stream"`
	Runs     int     `json:"runs"`
	MedianMS float64 `json:"median_ms"`
	// Kernel is what `uname -r` printed inside: gVisor's under runsc.
	Kernel string `json:"kernel,omitempty"`
	Error  string `json:"error,omitempty"`
}

// EngineReport is one engine's report.
type EngineReport struct {
	Name string `json:"name"` // docker, containerd
	// Usable: a trivial hook ran and answered; else Problem says why not.
	Usable  bool      `json:"usable"`
	Problem string    `json:"problem,omitempty"`
	Facts   []Fact    `json:"facts"`
	Latency []Latency `json:"latency"`
}

// Report covers both engines.
type Report struct {
	Engines []EngineReport `json:"engines"`
}

// Usable reports whether any engine can run a hook.
func (r *Report) Usable() bool {
	return slices.ContainsFunc(r.Engines, func(e EngineReport) bool { return e.Usable })
}

// Options bound the measurement.
type Options struct {
	// Runs of the trivial hook per engine, runtime and mode (0: 3).
	Runs int
	// ContainerdAddress as engine.Options has it.
	ContainerdAddress string
}

// probeTimeout bounds one run of the trivial hook.
const probeTimeout = 60 * time.Second

// Run examines both engines and measures a trivial hook on each.
func Run(ctx context.Context, o Options) *Report {
	if o.Runs <= 0 {
		o.Runs = 3
	}
	r := &Report{}
	d := examineDocker(ctx)
	c := examineContainerd(ctx, o.ContainerdAddress)
	for _, e := range []*EngineReport{d, c} {
		if e.Problem == "" {
			measure(ctx, e, o)
		}
		r.Engines = append(r.Engines, *e)
	}
	compare(r)
	return r
}

func examineDocker(ctx context.Context) *EngineReport {
	e := &EngineReport{Name: "docker"}
	b, err := docker.New()
	if err != nil {
		e.Problem = err.Error()
		return e
	}
	defer b.Close()
	cli := b.Client()
	ping, err := cli.Ping(ctx, client.PingOptions{})
	if err != nil {
		e.Problem = fmt.Sprintf("the engine at %s does not answer: %v", cli.DaemonHost(), err)
		return e
	}
	res, err := cli.Info(ctx, client.InfoOptions{})
	if err != nil {
		e.Problem = fmt.Sprintf("engine info: %v", err)
		return e
	}
	in := res.Info
	kind, advice := "Docker", ""
	podman, err := b.IsPodman(ctx)
	if err != nil {
		advice = err.Error()
	}
	if podman {
		kind, advice = "Podman", "Podman's Docker API: the seccomp profile goes as a file in the user's cache; containers.conf's env (container=podman, TERM, and the service's own environment under env_host) reaches every hook"
	}
	e.add("engine", fmt.Sprintf("%s %s at %s, API %s (client %s)", kind, in.ServerVersion, cli.DaemonHost(), ping.APIVersion, cli.ClientVersion()), advice)
	if err := b.NoLimits(ctx); err != nil {
		e.add("limits", "not enforced: "+err.Error(), "every hook is refused here (engine_error)")
	} else {
		e.add("limits", "memory and pids enforced", "")
	}
	e.add("kernel", fmt.Sprintf("%s, %s, %d CPUs, %d MiB", in.KernelVersion, in.OperatingSystem, in.NCPU, in.MemTotal>>20), "")
	e.add("storage driver", in.Driver, storageAdvice(in.Driver))
	e.add("cgroups", fmt.Sprintf("v%s, %s driver", in.CgroupVersion, in.CgroupDriver), cgroupAdvice(in.CgroupVersion))
	sec := securityOptions(in.SecurityOptions)
	e.add("seccomp", yesNo(sec["seccomp"]), adviceIf(!sec["seccomp"],
		"the engine cannot filter system calls: hooks lose the profile hook-exec asks for; --runtime runsc puts gVisor's kernel in between"))
	e.add("AppArmor", yesNo(sec["apparmor"]), adviceIf(!sec["apparmor"],
		"no AppArmor profile: seccomp, dropped capabilities and uid 65534 stand alone; --runtime runsc adds a second kernel"))
	e.add("user namespaces", userns(sec), adviceIf(!sec["userns"] && !sec["rootless"],
		"no remapping: a hook's uid 65534 is the host's 65534 (hooks never run as root); userns-remap or a rootless engine maps it away"))
	names := slices.Sorted(maps.Keys(in.Runtimes))
	e.add("runtimes", strings.Join(names, ", ")+" (default "+in.DefaultRuntime+")", "")
	if err := b.SetRuntime(ctx, backend.Runsc); err != nil {
		e.add("runsc", "not usable: "+err.Error(), "`sudo hook-exec runtime setup runsc` (with Debian's runsc installed) gives --runtime runsc")
	} else {
		e.add("runsc", "registered with "+strings.Join(backend.RunscArgs, " "), "")
	}
	// CrunUnsupported reads this machine: a remote engine has its own.
	if err := backend.CrunUnsupported(); err != nil && strings.HasPrefix(cli.DaemonHost(), "unix://") {
		e.add("crun", "not usable: "+err.Error(), "")
	} else if err := b.SetRuntime(ctx, backend.Crun); err != nil {
		e.add("crun", "not usable: "+err.Error(), crunAdvice)
	} else {
		e.add("crun", "registered", "")
	}
	e.images(func(r images.Recipe) (string, error) { return images.Find(ctx, cli, r) }, "hook-exec images build")
	return e
}

func examineContainerd(ctx context.Context, address string) *EngineReport {
	e := &EngineReport{Name: "containerd"}
	b, err := containerd.New(ctx, address)
	if err != nil {
		e.Problem = err.Error()
		return e
	}
	defer b.Close()
	v, err := b.Client().Version(ctx)
	if err != nil {
		e.Problem = fmt.Sprintf("containerd version: %v", err)
		return e
	}
	e.add("engine", fmt.Sprintf("containerd %s at %s, namespace %s", v.Version, b.Address(), containerd.Namespace), "")
	snap := os.Getenv("HOOKEXEC_CONTAINERD_SNAPSHOTTER")
	if snap == "" {
		snap = "containerd's default (overlayfs)"
	}
	e.add("snapshotter", snap, "")
	if err := b.SetRuntime(backend.Runsc); err != nil {
		e.add("runsc", "not usable: "+err.Error(), "`sudo hook-exec runtime setup runsc` (with Debian's runsc installed) gives --runtime runsc")
	} else {
		e.add("runsc", "found: "+containerd.RunscWrapper+" or gVisor's shim", "")
	}
	if err := backend.CrunUnsupported(); err != nil {
		e.add("crun", "not usable: "+err.Error(), "")
	} else if err := b.SetRuntime(backend.Crun); err != nil {
		e.add("crun", "not usable: "+err.Error(), crunAdvice)
	} else {
		e.add("crun", "found on PATH, run under the runc shim", "")
	}
	e.images(func(r images.Recipe) (string, error) {
		ref, err := b.Newest(ctx, r.Repo())
		if err == nil && ref == "" {
			err = images.ErrNotBuilt
		}
		return ref, err
	}, "hook-exec images build --backend containerd")
	return e
}

// images adds the reference images found; a missing shell image is a
// problem (the trivial hook needs it).
func (e *EngineReport) images(find func(images.Recipe) (string, error), build string) {
	var found, missing []string
	for _, r := range images.Reference {
		if ref, err := find(r); err == nil {
			found = append(found, ref)
		} else {
			missing = append(missing, r.Name)
		}
	}
	v := strings.Join(found, ", ")
	if len(missing) > 0 {
		v = strings.TrimPrefix(v+"; missing: "+strings.Join(missing, ", "), "; ")
	}
	e.add("reference images", v, adviceIf(len(missing) > 0, "`"+build+"` builds them from Debian packages"))
	if slices.Contains(missing, "hook-sh") {
		e.Problem = "no hook-sh reference image: `" + build + "`"
	}
}

func (e *EngineReport) add(topic, value, advice string) {
	e.Facts = append(e.Facts, Fact{Topic: topic, Value: value, Advice: advice})
}

// crunAdvice is what gives --runtime crun.
const crunAdvice = "`sudo hook-exec runtime setup crun` (with Debian's crun installed) gives --runtime crun, which starts sandboxes with less work than runc"

// measure runs the trivial hook cold and pooled under runc, and under
// runsc and crun when the engine has them.
func measure(ctx context.Context, e *EngineReport, o Options) {
	dir, err := os.MkdirTemp("", "hookexec-doctor-")
	if err != nil {
		e.Problem = err.Error()
		return
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "probe.sh"), []byte(probeScript), 0o644); err != nil {
		e.Problem = err.Error()
		return
	}
	h := hook.Hook{ID: "doctor-probe", PluginDir: dir, Script: "probe.sh", Timeout: probeTimeout}
	runtimes := []string{""}
	for _, rt := range []string{backend.Runsc, backend.Crun} {
		if slices.ContainsFunc(e.Facts, func(f Fact) bool { return f.Topic == rt && !strings.HasPrefix(f.Value, "not usable") }) {
			runtimes = append(runtimes, rt)
		}
	}
	for _, rt := range runtimes {
		for _, pool := range []int{0, 1} {
			l := latency(ctx, e.Name, rt, pool, false, h, o)
			e.Latency = append(e.Latency, l)
			if rt == "" && pool == 0 {
				if l.Error != "" {
					e.Problem = "a trivial hook did not run: " + l.Error
					return
				}
				e.Usable = true
			}
		}
	}
	// What an engine that does not see this machine's files costs.
	if e.Usable && e.Latency[0].Stream == "channel" {
		e.Latency = append(e.Latency, latency(ctx, e.Name, "", 0, true, h, o))
	}
}

const probeScript = "cat >/dev/null\nuname -r >&2\nprintf '{\"schema_version\":1,\"action\":\"allow\"}\\n'\n"

var probeEvent = []byte(`{"schema_version":1,"event_id":"hookevt_doctor","timestamp":0,"point":"tool.before",` +
	`"session_id":"sess_doctor","run_id":"run_doctor","trace_id":"trace_doctor","workspace":"/doctor","depth":0,` +
	`"data":{"call_id":"call_1","tool_name":"bash","args":{"command":"ls"},"category":"shell","reversible":true}}`)

// latency runs h o.Runs times on one engine and runtime, cold (pool 0) or
// from a pool of one, whose refill each run waits for; through the
// engine's attach when attach is set, else the way the engine gets.
func latency(ctx context.Context, name, runtime string, pool int, attach bool, h hook.Hook, o Options) Latency {
	l := Latency{Runtime: runtime, Mode: "cold"}
	if runtime == "" {
		l.Runtime = "runc"
	}
	if pool > 0 {
		l.Mode = "pooled"
	}
	s, err := stack.Open(ctx, stack.Options{Engine: engine.Options{Backend: name, Runtime: runtime, ContainerdAddress: o.ContainerdAddress},
		Strict: true, NoSweep: true, Executor: executor.Options{Pool: pool}})
	if err != nil {
		l.Error = err.Error()
		return l
	}
	defer s.Close(stack.DefaultDrain)
	type streamer interface {
		UseAttach()
		Stream() string
	}
	st, _ := s.Engine.Backend().(streamer)
	if attach && st != nil {
		st.UseAttach()
	}
	ex := s.Executor
	if !attach && pool == 0 {
		// One run first, its stream's verdict awaited (the channel probe
		// runs beside an engine's first sandbox, which takes the attach):
		// the rows measure the path the engine's runs take from then on.
		ex.Run(ctx, h, probeEvent)
		if w, ok := s.Engine.Backend().(interface{ WaitCleanup(context.Context) error }); ok {
			w.WaitCleanup(ctx)
		}
	}
	var ms []float64
	var last time.Duration
	for tries := 0; len(ms) < o.Runs && tries < 4*o.Runs; tries++ {
		if pool > 0 && last > 0 {
			time.Sleep(2 * last) // the refill is a cold start
		}
		begin := time.Now()
		r, err := ex.Run(ctx, h, probeEvent)
		last = time.Since(begin)
		switch {
		case err != nil:
			l.Error = err.Error()
		case r.Trace.Failure != nil:
			l.Error = fmt.Sprintf("%s: %s (stderr %q)", r.Trace.Failure.Kind, r.Trace.Failure.Message, r.Trace.StderrExcerpt)
		}
		if l.Error != "" {
			return l
		}
		l.Kernel = strings.TrimSpace(r.Trace.StderrExcerpt)
		if pool > 0 && !r.Trace.Pooled {
			continue
		}
		ms = append(ms, float64(r.Trace.DurationMS))
	}
	if len(ms) == 0 {
		l.Error = "no run took a pooled sandbox"
		return l
	}
	sort.Float64s(ms)
	l.Runs, l.MedianMS = len(ms), ms[len(ms)/2]
	if st != nil {
		l.Stream = st.Stream() // after the runs: an engine that did not see a channel is on the attach
	}
	return l
}

// compare adds what the measurements say across engines.
func compare(r *Report) {
	cold := map[string]float64{}
	for _, e := range r.Engines {
		for _, l := range e.Latency {
			if l.Runtime == "runc" && l.Mode == "cold" && l.Stream != "attach" && l.Error == "" {
				cold[e.Name] = l.MedianMS
			}
		}
	}
	for i := range r.Engines {
		e := &r.Engines[i]
		for j := range e.Facts {
			f := &e.Facts[j]
			if f.Topic == "storage driver" && f.Advice != "" && cold["docker"] > 0 && cold["containerd"] > 0 {
				f.Advice += fmt.Sprintf(" (measured here: docker cold %.0f ms, containerd cold %.0f ms)", cold["docker"], cold["containerd"])
			}
		}
	}
}

func storageAdvice(driver string) string {
	switch driver {
	case "fuse-overlayfs", "vfs":
		return driver + " makes every cold run slower (each sandbox's root is mounted through it): prefer the pool (`hook-exec serve --pool N`) or the containerd backend and its overlayfs snapshotter"
	}
	return ""
}

func cgroupAdvice(version string) string {
	if version == "1" {
		return "cgroup v1: limits and OOM reports work (eventfd on memory.oom_control); cgroup v2 is what current engines and runsc are tested on most"
	}
	return ""
}

// securityOptions reads Docker's "name=seccomp,profile=default" list.
func securityOptions(opts []string) map[string]bool {
	m := map[string]bool{}
	for _, o := range opts {
		for _, kv := range strings.Split(o, ",") {
			if n, ok := strings.CutPrefix(kv, "name="); ok {
				m[n] = true
			}
		}
	}
	return m
}

func userns(sec map[string]bool) string {
	switch {
	case sec["rootless"]:
		return "rootless engine"
	case sec["userns"]:
		return "userns-remap"
	}
	return "none"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func adviceIf(cond bool, advice string) string {
	if cond {
		return advice
	}
	return ""
}
