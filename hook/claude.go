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

// Claude: Claude Code's command hooks. The event arrives as
// {hook_event_name, session_id, transcript_path, cwd, permission_mode, ...}
// on stdin; exit 2 blocks with stderr as the reason, exit 0 may carry a
// JSON answer on stdout, any other status is a non-blocking error.
const Claude Dialect = "claude"

// ClaudeAnswer is what a hook of a host that answers as Claude Code does
// (Claude Code, Gemini CLI) may add to its decision, passed through to the
// host: Context (additionalContext) for the model, SystemMessage for the
// user, StopAgent (continue: false) with its StopReason, and Approved: the
// hook allowed explicitly, which in Claude's answer skips Claude's own
// permission prompt (an implicit allow leaves it).
type ClaudeAnswer struct {
	Context       string
	SystemMessage string
	StopAgent     bool
	StopReason    string
	Approved      bool
}

var _ Extension = (*ClaudeAnswer)(nil)

// Redact returns a unchanged: the host is handed its hook's context and
// message as the hook wrote them.
func (a *ClaudeAnswer) Redact() Extension { return a }

// ClaudeOf is the Claude family's part of d, zero when it has none.
func ClaudeOf(d Decision) ClaudeAnswer { return answerOf[ClaudeAnswer](d) }

// withClaude is d with a as its extension, none when a says nothing.
func withClaude(d *Decision, a ClaudeAnswer) *Decision { return withAnswer(d, a) }

// claudeHost runs a script by its #! line, in the event's cwd, and names
// the variables of its plugin's tree and its env file; its matcher is
// MatchClaude.
type claudeHost struct{}

var _ Host = claudeHost{}

func (claudeHost) Name() Dialect { return Claude }

func (claudeHost) Parse(b []byte) (*Envelope, error) { return parseClaude(b) }

// CheckMatcher refuses a matcher that is neither a list of names nor a
// regular expression.
func (claudeHost) CheckMatcher(matcher string) error {
	if claudeNameList.MatchString(matcher) || matcher == "" || matcher == "*" {
		return nil
	}
	if _, err := regexp.Compile(matcher); err != nil {
		return fmt.Errorf("%w: matcher %q: not a regular expression: %w", ErrInvalid, matcher, err)
	}
	return nil
}

func (claudeHost) Matches(matcher string, e *Envelope) bool { return MatchClaude(matcher, e.ToolName) }

func (claudeHost) Interpret(e *Envelope, exitCode int, stdout, stderr []byte) (*Decision, error) {
	return interpretClaude(ClaudeEvents, e, exitCode, stdout, stderr)
}

func (claudeHost) Encode(point string, dec Decision, failure *Failure) ([]byte, error) {
	return encodeClaude(point, dec, failure)
}

func (claudeHost) DefaultFailurePolicy(m Mode, _ bool) FailurePolicy { return defaultFailurePolicy(m) }

func (claudeHost) HookVars(string) map[string]string { return nil }

// Answer implements Host: Claude Code reads the answer on exit 0. A
// refusal at a point that is not one of its events (no answer in its JSON)
// is exit 2, which blocks whatever Claude Code can block, the reason on
// stderr.
func (h claudeHost) Answer(point string, dec Decision, failure *Failure) (Answer, error) {
	if _, known := ClaudeEvents[point]; !known && dec.Action == Deny {
		return Answer{Stderr: dec.Reason, Exit: ExitBlock}, nil
	}
	return encoded(h, point, dec, failure)
}

// signs: Claude Code's permission_mode (Codex sends it too).
func (claudeHost) signs() []string { return []string{"permission_mode"} }

func (claudeHost) hasEvent(name string) bool { _, ok := ClaudeEvents[name]; return ok }

func (claudeHost) Sandbox() Sandbox {
	return Sandbox{Shebang: true, EventCwd: true, PluginRootVar: pluginRootVar, EnvFileVar: envFileVar, HomeDir: ".claude", VarPrefix: "CLAUDE_",
		PluginDataVar: pluginDataVar, PluginDataDir: pluginDataDir}
}

// claudeEvent is what the dialect knows of one Claude Code event.
type claudeEvent struct {
	blocks bool // its answer can block (a deny, decision "block")
	// exit2: exit 2 blocks it. PermissionRequest's does too, though Claude's
	// reference (2026-08) lists its exit 2 as not blocking: a hook that
	// exits 2 there means to refuse, and a guard is not read as an allow.
	exit2   bool
	context bool // plain stdout on exit 0 is context for the model
	// goesOn: a block does not refuse an action but has Claude keep
	// working (Stop: "do not stop yet"), so a failing hook that blocked
	// would have it work forever; a failure there never blocks.
	goesOn  bool
	subject string   // the member its matcher filters on
	members []string // required beside the common ones
}

// ClaudeEvents are Claude Code's hook events (its hooks reference of
// 2026-08). An event not listed (a newer Claude) runs, but nothing it
// answers can block.
var ClaudeEvents = map[string]claudeEvent{
	"PreToolUse":          {blocks: true, exit2: true, subject: "tool_name", members: []string{"tool_name", "tool_input"}},
	"PermissionRequest":   {blocks: true, exit2: true, subject: "tool_name", members: []string{"tool_name", "tool_input"}},
	"PermissionDenied":    {subject: "tool_name", members: []string{"tool_name", "tool_input"}},
	"PostToolUse":         {blocks: true, exit2: true, subject: "tool_name", members: []string{"tool_name", "tool_input", "tool_response"}},
	"PostToolUseFailure":  {blocks: true, exit2: true, subject: "tool_name", members: []string{"tool_name", "tool_input"}},
	"PostToolBatch":       {blocks: true, exit2: true},
	"UserPromptSubmit":    {blocks: true, exit2: true, context: true, members: []string{"prompt"}},
	"UserPromptExpansion": {blocks: true, exit2: true, context: true, subject: "command_name"},
	"Stop":                {blocks: true, exit2: true, goesOn: true},
	"SubagentStop":        {blocks: true, exit2: true, goesOn: true, subject: "agent_type"},
	"SubagentStart":       {subject: "agent_type"},
	"TaskCreated":         {blocks: true, exit2: true},
	"TaskCompleted":       {blocks: true, exit2: true, goesOn: true},
	"TeammateIdle":        {blocks: true, exit2: true, goesOn: true},
	"ConfigChange":        {blocks: true, exit2: true, subject: "source"},
	"PreCompact":          {blocks: true, exit2: true, subject: "trigger"},
	"PostCompact":         {subject: "trigger"},
	"Elicitation":         {blocks: true, exit2: true, subject: "mcp_server_name"},
	"ElicitationResult":   {blocks: true, exit2: true, subject: "mcp_server_name"},
	"Notification":        {subject: "notification_type", members: []string{"message"}},
	"SessionStart":        {context: true, subject: "source"},
	"SessionEnd":          {subject: "reason"},
	"Setup":               {subject: "trigger"},
	"InstructionsLoaded":  {subject: "load_reason"},
	"StopFailure":         {subject: "error"},
	"CwdChanged":          {},
	"DirectoryAdded":      {subject: "source"},
	"FileChanged":         {},
	"WorktreeCreate":      {},
	"WorktreeRemove":      {},
	"MessageDisplay":      {},
}

// claudeCommon are the members every Claude Code event may carry, and the
// type each must have; others are allowed (Claude adds fields), but not one
// that is a known name in another case.
var claudeCommon = map[string]jsontext.Kind{
	"hook_event_name": '"', "session_id": '"', "transcript_path": '"', "cwd": '"', "permission_mode": '"',
	"tool_name": '"', "tool_input": '{', "tool_use_id": '"', "prompt": '"', "message": '"',
	"stop_hook_active": 't', "trigger": '"', "custom_instructions": '"', "source": '"', "reason": '"',
}

func parseClaude(b []byte) (*Envelope, error) {
	e, err := parseClaudeFamily(Claude, ClaudeEvents, claudeCommon, b)
	if err != nil {
		return nil, err
	}
	e.vars = map[string]string{"CLAUDE_PROJECT_DIR": e.Workspace}
	return e, nil
}

// parseClaudeFamily reads an event of d, a host that sends Claude Code's
// payload (Claude Code, Codex): its members of the types common names,
// the members its event (one of events) requires. One that is plainly
// another host's (see belongsTo) is refused.
func parseClaudeFamily(d Dialect, events map[string]claudeEvent, common map[string]jsontext.Kind, b []byte) (*Envelope, error) {
	if err := belongsTo(d, b); err != nil {
		return nil, err
	}
	m, err := typedObject(b, common)
	if err != nil {
		return nil, err
	}
	event, err := stringField(m, "hook_event_name", true)
	if err != nil {
		return nil, err
	}
	cwd, err := stringField(m, "cwd", true)
	if err != nil {
		return nil, err
	}
	ev, known := events[event]
	for _, k := range ev.members {
		if _, ok := m[k]; !ok {
			return nil, fmt.Errorf("%w: %s %s event has no %q", ErrInvalid, d, event, k)
		}
	}
	session, _ := stringField(m, "session_id", false)
	var subject string
	if raw, ok := m[ev.subject]; ok && raw.Kind() == '"' {
		unmarshal(raw, &subject)
	}
	transcript, _ := stringField(m, "transcript_path", false) // "" when null
	return &Envelope{Dialect: d, Point: event, SessionID: session, Workspace: cwd, ToolName: subject,
		CanBlock: known && ev.blocks, TranscriptPath: transcript, EditedFile: editedFile(m, cwd), vars: map[string]string{}}, nil
}

// MatchClaude reports whether a Claude Code matcher selects subject (the
// tool's name; SessionStart's source, PreCompact's trigger, ...): "" and
// "*" match everything; a matcher of letters, digits, _, -, spaces, | and ,
// is a list of exact names ("Edit|Write", "Edit, Write"); anything else is
// a regular expression that may match anywhere ("mcp__.*", "^Edit$"), case
// sensitive, as Claude Code tests it. A matcher that does not compile
// matches nothing.
func MatchClaude(matcher, subject string) bool {
	if matcher == "" || matcher == "*" {
		return true
	}
	if claudeNameList.MatchString(matcher) {
		for _, n := range strings.FieldsFunc(matcher, func(r rune) bool { return r == '|' || r == ',' }) {
			if strings.TrimSpace(n) == subject {
				return true
			}
		}
		return false
	}
	re, err := regexp.Compile(matcher)
	return err == nil && re.MatchString(subject)
}

var claudeNameList = regexp.MustCompile(`^[A-Za-z0-9_ ,|-]+$`)

// exactNames refuses a member whose name is a known one in another case:
// one reader would take it for the known member and another would not.
func exactNames(m map[string]jsontext.Value, known []string) error {
	for k := range m {
		if slices.Contains(known, k) {
			continue
		}
		for _, n := range known {
			if strings.EqualFold(k, n) {
				return fmt.Errorf("member %q is %q in another case (names match exactly)", k, n)
			}
		}
	}
	return nil
}

// Exit statuses a Claude Code hook's shell gives when the hook's program
// could not run at all: not executable, not found. They are failures of
// the hook as written (a missing jq), never its answer.
const (
	exitNotExecutable = 126
	exitNotFound      = 127
)

// interpretClaude reads a Claude Code hook's answer (at one of events, the
// host's: Claude Code's or Codex's) as Claude does, with one
// difference that keeps a guard from failing open: a refusal the hook wrote
// (a deny, an ask, a block, continue: false) is honoured whatever its exit
// status, while an allow or a rewrite counts only on exit 0. Stdout whose
// first character is { (after whitespace and a byte-order mark) is its JSON
// answer (JSON that does not parse is plain text); exit 2 blocks where the
// event can be blocked so, with the JSON's reason or stderr; exit 126 and
// 127 (a program the hook runs is missing) are a failure of the hook as
// written, where Claude would let the action through; any other status
// without a refusal is Claude's non-blocking error.
func interpretClaude(events map[string]claudeEvent, e *Envelope, exitCode int, stdout, stderr []byte) (*Decision, error) {
	ev, known := events[e.Point]
	out := trimAnswer(stdout)
	var d *Decision
	// Syntax as JSON.parse reads it decides whether this is an answer; a
	// duplicate or invalid UTF-8 in one is then refused, not taken as text.
	if bytes.HasPrefix(out, []byte("{")) && jsontext.Value(out).IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)) {
		var err error
		if d, err = parseClaudeOutput(e, out); err != nil {
			return nil, err
		}
		if exitCode != 0 && !d.refuses() {
			// A hook that printed an allow and then failed has not allowed anything.
			d = nil
		}
	}
	switch {
	case exitCode == 2 && known && ev.exit2:
		if d == nil || d.Action != Deny {
			reason := reasonFrom(stderr, "blocked by "+e.Point+" hook")
			d = &Decision{SchemaVersion: 1, Action: Deny, Reason: reason}
		}
		return d, nil
	case d != nil:
		return d, nil
	case exitCode == exitNotExecutable || exitCode == exitNotFound:
		return nil, missing(exitCode, stderr)
	case exitCode == 0:
		var a ClaudeAnswer
		if ev.context && len(out) > 0 {
			a.Context = strings.ToValidUTF8(string(out), "\uFFFD")
		}
		return withClaude(&Decision{SchemaVersion: 1, Action: Allow}, a), nil
	case exitCode == 2:
		// Shown to the user; nothing is stopped.
		return withClaude(&Decision{SchemaVersion: 1, Action: Allow}, ClaudeAnswer{SystemMessage: reasonFrom(stderr, "")}), nil
	}
	// A non-blocking error: Claude Code goes on and shows stderr to the user.
	return withClaude(&Decision{SchemaVersion: 1, Action: Allow}, ClaudeAnswer{
		SystemMessage: fmt.Sprintf("%s hook exited %d: %s", e.Point, exitCode, reasonFrom(stderr, "no message"))}), nil
}

// refuses reports whether d holds back what the agent is about to do: a
// deny, a request for approval, or a stop of the agent.
func (d *Decision) refuses() bool {
	return d.Action == Deny || d.Action == RequestApproval || ClaudeOf(*d).StopAgent
}

// byteOrderMark is U+FEFF in UTF-8. Some Windows tools write it before
// their output; an answer behind one is still the answer.
var byteOrderMark = []byte("\xef\xbb\xbf")

// trimAnswer trims the whitespace and byte-order marks around a hook's
// answer. bytes.TrimSpace alone keeps U+FEFF, and a deny behind it would
// be read as plain text: an allow.
func trimAnswer(b []byte) []byte {
	b = bytes.TrimSpace(b)
	for bytes.HasPrefix(b, byteOrderMark) {
		b = bytes.TrimSpace(b[len(byteOrderMark):])
	}
	return b
}

// claudeOutput is a Claude Code hook's JSON answer.
type claudeOutput struct {
	Continue       *bool          `json:"continue"`
	StopReason     string         `json:"stopReason"`
	SuppressOutput bool           `json:"suppressOutput"`
	SystemMessage  string         `json:"systemMessage"`
	Decision       *string        `json:"decision"`
	Reason         string         `json:"reason"`
	Specific       jsontext.Value `json:"hookSpecificOutput"`
}

type claudeSpecific struct {
	HookEventName            string         `json:"hookEventName"`
	PermissionDecision       *string        `json:"permissionDecision"`
	PermissionDecisionReason string         `json:"permissionDecisionReason"`
	UpdatedInput             jsontext.Value `json:"updatedInput"`
	AdditionalContext        string         `json:"additionalContext"`
	Decision                 *struct {
		Behavior     string         `json:"behavior"`
		UpdatedInput jsontext.Value `json:"updatedInput"`
		Message      string         `json:"message"`
		Interrupt    bool           `json:"interrupt"`
	} `json:"decision"`
}

var (
	claudeOutputNames   = []string{"continue", "stopReason", "suppressOutput", "systemMessage", "decision", "reason", "hookSpecificOutput"}
	claudeSpecificNames = []string{"hookEventName", "permissionDecision", "permissionDecisionReason", "updatedInput", "additionalContext", "decision"}
)

// decodeOpen decodes b into v by exact names, ignoring members v does not
// know (Claude Code ignores them too) but refusing duplicates and a known
// name in another case.
func decodeOpen(b []byte, v any, names []string) error {
	m, err := object(b)
	if err != nil {
		return err
	}
	if err := exactNames(m, names); err != nil {
		return err
	}
	return jsonv2.Unmarshal(b, v)
}

// parseClaudeOutput maps a JSON answer onto a decision: permissionDecision
// allow|deny|ask (PreToolUse), decision.behavior allow|deny
// (PermissionRequest), decision "block" (and the older "approve"),
// updatedInput as a modify of tool_input, additionalContext and
// systemMessage passed through, and continue: false as a stop of the agent.
// A member that belongs to another event's answer is not read, as Claude
// does not read it. When an answer says several things, the most
// restrictive wins: a deny over an ask over an allow.
func parseClaudeOutput(e *Envelope, b []byte) (*Decision, error) {
	if len(b) > MaxDecisionBytes {
		return nil, fmt.Errorf("%w: output is %d bytes, more than %d", ErrDecision, len(b), MaxDecisionBytes)
	}
	var o claudeOutput
	if err := decodeOpen(b, &o, claudeOutputNames); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDecision, err)
	}
	var v verdict
	d := &Decision{SchemaVersion: 1, Action: Allow}
	a := ClaudeAnswer{SystemMessage: o.SystemMessage}
	if o.Continue != nil && !*o.Continue {
		a.StopAgent, a.StopReason = true, o.StopReason
	}
	if o.Decision != nil {
		switch *o.Decision {
		case "block":
			v.deny(o.Reason)
		case "approve":
			v.allow(o.Reason)
		default:
			return nil, fmt.Errorf("%w: decision %q: use \"block\" (or leave it out)", ErrDecision, *o.Decision)
		}
	}
	var input jsontext.Value
	if len(o.Specific) > 0 && o.Specific.Kind() != 'n' {
		var s claudeSpecific
		if err := decodeOpen(o.Specific, &s, claudeSpecificNames); err != nil {
			return nil, fmt.Errorf("%w: hookSpecificOutput: %w", ErrDecision, err)
		}
		if s.HookEventName != "" && s.HookEventName != e.Point {
			return nil, fmt.Errorf("%w: hookSpecificOutput.hookEventName %q answers another event than %q", ErrDecision, s.HookEventName, e.Point)
		}
		a.Context = s.AdditionalContext
		switch e.Point {
		case "PreToolUse":
			if s.PermissionDecision != nil {
				switch *s.PermissionDecision {
				case "allow":
					v.allow(s.PermissionDecisionReason)
				case "deny":
					v.deny(s.PermissionDecisionReason)
				case "ask":
					v.ask(s.PermissionDecisionReason)
				case "defer":
					// Claude's -p mode decides later: no decision here.
				default:
					return nil, fmt.Errorf("%w: permissionDecision %q: use allow, deny, ask or defer", ErrDecision, *s.PermissionDecision)
				}
			}
			input = s.UpdatedInput
		case "PermissionRequest":
			if pd := s.Decision; pd != nil {
				switch pd.Behavior {
				case "allow":
					v.allow("")
				case "deny":
					v.deny(pd.Message)
				default:
					return nil, fmt.Errorf("%w: decision.behavior %q: use allow or deny", ErrDecision, pd.Behavior)
				}
				a.StopAgent = a.StopAgent || pd.Interrupt
				input = pd.UpdatedInput
			}
		}
	}
	switch {
	case v.denied:
		d.Action, d.Reason = Deny, v.denyReason
	case v.asked:
		d.Action, d.Reason = RequestApproval, v.askReason
	case v.allowed:
		a.Approved, d.Reason = true, v.allowReason
	}
	if len(input) > 0 && input.Kind() != 'n' {
		if input.Kind() != '{' {
			return nil, fmt.Errorf("%w: updatedInput must be an object", ErrDecision)
		}
		if d.Action == Allow {
			// A rewrite is no approval: Approved stays what the hook said.
			d.Action = Modify
			d.Mutations, _ = json.Marshal(map[string]json.RawMessage{"tool_input": json.RawMessage(input)})
		}
	}
	if a.StopAgent && d.Action != Deny && e.CanBlock {
		d.Action, d.Reason = Deny, a.StopReason
	}
	if d.Action == Deny {
		if d.Reason = strings.TrimSpace(d.Reason); d.Reason == "" {
			d.Reason = "blocked by " + e.Point + " hook"
		}
	}
	return withClaude(d, a), nil
}

// verdict gathers what one answer says, so that the most restrictive of
// its signals wins whatever order they come in.
type verdict struct {
	denied, asked, allowed             bool
	denyReason, askReason, allowReason string
}

func (v *verdict) deny(reason string) {
	if !v.denied || v.denyReason == "" {
		v.denyReason = reason
	}
	v.denied = true
}

func (v *verdict) ask(reason string) { v.asked, v.askReason = true, reason }

func (v *verdict) allow(reason string) { v.allowed, v.allowReason = true, reason }

// encodeClaude writes the final decision as Claude Code reads a hook's JSON
// answer (its exit status is 0: Claude reads JSON only then). An allow no
// hook gave explicitly stays silent: Claude's "allow" would skip its own
// permission prompt.
func encodeClaude(point string, dec Decision, failure *Failure) ([]byte, error) {
	if ev := ClaudeEvents[point]; failure != nil && ev.goesOn {
		// Claude Code treats a failed hook here as non-blocking too.
		dec = Decision{SchemaVersion: 1, Action: Allow, Extension: &ClaudeAnswer{SystemMessage: fmt.Sprintf(
			"hook-exec: the %s hook failed (%s: %s); it does not keep Claude working", point, failure.Kind, failure.Message)}}
	}
	ext := ClaudeOf(dec)
	type permission struct {
		Behavior     string          `json:"behavior"`
		UpdatedInput json.RawMessage `json:"updatedInput,omitempty"`
		Message      string          `json:"message,omitempty"`
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
	var input json.RawMessage
	if dec.Action == Modify {
		var m map[string]json.RawMessage
		json.Unmarshal(dec.Mutations, &m)
		input = m["tool_input"]
	}
	sp := &specific{HookEventName: point, AdditionalContext: ext.Context}
	switch point {
	case "PreToolUse":
		switch {
		case dec.Action == Deny:
			sp.PermissionDecision = "deny"
		case dec.Action == RequestApproval:
			sp.PermissionDecision = "ask"
		case dec.Action == Modify && !ext.Approved:
			// Rewritten but not approved: Claude asks its user about the new input.
			sp.PermissionDecision, sp.UpdatedInput = "ask", input
		case dec.Action == Modify || ext.Approved:
			sp.PermissionDecision, sp.UpdatedInput = "allow", input
		}
		if sp.PermissionDecision != "" {
			sp.PermissionDecisionReason = dec.Reason
		}
	case "PermissionRequest":
		switch {
		case dec.Action == Deny:
			sp.Decision = &permission{Behavior: "deny", Message: dec.Reason}
		case ext.Approved:
			sp.Decision = &permission{Behavior: "allow", UpdatedInput: input}
		}
	default:
		if dec.Action == Deny || dec.Action == RequestApproval {
			out.Decision, out.Reason = "block", dec.Reason
		}
	}
	if sp.PermissionDecision != "" || sp.Decision != nil || sp.AdditionalContext != "" {
		out.Specific = sp
	}
	out.SystemMessage = ext.SystemMessage
	if ext.StopAgent {
		f := false
		out.Continue, out.StopReason = &f, ext.StopReason
	}
	b, err := json.Marshal(out)
	return append(b, '\n'), err
}
