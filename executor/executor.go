// Package executor runs hooks: it ties the path of a hook run together
// (gate, script re-check, launch in a sandbox, outcome, decision in the
// hook's dialect, failure policy, trace) and always answers with a decision.
package executor

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/executor/handler/builtin"
	"github.com/hookexec/hook-exec/executor/handler/webhook"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/internal/admission"
	"github.com/hookexec/hook-exec/internal/shellsyntax"
	"github.com/hookexec/hook-exec/launcher"
	"github.com/hookexec/hook-exec/sandbox"
	"github.com/hookexec/hook-exec/scriptpin"
)

// Defaults of Options.
const (
	DefaultMaxEventBytes   = 16 << 20
	DefaultMaxConcurrency  = 16
	DefaultCircuitCooldown = 30 * time.Second
	// CircuitThreshold consecutive failures of a hook in a session open its circuit.
	CircuitThreshold = 3
)

// stderrExcerptBytes is how much of the end of stderr a trace keeps.
const stderrExcerptBytes = 2048

// secretWindowBytes is how far before the excerpt redaction reads: more
// than the longest secret (an 8192-bit RSA key block is about 6.5 KiB).
const secretWindowBytes = 16 << 10

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
	// writable mount, CLAUDE_ENV_FILE, gVisor or the kubernetes backend
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
	// Webhook holds what webhook posts share: a resolver and root CAs
	// (tests); URL and headers come from each hook.
	Webhook webhook.Options
	// StateDir holds the audit builtin's log ("": the audit builtin fails).
	StateDir string
}

// Executor runs hooks. It is safe for concurrent use.
type Executor struct {
	opts   Options
	global chan struct{}

	mu      sync.Mutex
	perHook map[string]chan struct{}
	ledger  Ledger

	// Observational runs outlive the call that started them: they run
	// under base, which Shutdown cancels after its grace.
	base     context.Context
	cancel   context.CancelFunc
	async    sync.WaitGroup
	shutdown bool

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
	warmer, _ := opts.Backend.(backend.Warmer)
	admit := opts.Admission
	if warmer != nil && admit == nil {
		admit = sharedLimiter(opts.Backend)
	}
	if warmer != nil && opts.Pool > 0 {
		p = newPool(warmer, opts.Pool, admit)
	}
	var re *reuser
	nr, notReusable := opts.Backend.(backend.NotReusable)
	switch {
	case warmer != nil && opts.Reuse && notReusable:
		logger.Warn("reuse is off on this backend: every run gets a new sandbox", "backend", opts.Backend.Name(), "why", nr.NotReusable())
	case warmer != nil && opts.Reuse:
		re = newReuser(warmer, admit, opts.ReuseRuns, opts.ReuseAge, logger)
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
	// diagnostic (failure_policy warn, an arcturn deny that cannot block).
	Warning string
	// Skipped: the hook's matcher did not select the event; nothing ran
	// and no trace was made.
	Skipped bool
	// Async: an observational hook was started in the background; its
	// trace arrives through Options.OnTrace. The decision is allow.
	Async bool
}

// failure is a classified failure of a run.
type failure struct {
	kind hook.FailureKind
	err  error
	// own: the hook ran and failed on its own (hook.FailureKind.HooksOwn),
	// which decides an arcturn hook's default policy.
	own bool
}

func fail(kind hook.FailureKind, err error) *failure { return &failure{kind, err, kind.HooksOwn()} }

// failBeforeStart is a failure (a timeout) met before the hook started:
// waiting for a slot, the engine, or its sandbox. The hook never ran.
func failBeforeStart(kind hook.FailureKind, err error) *failure { return &failure{kind, err, false} }

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
	e.mu.Unlock()
	event = append([]byte(nil), event...) // the caller may reuse its buffer
	go func() {
		defer e.async.Done()
		e.run(e.base, &h, event)
	}()
	return &Result{Decision: hook.Decision{SchemaVersion: 1, Action: hook.Allow}, Async: true}, nil
}

// Paused records that a hook was not run because its plugin's content
// changed since the owner approved it: a trace with failure
// refused_unapproved, the boundary going on (allow).
func (e *Executor) Paused(h hook.Hook, event []byte, why string) hook.Trace {
	tr := e.newTrace(&h)
	tr.Failure = &hook.Failure{Kind: hook.FailRefusedUnapproved, Message: why}
	tr.FinalAction, tr.PolicyApplied = hook.Allow, "paused"
	if env, err := hook.ParseEnvelope(hook.Holaryn, event); err == nil {
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
		Mode:          h.Mode,
		Backend:       e.opts.Backend.Name(),
		Runtime:       backend.RuntimeOf(e.opts.Backend),
		StartedAt:     time.Now().UTC(),
	}
}

// run is one attempted run, traced.
func (e *Executor) run(ctx context.Context, h *hook.Hook, event []byte) *Result {
	tr := e.newTrace(h)
	res := &Result{}
	var env *hook.Envelope
	var handler *hook.Decision
	var f *failure
	disabled := e.isDisabled(h.ID)
	if !disabled {
		env, f = e.envelope(h, event, &tr)
		if f == nil && !hook.Matches(h.Dialect, h.Matcher, env) {
			return &Result{Decision: hook.Decision{SchemaVersion: 1, Action: hook.Allow}, Skipped: true}
		}
		if f == nil {
			f = e.gate(h, env)
		}
		if f == nil {
			handler, f = e.attempt(ctx, h, env, event, &tr)
			e.recordCircuit(h, env, f)
		}
	}
	switch {
	case disabled:
		// Turned off by failure_policy disable: not run, the boundary goes on.
		res.Decision = hook.Decision{SchemaVersion: 1, Action: hook.Allow}
		tr.PolicyApplied = "disabled"
	case f == nil:
		res.Decision = *handler
		if handler.Action == hook.DenyAction && !env.CanBlock {
			// Arcturn: only preToolUse can veto; elsewhere a deny is observability.
			res.Decision = hook.Decision{SchemaVersion: 1, Action: hook.Allow}
			res.Warning = fmt.Sprintf("hook %s denied at %s, which cannot block: %s", h.ID, env.Point, handler.Reason)
		}
	default:
		tr.Failure = &hook.Failure{Kind: f.kind, Message: f.err.Error()}
		policy := h.FailurePolicy
		if policy == "" {
			policy = h.Dialect.DefaultFailurePolicy(h.Mode, f.own)
		}
		if f.kind == hook.FailInvalidEvent && h.Mode == hook.Blocking {
			// An event hook-exec cannot read is no failure of the hook: no
			// policy lets it through, or the guard would be skipped.
			policy = hook.Deny
		}
		res.Decision, res.Warning = e.applyPolicy(h, policy, f)
		tr.PolicyApplied = string(policy)
	}
	if handler != nil {
		tr.HandlerAction = handler.Action
	}
	tr.FinalAction = res.Decision.Action
	tr.DurationMS = time.Since(tr.StartedAt).Milliseconds()
	tr.Redact()
	res.Decision.Reason = hook.Redact(res.Decision.Reason)
	// What a hook wrote leaves redacted, wherever it goes next.
	for _, raw := range []*json.RawMessage{&res.Decision.Output, &res.Decision.Annotations, &res.Decision.Raw} {
		if len(*raw) > 0 {
			*raw = hook.RedactJSON(*raw)
		}
	}
	res.Warning = hook.Redact(res.Warning)
	res.Trace = tr
	if res.Warning != "" {
		e.log.Warn(res.Warning, "hook", h.ID, "execution", tr.ExecutionID)
	}
	if e.opts.OnTrace != nil {
		e.opts.OnTrace(tr)
	}
	return res
}

// envelope checks the event in the hook's dialect.
func (e *Executor) envelope(h *hook.Hook, event []byte, tr *hook.Trace) (*hook.Envelope, *failure) {
	if int64(len(event)) > e.opts.MaxEventBytes {
		return nil, fail(hook.FailInvalidEvent, fmt.Errorf("event is %d bytes, over the %d-byte limit", len(event), e.opts.MaxEventBytes))
	}
	env, err := hook.ParseEnvelope(h.Dialect, event)
	if err != nil {
		return nil, fail(hook.FailInvalidEvent, err)
	}
	tr.EventID, tr.SessionID, tr.Point = env.EventID, env.SessionID, env.Point
	return env, nil
}

// gate refuses a run before anything is launched: recursion depth, an open
// circuit, an untrusted hook on a backend that does not isolate.
func (e *Executor) gate(h *hook.Hook, env *hook.Envelope) *failure {
	if env.Depth >= hook.MaxDepth {
		return fail(hook.FailDepthExceeded, fmt.Errorf("event depth %d: hooks nest at most %d deep", env.Depth, hook.MaxDepth))
	}
	if h.Scope == hook.ScopePlugin && h.Script != "" && h.SHA256 == "" {
		return fail(hook.FailRefusedUnapproved, fmt.Errorf("plugin hook %s has no approved digest: a plugin's script runs only pinned to what its owner approved (--sha256, or consent through `hook-exec plugin enable`)", h.ID))
	}
	if f := e.admitCircuit(h, env); f != nil {
		return f
	}
	// The seed refuses a project's process handlers where nothing isolates
	// them, and a plugin's builtins too; a trusted project's builtin is
	// reviewed in-process code, as an owner's is.
	if h.Scope.Untrusted() && !e.opts.Backend.Isolating() && !(h.Builtin != nil && h.Scope == hook.ScopeProject) {
		if h.Builtin != nil {
			return fail(hook.FailNotIsolated, fmt.Errorf("%w: %s hook %s: a plugin's builtins run only in isolated sessions (docker, containerd), not %s",
				backend.ErrNotIsolated, h.Scope, h.ID, e.opts.Backend.Name()))
		}
		return fail(hook.FailNotIsolated, fmt.Errorf("%w: %s hook %s runs only on an isolating backend (docker, containerd), not %s",
			backend.ErrNotIsolated, h.Scope, h.ID, e.opts.Backend.Name()))
	}
	return nil
}

// admitCircuit refuses a run while the hook's circuit in this session is
// open; after the cool-down it lets one trial run through.
func (e *Executor) admitCircuit(h *hook.Hook, env *hook.Envelope) *failure {
	var refused *failure
	err := e.ledger.Circuit(h.ID, env.SessionID, func(c *Circuit) {
		refused = nil // a ledger may call this more than once: the last call decides
		if c.OpenedAt.IsZero() {
			return
		}
		now := e.now()
		if now.Sub(c.OpenedAt) >= e.opts.CircuitCooldown && (c.TrialAt.IsZero() || now.Sub(c.TrialAt) >= e.opts.CircuitCooldown) {
			c.TrialAt = now
			return
		}
		refused = fail(hook.FailCircuitOpen, fmt.Errorf("hook %s failed %d times in a row in session %q: its circuit is open", h.ID, c.Failures, env.SessionID))
		refused.own = !c.NotOwn // as own as the failures that opened it
	})
	if err != nil {
		e.log.Warn("circuit ledger unreadable: the run goes ahead", "hook", h.ID, "err", err)
	}
	return refused
}

// recordCircuit counts consecutive failures; a success closes the circuit.
func (e *Executor) recordCircuit(h *hook.Hook, env *hook.Envelope, f *failure) {
	err := e.ledger.Circuit(h.ID, env.SessionID, func(c *Circuit) {
		if f == nil {
			*c = Circuit{}
			return
		}
		c.Failures++
		c.TrialAt, c.FailedAt = time.Time{}, e.now()
		c.NotOwn = c.NotOwn || !f.own
		if c.Failures >= CircuitThreshold {
			c.OpenedAt = e.now()
		}
	})
	if err != nil {
		e.log.Warn("circuit ledger not written", "hook", h.ID, "err", err)
	}
}

// acquire takes a global and a per-hook slot, waiting no longer than ctx.
func (e *Executor) acquire(ctx context.Context, h *hook.Hook) (release func(), err error) {
	e.mu.Lock()
	per, ok := e.perHook[h.ID]
	if !ok {
		per = make(chan struct{}, h.MaxConcurrency)
		e.perHook[h.ID] = per
	}
	e.mu.Unlock()
	select {
	case per <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("no concurrency slot for hook %s before the timeout (max_concurrency %d)", h.ID, cap(per))
	}
	select {
	case e.global <- struct{}{}:
	case <-ctx.Done():
		<-per
		return nil, fmt.Errorf("no global concurrency slot before the timeout (%d runs in flight)", cap(e.global))
	}
	return func() { <-e.global; <-per }, nil
}

// attempt runs the hook and classifies what happened: the handler's valid
// decision, or the failure.
func (e *Executor) attempt(ctx context.Context, h *hook.Hook, env *hook.Envelope, event []byte, tr *hook.Trace) (_ *hook.Decision, failed *failure) {
	if err := checkHandler(h); err != nil {
		return nil, fail(hook.FailRefusedRule, err)
	}
	if h.Webhook != nil {
		return e.post(ctx, h, env, event, tr)
	}
	if h.Builtin != nil {
		return e.builtin(ctx, h, env, event, tr)
	}
	// A script goes through its language's launcher; a command is the
	// sandbox's process itself, with the event alone on stdin.
	var lang launcher.Lang
	var script []byte
	var sh shell
	argv := h.Command
	if len(h.Command) == 0 {
		s, f := loadScript(h)
		if f != nil {
			return nil, f
		}
		tr.ScriptSHA256 = s.SHA256.String()
		lang, script = launcher.Lang(s.Lang), s.Bytes
		var err error
		if argv, err = launcher.Argv(lang, len(script), h.Args...); err != nil {
			return nil, fail(hook.FailRefusedRule, err)
		}
		switch lang {
		case launcher.Shell:
			if sh, f = shellOf(h, script); f != nil {
				return nil, f
			}
			tr.Interpreter = sh.name
		case launcher.Node:
			if err := launcher.NodeShebang(script); err != nil {
				return nil, fail(hook.FailRefusedRule, err)
			}
			sh = shell{name: "node"}
			tr.Interpreter = sh.name
		}
	}

	// One timeout covers everything from here: the slots, the image, the run.
	rctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	tr.Phases = &hook.Phases{}
	queued := time.Now()
	release, err := e.acquire(rctx, h)
	if err != nil {
		tr.Phases.Queued = time.Since(queued).Milliseconds()
		tr.TimedOut = true
		return nil, failBeforeStart(hook.FailTimeout, err)
	}
	defer release()
	var envFile *envOut
	if h.EnvFileOut != "" {
		if envFile, err = newEnvOut(); err != nil {
			return nil, fail(hook.FailEngineError, err)
		}
		defer func() {
			if err := envFile.remove(); err != nil {
				e.log.Warn("remove CLAUDE_ENV_FILE directory", "err", err)
			}
		}()
	}
	spec, vars, f := e.sandboxSpec(rctx, h, env, lang, sh, argv, envFile, tr)
	if f != nil {
		return nil, f
	}
	launched := time.Now()
	if envFile != nil {
		envFile.watch()
	}
	var out *backend.Outcome
	if e.reuse != nil && reusable(h, lang, spec, backend.RuntimeOf(e.opts.Backend)) {
		var reuseDone func(ok bool)
		if out, reuseDone, f = e.runReused(rctx, h, env, lang, spec, vars, script, event, queued, tr); reuseDone != nil {
			// Judged below; the sandbox serves again only after a run
			// without any failure.
			defer func() { reuseDone(failed == nil) }()
		}
	}
	if out == nil && f == nil {
		out, f = e.launch(rctx, h, lang, spec, vars, script, event, queued, tr)
	}
	asRoot := spec.User == sandbox.RootUser
	if asRoot && out != nil && out.Unconfirmed {
		// A process of the sandbox may still run until its removal: the
		// sweep must come after it, or a chmod 4755 could follow the scan.
		f = cmp.Or(f, e.awaitRemoval(ctx))
	}
	for _, m := range spec.Mounts {
		if !m.ReadOnly && !m.Volume && (envFile == nil || m.Source != envFile.file) {
			// Bounded as a run is: a tree too large to scan in time fails
			// a run as root, and is listed as incomplete after any other.
			found, err := hazards(m.Source, launched, asRoot, time.Now().Add(max(h.Timeout, 30*time.Second)))
			tr.WorkspaceHazards = append(tr.WorkspaceHazards, found...)
			if err != nil && f == nil {
				// A setuid file the run left as root may be there still:
				// the run fails, loudly, whatever it answered.
				f = fail(hook.FailWorkspaceUnsafe, fmt.Errorf("%s: %w", m.Source, err))
			}
		}
	}
	if f != nil {
		return nil, f
	}
	if envFile != nil {
		n, refused, err := envFile.collect(h.EnvFileOut, h.EnvFileAllow)
		if err != nil {
			return nil, fail(hook.FailEngineError, fmt.Errorf("--env-file-out %s: %w", h.EnvFileOut, err))
		}
		tr.Loosenings = append(tr.Loosenings, fmt.Sprintf("--env-file-out: %d line(s) taken", n))
		for _, r := range refused {
			tr.Loosenings = append(tr.Loosenings, "--env-file-out refused "+r)
		}
	}
	for _, n := range out.Notes {
		e.log.Warn(n, "hook", h.ID, "execution", tr.ExecutionID)
	}
	recordOutcome(out, tr)
	return judge(h, env, out)
}

// awaitRemoval waits, bounded, for the background removals of the
// backend's sandboxes: a failure when they do not end.
func (e *Executor) awaitRemoval(ctx context.Context) *failure {
	c, ok := e.opts.Backend.(backend.Cleaner)
	if !ok {
		return fail(hook.FailWorkspaceUnsafe, errors.New("the run as root was killed without a confirmed exit, and the backend cannot say when its sandbox is gone"))
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	if err := c.WaitCleanup(wctx); err != nil {
		return fail(hook.FailWorkspaceUnsafe, fmt.Errorf("the run as root was killed without a confirmed exit, and its sandbox's removal did not finish: %w", err))
	}
	return nil
}

// sandboxSpec describes the run's sandbox: image, launcher argv, the
// environment, limits, labels and mounts.
func (e *Executor) sandboxSpec(ctx context.Context, h *hook.Hook, env *hook.Envelope, lang launcher.Lang, sh shell, argv []string, envFile *envOut, tr *hook.Trace) (*sandbox.Spec, []string, *failure) {
	image := h.Image
	if image == "" && e.opts.Backend.Isolating() {
		if e.opts.DefaultImage == nil {
			return nil, nil, fail(hook.FailEngineError, errors.New("no image given and no reference image configured"))
		}
		imageLang := lang
		switch {
		case imageLang == "":
			imageLang = launcher.Shell // a command's programs come from the shell image's PATH
		case sh.name == "bash":
			imageLang = "bash" // the image for bash hooks: bash and what they call
		}
		var err error
		if image, err = e.opts.DefaultImage(ctx, imageLang); err != nil {
			return nil, nil, fail(hook.FailEngineError, err)
		}
	}
	tr.Image = image
	mounts, ws, err := mountOptions(h, env)
	if err != nil {
		return nil, nil, fail(hook.FailRefusedRule, err)
	}
	event := env.EnvVars(h.ID)
	if tr.Cwd = workingDir(h, env, ws); tr.Cwd != "" && lang != "" {
		event[launcher.CwdVar] = tr.Cwd // the launcher's to read (a command's working directory is the sandbox's)
	}
	if sh.name != "" && sh.name != "sh" {
		event[launcher.ShellVar], event[launcher.ShellFlagsVar] = sh.name, sh.flags
	}
	if len(sh.needs) > 0 {
		event[launcher.NeedsVar] = strings.Join(sh.needs, " ")
	}
	if lang == launcher.Node {
		event[launcher.ExtVar] = launcher.NodeExt(h.Script)
	}
	if h.PluginRoot != "" {
		root, f := pluginRoot(h, tr)
		if f != nil {
			return nil, nil, f
		}
		mounts = append(mounts, sandbox.WithMount(sandbox.Mount{Source: root, Target: root}))
		event["CLAUDE_PLUGIN_ROOT"] = root
	}
	if envFile != nil {
		mounts = append(mounts, sandbox.WithWritableMount(sandbox.Mount{Source: envFile.file, Target: EnvFileTarget}))
		event["CLAUDE_ENV_FILE"] = EnvFileTarget
	}
	if len(h.Args) > 0 {
		tr.Loosenings = append(tr.Loosenings, fmt.Sprintf("--arg: %d script argument(s)", len(h.Args)))
	}
	for _, m := range h.Mounts {
		if m.ReadOnly {
			tr.Loosenings = append(tr.Loosenings, fmt.Sprintf("--mount %s:%s:ro", m.Source, m.Target))
		}
	}
	vars, err := sandbox.Env(h.Env, event)
	if err != nil {
		return nil, nil, fail(hook.FailRefusedRule, err)
	}
	opts := append([]sandbox.Option{sandbox.WithEnv(vars), sandbox.WithLimits(h.Memory, h.Pids, h.NanoCPUs),
		sandbox.WithLabels(map[string]string{sandbox.LabelExecution: tr.ExecutionID})}, mounts...)
	if lang == "" && tr.Cwd != "" {
		opts = append(opts, sandbox.WithWorkingDir(tr.Cwd)) // a command starts where its host would start it
	}
	spec, err := sandbox.New(image, argv, opts...)
	if err != nil {
		return nil, nil, fail(hook.FailRefusedRule, err)
	}
	return spec, vars, nil
}

// launch runs the sandbox: a pooled one when the pool has its shape,
// else a new one admitted by the engine's limiter (container backends),
// else the backend's own run (local).
func (e *Executor) launch(ctx context.Context, h *hook.Hook, lang launcher.Lang, spec *sandbox.Spec, vars []string, script, event []byte, queued time.Time, tr *hook.Trace) (*backend.Outcome, *failure) {
	var w backend.Warm
	refill := func() {}
	// Pooled sandboxes run a launcher (commands start their own) that
	// takes no arguments: a script with arguments starts its own too, as
	// does one with a CLAUDE_ENV_FILE (a mount of its own).
	if lang != "" && len(h.Args) == 0 && h.EnvFileOut == "" {
		w, refill = e.warm(lang, spec)
	}
	defer refill()
	if w != nil {
		tr.Pooled = true
		tr.Phases.Queued = time.Since(queued).Milliseconds()
		stdin, err := launcher.PoolInput(lang, vars, script, event)
		if err != nil {
			w.Discard()
			return nil, fail(hook.FailRefusedRule, err)
		}
		out, err := w.Run(ctx, stdin, h.MaxOutputBytes)
		if err != nil {
			return nil, classifyRunError(lang, spec.Argv[0], err)
		}
		out.Phases.Create, out.Phases.Start = 0, 0 // paid ahead
		return out, nil
	}
	stdin := make([]byte, 0, len(script)+len(event))
	stdin = append(append(stdin, script...), event...)
	if e.warmer == nil {
		tr.Phases.Queued = time.Since(queued).Milliseconds()
		out, err := e.opts.Backend.Run(ctx, &backend.Run{Spec: spec, Stdin: stdin, MaxOutput: h.MaxOutputBytes})
		if err != nil {
			return nil, classifyRunError(lang, spec.Argv[0], err)
		}
		return out, nil
	}
	ticket, err := e.admit.Acquire(ctx)
	tr.Phases.Queued = time.Since(queued).Milliseconds()
	switch {
	case errors.Is(err, admission.ErrOverloaded):
		return nil, fail(hook.FailOverloaded, err)
	case err != nil:
		tr.TimedOut = true
		return nil, failBeforeStart(hook.FailTimeout, fmt.Errorf("waiting for the engine: %w", err))
	}
	w, err = e.warmer.Warm(ctx, spec)
	switch {
	case err == nil:
		ticket.Done(true)
	case errors.Is(err, backend.ErrPrepareTimeout):
		ticket.Cancel()
		tr.TimedOut = true
		return nil, failBeforeStart(hook.FailTimeout, fmt.Errorf("hook ran past its %v timeout while its sandbox was made", h.Timeout))
	case errors.Is(err, backend.ErrEngine):
		ticket.Done(false)
		return nil, classifyRunError(lang, spec.Argv[0], err)
	default:
		ticket.Cancel()
		return nil, classifyRunError(lang, spec.Argv[0], err)
	}
	out, err := w.Run(ctx, stdin, h.MaxOutputBytes)
	if err != nil {
		return nil, classifyRunError(lang, spec.Argv[0], err)
	}
	return out, nil
}

// recordOutcome copies what the sandbox reported into the trace.
func recordOutcome(out *backend.Outcome, tr *hook.Trace) {
	code := out.ExitCode
	tr.ExitCode = &code
	tr.Signal = out.Signal
	tr.TimedOut, tr.Truncated, tr.OOMKilled = out.TimedOut, out.Truncated, out.OOMKilled
	tr.StdoutBytes, tr.StderrBytes = out.StdoutBytes, out.StderrBytes
	tr.StderrExcerpt = excerpt(out.Stderr)
	p := out.Phases
	tr.Phases.Create, tr.Phases.Start = p.Create.Milliseconds(), p.Start.Milliseconds()
	tr.Phases.Stream, tr.Phases.Exit, tr.Phases.Cleanup = p.Stream.Milliseconds(), p.Exit.Milliseconds(), p.Cleanup.Milliseconds()
}

// judge reads the outcome: a kill, a launcher failure, or the hook's
// answer in its dialect.
func judge(h *hook.Hook, env *hook.Envelope, out *backend.Outcome) (*hook.Decision, *failure) {
	code := out.ExitCode
	switch {
	case out.TimedOut:
		return nil, fail(hook.FailTimeout, fmt.Errorf("hook ran past its %v timeout and was killed", h.Timeout))
	case out.Truncated:
		return nil, fail(hook.FailOutputLimit, fmt.Errorf("hook wrote more than %d bytes of output and was killed", h.MaxOutputBytes))
	case out.OOMKilled:
		return nil, fail(hook.FailOOM, fmt.Errorf("hook ran out of memory (exit %d)", code))
	}
	if err := launcher.Failure(code, out.Stderr); err != nil && len(h.Command) == 0 {
		if errors.Is(err, launcher.ErrMissingProgram) {
			return nil, fail(hook.FailMissingProgram, err)
		}
		return nil, fail(hook.FailLauncherError, err)
	}
	d, err := hook.Interpret(env, code, out.Stdout, out.Stderr)
	switch {
	case errors.Is(err, hook.ErrMissing):
		return nil, fail(hook.FailMissingProgram, err)
	case errors.Is(err, hook.ErrExit):
		return nil, fail(hook.FailExitNonzero, err)
	case err != nil:
		return nil, fail(hook.FailInvalidDecision, err)
	}
	if h.Mode == hook.Observational && (d.Action != hook.Allow || len(d.Mutations) > 0) {
		return d, fail(hook.FailInvalidDecision, fmt.Errorf("an observational hook answered %s: it may only allow", d.Action))
	}
	return d, nil
}

// warm takes a pooled sandbox for the run, or nil for a cold start, and
// the refill to call when the run is over.
func (e *Executor) warm(lang launcher.Lang, spec *sandbox.Spec) (backend.Warm, func()) {
	if e.pool == nil {
		return nil, func() {}
	}
	return e.pool.take(lang, spec)
}

// pluginRoot checks the plugin's tree (an absolute directory reached by no
// link), hashes its whole content into the trace and, pinned, refuses it
// changed.
func pluginRoot(h *hook.Hook, tr *hook.Trace) (string, *failure) {
	root, err := checkDir(h.PluginRoot)
	if err != nil {
		return "", fail(hook.FailRefusedRule, err)
	}
	d, err := scriptpin.TreeDigest(root)
	if err != nil {
		return "", fail(hook.FailRefusedRule, err)
	}
	tr.Loosenings = append(tr.Loosenings, fmt.Sprintf("--plugin-root %s (tree sha256 %s)", root, d))
	if h.PluginRootSHA256 != "" && h.PluginRootSHA256 != d.String() {
		return "", fail(hook.FailRefusedChanged, fmt.Errorf("%w: %s changed: its tree is sha256 %s, not the pinned %s", scriptpin.ErrTree, root, d, h.PluginRootSHA256))
	}
	return root, nil
}

// shell is the shell that runs a .sh script, its option word, and the
// programs the script cannot run without (shellsyntax.Needs).
type shell struct {
	name, flags string
	needs       []string
}

// shellOf is the shell a .sh script runs under: sh for Holaryn's hooks,
// whatever their #! line; for the hosts whose contract honours it
// (Arcturn, Bernstein, Claude Code), the shell the #! line names. The
// script must parse as that shell's language: syntax it lacks is refused
// here, naming the line, not left to a syntax error at run time.
func shellOf(h *hook.Hook, script []byte) (shell, *failure) {
	sh := shell{name: "sh"}
	if h.Dialect != hook.Holaryn {
		name, flags, err := launcher.Shebang(script)
		if err != nil {
			return shell{}, fail(hook.FailRefusedRule, err)
		}
		if name != "" {
			sh = shell{name: name, flags: flags}
		}
	}
	needs, _, err := shellsyntax.Needs(script, sh.name)
	if err != nil {
		return shell{}, fail(hook.FailRefusedRule, err)
	}
	sh.needs = needs
	return sh, nil
}

// loadScript re-reads the pinned script. With a pin, bytes that no longer
// pass (changed, swapped for a link, grown, gone) mean the approved script
// changed; a path that could never pass breaks a rule.
func loadScript(h *hook.Hook) (*scriptpin.Script, *failure) {
	if h.SHA256 == "" {
		read := scriptpin.Read
		if h.Dialect != hook.Holaryn {
			read = scriptpin.ReadShebang // these hosts run any file by its #! line
		}
		s, err := read(h.PluginDir, h.Script)
		if err != nil {
			return nil, fail(hook.FailRefusedRule, err)
		}
		return s, nil
	}
	pin, err := scriptpin.ParseDigest(h.SHA256)
	if err != nil {
		return nil, fail(hook.FailRefusedRule, err)
	}
	load := scriptpin.Load
	if h.Dialect != hook.Holaryn {
		load = scriptpin.LoadShebang
	}
	s, err := load(h.PluginDir, h.Script, pin)
	switch {
	case err == nil:
		return s, nil
	case errors.Is(err, scriptpin.ErrAbsolute), errors.Is(err, scriptpin.ErrEscape), errors.Is(err, scriptpin.ErrExtension):
		return nil, fail(hook.FailRefusedRule, err)
	default:
		return nil, fail(hook.FailRefusedChanged, err)
	}
}

func classifyRunError(lang launcher.Lang, program string, err error) *failure {
	if errors.Is(err, backend.ErrStart) {
		if lang == "" { // a command: its own program could not start
			if launcher.NotFound(err, program) {
				return fail(hook.FailMissingProgram, fmt.Errorf("%w: %w", &launcher.MissingProgramError{Program: program}, err))
			}
			return fail(hook.FailLauncherError, err)
		}
		if mp := launcher.StartFailure(lang, err); mp != nil {
			return fail(hook.FailMissingProgram, mp)
		}
		return fail(hook.FailLauncherError, err)
	}
	if errors.Is(err, backend.ErrNotIsolated) {
		return fail(hook.FailNotIsolated, err)
	}
	return fail(hook.FailEngineError, err)
}

// applyPolicy turns a failure into the final decision under policy.
func (e *Executor) applyPolicy(h *hook.Hook, policy hook.FailurePolicy, f *failure) (hook.Decision, string) {
	msg := fmt.Sprintf("hook %s failed (%s): %v", h.ID, f.kind, f.err)
	allow := hook.Decision{SchemaVersion: 1, Action: hook.Allow}
	switch policy {
	case hook.Deny:
		if h.Mode == hook.Blocking {
			return hook.Decision{SchemaVersion: 1, Action: hook.DenyAction, Reason: msg}, ""
		}
		return allow, msg // Validate refuses this pairing; never fail closed from an observer
	case hook.Warn:
		return allow, msg
	case hook.Disable:
		if err := e.ledger.Disable(h.ID, "failure_policy disable: "+string(f.kind)); err != nil {
			e.log.Warn("disable not recorded", "hook", h.ID, "err", err)
		}
		return allow, msg + "; the hook is disabled"
	case hook.Continue:
		return allow, ""
	}
	// A policy no case knows (Validate refuses one): closed where it can be.
	if h.Mode == hook.Blocking {
		return hook.Decision{SchemaVersion: 1, Action: hook.DenyAction, Reason: msg}, ""
	}
	return allow, msg
}

func (e *Executor) isDisabled(id string) bool { return e.ledger.Disabled(id) }

// excerpt is the end of stderr, redacted before it is cut: a cut inside a
// secret (a key block whose BEGIN line falls before it) would leave a rest
// that no pattern knows. Redaction reads only a window longer than the
// excerpt by more than any secret, so its cost does not grow with the
// output cap.
func excerpt(stderr []byte) string {
	if len(stderr) > stderrExcerptBytes+secretWindowBytes {
		stderr = stderr[len(stderr)-stderrExcerptBytes-secretWindowBytes:]
	}
	s := hook.Redact(strings.ToValidUTF8(string(stderr), "\uFFFD"))
	if len(s) > stderrExcerptBytes {
		s = s[len(s)-stderrExcerptBytes:]
	}
	return strings.ToValidUTF8(s, "\uFFFD")
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

// post runs a webhook handler: the event is the POST body, the answer is
// read as the hook's stdout (exit 0), all under the hook's timeout.
func (e *Executor) post(ctx context.Context, h *hook.Hook, env *hook.Envelope, event []byte, tr *hook.Trace) (*hook.Decision, *failure) {
	rctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	tr.Phases = &hook.Phases{}
	queued := time.Now()
	release, err := e.acquire(rctx, h)
	tr.Phases.Queued = time.Since(queued).Milliseconds()
	if err != nil {
		tr.TimedOut = true
		return nil, failBeforeStart(hook.FailTimeout, err)
	}
	defer release()
	o := e.opts.Webhook
	o.URL, o.Headers, o.MaxAnswerBytes = h.Webhook.URL, h.Webhook.Headers, h.MaxOutputBytes
	begin := time.Now()
	answer, err := webhook.Post(rctx, o, event)
	tr.Phases.Stream = time.Since(begin).Milliseconds()
	switch {
	case err == nil:
	case rctx.Err() != nil:
		tr.TimedOut = true
		return nil, fail(hook.FailTimeout, fmt.Errorf("webhook did not answer within its %v timeout: %w", h.Timeout, err))
	case errors.Is(err, webhook.ErrTooLarge):
		tr.Truncated = true
		return nil, fail(hook.FailOutputLimit, err)
	case errors.Is(err, webhook.ErrURL), errors.Is(err, webhook.ErrHeader):
		return nil, fail(hook.FailRefusedRule, err)
	default:
		return nil, fail(hook.FailWebhook, err)
	}
	tr.StdoutBytes = int64(len(answer))
	return judge(h, env, &backend.Outcome{Stdout: answer})
}

// builtin runs a reviewed in-process handler under the hook's timeout.
func (e *Executor) builtin(ctx context.Context, h *hook.Hook, _ *hook.Envelope, event []byte, tr *hook.Trace) (*hook.Decision, *failure) {
	rctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	tr.Phases = &hook.Phases{}
	begin := time.Now()
	d, err := builtin.Run(rctx, h.Builtin.Name, h.Builtin.Options, event, builtin.Env{StateDir: e.opts.StateDir, Log: e.log, Webhook: e.opts.Webhook})
	tr.Phases.Stream = time.Since(begin).Milliseconds()
	switch {
	case err == nil:
	case rctx.Err() != nil:
		tr.TimedOut = true
		return nil, fail(hook.FailTimeout, fmt.Errorf("builtin %s ran past its %v timeout: %w", h.Builtin.Name, h.Timeout, err))
	default:
		return nil, fail(hook.FailBuiltin, fmt.Errorf("builtin %s: %w", h.Builtin.Name, err))
	}
	tr.HandlerAction = d.Action
	if h.Mode == hook.Observational && d.Action != hook.Allow {
		return d, fail(hook.FailInvalidDecision, fmt.Errorf("an observational hook answered %s: it may only allow", d.Action))
	}
	if d.Action == hook.Modify {
		return nil, fail(hook.FailInvalidDecision, fmt.Errorf("builtin %s answered modify", h.Builtin.Name))
	}
	return d, nil
}
