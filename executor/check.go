package executor

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/hookexec/hook-exec/executor/handler/builtin"
	"github.com/hookexec/hook-exec/executor/handler/webhook"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/sandbox"
	"github.com/hookexec/hook-exec/scriptpin"
)

// RuleError is a hook that breaks a rule Check applies: which part of its
// definition, and why.
type RuleError struct {
	// Field is a JSON pointer (RFC 6901) to the part, into a registry
	// definition's handler: /kind, /script, /sha256, /command/N, /url,
	// /headers, /builtin, /options, /env or /env/NAME; "" is the hook as a
	// whole.
	Field string
	Err   error
}

func (e *RuleError) Error() string { return e.Err.Error() }
func (e *RuleError) Unwrap() error { return e.Err }

// Check applies every rule Run applies to a hook's definition before it
// launches anything, whatever the backend and the event, and fills the
// defaults as [hook.Hook.Validate] does. It touches no file: the script's
// bytes, the workspace and the engine are the run's to check.
//
// The registry checks every definition it loads with it (hook validate,
// add, install-project, trust, plugin install, each boundary's snapshot),
// so a document that loads is one no run refuses for what it says. A rule
// a run applies to a definition belongs here, not beside it.
func Check(h *hook.Hook) error {
	if err := checkDefinition(h); err != nil {
		return err
	}
	return checkHandler(h)
}

// checkDefinition is what Run returns as an error: a hook that cannot be
// run at all.
func checkDefinition(h *hook.Hook) error {
	// Who may run what. hook.Validate refuses these too; here they name
	// the member.
	if h.Webhook != nil && h.Scope.Untrusted() {
		return &RuleError{Field: field("kind"), Err: fmt.Errorf("%w: webhook: a %s hook cannot post to a URL (a webhook runs on the host, outside the isolated backend): use a command or script handler", hook.ErrInvalid, h.Scope)}
	}
	if h.Scope == hook.ScopePlugin && len(h.Command) > 0 && strings.ContainsAny(h.Command[0], `/\`) {
		return &RuleError{Field: field("command", "0"), Err: fmt.Errorf("%w: plugin command %q names a path: name a program on the isolated backend's PATH (\"python\", not \"/usr/bin/python\")", hook.ErrInvalid, h.Command[0])}
	}
	if err := h.Validate(); err != nil {
		return &RuleError{Err: err}
	}
	if h.Scope == hook.ScopePlugin && len(h.Env) > 0 {
		return &RuleError{Field: field("env"), Err: fmt.Errorf("%w: plugin hook %s sets environment variables: plugin hooks cannot (a variable such as LD_PRELOAD could load unreviewed code); pass settings as arguments", hook.ErrInvalid, h.ID)}
	}
	for _, k := range slices.Sorted(maps.Keys(h.Env)) { // the first in order, every time
		if err := sandbox.CheckName(k, hook.VarPrefixes()...); err != nil {
			return &RuleError{Field: field("env", k), Err: err}
		}
	}
	return nil
}

// checkHandler is what a run refuses as refused_rule before it launches:
// the script path, the command line, the webhook's URL and headers, the
// builtin and its options.
func checkHandler(h *hook.Hook) error {
	for _, k := range slices.Sorted(maps.Keys(h.Env)) {
		if strings.IndexByte(h.Env[k], 0) >= 0 {
			return &RuleError{Field: field("env", k), Err: fmt.Errorf("%w: %q has a NUL byte in its value", sandbox.ErrEnv, k)}
		}
	}
	switch {
	case h.Script != "":
		return checkScript(h)
	case len(h.Command) > 0:
		for i, arg := range h.Command {
			if strings.IndexByte(arg, 0) >= 0 {
				return &RuleError{Field: field("command", strconv.Itoa(i)), Err: fmt.Errorf("%w: command argument %d has a NUL byte: no program can receive it", hook.ErrInvalid, i)}
			}
		}
	case h.Webhook != nil:
		if _, err := webhook.CheckURL(h.Webhook.URL); err != nil {
			return &RuleError{Field: field("url"), Err: err}
		}
		if err := webhook.CheckHeaders(h.Webhook.Headers); err != nil {
			return &RuleError{Field: field("headers"), Err: err}
		}
	case h.Builtin != nil:
		return checkBuiltin(h)
	}
	return nil
}

// checkScript applies the script path rules scriptpin applies when it
// opens the script, and the pin's form.
func checkScript(h *hook.Hook) error {
	if err := scriptpin.CheckPath(h.Script); err != nil {
		return &RuleError{Field: field("script"), Err: err}
	}
	// A host that runs a script by its extension knows .sh and .py; one
	// that runs it by its #! line runs any file, which only its bytes can say.
	if !h.Dialect.Host().Sandbox().Shebang {
		if _, err := scriptpin.LangOf(h.Script); err != nil {
			return &RuleError{Field: field("script"), Err: err}
		}
	}
	if h.SHA256 != "" {
		if _, err := scriptpin.ParseDigest(h.SHA256); err != nil {
			return &RuleError{Field: field("sha256"), Err: err}
		}
	}
	return nil
}

// checkBuiltin reads the builtin's options as its run will, and keeps an
// untrusted hook's builtin from reaching outside hook-exec's own state.
func checkBuiltin(h *hook.Hook) error {
	b := h.Builtin
	if err := builtin.Check(b.Name, b.Options, h.Mode); err != nil {
		return &RuleError{Field: field("builtin"), Err: err}
	}
	// Builtins run in hook-exec's own process on the host: an untrusted
	// hook gets none that writes a host file or reaches the network, and
	// no message with a loop an attack needs.
	if h.Scope.Untrusted() {
		if err := builtin.CheckUntrusted(b.Name, b.Options); err != nil {
			return &RuleError{Field: field("options"), Err: fmt.Errorf("%w: a %s hook's %s builtin: %w", builtin.ErrOptions, h.Scope, b.Name, err)}
		}
	}
	return nil
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// field is the JSON pointer of a handler's member (RFC 6901).
func field(tokens ...string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(pointerEscaper.Replace(t))
	}
	return b.String()
}
