// Package e2e holds the black-box suites: real hooks in real sandboxes on a
// real engine. Nothing here fakes an engine. The tests skip when no engine
// answers, unless HOOKEXEC_REQUIRE_ENGINE=1 (CI), where that is a failure.
package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/backend/containerd"
	"github.com/hookexec/hook-exec/backend/docker"
	hookengine "github.com/hookexec/hook-exec/backend/engine"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/launcher"
	"github.com/hookexec/hook-exec/sandbox"
)

// plantedSecret is exported in this process's environment; no sandbox may see it.
const plantedSecret = "hookexec-planted-secret-7f3a9c"

func TestMain(m *testing.M) {
	os.Setenv("HOOKEXEC_TEST_SECRET_TOKEN", plantedSecret)
	// No registry serves testcontainers' reaper; hook-exec's labels and sweep clean up.
	os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	state, err := os.MkdirTemp("", "hookexec-e2e-state-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("HOOKEXEC_STATE_DIR", state)
	// Every CLI call runs in its own process unless a test names a server
	// it started (and stops): none outlives the suite.
	os.Setenv("HOOKEXEC_SERVER", "off")
	code := m.Run()
	os.RemoveAll(state)
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath)) // the hook-exec that cli built
	}
	if dock != nil && ctrd != nil {
		// Nothing this process created may survive it.
		if left := ownContainers(context.Background()); len(left) > 0 {
			fmt.Fprintf(os.Stderr, "e2e: %d sandbox container(s) of this process survived the suite\n", len(left))
			code = 1
		}
		for _, b := range append([]managedLister{dock, ctrd}, altBackends...) {
			if c, ok := b.(io.Closer); ok {
				c.Close()
			}
		}
		sshStop()
		podmanStop()
		rootlessStop()
		// Nor its channel directories, once its backends are closed.
		left, _ := filepath.Glob(filepath.Join(os.TempDir(), fmt.Sprintf("hook-exec-channels-%d-*", os.Getpid())))
		if len(left) > 0 {
			fmt.Fprintf(os.Stderr, "e2e: %d channel directories of this process survived the suite: %v\n", len(left), left)
			code = 1
		}
	}
	os.Exit(code)
}

// managedLister is what both container backends offer for leak checks.
type managedLister interface {
	backend.Backend
	Managed(ctx context.Context) ([]map[string]string, error)
	WaitCleanup(ctx context.Context) error
}

// engineUnderTest is one real backend with its reference images.
type engineUnderTest struct {
	name    string // the backend's name, as traces give it
	runtime string // the OCI runtime asked for; "" is the engine's default (runc)
	b       managedLister
	refs    map[launcher.Lang]string
	// start is added to every case's timeout, and taken off its elapsed
	// time: a sandbox's start that counts against the hook's timeout and
	// is long beside it (a pod's, measured when the backend is set up).
	start time.Duration
	// flags are the CLI's flags that reach it, after --backend.
	flags []string
	// via is how the engine is reached when not the machine's Docker:
	// "ssh" (its Docker over ssh), "podman" (Podman's Docker API),
	// "rootless" (a rootless dockerd).
	via string
}

// label names the engine and, when not runc, its runtime: docker+runsc.
func (e engineUnderTest) label() string {
	l := e.name
	if e.runtime != "" {
		l += "+" + e.runtime
	}
	switch e.via {
	case "":
	case "podman", "rootless":
		l = e.via
	default:
		l += "-over-" + e.via
	}
	return l
}

var (
	setupOnce sync.Once
	engineErr error // no engine: skip (or fail under HOOKEXEC_REQUIRE_ENGINE=1)
	imagesErr error // engine up but the images could not be built: always a failure
	dock      *docker.Backend
	ctrd      *containerd.Backend
	refs      = map[launcher.Lang]string{}
	ctrdRefs  = map[launcher.Lang]string{}
)

func setup() {
	b, err := docker.New()
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err = b.Ping(ctx)
		cancel()
	}
	if err != nil {
		engineErr = err
		return
	}
	ctx := context.Background()
	c, err := containerd.New(ctx, "")
	if err != nil {
		engineErr = fmt.Errorf("docker answers but containerd does not: %w", err)
		return
	}
	got, err := (&hookengine.Images{Docker: b, Containerd: c}).Ensure(ctx, os.Stderr)
	if err != nil {
		imagesErr = fmt.Errorf("reference images: %w", err)
		return
	}
	for lang, ref := range got {
		refs[lang] = ref
		ctrdRefs[lang] = containerd.NormalizeRef(ref)
	}
	dock, ctrd = b, c
}

func requireEngines(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("e2e: needs a Docker Engine; skipped with -short (make unit)")
	}
	setupOnce.Do(setup)
	if engineErr != nil {
		if os.Getenv("HOOKEXEC_REQUIRE_ENGINE") == "1" {
			t.Fatalf("no engine answers and HOOKEXEC_REQUIRE_ENGINE=1: %v", engineErr)
		}
		t.Skipf("no engine answers (%v); set HOOKEXEC_REQUIRE_ENGINE=1 to make this a failure", engineErr)
	}
	if imagesErr != nil {
		t.Fatal(imagesErr)
	}
}

// engine returns the Docker backend and its reference images.
func engine(t testing.TB) (*docker.Backend, map[launcher.Lang]string) {
	t.Helper()
	requireEngines(t)
	return dock, refs
}

// engines returns both container backends, for suites that run on each.
func engines(t testing.TB) []engineUnderTest {
	t.Helper()
	requireEngines(t)
	return []engineUnderTest{{"docker", "", dock, refs, 0, nil, ""}, {"containerd", "", ctrd, ctrdRefs, 0, nil, ""}}
}

// altRuntime is both container backends running their sandboxes under an
// OCI runtime other than runc, set up once (`make test` sets runsc and
// crun up: hook-exec runtime setup); without it, err says why.
type altRuntime struct {
	name string
	// passEnv turns on the case suites' variants under it: a pass of its
	// own (`make test` runs them after the others). gVisor's ptrace
	// platform is CPU-hungry, and beside the load suites on 2 cores it
	// starved them (a memory bomb timed out before it could be OOM-killed).
	passEnv string
	// unsupported says why the runtime cannot run on this machine at all
	// (nil: it can): a skip even where the runtimes must be set up.
	unsupported func() error
	once        sync.Once
	err         error
	engs        []engineUnderTest
}

var (
	runsc = &altRuntime{name: backend.Runsc, passEnv: "HOOKEXEC_E2E_RUNSC", unsupported: func() error { return nil }}
	crun  = &altRuntime{name: backend.Crun, passEnv: "HOOKEXEC_E2E_CRUN", unsupported: backend.CrunUnsupported}

	altMu       sync.Mutex
	altBackends []managedLister // for the leak checks
)

func (r *altRuntime) setup() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	d, err := docker.New()
	if err != nil {
		r.err = err
		return
	}
	if r.err = d.SetRuntime(ctx, r.name); r.err != nil {
		d.Close()
		return
	}
	c, err := containerd.New(ctx, "")
	if err != nil {
		d.Close()
		r.err = err
		return
	}
	if r.err = c.SetRuntime(r.name); r.err != nil {
		d.Close()
		c.Close()
		return
	}
	altMu.Lock()
	altBackends = append(altBackends, d, c)
	altMu.Unlock()
	// A gVisor sandbox's start counts against a hook's timeout and, on a
	// loaded machine, is long beside the cases' own (a busy loop's 2 s):
	// each case gets twice the slowest of three cold runs more.
	var starts [2]time.Duration
	for i, b := range []backend.Backend{d, c} {
		mctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		starts[i], r.err = slowestColdRun(mctx, b, map[backend.Backend]map[launcher.Lang]string{d: refs, c: ctrdRefs}[b])
		cancel()
		if r.err != nil {
			return
		}
	}
	r.engs = []engineUnderTest{{"docker", r.name, d, refs, 2 * starts[0], nil, ""}, {"containerd", r.name, c, ctrdRefs, 2 * starts[1], nil, ""}}
	println("e2e: a cold", r.name, "run took at most", starts[0].String(), "(docker),", starts[1].String(), "(containerd) here; the cases' timeouts get twice that more")
}

// slowestColdRun is the slowest of three cold runs of a trivial hook on b.
func slowestColdRun(ctx context.Context, b backend.Backend, refs map[launcher.Lang]string) (time.Duration, error) {
	ex, err := executor.New(executor.Options{Backend: b, DefaultImage: func(_ context.Context, l launcher.Lang) (string, error) { return refs[l], nil }})
	if err != nil {
		return 0, err
	}
	defer ex.Shutdown(context.Background())
	dir, err := os.MkdirTemp("", "hookexec-probe-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "h.sh"), []byte(shAllow+"\n"), 0o644); err != nil {
		return 0, err
	}
	var slowest time.Duration
	for range 3 {
		begin := time.Now()
		r, err := ex.Run(ctx, hook.Hook{ID: "probe", PluginDir: dir, Script: "h.sh", Timeout: time.Minute}, toolEvent("ls"))
		if err == nil && (r.Trace.Failure != nil || r.Decision.Action != hook.Allow) {
			err = errors.New("a trivial hook did not allow: " + r.Decision.Reason)
		}
		if err != nil {
			return 0, err
		}
		slowest = max(slowest, time.Since(begin))
	}
	return slowest, nil
}

// require skips (or, under HOOKEXEC_REQUIRE_ENGINE=1 as in CI, fails) a
// test that needs the runtime when it is not set up.
func (r *altRuntime) require(t testing.TB) {
	t.Helper()
	requireEngines(t)
	if err := r.unsupported(); err != nil {
		t.Skipf("%s cannot run on this machine: %v", r.name, err)
	}
	r.once.Do(r.setup)
	if r.err != nil {
		if os.Getenv("HOOKEXEC_REQUIRE_ENGINE") == "1" {
			t.Fatalf("%s is not set up and HOOKEXEC_REQUIRE_ENGINE=1: %v", r.name, r.err)
		}
		t.Skipf("%s is not set up (%v): sudo hook-exec runtime setup %s", r.name, r.err, r.name)
	}
}

// requireRunsc is runsc.require.
func requireRunsc(t testing.TB) { runsc.require(t) }

// runtimeEngines returns both container backends under each runtime whose
// pass this is, for the case suites (core, adversarial, conformance); none
// in the main pass.
func runtimeEngines(t testing.TB) []engineUnderTest {
	t.Helper()
	var out []engineUnderTest
	for _, r := range []*altRuntime{runsc, crun} {
		if os.Getenv(r.passEnv) != "1" {
			t.Logf("the %s variants run in their own pass (%s=1; make test runs it)", r.name, r.passEnv)
			continue
		}
		if err := r.unsupported(); err != nil {
			t.Logf("no %s variants: it cannot run on this machine: %v", r.name, err)
			continue
		}
		r.require(t)
		out = append(out, r.engs...)
	}
	return out
}

// attachEngines returns both container backends streaming every sandbox
// through the engine's attach (backend values of their own): what an
// engine in a VM or a remote one gets, measured beside the channel.
func attachEngines(t testing.TB) []engineUnderTest {
	t.Helper()
	requireEngines(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	d, err := docker.New()
	if err != nil {
		t.Fatal(err)
	}
	c, err := containerd.New(ctx, "")
	if err != nil {
		d.Close()
		t.Fatal(err)
	}
	d.UseAttach()
	c.UseAttach()
	altMu.Lock()
	altBackends = append(altBackends, d, c)
	altMu.Unlock()
	return []engineUnderTest{{"docker", "", d, refs, 0, nil, ""}, {"containerd", "", c, ctrdRefs, 0, nil, ""}}
}

// ownContainers returns the labels of the managed containers this process
// owns on every backend.
func ownContainers(ctx context.Context) []map[string]string {
	var own []map[string]string
	me := backend.OwnerLabels()
	altMu.Lock()
	all := append([]managedLister{dock, ctrd}, altBackends...)
	altMu.Unlock()
	listed := []managedLister{dock, ctrd}
	for _, b := range []*docker.Backend{podmanB, rootlessB} {
		if b != nil { // another engine: its own containers
			all = append(all, b)
			listed = append(listed, b)
		}
	}
	if k8s := k8sBackend.Load(); k8s != nil {
		all = append(all, k8s)
		listed = append(listed, k8s)
	}
	// Every backend value's background removals first: two values (runc and
	// runsc) list the same engine's containers.
	for _, b := range all {
		// A create cut short by a deadline is removed in the background.
		wctx, cancel := context.WithTimeout(ctx, time.Minute)
		err := b.WaitCleanup(wctx)
		cancel()
		if err != nil {
			return []map[string]string{{"error": "background cleanup: " + err.Error()}}
		}
	}
	for _, b := range listed {
		managed, err := b.Managed(ctx)
		if err != nil {
			return []map[string]string{{"error": err.Error()}}
		}
		for _, l := range managed {
			if l[sandbox.LabelOwnerPID] == me[sandbox.LabelOwnerPID] && l[sandbox.LabelOwnerHost] == me[sandbox.LabelOwnerHost] {
				own = append(own, l)
			}
		}
	}
	return own
}

// assertGone fails unless no container of the execution exists.
func assertGone(t testing.TB, executionID string) {
	t.Helper()
	for _, l := range ownContainers(context.Background()) {
		if l["error"] != "" {
			t.Fatalf("list containers: %s", l["error"])
		}
		if l[sandbox.LabelExecution] == executionID {
			t.Fatalf("the sandbox of execution %s survived the run", executionID)
		}
	}
}

// countingBackend counts runs that reach the real engine.
type countingBackend struct {
	backend.Backend
	mu   sync.Mutex
	runs int
}

func (c *countingBackend) Run(ctx context.Context, r *backend.Run) (*backend.Outcome, error) {
	c.mu.Lock()
	c.runs++
	c.mu.Unlock()
	return c.Backend.Run(ctx, r)
}

func (c *countingBackend) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.runs
}

// newExecutor returns an executor on b using the reference images.
func newExecutor(t testing.TB, b backend.Backend, refs map[launcher.Lang]string) *executor.Executor {
	t.Helper()
	ex, err := executor.New(executor.Options{
		Backend: b,
		DefaultImage: func(_ context.Context, l launcher.Lang) (string, error) {
			return refs[l], nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return ex
}

// writeScript puts a script in a new plugin directory and returns the hook
// that runs it.
func writeScript(t testing.TB, lang launcher.Lang, body string) hook.Hook {
	t.Helper()
	dir := t.TempDir()
	name := "hook." + string(lang)
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return hook.Hook{ID: strings.ReplaceAll(t.Name(), "/", "."), PluginDir: dir, Script: name, Timeout: 10 * time.Second}
}

// toolEvent is a tool.before event for a bash call running command.
func toolEvent(command string) []byte {
	return fmt.Appendf(nil, `{"schema_version":1,"event_id":"hookevt_1","timestamp":0,"point":"tool.before",`+
		`"session_id":"sess_e2e","run_id":"run_1","trace_id":"trace_1","workspace":"/reviewed/workspace","depth":0,`+
		`"data":{"call_id":"call_1","tool_name":"bash","args":{"command":%q},"category":"shell","reversible":false}}`, command)
}
