package executor

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/internal/admission"
	"github.com/hookexec/hook-exec/launcher"
	"github.com/hookexec/hook-exec/sandbox"
)

// maxShapes bounds how many sandbox shapes the pool keeps warm; runs of
// other shapes take the cold path.
const maxShapes = 16

// warmBackoff is the pause after a failed warm-up before the next try.
const warmBackoff = time.Second

// A shape's pool grows by one sandbox each time a run finds it empty, up
// to the runs the executor takes at once and maxWarm at most, and shrinks
// by one for each poolQuiet without such a run, never below the pool's
// size. (Bounded by the engine's admission limit instead, which counts
// creations at once, a pool stayed at 2 or 3 here, and at 4 hosts calling
// at once one run in four went cold.)
const maxWarm = 16

var poolQuiet = 2 * time.Minute

// pool keeps sandboxes created and started ahead, per shape (everything
// fixed when a sandbox is created: language, image, limits, user, mounts),
// each with a pooled launcher waiting on stdin. A run takes one, streams
// the run's environment, script and event to it, and the sandbox is
// destroyed after that one run, never reused.
type pool struct {
	warmer backend.Warmer
	admit  *admission.Limiter
	size   int
	most   int // sandboxes of one shape kept ready at most
	// lifetime: a warm sandbox older than this is discarded, not handed
	// out (0: none; see backend.WarmLifetimer).
	lifetime time.Duration
	ctx      context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup

	mu     sync.Mutex
	shapes map[string]*shape
}

type shape struct {
	spec   *sandbox.Spec
	ready  chan warm
	refill chan struct{}

	misses atomic.Uint64 // runs that found none ready, for Stats
	warmed atomic.Bool   // a sandbox has been ready: the warm-up is done

	mu       sync.Mutex
	target   int // sandboxes to keep ready
	lastMiss time.Time
}

func (sh *shape) want() int {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.target
}

// missed records a run that found the shape empty: one more is kept
// ready, up to bound.
func (sh *shape) missed(bound int) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.lastMiss = time.Now()
	if sh.target < min(bound, cap(sh.ready)) {
		sh.target++
	}
}

// quiet shrinks the shape by one, never below base, when no run found it
// empty for poolQuiet.
func (sh *shape) quiet(base int) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.target > base && time.Since(sh.lastMiss) >= poolQuiet {
		sh.target--
		sh.lastMiss = time.Now() // the next step down waits as long
	}
}

// warm is a sandbox started ahead, and when.
type warm struct {
	backend.Warm
	made time.Time
}

// newPool keeps size sandboxes of each shape ready, more (up to most) while
// runs find none.
func newPool(w backend.Warmer, size, most int, admit *admission.Limiter) *pool {
	ctx, cancel := context.WithCancel(context.Background())
	p := &pool{warmer: w, admit: admit, size: size, most: max(size, min(most, maxWarm)), ctx: ctx, cancel: cancel, shapes: map[string]*shape{}}
	if l, ok := w.(backend.WarmLifetimer); ok {
		p.lifetime = l.WarmLifetime()
	}
	return p
}

// shapeOf is the pooled twin of a run's sandbox: the same description
// with the pooled launcher and no per-run environment or labels.
func shapeOf(lang launcher.Lang, s *sandbox.Spec) (string, *sandbox.Spec, error) {
	argv, err := launcher.PoolArgv(lang)
	if err != nil {
		return "", nil, err
	}
	env, err := sandbox.Env(nil, nil, nil)
	if err != nil {
		return "", nil, err
	}
	if lang == launcher.Shell || lang == launcher.Node {
		env = append(env, launcher.DisposableVar+"=1") // a pool's sandbox serves one run
	}
	w := *s
	w.Argv, w.Env = argv, env
	w.Labels = map[string]string{sandbox.LabelManaged: "true", sandbox.LabelPool: "true"}
	key := fmt.Sprintf("%s|%s|%d|%d|%d|%s|%v|%v|%v|%v|%v|%+v|%s", lang, w.Image, w.Memory, w.Pids, w.NanoCPUs, w.User,
		w.ReadOnlyRoot, w.NoNetwork, w.NoNewPrivileges, w.DropAllCaps, w.TmpNoExec, w.Mounts, w.TmpDir)
	return key, &w, nil
}

// take returns a warm sandbox of the run's shape, or nil (the run goes
// cold), and refill, to call once the run is over: the shape is refilled
// in the background then, not while the run streams. A refill is a whole
// sandbox creation; started at the take, it competed with the run for the
// engine and the two cores, and made a pooled run slower than a cold one
// (measured: Docker pooled stream 338 ms against 149 ms cold).
func (p *pool) take(lang launcher.Lang, s *sandbox.Spec) (w backend.Warm, refill func()) {
	key, spec, err := shapeOf(lang, s)
	if err != nil {
		return nil, func() {}
	}
	p.mu.Lock()
	sh, ok := p.shapes[key]
	if !ok {
		if len(p.shapes) >= maxShapes || p.ctx.Err() != nil {
			p.mu.Unlock()
			return nil, func() {}
		}
		sh = &shape{spec: spec, ready: make(chan warm, p.most), refill: make(chan struct{}, 1), target: p.size}
		p.shapes[key] = sh
		p.wg.Add(1)
		go p.fill(sh)
	}
	p.mu.Unlock()
	refill = func() {
		select {
		case sh.refill <- struct{}{}:
		default:
		}
	}
	outlived := false
	for {
		select {
		case got := <-sh.ready:
			if p.lifetime > 0 && time.Since(got.made) > p.lifetime {
				got.Discard() // outlived: the next one, or the run goes cold
				outlived = true
				continue
			}
			return got.Warm, refill
		default:
			sh.misses.Add(1)
			// A shape seen before, found empty: more runs come at once than
			// it keeps (not its first run, nor one after sandboxes aged out).
			if ok && !outlived {
				sh.missed(p.most)
			}
			return nil, refill
		}
	}
}

// parallel is how many sandboxes of one shape are made at once: as many
// as the engine's admission limit lets background work take, one slot kept
// for runs (a burst of runs is refilled in the time of a creation or two,
// not of one creation after another).
func (p *pool) parallel() int {
	if p.admit == nil {
		return 1
	}
	return max(1, p.admit.Limit()-1)
}

// fill keeps a shape's ready queue at its target until the pool closes.
func (p *pool) fill(sh *shape) {
	defer p.wg.Done()
	tick := time.NewTicker(poolQuiet / 4)
	defer tick.Stop()
	for {
		for need := sh.want() - len(sh.ready); need > 0; need = sh.want() - len(sh.ready) {
			var failed atomic.Bool
			var wg sync.WaitGroup
			for range min(need, p.parallel()) {
				wg.Go(func() {
					w, err := p.prepare(sh.spec)
					if err != nil {
						failed.Store(true)
						return
					}
					select {
					case sh.ready <- warm{w, time.Now()}:
						sh.warmed.Store(true)
					default:
						w.Discard()
					}
				})
			}
			wg.Wait()
			if p.ctx.Err() != nil {
				return
			}
			if failed.Load() {
				select {
				case <-p.ctx.Done():
					return
				case <-time.After(warmBackoff):
				}
			}
		}
		// Beyond a target that shrank: discarded.
	extras:
		for len(sh.ready) > sh.want() {
			select {
			case w := <-sh.ready:
				w.Discard()
			default:
				break extras
			}
		}
		select {
		case <-p.ctx.Done():
			return
		case <-sh.refill:
		case <-tick.C:
			sh.quiet(p.size)
		}
	}
}

// warmBound bounds one refill: a stuck engine must not hold a filler.
const warmBound = 2 * time.Minute

// prepare makes one sandbox ahead, admitted behind every waiting run.
func (p *pool) prepare(spec *sandbox.Spec) (backend.Warm, error) {
	ctx, cancel := context.WithTimeout(p.ctx, warmBound)
	defer cancel()
	ticket, err := p.admit.AcquireBackground(ctx)
	if err != nil {
		return nil, err
	}
	w, err := p.warmer.Warm(ctx, spec)
	switch {
	case err == nil:
		ticket.Done(true)
	case errors.Is(err, backend.ErrEngine):
		ticket.Done(false)
	default:
		ticket.Cancel()
	}
	return w, err
}

// close stops the refills and destroys every warm sandbox.
func (p *pool) close() {
	p.cancel()
	p.wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, sh := range p.shapes {
		for len(sh.ready) > 0 { // the fillers are gone: nothing else touches ready
			(<-sh.ready).Discard()
		}
	}
}

// stats reads every shape's state.
func (p *pool) stats() []PoolStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]PoolStats, 0, len(p.shapes))
	for _, sh := range p.shapes {
		out = append(out, PoolStats{Image: sh.spec.Image, Ready: len(sh.ready), Target: sh.want(), Misses: sh.misses.Load(), Warmed: sh.warmed.Load()})
	}
	return out
}
