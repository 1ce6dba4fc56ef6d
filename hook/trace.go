package hook

import (
	"time"
	"unicode/utf8"
)

// TraceSchemaVersion is the version of the Trace layout.
const TraceSchemaVersion = 1

// FailureKind classifies why a run failed.
type FailureKind string

const (
	FailRefusedRule    FailureKind = "refused_rule"
	FailRefusedChanged FailureKind = "refused_changed"
	// FailRefusedUnapproved: a plugin hook without the owner's consent to
	// its content (none given, or the content changed since).
	FailRefusedUnapproved FailureKind = "refused_unapproved"
	FailMissingProgram    FailureKind = "missing_program"
	FailLauncherError     FailureKind = "launcher_error"
	FailEngineError       FailureKind = "engine_error"
	FailTimeout           FailureKind = "timeout"
	FailOutputLimit       FailureKind = "output_limit"
	FailOOM               FailureKind = "oom"
	FailExitNonzero       FailureKind = "exit_nonzero"
	FailInvalidDecision   FailureKind = "invalid_decision"
	FailNotIsolated       FailureKind = "not_isolated"
	FailCircuitOpen       FailureKind = "circuit_open"
	FailDepthExceeded     FailureKind = "depth_exceeded"
	FailInvalidEvent      FailureKind = "invalid_event"
	// FailWorkspaceUnsafe: after a run as root, hook-exec could not check
	// the whole read-write workspace, so a setuid file the run left there
	// may be root's on the host still.
	FailWorkspaceUnsafe FailureKind = "workspace_unsafe"
	// FailInvocation: the command a host ran could not run at all (a
	// misspelt flag, a bad value): answered as a refusal.
	FailInvocation FailureKind = "invalid_invocation"
	// FailOverloaded: the engine's admission bound was full and the run
	// could not have started before its deadline; it was not launched.
	FailOverloaded FailureKind = "overloaded"
	// FailWebhook: a webhook could not be posted to, or answered with an
	// error status (a redirect included: none is followed).
	FailWebhook FailureKind = "webhook_error"
	// FailBuiltin: a builtin handler could not do its work (an audit log
	// that cannot be written, a notification that cannot be delivered).
	FailBuiltin FailureKind = "builtin_error"
)

// Phases is where a run's time went, in milliseconds: waiting for a
// concurrency slot and the engine's admission (queued), the sandbox made
// (create) and started (start), stdin and output until the exit (stream),
// the output drained and the exit read (exit), and teardown before the
// answer (cleanup). A pooled run's create and start were paid ahead: 0.
type Phases struct {
	Queued  int64 `json:"queued"`
	Create  int64 `json:"create"`
	Start   int64 `json:"start"`
	Stream  int64 `json:"stream"`
	Exit    int64 `json:"exit"`
	Cleanup int64 `json:"cleanup"`
}

// HooksOwn reports whether a failure of kind k is the hook's own doing: it
// ran, and then exited non-zero, ran too long, wrote too much, ran out of
// memory or answered what cannot be read. Every other kind means the hook
// as written never ran. (A timeout met before the hook started, and an
// open circuit that failures of other kinds opened, are not its own
// either: the executor says so.)
func (k FailureKind) HooksOwn() bool {
	switch k {
	case FailExitNonzero, FailTimeout, FailOutputLimit, FailOOM, FailInvalidDecision:
		return true
	}
	return false
}

// Failure is a trace's account of what went wrong.
type Failure struct {
	Kind    FailureKind `json:"kind"`
	Message string      `json:"message"`
}

// Trace is the record of one attempted run. Every string in it is
// secret-redacted before it leaves the executor ([Trace.Redact]).
type Trace struct {
	SchemaVersion int    `json:"schema_version"`
	ExecutionID   string `json:"execution_id"`
	EventID       string `json:"event_id"`
	SessionID     string `json:"session_id"`
	// TraceID is the event's trace_id, where it has one: the run's span
	// is in that trace.
	TraceID string `json:"trace_id,omitempty"`
	HookID  string `json:"hook_id"`
	Point   string `json:"point"`
	// Dialect is the host whose hook it was (holaryn, claude, ...).
	Dialect string `json:"dialect,omitempty"`
	// Scope is who wrote the hook (owner, project, plugin): the trust it
	// ran with.
	Scope   Scope  `json:"scope"`
	Mode    Mode   `json:"mode"`
	Backend string `json:"backend"`
	// Via is how the run reached its executor: "process" (the command's
	// own), "server" (a hook-exec server the command handed it to); absent
	// for a library's executor.
	Via string `json:"via,omitempty"`
	// Runtime is the OCI runtime asked for (runsc: gVisor); absent for the
	// engine's default.
	Runtime       string    `json:"runtime,omitempty"`
	Image         string    `json:"image"`
	ScriptSHA256  string    `json:"script_sha256"`
	StartedAt     time.Time `json:"started_at"`
	DurationMS    int64     `json:"duration_ms"`
	HandlerAction Action    `json:"handler_action,omitempty"`
	// MutationCheck says how a handler's modify was checked (seed 000:
	// "Every mutation is schema checked"): MutationSchema, or
	// MutationShapeOnly where the event carries no argument schema.
	MutationCheck string `json:"mutation_check,omitempty"`
	FinalAction   Action `json:"final_action"`
	// Reason is the final decision's reason, redacted, its first
	// MaxTraceReason bytes: why a run was denied, asked about or failed.
	Reason        string   `json:"reason,omitempty"`
	ExitCode      *int     `json:"exit_code"`
	Signal        string   `json:"signal,omitempty"`
	TimedOut      bool     `json:"timed_out"`
	Truncated     bool     `json:"truncated"`
	OOMKilled     bool     `json:"oom_killed"`
	StdoutBytes   int64    `json:"stdout_bytes"`
	StderrBytes   int64    `json:"stderr_bytes"`
	Failure       *Failure `json:"failure"`
	PolicyApplied string   `json:"policy_applied,omitempty"`
	StderrExcerpt string   `json:"stderr_excerpt,omitempty"`
	// Phases is null for a run refused before it queued.
	Phases *Phases `json:"phases_ms"`
	// Interpreter runs a .sh script: sh, or the shell its #! line names
	// where the host honours it (its default image follows: bash ->
	// hook-bash).
	Interpreter string `json:"interpreter,omitempty"`
	// Cwd is where the hook started, when its host's contract starts it in
	// the event's cwd (mounted); absent: its private directory.
	Cwd string `json:"cwd,omitempty"`
	// Loosenings are the named loosenings the run had beyond the
	// workspace's: script arguments, extra read-only mounts, a plugin's
	// tree (with its digest).
	Loosenings []string `json:"loosenings,omitempty"`
	// Pooled: the run took a sandbox started ahead.
	Pooled bool `json:"pooled"`
	// Reused: the run was served by a sandbox that had served an earlier
	// run of the same hook and was reset since (Options.Reuse).
	Reused bool `json:"reused,omitempty"`
	// WorkspaceHazards are what a run with a writable workspace left there
	// that could bite the host later: links pointing outside it, FIFOs,
	// sockets, device nodes, setuid or setgid files.
	WorkspaceHazards []string `json:"workspace_hazards,omitempty"`
}

// MaxTraceReason bounds the reason a trace keeps.
const MaxTraceReason = 2048

// TraceReason is the part of a decision's reason a trace keeps: its first
// MaxTraceReason bytes, cut on a character, redacted first.
func TraceReason(reason string) string {
	s := Redact(reason)
	if len(s) <= MaxTraceReason {
		return s
	}
	cut := MaxTraceReason
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Redact replaces secrets in every string of the trace.
func (t *Trace) Redact() {
	for i := range t.Loosenings {
		t.Loosenings[i] = Redact(t.Loosenings[i])
	}
	for _, s := range []*string{&t.ExecutionID, &t.EventID, &t.SessionID, &t.TraceID, &t.HookID, &t.Point, &t.Dialect, &t.Backend, &t.Runtime,
		&t.Image, &t.Interpreter, &t.Cwd, &t.Signal, &t.PolicyApplied, &t.StderrExcerpt, &t.Reason} {
		*s = Redact(*s)
	}
	if t.Failure != nil {
		t.Failure.Message = Redact(t.Failure.Message)
	}
	for i := range t.WorkspaceHazards {
		t.WorkspaceHazards[i] = Redact(t.WorkspaceHazards[i])
	}
}
