// Package admission bounds how many sandbox creations an engine is asked
// for at once, with a bound that adapts to the engine's measured latency,
// and sheds a waiting run at once when it cannot start before its deadline.
//
// The bound is additive-increase, multiplicative-decrease on latency (as
// TCP Vegas and Netflix's concurrency-limits do): a creation that took no
// more than Tolerance times the engine's no-load latency, while the bound
// was in use, raises it by 1/bound; a slower one, or a failed one, cuts it
// by a quarter, at most once per generation (the creations admitted after
// the last cut). Waiters are served in order, foreground runs before
// background refills. With a directory, slots are also file locks in it,
// so processes that share the directory (one `hook-exec run` per hook)
// share the bound, and the kernel releases a dead process's slots; the
// learned bound and latency are kept there too, so a one-shot process
// starts from what earlier ones measured.
//
// admission knows nothing of hooks or engines: it counts slots and time.
// The slot files are locked through gofrs/flock (flock on Unix, LockFileEx
// on Windows).
package admission

import (
	"container/list"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/gofrs/flock"
)

// ErrOverloaded: the run could not have started before its deadline.
var ErrOverloaded = errors.New("engine overloaded")

// Defaults of Options.
const (
	DefaultTolerance = 2.0
	// crossProcessPoll is the longest pause between tries of another
	// process's slots: no event tells one process that another released a
	// lock, so the head of the queue tries again this often.
	crossProcessPoll = 20 * time.Millisecond
	stateFile        = "limit.json"
)

// Options configure a Limiter. Zero values take the defaults.
type Options struct {
	// Initial, Min and Max bound the adaptive limit: NumCPU, 1 and
	// 8*NumCPU by default.
	Initial, Min, Max int
	// Tolerance is how many times the no-load latency a creation may take
	// before the limit is cut (DefaultTolerance).
	Tolerance float64
	// Dir, when set, shares slots and the learned limit with every process
	// that uses the same directory (one per engine).
	Dir string
}

// Limiter admits creations up to its adaptive limit. It is safe for
// concurrent use.
type Limiter struct {
	opts Options

	mu       sync.Mutex
	limit    float64
	inflight int
	started  map[*Ticket]struct{} // the creations in flight
	gen      int                  // bumped by every cut
	est      estimator
	fg, bg   *list.List // *waiter, in arrival order
	held     map[int]*flock.Flock
	stats    Stats
}

// Stats are counters for the log and the tests.
type Stats struct {
	Admitted, Shed, Cut, Raised int
}

// New returns a Limiter. A Dir that cannot be made is an error; its saved
// state, when readable, seeds the limit and latency.
func New(opts Options) (*Limiter, error) {
	n := runtime.NumCPU()
	if opts.Initial <= 0 {
		opts.Initial = n
	}
	if opts.Min <= 0 {
		opts.Min = 1
	}
	if opts.Max <= 0 {
		opts.Max = 8 * n
	}
	if opts.Max < opts.Min {
		opts.Max = opts.Min
	}
	if opts.Tolerance <= 1 {
		opts.Tolerance = DefaultTolerance
	}
	l := &Limiter{opts: opts, limit: clamp(float64(opts.Initial), opts), fg: list.New(), bg: list.New(), held: map[int]*flock.Flock{}, started: map[*Ticket]struct{}{}}
	if opts.Dir != "" {
		if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
			return nil, fmt.Errorf("admission directory: %w", err)
		}
		l.load()
	}
	return l, nil
}

func clamp(v float64, o Options) float64 {
	return math.Max(float64(o.Min), math.Min(float64(o.Max), v))
}

// Limit is the current bound (whole creations).
func (l *Limiter) Limit() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return int(l.limit)
}

// Latency is the smoothed creation latency and its deviation, zero before
// the first sample.
func (l *Limiter) Latency() (mean, dev time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.est.mean, l.est.dev
}

// Stats returns the counters so far.
func (l *Limiter) Stats() Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stats
}

// Ticket is one admitted creation. Done must be called once.
type Ticket struct {
	l     *Limiter
	gen   int
	slot  int
	begin time.Time
	once  sync.Once
}

// Done releases the slot and records how the creation went: ok false for
// a creation the engine failed (a congestion signal: the limit is cut).
func (t *Ticket) Done(ok bool) {
	t.once.Do(func() { t.l.done(t, time.Since(t.begin), ok) })
}

// Cancel releases the slot of a creation that says nothing of the
// engine's speed (cut short by the caller's deadline, refused for a
// missing image): no sample, unless it already took longer than the
// tolerance allows, which is a cut.
func (t *Ticket) Cancel() {
	t.once.Do(func() {
		l := t.l
		took := time.Since(t.begin)
		l.mu.Lock()
		slow := l.est.floor > 0 && float64(took) > l.opts.Tolerance*float64(l.est.floor)
		l.mu.Unlock()
		if slow {
			l.done(t, took, true)
			return
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		l.releaseLocked(t)
		l.dispatchLocked()
	})
}

type waiter struct {
	ready    chan *Ticket // receives the ticket once admitted
	deadline time.Time    // zero: none
	enq      time.Time
}

// Acquire waits, in order, for a creation slot. It returns ErrOverloaded
// as soon as the estimated wait plus the estimated creation would end past
// ctx's deadline, and ctx's error when ctx ends otherwise.
func (l *Limiter) Acquire(ctx context.Context) (*Ticket, error) {
	return l.acquire(ctx, false)
}

// AcquireBackground is Acquire for work nobody waits on (a pool refill):
// it is served only when no foreground run is waiting, and never shed.
func (l *Limiter) AcquireBackground(ctx context.Context) (*Ticket, error) {
	return l.acquire(ctx, true)
}

func (l *Limiter) acquire(ctx context.Context, background bool) (*Ticket, error) {
	now := time.Now()
	w := &waiter{ready: make(chan *Ticket, 1), enq: now}
	if d, ok := ctx.Deadline(); ok && !background {
		w.deadline = d
	}
	l.mu.Lock()
	q := l.fg
	if background {
		q = l.bg
	}
	if !background {
		if err := l.shedLocked(now, w, q.Len()); err != nil {
			l.mu.Unlock()
			return nil, err
		}
	}
	el := q.PushBack(w)
	l.dispatchLocked()
	l.mu.Unlock()

	// Cross-process slots are polled (see crossProcessPoll); everything in
	// this process is an event.
	var poll <-chan time.Time
	var pollTimer *time.Timer
	defer func() {
		if pollTimer != nil {
			pollTimer.Stop()
		}
	}()
	var shedC <-chan time.Time
	if !w.deadline.IsZero() {
		st := time.NewTimer(l.shedAt(w))
		defer st.Stop()
		shedC = st.C
	}
	for {
		if l.opts.Dir != "" {
			if pollTimer == nil {
				pollTimer = time.NewTimer(l.pollEvery())
			} else {
				pollTimer.Reset(l.pollEvery())
			}
			poll = pollTimer.C
		}
		select {
		case t := <-w.ready:
			return t, nil
		case <-poll:
			l.mu.Lock()
			l.dispatchLocked()
			l.mu.Unlock()
		case <-shedC:
			l.mu.Lock()
			pos := indexOf(q, el)
			if pos < 0 { // admitted just now
				l.mu.Unlock()
				continue
			}
			err := l.shedLocked(time.Now(), w, pos)
			if err == nil {
				// The estimate moved: look again when it says.
				l.mu.Unlock()
				shedC = time.After(max(l.shedAt(w), 10*time.Millisecond))
				continue
			}
			q.Remove(el)
			l.mu.Unlock()
			return nil, err
		case <-ctx.Done():
			l.mu.Lock()
			if indexOf(q, el) >= 0 {
				q.Remove(el)
				l.mu.Unlock()
				if !background && errors.Is(ctx.Err(), context.DeadlineExceeded) {
					return nil, l.overloaded(time.Since(w.enq))
				}
				return nil, ctx.Err()
			}
			l.mu.Unlock()
			(<-w.ready).Cancel() // admitted while ctx ended: give it back
			if !background && errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil, l.overloaded(time.Since(w.enq))
			}
			return nil, ctx.Err()
		}
	}
}

func indexOf(q *list.List, el *list.Element) int {
	i := 0
	for e := q.Front(); e != nil; e = e.Next() {
		if e == el {
			return i
		}
		i++
	}
	return -1
}

// shedAt is how long until a waiter must be re-examined: the moment at
// which even an immediate admission would leave its run too little time.
func (l *Limiter) shedAt(w *waiter) time.Duration {
	l.mu.Lock()
	_, upper := l.latencyLocked(time.Now())
	l.mu.Unlock()
	return max(time.Until(w.deadline.Add(-2*upper)), 0)
}

// latencyLocked is the creation time to plan with: the estimate, or the
// age of the oldest creation in flight when that is more. Under a burst the
// engine slows before any slow creation ends and teaches the estimate; the
// creations still running already say so.
func (l *Limiter) latencyLocked(now time.Time) (mean, upper time.Duration) {
	mean, upper = l.est.mean, l.est.upper()
	for t := range l.started {
		age := now.Sub(t.begin)
		mean, upper = max(mean, age), max(upper, age)
	}
	return mean, upper
}

// shedLocked refuses a waiter at position pos of the queue when it would
// wait and still could not run: the slots ahead of it free up one
// creation time apart per slot, then its own creation takes about as
// long, and the hook itself needs time after that (as much again: a
// sandbox made for a run with no time left is the engine's work wasted
// when it is busiest, and a creation under a burst is slower than the
// estimate learned before it). A run that finds a free slot is never shed.
func (l *Limiter) shedLocked(now time.Time, w *waiter, pos int) error {
	mean, upper := l.latencyLocked(now)
	if w.deadline.IsZero() || mean == 0 {
		return nil
	}
	slots := max(int(l.limit), 1)
	ahead := pos + l.inflight - slots
	if ahead < 0 {
		return nil
	}
	wait := time.Duration(ahead/slots+1) * mean
	if ready := now.Add(wait + 2*upper); ready.After(w.deadline) {
		l.stats.Shed++
		return fmt.Errorf("%w: %d creations in flight, %d waiting ahead, limit %d, creation takes ~%v: it could not run before its deadline (%v left)",
			ErrOverloaded, l.inflight, pos, slots, mean.Round(time.Millisecond), w.deadline.Sub(now).Round(time.Millisecond))
	}
	return nil
}

func (l *Limiter) overloaded(waited time.Duration) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stats.Shed++
	return fmt.Errorf("%w: waited %v for one of %d creation slots and the deadline passed", ErrOverloaded, waited.Round(time.Millisecond), int(l.limit))
}

// dispatchLocked hands slots to the waiters at the heads of the queues.
// Background work never takes the last slot (with one slot, it takes it
// only while nothing runs): a run that arrives finds one free.
func (l *Limiter) dispatchLocked() {
	for l.inflight < int(l.limit) {
		q := l.fg
		if q.Len() == 0 {
			q = l.bg
			if l.inflight > 0 && l.inflight >= int(l.limit)-1 {
				return
			}
		}
		if q.Len() == 0 {
			return
		}
		slot, ok := l.claimLocked()
		if !ok {
			return // another process holds the shared slots; polled
		}
		w := q.Remove(q.Front()).(*waiter)
		l.inflight++
		l.stats.Admitted++
		t := &Ticket{l: l, gen: l.gen, slot: slot, begin: time.Now()}
		l.started[t] = struct{}{}
		w.ready <- t
	}
}

func (l *Limiter) pollEvery() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return min(max(l.est.mean/8, time.Millisecond), crossProcessPoll)
}

func (l *Limiter) done(t *Ticket, took time.Duration, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.releaseLocked(t)
	saturated := l.inflight+1 >= int(l.limit) || l.fg.Len() > 0
	switch {
	case !ok || (l.est.floor > 0 && float64(took) > l.opts.Tolerance*float64(l.est.floor)):
		if ok {
			l.est.add(took)
		}
		if t.gen == l.gen { // one cut per generation
			l.limit = clamp(l.limit*0.75, l.opts)
			l.gen++
			l.stats.Cut++
		}
	default:
		l.est.add(took)
		if saturated {
			l.limit = clamp(l.limit+1/l.limit, l.opts)
			l.stats.Raised++
		}
	}
	l.save()
	l.dispatchLocked()
}

func (l *Limiter) releaseLocked(t *Ticket) {
	l.inflight--
	delete(l.started, t)
	if s := l.held[t.slot]; s != nil {
		s.Close() // the kernel drops the lock with the descriptor
		delete(l.held, t.slot)
	}
}

// claimLocked takes a free slot: without a directory any slot; with one,
// the first slot file below the limit that no process holds.
func (l *Limiter) claimLocked() (int, bool) {
	if l.opts.Dir == "" {
		return -1, true
	}
	for i := range int(l.limit) {
		if l.held[i] != nil {
			continue
		}
		// A new description per try: two slots of one process never share
		// a lock, and a dead process's locks go with its descriptors.
		s := flock.New(filepath.Join(l.opts.Dir, fmt.Sprintf("slot-%02d.lock", i)), flock.SetPermissions(0o600))
		if ok, err := s.TryLock(); err != nil || !ok {
			s.Close()
			continue
		}
		l.held[i] = s
		return i, true
	}
	return 0, false
}

// estimator smooths creation latency as TCP smooths round trips (RFC
// 6298): mean and deviation; floor is the no-load latency, following the
// fastest creations down quickly and the slower ones up slowly, so that an
// engine that became slower for good is not held to its old best.
type estimator struct {
	mean, dev, floor time.Duration
}

func (e *estimator) add(d time.Duration) {
	if e.mean == 0 {
		e.mean, e.dev, e.floor = d, d/2, d
		return
	}
	diff := d - e.mean
	if diff < 0 {
		diff = -diff
	}
	e.dev += (diff - e.dev) / 4
	e.mean += (d - e.mean) / 8
	if d < e.floor {
		e.floor -= (e.floor - d) / 4 // one lucky creation does not set it
	} else {
		e.floor += (d - e.floor) / 64
	}
}

// upper is a creation time rarely exceeded.
func (e *estimator) upper() time.Duration { return e.mean + 2*e.dev }

type savedState struct {
	Limit   float64 `json:"limit"`
	MeanMS  float64 `json:"mean_ms"`
	DevMS   float64 `json:"dev_ms"`
	FloorMS float64 `json:"floor_ms"`
}

// load seeds the limit and latency from the directory; a missing or
// unreadable state is the defaults.
func (l *Limiter) load() {
	b, err := os.ReadFile(filepath.Join(l.opts.Dir, stateFile))
	if err != nil {
		return
	}
	var s savedState
	if json.Unmarshal(b, &s) != nil || !(s.Limit > 0) || s.MeanMS < 0 || s.DevMS < 0 || s.FloorMS < 0 || math.IsInf(s.MeanMS+s.DevMS+s.FloorMS, 0) {
		return
	}
	l.limit = clamp(s.Limit, l.opts)
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	l.est = estimator{mean: ms(s.MeanMS), dev: ms(s.DevMS), floor: ms(s.FloorMS)}
}

// save writes the learned state for the next process (last writer wins:
// every writer's view is a fine seed).
func (l *Limiter) save() {
	if l.opts.Dir == "" {
		return
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b, _ := json.Marshal(savedState{Limit: l.limit, MeanMS: ms(l.est.mean), DevMS: ms(l.est.dev), FloorMS: ms(l.est.floor)})
	tmp, err := os.CreateTemp(l.opts.Dir, ".limit-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), filepath.Join(l.opts.Dir, stateFile)) != nil {
		os.Remove(tmp.Name())
	}
}

// Load is the creations in flight now and the waiters queued for one.
func (l *Limiter) Load() (inflight, queued int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.inflight, l.fg.Len() + l.bg.Len()
}
