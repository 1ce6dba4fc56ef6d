package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Copilot: GitHub Copilot's command hooks (the CLI and the cloud agent:
// .github/hooks/*.json, ~/.copilot/hooks/*.json, version 1). An event
// configured by its camelCase name (preToolUse) arrives as a camelCase
// payload that does not name it ({sessionId, timestamp, cwd, toolName,
// toolArgs}): the hook's configuration names it (Hook.Point). One
// configured by its PascalCase twin (PreToolUse) arrives as the VS Code
// compatible payload, snake_case with hook_event_name. The answer is one
// JSON object on stdout; at preToolUse exit 2 and any other non-zero exit
// deny, and at permissionRequest exit 2 denies. Copilot's reference:
// github/docs content/copilot/reference/hooks-reference.md at 05da5bc3.
const Copilot Dialect = "copilot"

// copilotEvent is what the dialect knows of one Copilot event.
type copilotEvent struct {
	// pascal is its VS Code compatible twin's name, "" for none.
	pascal string
	// gate: preToolUse, whose answer is a permissionDecision and where a
	// hook that exits non-zero denies; permission: permissionRequest,
	// whose answer is a behavior and where exit 2 denies; goesOn: a
	// "block" has the agent work on (agentStop, subagentStop), so a
	// failure there never blocks.
	gate, permission, goesOn bool
	// subject is the camelCase member its matcher tests ("": it takes
	// none, and runs at every call), subjectPascal the snake_case one.
	subject, subjectPascal string
	// members are required beside sessionId, timestamp and cwd.
	members []string
}

// CopilotEvents are Copilot's hook events by their camelCase names. An
// event not listed (a newer Copilot) runs, but nothing it answers can
// block.
var CopilotEvents = map[string]copilotEvent{
	"sessionStart":          {pascal: "SessionStart"},
	"sessionEnd":            {pascal: "SessionEnd"},
	"userPromptSubmitted":   {pascal: "UserPromptSubmit", members: []string{"prompt"}},
	"userPromptTransformed": {members: []string{"prompt"}},
	"preToolUse":            {pascal: "PreToolUse", gate: true, subject: "toolName", subjectPascal: "tool_name", members: []string{"toolName"}},
	"postToolUse":           {pascal: "PostToolUse", subject: "toolName", subjectPascal: "tool_name", members: []string{"toolName"}},
	"postToolUseFailure":    {pascal: "PostToolUseFailure", members: []string{"toolName"}},
	"permissionRequest":     {pascal: "PermissionRequest", permission: true, subject: "toolName", subjectPascal: "tool_name", members: []string{"toolName"}},
	"agentStop":             {pascal: "Stop", goesOn: true},
	"subagentStart":         {subject: "agentName"},
	"subagentStop":          {pascal: "SubagentStop", goesOn: true},
	"preCompact":            {pascal: "PreCompact", subject: "trigger", subjectPascal: "trigger"},
	"errorOccurred":         {pascal: "ErrorOccurred"},
	"notification":          {subject: "notification_type"},
}

// copilotEventAt is the event a configuration's name (camelCase or its
// PascalCase twin) stands for, its camelCase name, and whether the name is
// the twin's.
func copilotEventAt(point string) (ev copilotEvent, name string, pascal, known bool) {
	if ev, ok := CopilotEvents[point]; ok {
		return ev, point, false, true
	}
	for n, ev := range CopilotEvents {
		if ev.pascal != "" && ev.pascal == point {
			return ev, n, true, true
		}
	}
	return copilotEvent{}, point, point != "" && point[0] >= 'A' && point[0] <= 'Z', false
}

var (
	copilotCamel = map[string]jsontext.Kind{
		"sessionId": '"', "timestamp": '0', "cwd": '"', "toolName": '"', "transcriptPath": 'n', "source": '"',
		"reason": '"', "prompt": '"', "trigger": '"', "agentName": '"', "notification_type": '"', "hook_event_name": '"',
	}
	copilotPascal = map[string]jsontext.Kind{
		"hook_event_name": '"', "session_id": '"', "timestamp": '"', "cwd": '"', "tool_name": '"',
		"transcript_path": 'n', "source": '"', "reason": '"', "prompt": '"', "trigger": '"',
	}
)

// CopilotAnswer is what a Copilot hook may answer beyond the decision,
// passed on to Copilot: Context (additionalContext); Approved: the hook
// said "allow" itself (which skips Copilot's own permission flow);
// Interrupt: permissionRequest's deny stops the agent; Warning: the hook's
// exit 2 at an event where that is a warning (stderr shown to the user);
// Passed: the members Copilot rewrites by, as the hook wrote them (a JSON
// object: modifiedResult, modifiedResponse, modifiedTransformedPrompt).
type CopilotAnswer struct {
	Context   string
	Approved  bool
	Interrupt bool
	Warning   string
	Passed    string
}

var _ Extension = (*CopilotAnswer)(nil)

// Redact returns a with its warning redacted, as a reason is.
func (a *CopilotAnswer) Redact() Extension {
	r := *a
	r.Warning = Redact(a.Warning)
	return &r
}

// CopilotOf is the Copilot part of d, zero when it has none.
func CopilotOf(d Decision) CopilotAnswer { return answerOf[CopilotAnswer](d) }

type copilotHost struct{}

var _ Host = copilotHost{}

func (copilotHost) Name() Dialect { return Copilot }

// Parse reads a VS Code compatible payload, which names its event; a
// camelCase one names none, and is read only with the event its hook's
// configuration names (ParseAt).
func (h copilotHost) Parse(b []byte) (*Envelope, error) { return h.ParseAt("", b) }

// ParseAt reads an event of the point a hook's configuration names: a
// camelCase point's payload, or a PascalCase one's (whose hook_event_name
// must be that point). With no point, only a payload that names its event.
func (copilotHost) ParseAt(point string, b []byte) (*Envelope, error) {
	m, err := object(b)
	if err != nil {
		return nil, fmt.Errorf("%w: event: %w", ErrInvalid, err)
	}
	named, hasName := m["hook_event_name"]
	_, camelName, pascal, _ := copilotEventAt(point)
	if point == "" {
		if !hasName {
			return nil, fmt.Errorf("%w: a copilot payload of a camelCase event names no event: the hook's command must (run --point preToolUse)", ErrInvalid)
		}
		var ev string
		if named.Kind() != '"' || unmarshal(named, &ev) != nil {
			return nil, fmt.Errorf("%w: event \"hook_event_name\" must be a string", ErrInvalid)
		}
		point = ev
		_, camelName, pascal, _ = copilotEventAt(point)
		if !pascal {
			point = camelName
		}
	}
	kinds := copilotCamel
	if pascal {
		kinds = copilotPascal
	}
	if m, err = typedObject(b, kinds); err != nil {
		return nil, err
	}
	if hasName {
		ev, _ := stringField(m, "hook_event_name", true)
		// A camelCase notification carries "Notification".
		if ev != point && !strings.EqualFold(ev, point) {
			return nil, fmt.Errorf("%w: the payload's hook_event_name %q is not the configured event %q", ErrInvalid, ev, point)
		}
	} else if pascal {
		return nil, fmt.Errorf("%w: copilot %s event has no \"hook_event_name\"", ErrInvalid, point)
	}
	ev, known := CopilotEvents[camelName]
	session, cwdKey, transcriptKey, argsKey, subjectKey := "sessionId", "cwd", "transcriptPath", "toolArgs", ev.subject
	if pascal {
		session, transcriptKey, argsKey, subjectKey = "session_id", "transcript_path", "tool_input", ev.subjectPascal
	}
	for _, k := range ev.members {
		if pascal && k == "toolName" {
			k = "tool_name"
		}
		if _, ok := m[k]; !ok {
			return nil, fmt.Errorf("%w: copilot %s event has no %q", ErrInvalid, point, k)
		}
	}
	// A tool's call at a point that has none is another event's payload:
	// the hook's command names the wrong event (an entry moved to another
	// event's list answers as that one's, which would mean something else).
	if known && !slices.Contains(ev.members, "toolName") {
		for _, k := range []string{"toolName", "toolArgs", "tool_name", "tool_input"} {
			if _, ok := m[k]; ok {
				return nil, fmt.Errorf("%w: the payload has %q, which copilot's %s event does not: it is another event's", ErrInvalid, k, point)
			}
		}
	}
	sessionID, _ := stringField(m, session, false)
	cwd, err := stringField(m, cwdKey, true)
	if err != nil {
		return nil, err
	}
	var subject string
	if subjectKey != "" {
		subject, _ = stringField(m, subjectKey, false)
	}
	transcript, _ := nullableString(m, transcriptKey)
	return &Envelope{Dialect: Copilot, Point: point, SessionID: sessionID, Workspace: cwd, ToolName: subject,
		CanBlock: known && (ev.gate || ev.permission || ev.goesOn), TranscriptPath: transcript,
		EditedFile: copilotEdited(m[argsKey], cwd), vars: map[string]string{}}, nil
}

// copilotEdited is the file a tool's arguments name (create's and edit's
// path), read exactly: toolArgs is an object, or (in older Copilots) that
// object as a JSON string.
func copilotEdited(args jsontext.Value, cwd string) string {
	if args.Kind() == '"' {
		var s string
		if unmarshal(args, &s) != nil {
			return ""
		}
		args = jsontext.Value(s)
	}
	in, err := object(args)
	if err != nil {
		return ""
	}
	path, _ := stringField(in, "path", false)
	if path == "" {
		path, _ = stringField(in, "file_path", false)
	}
	return resolvedIn(path, cwd)
}

// CheckMatcher refuses a matcher Copilot would skip its hook for: one that
// is not a regular expression (Claude's "*" and "**" are all tools, at the
// PascalCase events).
func (copilotHost) CheckMatcher(matcher string) error {
	if matcher == "*" || matcher == "**" {
		return nil
	}
	if _, err := regexp.Compile(`^(?:` + matcher + `)$`); err != nil {
		return fmt.Errorf("%w: matcher %q: not a regular expression: %w", ErrInvalid, matcher, err)
	}
	return nil
}

// copilotClaudeNames are the runtime names of each Claude tool name, as
// Copilot maps them for its PascalCase PreToolUse and PermissionRequest.
var copilotClaudeNames = map[string][]string{
	"Bash": {"bash", "powershell"}, "Read": {"view"}, "Write": {"create"}, "Edit": {"edit", "str_replace_editor", "apply_patch"},
	"Grep": {"grep", "rg"}, "Glob": {"glob"}, "WebFetch": {"web_fetch"}, "WebSearch": {"web_search"},
	"AskUserQuestion": {"ask_user"}, "TodoWrite": {"update_todo"}, "Agent": {"task", "Task"},
}

var copilotNameList = regexp.MustCompile(`^[A-Za-z0-9_|-]+$`)

// Matches is Copilot's matcher: a regular expression over the whole
// subject (^(?:PATTERN)$), none for every call, ignored at an event that
// takes none. At the PascalCase PreToolUse and PermissionRequest it is
// Claude's: "*", "**" and "" are every tool, a name or a |-list matches
// the tool's Claude name or any of its runtime names, anything else is a
// regular expression over the Claude name.
func (copilotHost) Matches(matcher string, e *Envelope) bool {
	ev, _, pascal, _ := copilotEventAt(e.Point)
	if matcher == "" || (pascal && ev.subjectPascal == "") || (!pascal && ev.subject == "") {
		return true
	}
	if pascal && (ev.gate || ev.permission) {
		if matcher == "*" || matcher == "**" {
			return true
		}
		if copilotNameList.MatchString(matcher) {
			names := append([]string{e.ToolName}, copilotClaudeNames[e.ToolName]...)
			for _, n := range strings.Split(matcher, "|") {
				if slices.Contains(names, n) {
					return true
				}
			}
			return false
		}
	}
	re, err := regexp.Compile(`^(?:` + matcher + `)$`)
	return err == nil && re.MatchString(e.ToolName)
}

// copilotOutput is a hook's JSON answer, every event's members.
type copilotOutput struct {
	PermissionDecision       *string        `json:"permissionDecision"`
	PermissionDecisionReason string         `json:"permissionDecisionReason"`
	ModifiedArgs             jsontext.Value `json:"modifiedArgs"`
	Behavior                 *string        `json:"behavior"`
	Message                  string         `json:"message"`
	Interrupt                bool           `json:"interrupt"`
	Decision                 *string        `json:"decision"`
	Reason                   string         `json:"reason"`
	AdditionalContext        *string        `json:"additionalContext"`
	ModifiedResult           jsontext.Value `json:"modifiedResult"`
	ModifiedResponse         jsontext.Value `json:"modifiedResponse"`
	ModifiedTransformed      jsontext.Value `json:"modifiedTransformedPrompt"`
	// HookSpecific is Claude Code's answer, which a hook configured by a
	// PascalCase event (Claude's format) may write.
	HookSpecific *struct {
		PermissionDecision       *string `json:"permissionDecision"`
		PermissionDecisionReason string  `json:"permissionDecisionReason"`
	} `json:"hookSpecificOutput"`
}

// copilotOutputNames are the members read by exact name: copilotOutput's,
// and modifiedPrompt, which Copilot drops for a command hook.
var copilotOutputNames = []string{"permissionDecision", "permissionDecisionReason", "modifiedArgs", "behavior", "message",
	"interrupt", "decision", "reason", "additionalContext", "modifiedResult", "modifiedResponse", "modifiedTransformedPrompt", "modifiedPrompt", "hookSpecificOutput"}

// copilotAnswerText is a hook's stdout as Copilot reads it: every line
// that is one JSON object with "type": "progress" removed (Copilot shows
// it), the rest joined and trimmed. nil when nothing is left, or what is
// left is not one JSON object (Copilot reads that as no output).
func copilotAnswerText(stdout []byte) []byte {
	var kept [][]byte
	for _, line := range bytes.Split(stdout, []byte("\n")) {
		t := trimAnswer(line)
		if len(t) > 0 && t[0] == '{' {
			// As JSON.parse reads it: invalid UTF-8 and a repeated name
			// (the last one counts) are still a progress line.
			var p struct {
				Type string `json:"type"`
			}
			if jsonv2.Unmarshal(t, &p, jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true)) == nil && p.Type == "progress" {
				continue
			}
		}
		kept = append(kept, line)
	}
	out := trimAnswer(bytes.Join(kept, []byte("\n")))
	if len(out) == 0 || out[0] != '{' || !jsontext.Value(out).IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)) {
		return nil
	}
	return out
}

// Interpret reads a hook's answer as Copilot does:
//   - preToolUse: exit 2 denies (with the JSON's reason, else stderr); any
//     other non-zero exit denies as Copilot's "hook errored"; on exit 0 the
//     JSON's permissionDecision (allow, deny, ask) and modifiedArgs (a
//     rewrite of the tool's arguments);
//   - permissionRequest: exit 2 denies; on exit 0 the JSON's behavior;
//   - agentStop, subagentStop: decision "block" keeps the agent working;
//   - every event: additionalContext, and the members Copilot rewrites by.
//
// Output that is not one JSON object is no answer, as to Copilot. Where
// exit 2 is a warning it is kept for the user; any other failing exit of
// a hook that cannot block is Copilot's logged failure (an allow); 126
// and 127 (a program the hook runs is missing) are a failure of the hook
// as written, everywhere.
func (copilotHost) Interpret(e *Envelope, exitCode int, stdout, stderr []byte) (*Decision, error) {
	ev, name, pascal, known := copilotEventAt(e.Point)
	if err := missing(exitCode, stderr); err != nil {
		return nil, err
	}
	var o copilotOutput
	out := copilotAnswerText(stdout)
	if out != nil {
		if len(out) > MaxDecisionBytes {
			return nil, fmt.Errorf("%w: output is %d bytes, more than %d", ErrDecision, len(out), MaxDecisionBytes)
		}
		if err := decodeOpen(out, &o, copilotOutputNames); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrDecision, err)
		}
	}
	d := &Decision{SchemaVersion: 1, Action: Allow}
	var a CopilotAnswer
	if o.AdditionalContext != nil && exitCode == 0 {
		a.Context = *o.AdditionalContext // a failed hook's output is dropped
	}
	if hs := o.HookSpecific; pascal && o.PermissionDecision == nil && hs != nil && hs.PermissionDecision != nil &&
		(*hs.PermissionDecision == "deny" || *hs.PermissionDecision == "ask") {
		// Claude's refusal, from a hook in Claude's format: a refusal still.
		o.PermissionDecision, o.PermissionDecisionReason = hs.PermissionDecision, hs.PermissionDecisionReason
	}
	switch {
	case known && ev.gate:
		switch {
		case exitCode == 2:
			d.Action, d.Reason = Deny, firstOf(o.PermissionDecisionReason, reasonFrom(stderr, ""), "Denied by "+e.Point+" hook")
			return withCopilot(d, a), nil
		case exitCode != 0:
			d.Action, d.Reason = Deny, "Denied by "+e.Point+" hook (hook errored)"
			if msg := reasonFrom(stderr, ""); msg != "" {
				d.Reason += ": " + msg
			}
			return withCopilot(d, a), nil
		}
		if o.PermissionDecision != nil {
			switch *o.PermissionDecision {
			case "deny":
				d.Action, d.Reason = Deny, firstOf(o.PermissionDecisionReason, "Denied by "+e.Point+" hook")
			case "ask":
				d.Action, d.Reason = RequestApproval, o.PermissionDecisionReason
			case "allow":
				a.Approved = true
			default:
				return nil, fmt.Errorf("%w: permissionDecision %q: use allow, deny or ask", ErrDecision, *o.PermissionDecision)
			}
		}
		if len(o.ModifiedArgs) > 0 && o.ModifiedArgs.Kind() != 'n' && d.Action == Allow {
			if o.ModifiedArgs.Kind() != '{' {
				return nil, fmt.Errorf("%w: modifiedArgs must be an object", ErrDecision)
			}
			d.Action = Modify
			d.Mutations, _ = json.Marshal(map[string]json.RawMessage{"tool_input": json.RawMessage(o.ModifiedArgs)})
		}
		return withCopilot(d, a), nil
	case known && ev.permission:
		if exitCode == 2 {
			d.Action, d.Reason = Deny, firstOf(o.Message, "Denied by "+e.Point+" hook")
			a.Interrupt = o.Interrupt
			return withCopilot(d, a), nil
		}
		if exitCode == 0 && o.Behavior != nil {
			switch *o.Behavior {
			case "deny":
				d.Action, d.Reason = Deny, firstOf(o.Message, "Denied by "+e.Point+" hook")
				a.Interrupt = o.Interrupt
			case "allow":
				a.Approved = true
			default:
				return nil, fmt.Errorf("%w: behavior %q: use allow or deny", ErrDecision, *o.Behavior)
			}
		}
		return withCopilot(d, a), nil
	}
	switch {
	case exitCode == 2 && name == "postToolUseFailure":
		// Its exit 2 hands stdout to the agent as guidance.
		a.Context = strings.TrimSpace(strings.ToValidUTF8(string(stdout), "\uFFFD"))
		return withCopilot(d, a), nil
	case exitCode == 2:
		a.Warning = reasonFrom(stderr, e.Point+" hook exited 2")
		return withCopilot(d, a), nil
	case exitCode != 0:
		return withCopilot(d, a), nil // logged and skipped
	}
	if known && ev.goesOn && o.Decision != nil {
		switch *o.Decision {
		case "block":
			d.Action, d.Reason = Deny, o.Reason
		case "allow":
		default:
			return nil, fmt.Errorf("%w: decision %q: use block or allow", ErrDecision, *o.Decision)
		}
	}
	passed := map[string]jsontext.Value{}
	for k, v := range map[string]jsontext.Value{"modifiedResult": o.ModifiedResult, "modifiedResponse": o.ModifiedResponse,
		"modifiedTransformedPrompt": o.ModifiedTransformed} {
		if len(v) > 0 {
			passed[k] = v
		}
	}
	if len(passed) > 0 {
		b, err := jsonv2.Marshal(passed, jsonv2.Deterministic(true))
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrDecision, err)
		}
		a.Passed = string(b)
	}
	return withCopilot(d, a), nil
}

func withCopilot(d *Decision, a CopilotAnswer) *Decision { return withAnswer(d, a) }

// firstOf is the first of its strings that is not blank.
func firstOf(s ...string) string {
	for _, v := range s {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

// Encode writes the final decision as the JSON Copilot reads at point:
// preToolUse's permissionDecision (deny and ask with their reason, allow
// where the hook said it, modifiedArgs for a rewrite); permissionRequest's
// behavior (a request for approval says nothing: Copilot asks); a
// "block" with its reason at agentStop and subagentStop (never for a
// failure); additionalContext and the members the hook rewrote by,
// everywhere.
func (copilotHost) Encode(point string, dec Decision, failure *Failure) ([]byte, error) {
	ev, _, _, _ := copilotEventAt(point)
	a := CopilotOf(dec)
	out := map[string]any{}
	if a.Passed != "" {
		if err := json.Unmarshal([]byte(a.Passed), &out); err != nil {
			return nil, err
		}
	}
	refused := dec.Action == Deny || dec.Action == RequestApproval
	switch {
	case ev.gate:
		switch {
		case dec.Action == Deny:
			out["permissionDecision"], out["permissionDecisionReason"] = "deny", nonEmptyReason(dec.Reason, point)
		case dec.Action == RequestApproval:
			out["permissionDecision"], out["permissionDecisionReason"] = "ask", nonEmptyReason(dec.Reason, point)
		case dec.Action == Modify:
			var m map[string]json.RawMessage
			json.Unmarshal(dec.Mutations, &m)
			out["modifiedArgs"] = m["tool_input"]
			if a.Approved {
				out["permissionDecision"] = "allow"
			}
		case a.Approved:
			out["permissionDecision"] = "allow"
		}
	case ev.permission:
		switch {
		case dec.Action == Deny:
			out["behavior"], out["message"] = "deny", nonEmptyReason(dec.Reason, point)
			if a.Interrupt {
				out["interrupt"] = true
			}
		case dec.Action == Allow && a.Approved:
			out["behavior"] = "allow"
		}
	case ev.goesOn:
		if refused && failure == nil {
			out["decision"], out["reason"] = "block", nonEmptyReason(dec.Reason, point)
		}
	}
	if a.Context != "" {
		out["additionalContext"] = a.Context
	}
	b, err := json.Marshal(out)
	return append(b, '\n'), err
}

func (copilotHost) DefaultFailurePolicy(m Mode, _ bool) FailurePolicy { return defaultFailurePolicy(m) }

func (copilotHost) HookVars(string) map[string]string { return nil }

// Answer: a deny at preToolUse or permissionRequest is its JSON and exit
// 2, which Copilot reads as a deny whatever else the command printed (a
// shell profile's line before the JSON would make it no answer), with
// preToolUse's reason on stderr too. At an
// event where exit 2 is a warning, a failure (or the hook's own warning)
// is exit 2 with the message on stderr, which Copilot shows and goes on.
// Everything else is the JSON on exit 0.
func (h copilotHost) Answer(point string, dec Decision, failure *Failure) (Answer, error) {
	ev, name, _, known := copilotEventAt(point)
	b, err := h.Encode(point, dec, failure)
	if err != nil {
		return Answer{}, err
	}
	switch {
	case !known && dec.Action == Deny:
		return Answer{Stdout: b, Stderr: nonEmptyReason(dec.Reason, point), Exit: ExitBlock}, nil
	case ev.gate && dec.Action == Deny:
		// The reason on stderr too: Copilot reads it there when stdout is
		// no answer.
		return Answer{Stdout: b, Stderr: nonEmptyReason(dec.Reason, point), Exit: ExitBlock}, nil
	case ev.permission && dec.Action == Deny:
		return Answer{Stdout: b, Exit: ExitBlock}, nil
	case ev.gate || ev.permission || name == "postToolUseFailure":
	case failure != nil:
		return Answer{Stdout: b, Stderr: fmt.Sprintf("hook-exec: the %s hook failed (%s: %s)", point, failure.Kind, failure.Message), Exit: ExitBlock}, nil
	case CopilotOf(dec).Warning != "":
		return Answer{Stdout: b, Stderr: CopilotOf(dec).Warning, Exit: ExitBlock}, nil
	}
	return Answer{Stdout: b}, nil
}

// notice: what Copilot shows a person of a hook is an exit 2's stderr, a
// warning, where exit 2 blocks nothing (sessionStart).
func (copilotHost) notice(_, msg string) Answer {
	return Answer{Stdout: []byte("{}\n"), Stderr: msg, Exit: ExitBlock}
}

// Sandbox: Copilot runs a hook's command in its entry's cwd, the
// repository's root (the only one install takes), whatever the session's.
func (copilotHost) Sandbox() Sandbox {
	return Sandbox{Shebang: true, WorkspaceCwd: true, PluginRootVar: pluginRootVar, EnvFileVar: envFileVar, HomeDir: ".copilot",
		PluginDataVar: pluginDataVar, PluginDataDir: pluginDataDir}
}

// shape: only Copilot's camelCase payloads carry sessionId beside a
// numeric timestamp, and no event's name.
func (copilotHost) shape() []string { return []string{"sessionId", "timestamp"} }

func (copilotHost) recognize(m map[string]jsontext.Value) (string, bool) {
	_, event := m["event"]
	_, named := m["hook_event_name"]
	return "", m["sessionId"].Kind() == '"' && m["timestamp"].Kind() == '0' && !event && !named
}
