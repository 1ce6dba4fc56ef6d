package hook

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// Cursor: Cursor's agent hooks (.cursor/hooks.json, version 1). The event
// arrives as {hook_event_name, conversation_id, generation_id,
// workspace_roots, ...} on stdin; the answer is one JSON object on stdout
// ({"permission": "allow"|"deny"|"ask", "user_message", "agent_message"}
// at the gates), exit 2 blocks with stderr as the reason, and any other
// failure lets the action through unless the hook is failClosed.
const Cursor Dialect = "cursor"

// CursorAnswer is what a Cursor hook may add to its decision, passed
// through to the host: Context (additional_context) for the model, the
// messages for the user and the agent, and Approved: the hook said
// "allow" itself.
type CursorAnswer struct {
	Context      string
	UserMessage  string
	AgentMessage string
	Approved     bool
}

var _ Extension = (*CursorAnswer)(nil)

// Redact returns a with its messages redacted as a decision's reason is:
// a refusal hands them to Cursor in the reason's place (user_message to the
// user, agent_message to the agent). The context goes as the hook wrote it.
func (a *CursorAnswer) Redact() Extension {
	r := *a
	r.UserMessage, r.AgentMessage = Redact(a.UserMessage), Redact(a.AgentMessage)
	return &r
}

// CursorOf is the Cursor part of d, zero when it has none.
func CursorOf(d Decision) CursorAnswer { return answerOf[CursorAnswer](d) }

// cursorEvent is what the dialect knows of one Cursor event.
type cursorEvent struct {
	// gate: its answer is a permission (allow, deny; ask where asks).
	gate, asks bool
	// prompt: beforeSubmitPrompt's {continue, user_message}.
	prompt bool
	// goesOn: a deny is a followup_message that keeps the agent working
	// (stop, subagentStop): a failure there never blocks.
	goesOn bool
	// subject is the member its matcher is tested against; fixed, the
	// name Cursor tests it against instead.
	subject, fixed string
	members        []string
}

// CursorEvents are Cursor's hook events (its hooks reference, 2026-08).
// An event not listed (a newer Cursor) runs, but nothing it answers can
// block.
var CursorEvents = map[string]cursorEvent{
	"beforeShellExecution": {gate: true, asks: true, subject: "command", members: []string{"command"}},
	"beforeMCPExecution":   {gate: true, asks: true, subject: "tool_name", members: []string{"tool_name"}},
	"beforeReadFile":       {gate: true, members: []string{"file_path"}},
	"beforeTabFileRead":    {gate: true, members: []string{"file_path"}},
	"preToolUse":           {gate: true, subject: "tool_name", members: []string{"tool_name", "tool_input"}},
	"subagentStart":        {gate: true, subject: "subagent_type"},
	"beforeSubmitPrompt":   {prompt: true, fixed: "UserPromptSubmit", members: []string{"prompt"}},
	"stop":                 {goesOn: true, fixed: "Stop"},
	"subagentStop":         {goesOn: true, subject: "subagent_type"},
	"postToolUse":          {subject: "tool_name", members: []string{"tool_name"}},
	"postToolUseFailure":   {subject: "tool_name", members: []string{"tool_name"}},
	"afterShellExecution":  {subject: "command", members: []string{"command"}},
	"afterMCPExecution":    {subject: "tool_name", members: []string{"tool_name"}},
	"afterFileEdit":        {members: []string{"file_path"}},
	"afterTabFileEdit":     {members: []string{"file_path"}},
	"afterAgentResponse":   {fixed: "AgentResponse"},
	"afterAgentThought":    {fixed: "AgentThought"},
	"sessionStart":         {},
	"sessionEnd":           {},
	"preCompact":           {},
	"workspaceOpen":        {},
}

// cursorCommon are the members Cursor's events carry whose type the
// dialect checks; others pass (Cursor adds fields), but not a known name
// in another case. 'n' marks a string that may be null.
var cursorCommon = map[string]jsontext.Kind{
	"hook_event_name": '"', "conversation_id": '"', "generation_id": '"', "session_id": '"', "model": '"',
	"cursor_version": '"', "workspace_roots": '[', "user_email": 'n', "transcript_path": 'n',
	"command": '"', "cwd": '"', "tool_name": '"', "file_path": '"', "prompt": '"', "status": '"',
	"subagent_type": '"', "loop_count": '0',
}

type cursorHost struct{}

var _ Host = cursorHost{}

func (cursorHost) Name() Dialect { return Cursor }

// Parse reads a Cursor event; one that is plainly another host's (see
// belongsTo) is refused.
func (cursorHost) Parse(b []byte) (*Envelope, error) {
	if err := belongsTo(Cursor, b); err != nil {
		return nil, err
	}
	m, err := typedObject(b, cursorCommon)
	if err != nil {
		return nil, err
	}
	event, err := stringField(m, "hook_event_name", true)
	if err != nil {
		return nil, err
	}
	ev, known := CursorEvents[event]
	for _, k := range ev.members {
		if _, ok := m[k]; !ok {
			return nil, fmt.Errorf("%w: cursor %s event has no %q", ErrInvalid, event, k)
		}
	}
	var roots []string
	if raw, ok := m["workspace_roots"]; ok {
		if err := unmarshal(raw, &roots); err != nil {
			return nil, fmt.Errorf("%w: event member \"workspace_roots\": %w", ErrInvalid, err)
		}
	}
	session, _ := stringField(m, "conversation_id", false)
	if session == "" {
		session, _ = stringField(m, "session_id", false)
	}
	project := ""
	if len(roots) > 0 {
		project = roots[0]
	}
	cwd, _ := stringField(m, "cwd", false)
	if cwd == "" {
		cwd = project
	}
	subject := ev.fixed
	if ev.subject != "" {
		subject, _ = stringField(m, ev.subject, false)
	}
	vars := map[string]string{"CURSOR_PROJECT_DIR": project, "CLAUDE_PROJECT_DIR": project}
	transcript, _ := nullableString(m, "transcript_path")
	return &Envelope{Dialect: Cursor, Point: event, SessionID: session, Workspace: cwd, ToolName: subject,
		CanBlock: known && (ev.gate || ev.prompt || ev.goesOn), TranscriptPath: transcript, EditedFile: editedFile(m, cwd), vars: vars}, nil
}

// CheckMatcher refuses a matcher that is not a regular expression.
func (cursorHost) CheckMatcher(matcher string) error {
	if _, err := regexp.Compile(matcher); err != nil && matcher != "*" {
		return fmt.Errorf("%w: matcher %q: not a regular expression: %w", ErrInvalid, matcher, err)
	}
	return nil
}

// Matches tests Cursor's matcher, a regular expression that may match
// anywhere in the subject (the tool's name, a shell command, a fixed name
// such as "Stop"); "" and "*" match everything.
func (cursorHost) Matches(matcher string, e *Envelope) bool {
	if matcher == "" || matcher == "*" {
		return true
	}
	re, err := regexp.Compile(matcher)
	return err == nil && re.MatchString(e.ToolName)
}

// cursorOutput is a Cursor hook's JSON answer: the snake_case members of
// today's reference, and the camelCase ones of its first (Cursor 1.7),
// which Cursor still reads.
type cursorOutput struct {
	Permission     *string        `json:"permission"`
	UserMessage    string         `json:"user_message"`
	AgentMessage   string         `json:"agent_message"`
	UserMessage17  string         `json:"userMessage"`
	AgentMessage17 string         `json:"agentMessage"`
	Continue       *bool          `json:"continue"`
	FollowUp       string         `json:"followup_message"`
	UpdatedInput   jsontext.Value `json:"updated_input"`
	Context        string         `json:"additional_context"`
	Env            jsontext.Value `json:"env"`
	UpdatedMCP     jsontext.Value `json:"updated_mcp_tool_output"`
	PluginPaths    jsontext.Value `json:"pluginPaths"`
}

var cursorOutputNames = []string{"permission", "user_message", "agent_message", "userMessage", "agentMessage",
	"continue", "followup_message", "updated_input", "additional_context", "env", "updated_mcp_tool_output", "pluginPaths"}

// Interpret reads a Cursor hook's answer as Cursor does, except that
// nothing fails open: exit 2 denies with stderr as the reason at a gate
// or a prompt; a
// permission the hook wrote is read on exit 0, and a deny or ask on any
// exit; exit 0 with nothing on stdout is an allow; an answer that is not
// JSON, any other exit, and exit 126/127 (a program the hook runs is
// missing) are failures, which the failure policy answers (Cursor would
// let the action through unless failClosed).
func (cursorHost) Interpret(e *Envelope, exitCode int, stdout, stderr []byte) (*Decision, error) {
	ev, known := CursorEvents[e.Point]
	out := trimAnswer(stdout)
	var d *Decision
	if len(out) > 0 && exitCode != exitNotExecutable && exitCode != exitNotFound {
		var err error
		if d, err = parseCursorOutput(e, ev, out); err != nil {
			if exitCode == 0 {
				return nil, err
			}
			d = nil // a failing hook's output is not its answer
		} else if exitCode != 0 && !d.refuses() {
			d = nil
		}
	}
	switch {
	case exitCode == 2:
		if d == nil || d.Action != Deny {
			d = &Decision{SchemaVersion: 1, Action: Deny, Reason: reasonFrom(stderr, "blocked by "+e.Point+" hook")}
		}
		if !known || !(ev.gate || ev.prompt) {
			// Nothing it blocks (a stop's exit 2 is no followup): shown, the
			// hook's own message to the user where it wrote one.
			a := CursorOf(*d)
			a.Approved = false
			if a.UserMessage == "" {
				a.UserMessage = d.Reason
			}
			return withCursor(&Decision{SchemaVersion: 1, Action: Allow}, a), nil
		}
		return d, nil
	case d != nil:
		return d, nil
	case exitCode == 0:
		return &Decision{SchemaVersion: 1, Action: Allow}, nil
	}
	if err := missing(exitCode, stderr); err != nil {
		return nil, err
	}
	return nil, errExit(exitCode)
}

func withCursor(d *Decision, a CursorAnswer) *Decision { return withAnswer(d, a) }

func parseCursorOutput(e *Envelope, ev cursorEvent, b []byte) (*Decision, error) {
	if len(b) > MaxDecisionBytes {
		return nil, fmt.Errorf("%w: output is %d bytes, more than %d", ErrDecision, len(b), MaxDecisionBytes)
	}
	if !bytes.HasPrefix(b, []byte("{")) {
		return nil, fmt.Errorf("%w: Cursor reads one JSON object on stdout; got %q", ErrDecision, truncate(b, 80))
	}
	var o cursorOutput
	if err := decodeOpen(b, &o, cursorOutputNames); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDecision, err)
	}
	a := CursorAnswer{Context: o.Context, UserMessage: o.UserMessage, AgentMessage: o.AgentMessage}
	if a.UserMessage == "" {
		a.UserMessage = o.UserMessage17
	}
	if a.AgentMessage == "" {
		a.AgentMessage = o.AgentMessage17
	}
	reason := a.AgentMessage
	if reason == "" {
		reason = a.UserMessage
	}
	d := &Decision{SchemaVersion: 1, Action: Allow}
	if o.Permission != nil {
		switch *o.Permission {
		case "allow":
			a.Approved = true
		case "deny":
			d.Action, d.Reason = Deny, reason
		case "ask":
			d.Action, d.Reason = RequestApproval, reason
		default:
			return nil, fmt.Errorf("%w: permission %q: use allow, deny or ask", ErrDecision, *o.Permission)
		}
	}
	if ev.prompt && o.Continue != nil && !*o.Continue {
		d.Action, d.Reason = Deny, a.UserMessage
	}
	if ev.goesOn && strings.TrimSpace(o.FollowUp) != "" {
		// "Do not stop yet": the message is the agent's next prompt.
		d.Action, d.Reason = Deny, o.FollowUp
	}
	if e.Point == "preToolUse" && len(o.UpdatedInput) > 0 && o.UpdatedInput.Kind() != 'n' && d.Action == Allow {
		if o.UpdatedInput.Kind() != '{' {
			return nil, fmt.Errorf("%w: updated_input must be an object", ErrDecision)
		}
		d.Action = Modify
		d.Mutations, _ = json.Marshal(map[string]json.RawMessage{"tool_input": json.RawMessage(o.UpdatedInput)})
	}
	if d.Action == Deny && strings.TrimSpace(d.Reason) == "" {
		d.Reason = "blocked by " + e.Point + " hook"
	}
	return withCursor(d, a), nil
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// Encode writes the final decision as Cursor reads a hook's answer: always
// one JSON object (empty output blocks a failClosed hook and is an error
// elsewhere). A request for approval is "ask" where Cursor asks
// (beforeShellExecution, beforeMCPExecution) and a deny elsewhere: its
// preToolUse does not enforce an ask. At stop, a deny is the followup
// message that keeps the agent working, and a failure never is.
//
// Each message goes where the hook put it: its user_message to the user,
// its agent_message to the agent (CursorAnswer). A refusal without one
// (a deny hook-exec's failure policy made, an exit 2) gives its reason
// in that place.
func (cursorHost) Encode(point string, dec Decision, failure *Failure) ([]byte, error) {
	ev := CursorEvents[point]
	if failure != nil && ev.goesOn {
		dec = Decision{SchemaVersion: 1, Action: Allow}
	}
	a := CursorOf(dec)
	out := map[string]any{}
	reason := dec.Reason
	user, agent := cmp.Or(a.UserMessage, reason), cmp.Or(a.AgentMessage, reason)
	switch {
	case ev.gate:
		switch {
		case dec.Action == Deny, dec.Action == RequestApproval && !ev.asks:
			if dec.Action == RequestApproval {
				const why = "needs approval, which Cursor cannot ask for here: "
				user, agent = why+user, why+agent
			}
			out["permission"] = "deny"
			out["user_message"], out["agent_message"] = user, agent
		case dec.Action == RequestApproval:
			out["permission"] = "ask"
			out["user_message"], out["agent_message"] = user, agent
		default:
			out["permission"] = "allow"
			if dec.Action == Modify && point == "preToolUse" {
				var m map[string]json.RawMessage
				json.Unmarshal(dec.Mutations, &m)
				out["updated_input"] = m["tool_input"]
			}
			if a.AgentMessage != "" {
				out["agent_message"] = a.AgentMessage
			}
		}
	case ev.prompt:
		if dec.Action == Deny || dec.Action == RequestApproval {
			out["continue"], out["user_message"] = false, user
		} else {
			out["continue"] = true
		}
	case ev.goesOn:
		if dec.Action == Deny || dec.Action == RequestApproval {
			out["followup_message"] = reason
		}
	}
	if a.Context != "" {
		out["additional_context"] = a.Context
	}
	if _, set := out["user_message"]; !set && a.UserMessage != "" {
		out["user_message"] = a.UserMessage
	}
	if failure != nil && out["user_message"] == nil {
		out["user_message"] = fmt.Sprintf("hook-exec: the %s hook failed (%s: %s)", point, failure.Kind, failure.Message)
	}
	b, err := json.Marshal(out)
	return append(b, '\n'), err
}

func (cursorHost) DefaultFailurePolicy(m Mode, _ bool) FailurePolicy { return defaultFailurePolicy(m) }

func (cursorHost) HookVars(string) map[string]string { return nil }

// Answer: Cursor reads the JSON on exit 0. A refusal at an event that is
// not one of its own is exit 2, the reason on stderr.
func (h cursorHost) Answer(point string, dec Decision, failure *Failure) (Answer, error) {
	if _, known := CursorEvents[point]; !known && dec.Action == Deny {
		return Answer{Stderr: dec.Reason, Exit: ExitBlock}, nil
	}
	return encoded(h, point, dec, failure)
}

// signs: Cursor's conversation and generation ids, workspace roots and
// version.
func (cursorHost) signs() []string {
	return []string{"conversation_id", "generation_id", "workspace_roots", "cursor_version"}
}

func (cursorHost) hasEvent(name string) bool { _, ok := CursorEvents[name]; return ok }

func (cursorHost) Sandbox() Sandbox {
	return Sandbox{Shebang: true, EventCwd: true, PluginRootVar: "CURSOR_PLUGIN_ROOT", EnvFileVar: envFileVar, HomeDir: ".cursor", VarPrefix: "CURSOR_",
		PluginDataVar: pluginDataVar, PluginDataDir: pluginDataDir}
}
