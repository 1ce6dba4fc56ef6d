package hook

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// Codex: OpenAI Codex CLI's command hooks (hooks.json beside each of its
// config layers, or [hooks] in config.toml). The event arrives as Claude
// Code's does, with Codex's turn_id and model beside it; exit 2 blocks with
// stderr as the reason, exit 0 may carry a JSON answer. Codex reads a
// stricter answer than Claude: a member it does not know, "ask", a bare
// "allow" or a deny without a reason is a failed hook, and every failed
// hook fails open. What hook-exec writes to Codex is only what Codex
// accepts (encodeCodex).
const Codex Dialect = "codex"

// CodexEvents are Codex's hook events (its hooks reference, newest copy
// read 2026-12, and codex-rs/hooks at the commits docs/hosts.md names). An
// event not listed (a newer Codex) runs, but nothing it answers can block.
var CodexEvents = map[string]claudeEvent{
	"SessionStart":      {context: true, subject: "source"},
	"SessionEnd":        {subject: "reason"},
	"SubagentStart":     {context: true, subject: "agent_type"},
	"PreToolUse":        {blocks: true, exit2: true, subject: "tool_name", members: []string{"tool_name", "tool_input"}},
	"PermissionRequest": {blocks: true, exit2: true, subject: "tool_name", members: []string{"tool_name", "tool_input"}},
	"PostToolUse":       {blocks: true, exit2: true, subject: "tool_name", members: []string{"tool_name", "tool_input", "tool_response"}},
	"PreCompact":        {blocks: true, subject: "trigger"},
	"PostCompact":       {subject: "trigger"},
	"UserPromptSubmit":  {blocks: true, exit2: true, context: true, members: []string{"prompt"}},
	"SubagentStop":      {blocks: true, exit2: true, goesOn: true, subject: "agent_type"},
	"Stop":              {blocks: true, exit2: true, goesOn: true},
	"Interrupt":         {},
}

// codexCommon are the members every Codex event may carry, and the type
// each must have (transcript_path may be null).
var codexCommon = map[string]jsontext.Kind{
	"hook_event_name": '"', "session_id": '"', "transcript_path": 'n', "cwd": '"', "permission_mode": '"',
	"model": '"', "turn_id": '"', "tool_name": '"', "tool_input": '{', "tool_use_id": '"', "prompt": '"',
	"stop_hook_active": 't', "trigger": '"', "source": '"', "reason": '"', "agent_id": '"', "agent_type": '"',
	"last_assistant_message": 'n',
}

// codexAliases are the names a tool also answers to in a matcher: Codex's
// apply_patch is matched by Edit and Write, spawn_agent by Agent.
var codexAliases = map[string][]string{"apply_patch": {"Edit", "Write"}, "spawn_agent": {"Agent"}}

type codexHost struct{}

var _ Host = codexHost{}

func (codexHost) Name() Dialect { return Codex }

func (codexHost) Parse(b []byte) (*Envelope, error) {
	return parseClaudeFamily(Codex, CodexEvents, codexCommon, b)
}

// CheckMatcher refuses a matcher that is not a regular expression: Codex
// skips its group with a warning.
func (codexHost) CheckMatcher(matcher string) error {
	if _, err := regexp.Compile(matcher); err != nil {
		return fmt.Errorf("%w: matcher %q: not a regular expression: %w", ErrInvalid, matcher, err)
	}
	return nil
}

// Matches is Codex's matcher (codex-rs/hooks common.rs): "", "*" and none
// match everything; one of letters, digits, _ and | is a list of exact
// names; anything else is a regular expression that may match anywhere. It
// is tested on the tool's name and its aliases (the source, trigger or
// agent type for the events that have one); UserPromptSubmit, Stop and
// Interrupt ignore it.
func (codexHost) Matches(matcher string, e *Envelope) bool {
	if matcher == "" || matcher == "*" || CodexEvents[e.Point].subject == "" {
		return true
	}
	names := append([]string{e.ToolName}, codexAliases[e.ToolName]...)
	if codexNameList.MatchString(matcher) {
		for _, n := range strings.Split(matcher, "|") {
			if slices.Contains(names, n) {
				return true
			}
		}
		return false
	}
	re, err := regexp.Compile(matcher)
	if err != nil {
		return false
	}
	for _, name := range names {
		if re.MatchString(name) {
			return true
		}
	}
	return false
}

var codexNameList = regexp.MustCompile(`^[A-Za-z0-9_|]+$`)

// Interpret reads the answer as Claude Code's (interpretClaude), with
// Codex's events: a refusal counts on any exit, exit 2 blocks with stderr
// (or without: Codex would count that a failure and let the tool run).
func (codexHost) Interpret(e *Envelope, exitCode int, stdout, stderr []byte) (*Decision, error) {
	return interpretClaude(CodexEvents, e, exitCode, stdout, stderr)
}

func (codexHost) Encode(point string, dec Decision, failure *Failure) ([]byte, error) {
	return encodeCodex(point, dec, failure)
}

func (codexHost) DefaultFailurePolicy(m Mode, _ bool) FailurePolicy { return defaultFailurePolicy(m) }

func (codexHost) HookVars(string) map[string]string { return nil }

// Answer: a refusal is exit 2 with the reason on stderr where exit 2
// blocks (and at a point that is not one of Codex's events), because
// Codex runs the command with the user's login shell (-lc): a profile that
// prints on stdout would put text before a JSON deny, which Codex then
// reads as text, no answer, and lets the tool run. A failed Stop-type hook
// never blocks. Everything else is the JSON answer on exit 0.
func (h codexHost) Answer(point string, dec Decision, failure *Failure) (Answer, error) {
	ev, known := CodexEvents[point]
	refused := dec.Action == Deny || (dec.Action == RequestApproval && point != "PermissionRequest")
	if refused && (!known || ev.exit2 && !(failure != nil && ev.goesOn)) {
		return Answer{Stderr: nonEmptyReason(dec.Reason, point), Exit: ExitBlock}, nil
	}
	return encoded(h, point, dec, failure)
}

// Sandbox: Codex runs a hook's command with $SHELL -lc in the session's
// cwd, and gives a plugin's hooks Claude Code's variable names beside its
// own.
func (codexHost) Sandbox() Sandbox {
	return Sandbox{Shebang: true, EventCwd: true, PluginRootVar: pluginRootVar, EnvFileVar: envFileVar, HomeDir: ".codex", VarPrefix: "CODEX_",
		PluginDataVar: pluginDataVar, PluginDataDir: pluginDataDir}
}

// signs: only Codex sends turn_id; permission_mode it shares with Claude
// Code (and model with Claude Code's SessionStart).
func (codexHost) signs() []string { return []string{"turn_id", "permission_mode"} }

func (codexHost) hasEvent(name string) bool { _, ok := CodexEvents[name]; return ok }

// nonEmptyReason is a refusal's reason as Codex needs it: a deny or a
// block without one is, to Codex, a failed hook, and the tool runs.
func nonEmptyReason(reason, point string) string {
	if r := strings.TrimSpace(reason); r != "" {
		return r
	}
	return "blocked by " + point + " hook"
}

// encodeCodex writes the final decision as Codex reads a hook's JSON
// answer, in nothing but what Codex accepts at that event (anything else
// is a failed hook to Codex, which fails open):
//   - PreToolUse: permissionDecision "deny" with its reason, or "allow"
//     with updatedInput for a rewrite; a request for approval is a deny
//     (Codex has no "ask"), a bare approval says nothing (Codex refuses a
//     bare "allow"), and the answer never stops the agent there.
//   - PermissionRequest: decision.behavior "deny" with its message, or
//     "allow"; a request for approval, or a rewrite, says nothing: Codex
//     shows its own prompt.
//   - PostToolUse, UserPromptSubmit, Stop, SubagentStop: decision "block"
//     with its reason; a failed Stop-type hook never blocks (a block
//     there has Codex work on).
//   - PreCompact, PostCompact: continue false with the reason stops the
//     agent; at SessionStart only the hook's own continue: false does (a
//     refusal cannot block a session's start).
func encodeCodex(point string, dec Decision, failure *Failure) ([]byte, error) {
	if ev := CodexEvents[point]; failure != nil && ev.goesOn {
		dec = Decision{SchemaVersion: 1, Action: Allow, Extension: &ClaudeAnswer{SystemMessage: fmt.Sprintf(
			"hook-exec: the %s hook failed (%s: %s); it does not keep Codex working", point, failure.Kind, failure.Message)}}
	}
	ext := ClaudeOf(dec)
	refused := dec.Action == Deny || dec.Action == RequestApproval
	reason := nonEmptyReason(dec.Reason, point)
	type permission struct {
		Behavior string `json:"behavior"`
		Message  string `json:"message,omitempty"`
	}
	type specific struct {
		HookEventName            string          `json:"hookEventName"`
		PermissionDecision       string          `json:"permissionDecision,omitempty"`
		PermissionDecisionReason string          `json:"permissionDecisionReason,omitempty"`
		UpdatedInput             json.RawMessage `json:"updatedInput,omitempty"`
		Decision                 *permission     `json:"decision,omitempty"`
		AdditionalContext        string          `json:"additionalContext,omitempty"`
	}
	var out struct {
		Continue      *bool     `json:"continue,omitempty"`
		StopReason    string    `json:"stopReason,omitempty"`
		SystemMessage string    `json:"systemMessage,omitempty"`
		Decision      string    `json:"decision,omitempty"`
		Reason        string    `json:"reason,omitempty"`
		Specific      *specific `json:"hookSpecificOutput,omitempty"`
	}
	sp := &specific{HookEventName: point}
	stop := ext.StopAgent
	switch point {
	case "PreToolUse":
		switch {
		case refused:
			sp.PermissionDecision, sp.PermissionDecisionReason = "deny", reason
		case dec.Action == Modify:
			var m map[string]json.RawMessage
			json.Unmarshal(dec.Mutations, &m)
			if in := m["tool_input"]; len(in) > 0 { // a bare allow would be a failed hook
				sp.PermissionDecision, sp.UpdatedInput = "allow", in
			}
		}
		sp.AdditionalContext, stop = ext.Context, false
	case "PermissionRequest":
		switch {
		case dec.Action == Deny:
			sp.Decision = &permission{Behavior: "deny", Message: reason}
		case ext.Approved && dec.Action == Allow:
			sp.Decision = &permission{Behavior: "allow"}
		}
		stop = false
	case "PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop":
		if refused {
			out.Decision, out.Reason = "block", reason
		}
		if point == "PostToolUse" || point == "UserPromptSubmit" {
			sp.AdditionalContext = ext.Context
		}
	case "SessionStart", "SubagentStart":
		// A refusal cannot block a session's start (a failed hook there
		// is no reason to stop it); only the hook's own continue: false does.
		sp.AdditionalContext = ext.Context
	case "PreCompact", "PostCompact":
		stop = stop || refused
	}
	if sp.PermissionDecision != "" || sp.Decision != nil || sp.AdditionalContext != "" {
		out.Specific = sp
	}
	out.SystemMessage = ext.SystemMessage
	if stop {
		f := false
		out.Continue, out.StopReason = &f, ext.StopReason
		if out.StopReason == "" && refused {
			out.StopReason = reason
		}
	}
	b, err := json.Marshal(out)
	return append(b, '\n'), err
}
