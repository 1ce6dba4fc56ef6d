package executor

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/internal/admission"
	"github.com/hookexec/hook-exec/launcher"
	"github.com/hookexec/hook-exec/sandbox"
)

// fakeWarmer is a fakeBackend that also prepares sandboxes ahead.
type fakeWarmer struct {
	*fakeBackend
	mu        sync.Mutex
	warmed    int
	discarded int
	used      []fakeWarm
	specs     []*sandbox.Spec
	// hold makes each Warm take that long; peak is the most in flight.
	hold           time.Duration
	inflight, peak int
}

type fakeWarm struct {
	w     *fakeWarmer
	spec  *sandbox.Spec
	stdin []byte
}

// pooled reports whether the sandbox was prepared ahead by the pool (a
// cold run is prepared the same way, for itself).
func (w fakeWarm) pooled() bool { return w.spec.Labels[sandbox.LabelPool] == "true" }

func (f *fakeWarmer) Warm(_ context.Context, s *sandbox.Spec) (backend.Warm, error) {
	f.mu.Lock()
	if f.hold > 0 {
		f.inflight++
		f.peak = max(f.peak, f.inflight)
		f.mu.Unlock()
		time.Sleep(f.hold)
		f.mu.Lock()
		f.inflight--
	}
	defer f.mu.Unlock()
	f.warmed++
	f.specs = append(f.specs, s)
	return &fakeWarm{w: f, spec: s}, nil
}

func (w *fakeWarm) Run(ctx context.Context, stdin []byte, _ int64) (*backend.Outcome, error) {
	w.w.mu.Lock()
	w.stdin = stdin
	w.w.used = append(w.w.used, *w)
	w.w.mu.Unlock()
	o := w.w.fakeBackend.out
	return &o, nil
}

func (w *fakeWarm) Discard() {
	w.w.mu.Lock()
	w.w.discarded++
	w.w.mu.Unlock()
}

func TestPoolRunsThroughWarmSandboxes(t *testing.T) {
	t.Parallel()
	f := &fakeWarmer{fakeBackend: &fakeBackend{out: backend.Outcome{Stdout: []byte(`{"schema_version":1,"action":"allow"}`)}}}
	ex, err := New(Options{Backend: f, Pool: 2})
	if err != nil {
		t.Fatal(err)
	}
	h := newHook(t, "echo hi\n")
	h.Env = map[string]string{"MODE": "x"}
	// The first run of a shape starts the refill (it may already find one ready).
	if r, _ := ex.Run(context.Background(), h, []byte(event)); r.Trace.Failure != nil {
		t.Fatalf("first run: %+v", r.Trace.Failure)
	}
	waitFor(t, func() bool { f.mu.Lock(); defer f.mu.Unlock(); return f.warmed >= 2 })
	for range 3 {
		r, err := ex.Run(context.Background(), h, []byte(event))
		if err != nil {
			t.Fatalf("pooled run: %v", err)
		}
		if r.Trace.Failure != nil {
			t.Errorf("pooled run: failure = %+v, want none", r.Trace.Failure)
		}
		if r.Decision.Action != hook.Allow {
			t.Errorf("pooled run: action = %q, want %q", r.Decision.Action, hook.Allow)
		}
		waitFor(t, func() bool { f.mu.Lock(); defer f.mu.Unlock(); return f.warmed-len(f.used) >= 2 })
	}
	f.mu.Lock()
	var pooled []fakeWarm
	for _, u := range f.used {
		if u.pooled() {
			pooled = append(pooled, u)
		}
	}
	if len(f.used) != 4 {
		t.Fatalf("%d runs through prepared sandboxes, want 4", len(f.used))
	}
	if len(pooled) < 3 {
		t.Fatalf("%d pooled runs of 4, want at least 3", len(pooled))
	}
	in := string(pooled[0].stdin)
	spec := pooled[0].spec
	f.mu.Unlock()
	if !strings.HasPrefix(in, "8 ") {
		t.Errorf("pooled stdin %q, want it to start with %q", in, "8 ")
	}
	for _, want := range []string{"export MODE='x'", "export HOLARYN_HOOK_POINT='tool.before'"} {
		if !strings.Contains(in, want) {
			t.Errorf("pooled stdin %q lacks %q", in, want)
		}
	}
	if !strings.HasSuffix(in, "echo hi\n"+event) {
		t.Errorf("pooled stdin %q, want it to end with the script then the event", in)
	}
	argv, _ := launcher.PoolArgv(launcher.Shell)
	if spec.Argv[2] != argv[2] {
		t.Errorf("warm spec argv[2] = %q, want %q", spec.Argv[2], argv[2])
	}
	if !spec.ReadOnlyRoot {
		t.Error("warm spec read-only root = false, want true")
	}
	if got := spec.Labels[sandbox.LabelPool]; got != "true" {
		t.Errorf("warm spec label %s = %q, want %q", sandbox.LabelPool, got, "true")
	}
	if env := strings.Join(spec.Env, " "); strings.Contains(env, "MODE") {
		t.Errorf("warm spec env %q carries the hook's MODE; want it only on stdin", env)
	}
	// Shutdown destroys every warm sandbox left.
	if err := ex.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.warmed != len(f.used)+f.discarded {
		t.Fatalf("warmed %d, used %d, discarded %d", f.warmed, len(f.used), f.discarded)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// notReusableWarmer is a fakeWarmer whose sandboxes must not be reused
// (as the kubernetes backend's).
type notReusableWarmer struct{ *fakeWarmer }

func (notReusableWarmer) NotReusable() string { return "never proven" }

// TestReuseOffWhereNotReusable: Options.Reuse gives a reuser on a warming
// backend, except on one that says its sandboxes are not reusable.
func TestReuseOffWhereNotReusable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		b         backend.Backend
		wantReuse bool
	}{
		{&fakeWarmer{fakeBackend: &fakeBackend{}}, true},
		{notReusableWarmer{&fakeWarmer{fakeBackend: &fakeBackend{}}}, false},
	} {
		e, err := New(Options{Backend: tc.b, Reuse: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := e.reuse != nil; got != tc.wantReuse {
			t.Errorf("%T: reuser = %v, want %v", tc.b, got, tc.wantReuse)
		}
		e.Shutdown(context.Background())
	}
}

// shortLivedWarmer is a fakeWarmer whose sandboxes outlive their use at
// once (as a pod past its activeDeadlineSeconds would).
type shortLivedWarmer struct{ *fakeWarmer }

func (shortLivedWarmer) WarmLifetime() time.Duration { return time.Nanosecond }

// TestPoolDiscardsOutlivedSandboxes: a warm sandbox older than its
// backend's WarmLifetime is discarded, and the run goes cold.
func TestPoolDiscardsOutlivedSandboxes(t *testing.T) {
	t.Parallel()
	f := &fakeWarmer{fakeBackend: &fakeBackend{out: backend.Outcome{Stdout: []byte(`{"schema_version":1,"action":"allow"}`)}}}
	ex, err := New(Options{Backend: shortLivedWarmer{f}, Pool: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Shutdown(context.Background())
	h := newHook(t, "echo hi\n")
	if r, _ := ex.Run(context.Background(), h, []byte(event)); r.Trace.Failure != nil {
		t.Fatalf("first run: %+v", r.Trace.Failure)
	}
	waitFor(t, func() bool { f.mu.Lock(); defer f.mu.Unlock(); return f.warmed-len(f.used) >= 2 })
	r, err := ex.Run(context.Background(), h, []byte(event))
	if err != nil || r.Trace.Failure != nil {
		t.Fatalf("run: %v %+v", err, r.Trace.Failure)
	}
	if r.Trace.Pooled {
		t.Error("the run was served by an outlived warm sandbox")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.discarded < 2 {
		t.Errorf("%d warm sandboxes discarded, want the 2 outlived ones", f.discarded)
	}
}

// A shape that runs dry keeps one more ready for each run that found it
// empty, up to the runs the executor takes at once, made as many at a time
// as the admission limit lets background work; after quiet it shrinks back to the pool's
// size, discarding the extras.
func TestPoolGrowsWithDemandAndShrinksWhenQuiet(t *testing.T) {
	defer func(q time.Duration) { poolQuiet = q }(poolQuiet)
	poolQuiet = 600 * time.Millisecond // longer than the fill takes
	f := &fakeWarmer{fakeBackend: &fakeBackend{}, hold: 50 * time.Millisecond}
	admit, err := admission.New(admission.Options{Initial: 3, Min: 3, Max: 3})
	if err != nil {
		t.Fatal(err)
	}
	p := newPool(f, 1, 4, admit)
	defer p.close()
	spec, err := sandbox.New("img", []string{"x"})
	if err != nil {
		t.Fatal(err)
	}
	ready := func() int {
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, sh := range p.shapes {
			return len(sh.ready)
		}
		return 0
	}
	take := func() (bool, func()) {
		w, refill := p.take(launcher.Shell, spec)
		if w != nil {
			w.Discard()
		}
		return w != nil, refill
	}
	if got, _ := take(); got {
		t.Fatal("a new shape had a sandbox ready")
	}
	waitFor(t, func() bool { return ready() == 1 })
	// Five runs at once: one is served, four find it empty.
	var refills []func()
	for i := range 5 {
		got, refill := take()
		if got != (i == 0) {
			t.Fatalf("take %d: served %v", i, got)
		}
		refills = append(refills, refill)
	}
	p.mu.Lock()
	for _, sh := range p.shapes {
		if n := sh.want(); n != 4 {
			t.Errorf("target %d after 4 runs found it empty, want the executor's bound 4", n)
		}
	}
	p.mu.Unlock()
	for _, r := range refills {
		r()
	}
	waitFor(t, func() bool { return ready() == 4 })
	waitFor(t, func() bool { return ready() == 1 }) // quiet: back to the pool's size
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.discarded != 1+3 { // the one served (this test's), the three extras
		t.Errorf("%d discarded, want 4: the one served and the 3 extras", f.discarded)
	}
	if f.peak != 2 {
		t.Errorf("%d sandboxes made at once, want 2: the admission limit 3 less the slot kept for runs", f.peak)
	}
}
