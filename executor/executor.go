// Package executor runs hooks: it ties the path of a hook run together
// (gate, script re-check, launch in a sandbox, outcome, strict decision,
// failure policy, trace) and always answers with a decision.
package executor

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/launcher"
	"github.com/hookexec/hook-exec/sandbox"
	"github.com/hookexec/hook-exec/scriptpin"
)

// DefaultMaxEventBytes bounds an event unless Options says otherwise.
const DefaultMaxEventBytes = 16 << 20

// stderrExcerptBytes is how much of the end of stderr a trace keeps.
const stderrExcerptBytes = 2048

// Options configure an Executor.
type Options struct {
	Backend backend.Backend
	// DefaultImage returns the image for a script language when a hook
	// names none.
	DefaultImage func(ctx context.Context, lang launcher.Lang) (string, error)
	// MaxEventBytes refuses larger events before anything runs.
	MaxEventBytes int64
	// OnTrace receives every trace, redacted. It must not block for long.
	OnTrace func(hook.Trace)
}

// Executor runs hooks. It is safe for concurrent use.
type Executor struct {
	opts     Options
	mu       sync.Mutex
	disabled map[string]bool // hook ids turned off by failure_policy disable
}

// New returns an Executor.
func New(opts Options) (*Executor, error) {
	if opts.Backend == nil {
		return nil, errors.New("executor: no backend")
	}
	if opts.MaxEventBytes <= 0 {
		opts.MaxEventBytes = DefaultMaxEventBytes
	}
	return &Executor{opts: opts, disabled: map[string]bool{}}, nil
}

// Result is the executor's answer: the final decision and the run's trace.
type Result struct {
	Decision hook.Decision
	Trace    hook.Trace
	// Warning is set when a failure was let through by failure_policy warn.
	Warning string
}

// failure is a classified failure of a run.
type failure struct {
	kind hook.FailureKind
	err  error
}

func fail(kind hook.FailureKind, err error) *failure { return &failure{kind, err} }

// Run runs one hook for one event. The error is only for a hook definition
// that cannot be run at all (a usage error); every failure of the run
// itself goes through the hook's failure policy and ends in a decision.
func (e *Executor) Run(ctx context.Context, h hook.Hook, event []byte) (*Result, error) {
	if err := h.Validate(); err != nil {
		return nil, err
	}
	for k := range h.Env {
		if err := sandbox.CheckName(k); err != nil {
			return nil, err
		}
	}
	tr := hook.Trace{
		SchemaVersion: hook.TraceSchemaVersion,
		ExecutionID:   newID(),
		HookID:        h.ID,
		Mode:          h.Mode,
		Backend:       e.opts.Backend.Name(),
		StartedAt:     time.Now().UTC(),
	}
	res := &Result{}
	var handler *hook.Decision
	var f *failure
	disabled := e.isDisabled(h.ID)
	if !disabled {
		f = e.attempt(ctx, &h, event, &tr, &handler)
	}
	switch {
	case disabled:
		// Turned off by failure_policy disable: not run, the boundary goes on.
		res.Decision = hook.Decision{SchemaVersion: 1, Action: hook.Allow}
		tr.PolicyApplied = "disabled"
	case f == nil:
		res.Decision = *handler
	default:
		tr.Failure = &hook.Failure{Kind: f.kind, Message: f.err.Error()}
		res.Decision, res.Warning = e.applyPolicy(&h, f)
		tr.PolicyApplied = string(h.FailurePolicy)
	}
	if handler != nil {
		tr.HandlerAction = handler.Action
	}
	tr.FinalAction = res.Decision.Action
	tr.DurationMS = time.Since(tr.StartedAt).Milliseconds()
	tr.Redact()
	res.Decision.Reason = hook.Redact(res.Decision.Reason)
	res.Warning = hook.Redact(res.Warning)
	res.Trace = tr
	if e.opts.OnTrace != nil {
		e.opts.OnTrace(tr)
	}
	return res, nil
}

// attempt runs the hook and classifies what happened; nil means the handler
// answered with a valid decision, left in *decision.
func (e *Executor) attempt(ctx context.Context, h *hook.Hook, event []byte, tr *hook.Trace, decision **hook.Decision) *failure {
	if int64(len(event)) > e.opts.MaxEventBytes {
		return fail(hook.FailInvalidEvent, fmt.Errorf("event is %d bytes, over the %d-byte limit", len(event), e.opts.MaxEventBytes))
	}
	ev, err := hook.ParseEvent(event)
	if err != nil {
		return fail(hook.FailInvalidEvent, err)
	}
	tr.EventID, tr.SessionID, tr.Point = ev.EventID, ev.SessionID, ev.Point
	if ev.Depth >= hook.MaxDepth {
		return fail(hook.FailDepthExceeded, fmt.Errorf("event depth %d: hooks nest at most %d deep", ev.Depth, hook.MaxDepth))
	}

	script, f := loadScript(h)
	if f != nil {
		return f
	}
	tr.ScriptSHA256 = script.SHA256.String()
	lang := launcher.Lang(script.Lang)

	image := h.Image
	if image == "" {
		if e.opts.DefaultImage == nil {
			return fail(hook.FailEngineError, errors.New("no image given and no reference image configured"))
		}
		if image, err = e.opts.DefaultImage(ctx, lang); err != nil {
			return fail(hook.FailEngineError, err)
		}
	}
	tr.Image = image

	env, err := sandbox.Env(h.Env, ev.EnvVars(h.ID))
	if err != nil {
		return fail(hook.FailRefusedRule, err)
	}
	argv, err := launcher.Argv(lang, len(script.Bytes))
	if err != nil {
		return fail(hook.FailRefusedRule, err)
	}
	spec, err := sandbox.New(image, argv, sandbox.WithEnv(env), sandbox.WithLimits(h.Memory, h.Pids, h.NanoCPUs),
		sandbox.WithLabels(map[string]string{sandbox.LabelExecution: tr.ExecutionID}))
	if err != nil {
		return fail(hook.FailRefusedRule, err)
	}
	stdin := make([]byte, 0, len(script.Bytes)+len(event))
	stdin = append(append(stdin, script.Bytes...), event...)

	rctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	out, err := e.opts.Backend.Run(rctx, &backend.Run{Spec: spec, Stdin: stdin, MaxOutput: h.MaxOutputBytes})
	if err != nil {
		return classifyRunError(lang, err)
	}
	code := out.ExitCode
	tr.ExitCode = &code
	tr.Signal = out.Signal
	tr.TimedOut, tr.Truncated, tr.OOMKilled = out.TimedOut, out.Truncated, out.OOMKilled
	tr.StdoutBytes, tr.StderrBytes = out.StdoutBytes, out.StderrBytes
	tr.StderrExcerpt = excerpt(out.Stderr)

	switch {
	case out.TimedOut:
		return fail(hook.FailTimeout, fmt.Errorf("hook ran past its %v timeout and was killed", h.Timeout))
	case out.Truncated:
		return fail(hook.FailOutputLimit, fmt.Errorf("hook wrote more than %d bytes of output and was killed", h.MaxOutputBytes))
	case out.OOMKilled:
		return fail(hook.FailOOM, fmt.Errorf("hook ran out of memory (exit %d)", code))
	}
	if err := launcher.Failure(code, out.Stderr); err != nil {
		if errors.Is(err, launcher.ErrMissingProgram) {
			return fail(hook.FailMissingProgram, err)
		}
		return fail(hook.FailLauncherError, err)
	}
	if code != 0 {
		return fail(hook.FailExitNonzero, fmt.Errorf("hook exited with status %d", code))
	}
	d, err := hook.ParseDecision(out.Stdout, ev.Point)
	if err != nil {
		return fail(hook.FailInvalidDecision, err)
	}
	*decision = d
	if h.Mode == hook.Observational && d.Action != hook.Allow {
		return fail(hook.FailInvalidDecision, fmt.Errorf("an observational hook answered %s: it may only allow", d.Action))
	}
	return nil
}

// loadScript re-reads the pinned script. With a pin, bytes that no longer
// pass (changed, swapped for a link, grown, gone) mean the approved script
// changed; a path that could never pass breaks a rule.
func loadScript(h *hook.Hook) (*scriptpin.Script, *failure) {
	if h.SHA256 == "" {
		s, err := scriptpin.Read(h.PluginDir, h.Script)
		if err != nil {
			return nil, fail(hook.FailRefusedRule, err)
		}
		return s, nil
	}
	pin, err := scriptpin.ParseDigest(h.SHA256)
	if err != nil {
		return nil, fail(hook.FailRefusedRule, err)
	}
	s, err := scriptpin.Load(h.PluginDir, h.Script, pin)
	switch {
	case err == nil:
		return s, nil
	case errors.Is(err, scriptpin.ErrAbsolute), errors.Is(err, scriptpin.ErrEscape), errors.Is(err, scriptpin.ErrExtension):
		return nil, fail(hook.FailRefusedRule, err)
	default:
		return nil, fail(hook.FailRefusedChanged, err)
	}
}

func classifyRunError(lang launcher.Lang, err error) *failure {
	if errors.Is(err, backend.ErrStart) {
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

// applyPolicy turns a failure into the final decision.
func (e *Executor) applyPolicy(h *hook.Hook, f *failure) (hook.Decision, string) {
	msg := fmt.Sprintf("hook %s failed (%s): %v", h.ID, f.kind, f.err)
	allow := hook.Decision{SchemaVersion: 1, Action: hook.Allow}
	switch h.FailurePolicy {
	case hook.Deny:
		if h.Mode == hook.Blocking {
			return hook.Decision{SchemaVersion: 1, Action: hook.DenyAction, Reason: msg}, ""
		}
		return allow, msg // Validate refuses this pairing; never fail closed from an observer
	case hook.Warn:
		return allow, msg
	case hook.Disable:
		e.mu.Lock()
		e.disabled[h.ID] = true
		e.mu.Unlock()
		return allow, msg + "; the hook is disabled"
	default: // continue
		return allow, ""
	}
}

func (e *Executor) isDisabled(id string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.disabled[id]
}

func excerpt(stderr []byte) string {
	if len(stderr) > stderrExcerptBytes {
		stderr = stderr[len(stderr)-stderrExcerptBytes:]
	}
	return strings.ToValidUTF8(string(stderr), "\uFFFD")
}

func newID() string {
	var b [12]byte
	rand.Read(b[:])
	return "hookexec_" + hex.EncodeToString(b[:])
}
