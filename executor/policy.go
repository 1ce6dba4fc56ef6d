package executor

import (
	"errors"
	"fmt"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/launcher"
)

// failure is a classified failure of a run.
type failure struct {
	kind hook.FailureKind
	err  error
	// own: the hook ran and failed on its own (hook.FailureKind.HooksOwn),
	// which decides the default policy of some hosts' hooks.
	own bool
}

func fail(kind hook.FailureKind, err error) *failure { return &failure{kind, err, kind.HooksOwn()} }

// failBeforeStart is a failure (a timeout) met before the hook started:
// waiting for a slot, the engine, or its sandbox. The hook never ran.
func failBeforeStart(kind hook.FailureKind, err error) *failure { return &failure{kind, err, false} }

func classifyRunError(lang launcher.Lang, program string, err error) *failure {
	if errors.Is(err, backend.ErrUnshared) {
		// The call's setup, not a broken engine nor program (containerd
		// says so when the task starts).
		return fail(hook.FailRefusedRule, err)
	}
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
func (e *Executor) applyPolicy(h *hook.Hook, env *hook.Envelope, policy hook.FailurePolicy, f *failure) (hook.Decision, string) {
	msg := fmt.Sprintf("hook %s failed (%s): %v", h.ID, f.kind, f.err)
	allow := hook.Decision{SchemaVersion: 1, Action: hook.Allow}
	switch policy {
	case hook.PolicyDeny:
		if h.Mode == hook.Blocking {
			return hook.Decision{SchemaVersion: 1, Action: hook.Deny, Reason: msg}, ""
		}
		return allow, msg // Validate refuses this pairing; never fail closed from an observer
	case hook.PolicyWarn:
		return allow, msg
	case hook.PolicyDisable:
		key := e.ledgerKey(h, env)
		if env == nil && key != h.ID {
			// A key made without the event's workspace is no key of the
			// hook's: nothing to disable (the event is at fault, not it).
			return allow, msg
		}
		if err := e.ledger.Disable(key, "failure_policy disable: "+string(f.kind)); err != nil {
			e.log.Warn("disable not recorded", "hook", h.ID, "err", err)
		}
		if key != h.ID {
			return allow, msg + "; the hook is disabled (`hook-exec hook enable " + key + "` turns it back on)"
		}
		return allow, msg + "; the hook is disabled"
	case hook.PolicyContinue:
		return allow, ""
	}
	// A policy no case knows (Validate refuses one): closed where it can be.
	if h.Mode == hook.Blocking {
		return hook.Decision{SchemaVersion: 1, Action: hook.Deny, Reason: msg}, ""
	}
	return allow, msg
}
