package executor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/internal/admission"
	"github.com/hookexec/hook-exec/launcher"
	"github.com/hookexec/hook-exec/sandbox"
)

// Bounds of a reused sandbox, unless Options set them.
const (
	DefaultReuseRuns = 100
	DefaultReuseAge  = 5 * time.Minute
	// maxIdleAgents bounds the idle reused sandboxes of one hook.
	maxIdleAgents = 8
)

// reuser keeps sandboxes that serve further runs of the same hook (same
// hook, pinned script digest, image, limits, mounts and user; same session
// when asked): each a resident agent (launcher's agent.sh) that resets the
// sandbox after a run and proves it. A sandbox goes back for another run
// only when the run had no failure of any kind and the reset came back
// clean; otherwise, and after its runs or its age, it is retired.
type reuser struct {
	warmer backend.Warmer
	admit  *admission.Limiter
	runs   int
	age    time.Duration
	log    *slog.Logger
	// ahead: a run that finds no sandbox of its key idle goes the ordinary
	// way (a pooled sandbox, when the pool has one ready) while one is
	// started for the runs after it, rather than wait for that start.
	ahead  bool
	ctx    context.Context // ends at close: starts ahead give up
	cancel context.CancelFunc

	retired atomic.Uint64 // sandboxes retired, for Stats

	mu      sync.Mutex
	keys    map[string]*reuseKeyState
	refused map[string]string // image -> why its agent cannot be trusted
	closed  bool
	wg      sync.WaitGroup // verdicts in flight
}

// reuseKeyState is one key's sandboxes: idle ones, and how many have
// answered and are being reset (a run waits for one of those rather than
// make a new sandbox: a reset costs a small part of a creation).
type reuseKeyState struct {
	idle      []*reused
	resetting int
	starting  int           // sandboxes being started ahead
	wake      chan struct{} // closed when a reset ends
}

type reused struct {
	a    *backend.Agent
	born time.Time
	runs int
}

func newReuser(w backend.Warmer, admit *admission.Limiter, runs int, age time.Duration, ahead bool, log *slog.Logger) *reuser {
	if runs <= 0 {
		runs = DefaultReuseRuns
	}
	if age <= 0 {
		age = DefaultReuseAge
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &reuser{warmer: w, admit: admit, runs: runs, age: age, ahead: ahead, ctx: ctx, cancel: cancel, log: log, keys: map[string]*reuseKeyState{}, refused: map[string]string{}}
}

// runReused runs the hook in a reused sandbox; a nil outcome and failure
// mean the run goes the ordinary way (the image cannot host an agent).
func (e *Executor) runReused(ctx context.Context, h *hook.Hook, env *hook.Envelope, lang launcher.Lang, spec *sandbox.Spec, vars []string, script, event []byte, queued time.Time, tr *hook.Trace) (*backend.Outcome, func(ok bool), *failure) {
	shape, _, err := shapeOf(lang, spec)
	if err != nil {
		return nil, nil, nil
	}
	tr.Phases.Queued = time.Since(queued).Milliseconds()
	key := reuseKey(h, env, tr.ScriptSHA256, e.opts.ReusePerSession, shape)
	out, done, f := e.reuse.run(ctx, key, lang, spec, vars, script, event, h.MaxOutputBytes, tr)
	if f != nil && (errors.Is(f.err, errNotReusable) || errors.Is(f.err, errStartingAhead)) {
		return nil, nil, nil
	}
	return out, done, f
}

// ownFiles reports whether a run needs a sandbox of its own: arguments
// (a pooled launcher takes none), or files of its own (the env file, a
// transcript, --writable, the edited file, a plugin's data directory, a
// kept /tmp).
func ownFiles(h *hook.Hook) bool {
	return len(h.Args) > 0 || h.EnvFileOut != "" || h.Transcript || len(h.Writable) > 0 || h.WritableEditedFile || h.PluginData != "" || h.TmpData
}

// reusable reports whether a run may be served by a reused sandbox: a
// script (not a command) without files of its own, whose every
// mount is read-only (a writable one keeps what a run left), not under
// gVisor (its /proc is its own: the reset's checks are runc's).
func reusable(h *hook.Hook, lang launcher.Lang, spec *sandbox.Spec, runtime string) bool {
	return lang != "" && !ownFiles(h) && runtime != backend.Runsc &&
		!slices.ContainsFunc(spec.Mounts, func(m sandbox.Mount) bool { return !m.ReadOnly })
}

// reuseKey names what a reused sandbox may serve: this hook, this script,
// this sandbox shape, and the session when the host asks for that.
func reuseKey(h *hook.Hook, env *hook.Envelope, digest string, perSession bool, shapeKey string) string {
	k := fmt.Sprintf("%s|%s|%s|%s", h.Scope, h.ID, digest, shapeKey)
	if perSession {
		k += "|" + env.SessionID
	}
	return k
}

// errNotReusable: the image's agent cannot be trusted; the run goes the
// ordinary way.
var errNotReusable = errors.New("image cannot host a reused sandbox")

// errStartingAhead: no sandbox of the key is idle and one is being started
// for the runs to come; this run goes the ordinary way.
var errStartingAhead = errors.New("a reused sandbox is starting")

// run serves one run from an idle sandbox of key, or a new one; done,
// called once the run is judged (ok: no failure of any kind), decides
// whether the sandbox serves again.
func (r *reuser) run(ctx context.Context, key string, lang launcher.Lang, spec *sandbox.Spec, vars []string, script, event []byte, maxOutput int64, tr *hook.Trace) (out *backend.Outcome, done func(ok bool), f *failure) {
	input, err := launcher.PoolInput(lang, vars, script, event)
	if err != nil {
		return nil, nil, fail(hook.FailRefusedRule, err)
	}
	ag, created, f := r.take(ctx, key, lang, spec)
	if f != nil {
		return nil, nil, f
	}
	tr.Reused = ag.runs > 0
	ag.runs++
	out, verdict, err := ag.a.Run(ctx, input, maxOutput)
	if err != nil {
		return nil, nil, fail(hook.FailLauncherError, err)
	}
	out.Phases.Create = created
	if verdict == nil { // timed out or killed for memory: already retired
		r.retired.Add(1)
		return out, nil, nil
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		r.retire(ag)
		return out, nil, nil
	}
	r.state(key).resetting++ // until its verdict
	r.wg.Add(1)
	r.mu.Unlock()
	okC := make(chan bool, 1)
	go func() {
		defer r.wg.Done()
		v := <-verdict
		ok := <-okC
		if v != nil {
			r.log.Warn("reused sandbox retired", "err", v)
		}
		keep := v == nil && ok && ag.runs < r.runs && time.Since(ag.born) < r.age
		if !r.reset(key, ag, keep) {
			r.retire(ag)
		}
	}()
	return out, func(ok bool) { okC <- ok }, nil
}

// refuse remembers that image cannot host an agent: its runs go the
// ordinary way from now on.
func (r *reuser) refuse(image string, why error) *failure {
	r.mu.Lock()
	r.refused[image] = why.Error()
	r.mu.Unlock()
	r.log.Warn("image cannot host a reused sandbox: its runs start their own", "image", image, "err", why)
	return fail(hook.FailLauncherError, fmt.Errorf("%w: %w", errNotReusable, why))
}

// state is key's state, made on first use; r.mu is held.
func (r *reuser) state(key string) *reuseKeyState {
	ks := r.keys[key]
	if ks == nil {
		ks = &reuseKeyState{wake: make(chan struct{})}
		r.keys[key] = ks
	}
	return ks
}

// reset ends a sandbox's reset: kept, it goes back idle (false when it
// cannot: the reuser closed, or enough of key's are idle); waiting runs
// are woken either way.
func (r *reuser) reset(key string, ag *reused, keep bool) (kept bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ks := r.state(key)
	ks.resetting--
	close(ks.wake)
	ks.wake = make(chan struct{})
	if !keep || r.closed || len(ks.idle) >= maxIdleAgents {
		return false
	}
	ks.idle = append(ks.idle, ag)
	return true
}

// take returns an idle sandbox of key, or starts one (created: what that
// took).
func (r *reuser) take(ctx context.Context, key string, lang launcher.Lang, spec *sandbox.Spec) (_ *reused, created time.Duration, _ *failure) {
	for {
		r.mu.Lock()
		if why, ok := r.refused[spec.Image]; ok {
			r.mu.Unlock()
			return nil, 0, fail(hook.FailLauncherError, fmt.Errorf("%w: %s", errNotReusable, why))
		}
		ks := r.state(key)
		if n := len(ks.idle); n > 0 {
			ag := ks.idle[n-1]
			ks.idle = ks.idle[:n-1]
			r.mu.Unlock()
			if ag.a.Alive() && time.Since(ag.born) < r.age {
				return ag, 0, nil
			}
			r.retire(ag) // ended while idle (a sweep, the engine), or too old
			continue
		}
		if ks.resetting == 0 && r.ahead {
			// One more for each run that found none: as many as come at once,
			// up to what a key may keep.
			if len(ks.idle)+ks.starting < maxIdleAgents && !r.closed {
				ks.starting++
				r.startAhead(key, lang, spec)
			}
			r.mu.Unlock()
			return nil, 0, fail(hook.FailLauncherError, errStartingAhead)
		}
		if ks.resetting == 0 {
			r.mu.Unlock()
			break
		}
		wake := ks.wake
		r.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return nil, 0, failBeforeStart(hook.FailTimeout, fmt.Errorf("waiting for a reused sandbox: %w", ctx.Err()))
		}
	}
	return r.create(ctx, lang, spec, false)
}

// startAhead starts a sandbox of key in the background, made idle when
// its agent is ready; r.mu is held.
func (r *reuser) startAhead(key string, lang launcher.Lang, spec *sandbox.Spec) {
	_, shape, err := shapeOf(lang, spec) // a copy: the run goes on with spec
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		var ag *reused
		var f *failure
		if err == nil {
			ctx, cancel := context.WithTimeout(r.ctx, warmBound)
			ag, _, f = r.create(ctx, lang, shape, true)
			cancel()
		}
		r.mu.Lock()
		ks := r.state(key)
		ks.starting--
		keep := ag != nil && !r.closed && len(ks.idle) < maxIdleAgents
		if keep {
			ks.idle = append(ks.idle, ag)
		}
		r.mu.Unlock()
		switch {
		case ag != nil && !keep:
			r.retire(ag)
		case f != nil && !errors.Is(f.err, errNotReusable):
			r.log.Warn("a reused sandbox could not be started ahead", "err", f.err)
		}
	}()
}

// create starts a new sandbox with an agent for spec's shape.
func (r *reuser) create(ctx context.Context, lang launcher.Lang, spec *sandbox.Spec, background bool) (_ *reused, created time.Duration, _ *failure) {
	argv, err := launcher.AgentArgv(lang)
	if err != nil {
		return nil, 0, fail(hook.FailRefusedRule, err)
	}
	// The run's sandbox as a pool would make it (no run's environment or
	// labels), the agent its program.
	_, shape, err := shapeOf(lang, spec)
	if err != nil {
		return nil, 0, fail(hook.FailRefusedRule, err)
	}
	s := *shape
	s.Argv = argv
	// Over a channel where the backend has one (the agent's own shell wraps
	// it), else on the engine's attach.
	s.Channel, s.Resident = true, true
	begin := time.Now()
	acquire := r.admit.Acquire
	if background {
		acquire = r.admit.AcquireBackground // behind every waiting run
	}
	ticket, err := acquire(ctx)
	switch {
	case errors.Is(err, admission.ErrOverloaded):
		return nil, 0, fail(hook.FailOverloaded, err)
	case err != nil:
		return nil, 0, failBeforeStart(hook.FailTimeout, fmt.Errorf("waiting for the engine: %w", err))
	}
	w, err := r.warmer.Warm(ctx, &s)
	switch {
	case err == nil:
		ticket.Done(true)
	case errors.Is(err, backend.ErrEngine):
		ticket.Done(false)
		return nil, 0, classifyRunError(lang, argv[0], err)
	case errors.Is(err, backend.ErrStart) && launcher.NotFound(err, argv[0]):
		ticket.Cancel()
		return nil, 0, r.refuse(spec.Image, fmt.Errorf("it has no %s for the agent: %w", argv[0], err))
	default:
		ticket.Cancel()
		if errors.Is(err, backend.ErrPrepareTimeout) {
			return nil, 0, failBeforeStart(hook.FailTimeout, err)
		}
		return nil, 0, classifyRunError(lang, argv[0], err)
	}
	p, ok := w.(*backend.Prepared)
	if !ok {
		w.Discard()
		return nil, 0, fail(hook.FailEngineError, fmt.Errorf("%w: the backend's sandboxes cannot host an agent", errNotReusable))
	}
	a, err := p.Agent(ctx)
	switch {
	case errors.Is(err, backend.ErrAgent):
		return nil, 0, r.refuse(spec.Image, err)
	case err != nil:
		return nil, 0, failBeforeStart(hook.FailTimeout, fmt.Errorf("the reused sandbox's agent did not start within the hook's timeout: %w", err))
	}
	return &reused{a: a, born: time.Now()}, time.Since(begin), nil
}

// retire ends a sandbox's service.
func (r *reuser) retire(ag *reused) {
	r.retired.Add(1)
	ag.a.Close()
}

// idle counts the sandboxes idle now, and those being reset.
func (r *reuser) idle() (idle, resetting int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ks := range r.keys {
		idle += len(ks.idle)
		resetting += ks.resetting
	}
	return idle, resetting
}

// close retires every idle sandbox and, once the verdicts in flight are
// in, the rest.
func (r *reuser) close() {
	r.cancel()
	r.mu.Lock()
	r.closed = true
	var idle []*reused
	for _, ks := range r.keys {
		idle = append(idle, ks.idle...)
		ks.idle = nil
	}
	r.mu.Unlock()
	for _, ag := range idle {
		r.retire(ag)
	}
	r.wg.Wait()
}
