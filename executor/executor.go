// Package executor runs hooks: it ties the path of a hook run together
// (gate, script re-check, launch in a sandbox, outcome, decision in the
// hook's dialect, failure policy, trace) and always answers with a decision.
package executor

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/executor/handler/webhook"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/internal/admission"
	"github.com/hookexec/hook-exec/launcher"
)

// Defaults of Options.
const (
	DefaultMaxEventBytes   = 16 << 20
	DefaultMaxConcurrency  = 16
	DefaultCircuitCooldown = 30 * time.Second
	// CircuitThreshold consecutive failures of a hook in a session open its circuit.
	CircuitThreshold = 3
)

// ErrShutdown: the executor is shutting down and takes no new runs.
var ErrShutdown = errors.New("executor is shut down")

// Options configure an Executor.
type Options struct {
	Backend backend.Backend
	// DefaultImage returns the image for a script language when a hook
	// names none.
	DefaultImage func(ctx context.Context, lang launcher.Lang) (string, error)
	// MaxEventBytes refuses larger events before anything runs.
	MaxEventBytes int64
	// MaxConcurrency bounds all runs in flight, across hooks.
	MaxConcurrency int
	// CircuitCooldown is how long an open circuit refuses runs before it
	// lets one trial run through; a success closes it.
	CircuitCooldown time.Duration
	// OnTrace receives every trace, redacted. It must not block for long.
	OnTrace func(hook.Trace)
	// Logger receives warnings (a failure let through by failure_policy
	// warn, PATH entries removed), with the hook and execution as fields.
	// Nil: discarded.
	Logger *slog.Logger
	// Pool keeps this many sandboxes per shape started ahead, each with a
	// launcher waiting on stdin, when the backend can (docker, containerd).
	// Zero: every run starts its own sandbox (the CLI's one-shot run).
	Pool int
	// Reuse lets a sandbox serve further runs of the same hook (same
	// pinned script, image, limits, mounts and user) after a reset its
	// agent performs and proves; any failure, a reset in doubt, ReuseRuns
	// runs or ReuseAge retire it. Off by default; runs with arguments, a
	// writable mount, the env file, gVisor or the kubernetes backend
	// never reuse. The trace's "reused" says when a run did.
	Reuse     bool
	ReuseRuns int           // 0: DefaultReuseRuns
	ReuseAge  time.Duration // 0: DefaultReuseAge
	// ReusePerSession keeps a reused sandbox to one session's runs.
	ReusePerSession bool
	// Admission bounds the sandbox creations the engine is asked for at
	// once (runs and pool refills) and sheds a run that could not start
	// before its deadline (failure overloaded). Nil: one limiter per
	// backend value, shared by every executor of this process. Only
	// backends that prepare sandboxes (backend.Warmer) are admitted.
	Admission *admission.Limiter
	// Ledger keeps circuits and hooks disabled by failure policy. Nil: in
	// memory, for this executor's life.
	Ledger Ledger
	// LedgerByDefinition keys each hook in the ledger by its definition
	// (id, scope, where its script or command comes from; [LedgerKey]),
	// not its id alone: one-shot runs that share a state directory give
	// ids unique only within one call (a script's file name, an Arcturn
	// hook's place in its event's list).
	LedgerByDefinition bool
	// Webhook holds what webhook posts share: a resolver and root CAs
	// (tests); URL and headers come from each hook.
	Webhook webhook.Options
	// StateDir holds the audit builtin's log ("": the audit builtin fails).
	StateDir string
	// SharedSlots: a hook's max_concurrency holds for every process of
	// StateDir, each run taking one of its slot files there (a registry's
	// hooks, whose definitions say how many may run at once anywhere), not
	// only for this executor's runs.
	SharedSlots bool
	// Via is every trace's "via": how its runs reach this executor
	// ("process", "server"; "": not said).
	Via string
}

// Executor runs hooks. It is safe for concurrent use.
type Executor struct {
	opts   Options
	global chan struct{}
	// circuitsOpened counts the circuits opened so far, for Stats.
	circuitsOpened atomic.Uint64

	mu      sync.Mutex
	perHook map[string]chan struct{}
	ledger  Ledger

	// Observational runs outlive the call that started them: they run
	// under base, which Shutdown cancels after its grace.
	base   context.Context
	cancel context.CancelFunc
	async  sync.WaitGroup
	// observers are the observational runs in flight, by session (mu).
	observers map[string][]*observer
	shutdown  bool

	pool   *pool          // nil without Options.Pool
	reuse  *reuser        // nil without Options.Reuse
	warmer backend.Warmer // the backend, when it prepares sandboxes
	admit  *admission.Limiter
	log    *slog.Logger
	now    func() time.Time // the circuits' clock; tests move it
}

// New returns an Executor.
func New(opts Options) (*Executor, error) {
	if opts.Backend == nil {
		return nil, errors.New("executor: no backend")
	}
	if opts.MaxEventBytes <= 0 {
		opts.MaxEventBytes = DefaultMaxEventBytes
	}
	if opts.MaxConcurrency <= 0 {
		opts.MaxConcurrency = DefaultMaxConcurrency
	}
	if opts.CircuitCooldown <= 0 {
		opts.CircuitCooldown = DefaultCircuitCooldown
	}
	base, cancel := context.WithCancel(context.Background())
	var p *pool
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	logger = slog.New(callHandler{logger.Handler()})
	warmer, _ := opts.Backend.(backend.Warmer)
	admit := opts.Admission
	if warmer != nil && admit == nil {
		admit = sharedLimiter(opts.Backend)
	}
	if warmer != nil && opts.Pool > 0 {
		p = newPool(warmer, opts.Pool, opts.MaxConcurrency, admit)
	}
	var re *reuser
	nr, notReusable := opts.Backend.(backend.NotReusable)
	switch {
	case warmer != nil && opts.Reuse && notReusable:
		logger.Warn("reuse is off on this backend: every run gets a new sandbox", "backend", opts.Backend.Name(), "why", nr.NotReusable())
	case warmer != nil && opts.Reuse:
		re = newReuser(warmer, admit, opts.ReuseRuns, opts.ReuseAge, p != nil, logger)
	}
	e := &Executor{
		pool:    p,
		reuse:   re,
		warmer:  warmer,
		admit:   admit,
		log:     logger,
		now:     time.Now,
		opts:    opts,
		global:  make(chan struct{}, opts.MaxConcurrency),
		perHook: map[string]chan struct{}{},
		ledger:  opts.Ledger,
		base:    base,
		cancel:  cancel,
	}
	if e.ledger == nil {
		e.ledger = newMemoryLedger(func() time.Time { return e.now() }) // the circuits' clock
	}
	return e, nil
}

// limiters are the shared admission limiters, one per backend value.
var limiters sync.Map // backend.Backend -> *admission.Limiter

func sharedLimiter(b backend.Backend) *admission.Limiter {
	if l, ok := limiters.Load(b); ok {
		return l.(*admission.Limiter)
	}
	l, _ := admission.New(admission.Options{}) // no directory: cannot fail
	actual, _ := limiters.LoadOrStore(b, l)
	return actual.(*admission.Limiter)
}

// Admission is the limiter that admits this executor's sandbox creations,
// nil when its backend does not prepare sandboxes.
func (e *Executor) Admission() *admission.Limiter { return e.admit }

// Result is the executor's answer: the final decision and the run's trace.
type Result struct {
	Decision hook.Decision
	Trace    hook.Trace
	// Warning is set when a failure or a decision was let through with a
	// diagnostic (failure_policy warn, a deny at a point that cannot block).
	Warning string
	// Skipped: the hook's matcher did not select the event; nothing ran
	// and no trace was made.
	Skipped bool
	// Async: an observational hook was started in the background; its
	// trace arrives through Options.OnTrace. The decision is allow.
	Async bool
}

// Run runs one hook for one event. The error is only for a hook definition
// that cannot be run at all (a usage error) or a shut-down executor; every
// failure of the run itself goes through the hook's failure policy and ends
// in a decision. An observational hook runs in the background: Run returns
// at once with allow.
func (e *Executor) Run(ctx context.Context, h hook.Hook, event []byte) (*Result, error) {
	if err := checkDefinition(&h); err != nil {
		return nil, err
	}
	if h.Mode != hook.Observational {
		e.mu.Lock()
		down := e.shutdown
		e.mu.Unlock()
		if down {
			return nil, ErrShutdown
		}
		return e.run(ctx, &h, event), nil
	}
	e.mu.Lock()
	if e.shutdown {
		e.mu.Unlock()
		return nil, ErrShutdown
	}
	e.async.Add(1)
	session := ""
	if env, err := hook.ParseAt(h.Dialect, h.Point, event); err == nil {
		session = env.SessionID
	}
	runCtx, cancel := context.WithCancel(e.base)
	obs := &observer{cancel: cancel, done: make(chan struct{})}
	if e.observers == nil {
		e.observers = map[string][]*observer{}
	}
	e.observers[session] = append(e.observers[session], obs)
	e.mu.Unlock()
	event = append([]byte(nil), event...) // the caller may reuse its buffer
	go func() {
		defer e.async.Done()
		defer func() {
			cancel()
			e.mu.Lock()
			e.observers[session] = slices.DeleteFunc(e.observers[session], func(o *observer) bool { return o == obs })
			if len(e.observers[session]) == 0 {
				delete(e.observers, session)
			}
			e.mu.Unlock()
			close(obs.done)
		}()
		e.run(runCtx, &h, event)
	}()
	return &Result{Decision: hook.Decision{SchemaVersion: 1, Action: hook.Allow}, Async: true}, nil
}

// observer is an observational run in flight, of one session.
type observer struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// DrainSession waits for the observational runs of session that are in
// flight until ctx ends (seed 000: "Session shutdown performs a bounded
// drain of outstanding observers"), then cancels those left (their
// sandboxes are killed and removed) and waits for that bounded cleanup.
// It reports how many it waited for and how many it cut short.
func (e *Executor) DrainSession(ctx context.Context, session string) (waited, cut int) {
	e.mu.Lock()
	obs := slices.Clone(e.observers[session])
	e.mu.Unlock()
	var left []*observer
	for _, o := range obs {
		select {
		case <-o.done:
			waited++
			continue
		case <-ctx.Done():
		}
		left = append(left, o)
	}
	// Cancelled all at once, then waited for once: the cleanup of each
	// (its sandbox killed and removed) runs beside the others'.
	for _, o := range left {
		o.cancel()
	}
	bound := time.NewTimer(drainCleanup)
	defer bound.Stop()
	for _, o := range left {
		select {
		case <-o.done:
		case <-bound.C:
			return waited, len(left) // what is left ends with its own cleanup
		}
	}
	return waited, len(left)
}

// drainCleanup bounds the wait for the cancelled runs of a session's
// drain: their sandboxes' removal.
const drainCleanup = 10 * time.Second

// Paused records that a hook was not run because its plugin's content
// changed since the owner approved it: a trace with failure
// refused_unapproved, the boundary going on (allow).
func (e *Executor) Paused(h hook.Hook, event []byte, why string) hook.Trace {
	tr := e.newTrace(&h)
	tr.Failure = &hook.Failure{Kind: hook.FailRefusedUnapproved, Message: why}
	tr.FinalAction, tr.PolicyApplied = hook.Allow, "paused"
	if env, err := hook.ParseAt(h.Dialect, h.Point, event); err == nil {
		tr.EventID, tr.SessionID, tr.Point = env.EventID, env.SessionID, env.Point
	}
	tr.Redact()
	if e.opts.OnTrace != nil {
		e.opts.OnTrace(tr)
	}
	return tr
}

// Shutdown takes no new runs and waits for the observational runs in
// flight until ctx ends; then it cancels them (their sandboxes are killed
// and removed) and waits for that bounded cleanup.
func (e *Executor) Shutdown(ctx context.Context) error {
	e.mu.Lock()
	e.shutdown = true
	e.mu.Unlock()
	if e.pool != nil {
		defer e.pool.close()
	}
	if e.reuse != nil {
		defer e.reuse.close()
	}
	done := make(chan struct{})
	go func() { e.async.Wait(); close(done) }()
	select {
	case <-done:
		e.cancel()
		return nil
	case <-ctx.Done():
		e.cancel()
		<-done
		return fmt.Errorf("drain observational hooks: %w", ctx.Err())
	}
}

// newTrace starts the trace of one execution of h.
func (e *Executor) newTrace(h *hook.Hook) hook.Trace {
	return hook.Trace{
		SchemaVersion: hook.TraceSchemaVersion,
		ExecutionID:   newID(),
		HookID:        h.ID,
		Dialect:       string(h.Dialect),
		Scope:         h.Scope,
		Mode:          h.Mode,
		Backend:       e.opts.Backend.Name(),
		Via:           e.opts.Via,
		Runtime:       backend.RuntimeOf(e.opts.Backend),
		StartedAt:     time.Now().UTC(),
	}
}

func newID() string {
	var b [12]byte
	rand.Read(b[:])
	return "hookexec_" + hex.EncodeToString(b[:])
}

// TextLogger is a Logger for a command's stderr: `level=WARN msg=...
// hook=...`, without the time (the host that reads it stamps its own).
func TextLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
}
