package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Gemini: Gemini CLI's command hooks (settings.json "hooks"). The event
// arrives as {hook_event_name, session_id, transcript_path, cwd,
// timestamp, ...} on stdin; JSON on stdout is the answer ({"decision":
// "deny", "reason"}, hookSpecificOutput), text on stdout or stderr with an
// exit of 2 or more blocks with that text as the reason.
const Gemini Dialect = "gemini"

// geminiEvent is what the dialect knows of one Gemini CLI event.
type geminiEvent struct {
	blocks bool
	// goesOn: a deny sends the reason back as a new prompt (AfterAgent's
	// retry): a failure there never blocks.
	goesOn bool
	// subject is the member the matcher tests; regex: as a regular
	// expression (the tools), else by exact name. No subject: the
	// matcher is ignored and the hook always runs.
	subject string
	regex   bool
	members []string
}

// GeminiEvents are Gemini CLI's hook events (its hooks reference and
// source, 2026-08). An event not listed runs, but cannot block.
var GeminiEvents = map[string]geminiEvent{
	"BeforeTool":          {blocks: true, subject: "tool_name", regex: true, members: []string{"tool_name", "tool_input"}},
	"AfterTool":           {blocks: true, subject: "tool_name", regex: true, members: []string{"tool_name", "tool_input"}},
	"BeforeAgent":         {blocks: true, members: []string{"prompt"}},
	"AfterAgent":          {blocks: true, goesOn: true},
	"BeforeModel":         {blocks: true},
	"AfterModel":          {blocks: true},
	"BeforeToolSelection": {},
	"SessionStart":        {subject: "source"},
	"SessionEnd":          {subject: "reason"},
	"PreCompress":         {subject: "trigger"},
	"Notification":        {},
}

var geminiCommon = map[string]jsontext.Kind{
	"hook_event_name": '"', "session_id": '"', "transcript_path": '"', "cwd": '"', "timestamp": '"',
	"tool_name": '"', "tool_input": '{', "prompt": '"', "prompt_response": '"', "stop_hook_active": 't',
	"source": '"', "reason": '"', "trigger": '"', "notification_type": '"', "message": '"',
}

type geminiHost struct{}

var _ Host = geminiHost{}

func (geminiHost) Name() Dialect { return Gemini }

// Parse reads a Gemini CLI event; one that is plainly another host's (see
// belongsTo) is refused.
func (geminiHost) Parse(b []byte) (*Envelope, error) {
	if err := belongsTo(Gemini, b); err != nil {
		return nil, err
	}
	m, err := typedObject(b, geminiCommon)
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
	ev, known := GeminiEvents[event]
	for _, k := range ev.members {
		if _, ok := m[k]; !ok {
			return nil, fmt.Errorf("%w: gemini %s event has no %q", ErrInvalid, event, k)
		}
	}
	session, _ := stringField(m, "session_id", false)
	subject := ""
	if ev.subject != "" {
		subject, _ = stringField(m, ev.subject, false)
	}
	vars := map[string]string{"GEMINI_PROJECT_DIR": cwd, "GEMINI_CWD": cwd, "GEMINI_SESSION_ID": session, "CLAUDE_PROJECT_DIR": cwd}
	transcript, _ := stringField(m, "transcript_path", false)
	return &Envelope{Dialect: Gemini, Point: event, SessionID: session, Workspace: cwd, ToolName: subject,
		CanBlock: known && ev.blocks, TranscriptPath: transcript, EditedFile: editedFile(m, cwd), vars: vars}, nil
}

// CheckMatcher accepts any matcher: Gemini CLI compares one that is not a
// regular expression by exact name.
func (geminiHost) CheckMatcher(string) error { return nil }

// Matches is Gemini CLI's matcher: "" and "*" match everything; for the
// tool events a regular expression that may match anywhere in the tool's
// name (exact comparison when it does not compile); for SessionStart,
// SessionEnd and PreCompress the exact source, reason or trigger; other
// events ignore it.
func (geminiHost) Matches(matcher string, e *Envelope) bool {
	ev := GeminiEvents[e.Point]
	if matcher == "" || matcher == "*" || ev.subject == "" {
		return true
	}
	if ev.regex {
		if re, err := regexp.Compile(matcher); err == nil {
			return re.MatchString(e.ToolName)
		}
	}
	return matcher == e.ToolName
}

type geminiOutput struct {
	Decision       *string        `json:"decision"`
	Reason         string         `json:"reason"`
	Continue       *bool          `json:"continue"`
	StopReason     string         `json:"stopReason"`
	SuppressOutput bool           `json:"suppressOutput"`
	SystemMessage  string         `json:"systemMessage"`
	Specific       jsontext.Value `json:"hookSpecificOutput"`
}

type geminiSpecific struct {
	HookEventName     string         `json:"hookEventName"`
	AdditionalContext string         `json:"additionalContext"`
	ToolInput         jsontext.Value `json:"tool_input"`
}

var (
	geminiOutputNames   = []string{"decision", "reason", "continue", "stopReason", "suppressOutput", "systemMessage", "hookSpecificOutput"}
	geminiSpecificNames = []string{"hookEventName", "additionalContext", "tool_input", "llm_request", "llm_response", "toolConfig", "clearContext", "tailToolCallRequest"}
)

// Interpret reads a Gemini CLI hook's answer as Gemini does: stdout's
// text, or stderr's when stdout has none, read by readGemini. Nothing fails
// open: a JSON answer counts as a refusal on any exit, as an allow or a
// rewrite only on exit 0; without one, exit 0 allows (its text shown), exit
// 1 is Gemini's warning (an allow, stderr shown), exit 2 or more blocks with
// the text as the reason. JSON that is no answer (a number, an array), which
// Gemini lets through at any exit, leaves the exit status alone to decide,
// with stderr as the reason. Exit 126/127 (a program the hook runs is
// missing) and any other exit of 3 or more with nothing to say are failures.
func (geminiHost) Interpret(e *Envelope, exitCode int, stdout, stderr []byte) (*Decision, error) {
	ev, known := GeminiEvents[e.Point]
	text, fromStderr := trimGemini(stdout), false
	if len(text) == 0 {
		text, fromStderr = trimGemini(stderr), true
	}
	why := text // the reason a block gives
	switch answer, form := readGemini(text); form {
	case geminiObject:
		d, err := parseGeminiOutput(e, answer)
		if err != nil {
			return nil, err
		}
		if exitCode == 0 || d.refuses() || ClaudeOf(*d).StopAgent {
			return d, nil
		}
		text, why = nil, nil // an answer that does not count is no reason either
	case geminiNone:
		text, why = nil, nil
	}
	if len(why) == 0 && !fromStderr {
		why = trimGemini(stderr)
	}
	if err := missing(exitCode, stderr); err != nil {
		return nil, err
	}
	switch {
	case exitCode == 0:
		return withClaude(&Decision{SchemaVersion: 1, Action: Allow}, ClaudeAnswer{SystemMessage: reasonFrom(text, "")}), nil
	case exitCode == 1:
		return withClaude(&Decision{SchemaVersion: 1, Action: Allow}, ClaudeAnswer{
			SystemMessage: fmt.Sprintf("%s hook exited 1: %s", e.Point, reasonFrom(stderr, "no message"))}), nil
	case exitCode == 2 || len(why) > 0:
		reason := reasonFrom(why, "blocked by "+e.Point+" hook")
		if !known || !ev.blocks {
			return withClaude(&Decision{SchemaVersion: 1, Action: Allow}, ClaudeAnswer{SystemMessage: reason}), nil
		}
		return &Decision{SchemaVersion: 1, Action: Deny, Reason: reason}, nil
	}
	return nil, errExit(exitCode)
}

// trimGemini trims what JavaScript's String.prototype.trim trims, as Gemini
// CLI does before it reads a hook's output: Unicode white space and U+FEFF
// (a byte-order mark) at either end. It also trims U+0085, which JavaScript
// keeps: text Gemini would not read as JSON is then read as JSON, and that
// only ever refuses more (JSON that is no refusal counts on exit 0 alone,
// where Gemini's text is an allow too).
func trimGemini(b []byte) []byte {
	return bytes.TrimFunc(b, func(r rune) bool { return unicode.IsSpace(r) || r == '\uFEFF' })
}

// The forms of a Gemini CLI hook's output.
const (
	geminiText   = iota // not JSON: text, read by the exit status
	geminiObject        // a JSON object: the answer
	geminiNone          // JSON that is no object: no answer at all
)

// readGemini reads a hook's trimmed output as Gemini CLI's hook runner does
// (packages/core/src/hooks/hookRunner.ts, executeCommandHook, of Gemini CLI
// 0.56.0): JSON.parse, and JSON.parse again when that gives a string, so a
// JSON string that holds an object ("{\"decision\":\"deny\"}") is that
// object's answer. An object is the answer (geminiObject, its bytes); an
// array is an object to JavaScript but has none of an answer's members, and
// other JSON (a number, null, a string that holds no object) is no output
// at all (geminiNone); what does not parse, either time, is text.
func readGemini(text []byte) ([]byte, int) {
	valid := func(b []byte) bool {
		return jsontext.Value(b).IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	}
	if len(text) == 0 || !valid(text) {
		return nil, geminiText
	}
	v := jsontext.Value(text)
	if v.Kind() == '"' {
		var inner string
		if jsonv2.Unmarshal(v, &inner, jsontext.AllowInvalidUTF8(true)) != nil || !valid([]byte(inner)) {
			return nil, geminiText // the second JSON.parse throws: the whole is text
		}
		v = jsontext.Value(inner)
	}
	if v.Kind() == '{' {
		return bytes.TrimSpace(v), geminiObject
	}
	return nil, geminiNone
}

func parseGeminiOutput(e *Envelope, b []byte) (*Decision, error) {
	if len(b) > MaxDecisionBytes {
		return nil, fmt.Errorf("%w: output is %d bytes, more than %d", ErrDecision, len(b), MaxDecisionBytes)
	}
	var o geminiOutput
	if err := decodeOpen(b, &o, geminiOutputNames); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDecision, err)
	}
	a := ClaudeAnswer{SystemMessage: o.SystemMessage}
	d := &Decision{SchemaVersion: 1, Action: Allow}
	if o.Continue != nil && !*o.Continue {
		a.StopAgent, a.StopReason = true, o.StopReason
	}
	if o.Decision != nil {
		switch *o.Decision {
		case "allow", "approve":
			a.Approved = true
		case "deny", "block":
			d.Action, d.Reason = Deny, o.Reason
		case "ask":
			d.Action, d.Reason = RequestApproval, o.Reason
		default:
			return nil, fmt.Errorf("%w: decision %q: use allow, deny, block or ask", ErrDecision, *o.Decision)
		}
	}
	if len(o.Specific) > 0 && o.Specific.Kind() != 'n' {
		var s geminiSpecific
		if err := decodeOpen(o.Specific, &s, geminiSpecificNames); err != nil {
			return nil, fmt.Errorf("%w: hookSpecificOutput: %w", ErrDecision, err)
		}
		if s.HookEventName != "" && s.HookEventName != e.Point {
			return nil, fmt.Errorf("%w: hookSpecificOutput.hookEventName %q answers another event than %q", ErrDecision, s.HookEventName, e.Point)
		}
		a.Context = s.AdditionalContext
		if e.Point == "BeforeTool" && len(s.ToolInput) > 0 && s.ToolInput.Kind() != 'n' && d.Action == Allow {
			if s.ToolInput.Kind() != '{' {
				return nil, fmt.Errorf("%w: tool_input must be an object", ErrDecision)
			}
			d.Action = Modify
			d.Mutations, _ = json.Marshal(map[string]json.RawMessage{"tool_input": json.RawMessage(s.ToolInput)})
		}
	}
	if a.StopAgent && d.Action != Deny && e.CanBlock {
		d.Action, d.Reason = Deny, a.StopReason
	}
	if d.Action == Deny && strings.TrimSpace(d.Reason) == "" {
		d.Reason = "blocked by " + e.Point + " hook"
	}
	return withClaude(d, a), nil
}

// Encode writes the final decision as Gemini CLI reads a hook's JSON
// answer. "ask" is Gemini's at BeforeTool only; elsewhere a request for
// approval is a deny. At AfterAgent a failure never blocks (a deny there
// is a retry, which a failing hook would repeat).
func (geminiHost) Encode(point string, dec Decision, failure *Failure) ([]byte, error) {
	if ev := GeminiEvents[point]; failure != nil && ev.goesOn {
		dec = Decision{SchemaVersion: 1, Action: Allow, Extension: &ClaudeAnswer{SystemMessage: fmt.Sprintf(
			"hook-exec: the %s hook failed (%s: %s); it does not send Gemini back to work", point, failure.Kind, failure.Message)}}
	}
	a := ClaudeOf(dec)
	out := map[string]any{}
	specific := map[string]any{}
	switch {
	case dec.Action == Deny, dec.Action == RequestApproval && point != "BeforeTool":
		out["decision"], out["reason"] = "deny", dec.Reason
	case dec.Action == RequestApproval:
		out["decision"], out["reason"] = "ask", dec.Reason
	case dec.Action == Modify:
		var m map[string]json.RawMessage
		json.Unmarshal(dec.Mutations, &m)
		specific["tool_input"] = m["tool_input"]
		if a.Approved {
			out["decision"] = "allow"
		}
	case a.Approved:
		out["decision"] = "allow"
	}
	if a.Context != "" {
		specific["additionalContext"] = a.Context
	}
	if len(specific) > 0 {
		specific["hookEventName"] = point
		out["hookSpecificOutput"] = specific
	}
	if a.SystemMessage != "" {
		out["systemMessage"] = a.SystemMessage
	}
	if a.StopAgent {
		out["continue"], out["stopReason"] = false, a.StopReason
	}
	b, err := json.Marshal(out)
	return append(b, '\n'), err
}

func (geminiHost) DefaultFailurePolicy(m Mode, _ bool) FailurePolicy { return defaultFailurePolicy(m) }

func (geminiHost) HookVars(string) map[string]string { return nil }

// Answer: Gemini CLI reads JSON on any exit; exit 0 keeps it from showing a
// warning. A refusal at an event that is not one of its own is exit 2, the
// reason on stderr.
func (h geminiHost) Answer(point string, dec Decision, failure *Failure) (Answer, error) {
	if _, known := GeminiEvents[point]; !known && dec.Action == Deny {
		return Answer{Stderr: dec.Reason, Exit: ExitBlock}, nil
	}
	return encoded(h, point, dec, failure)
}

// signs: Gemini CLI's timestamp.
func (geminiHost) signs() []string { return []string{"timestamp"} }

func (geminiHost) hasEvent(name string) bool { _, ok := GeminiEvents[name]; return ok }

func (geminiHost) Sandbox() Sandbox {
	return Sandbox{Shebang: true, EventCwd: true, PluginRootVar: pluginRootVar, EnvFileVar: envFileVar, HomeDir: ".gemini", VarPrefix: "GEMINI_",
		PluginDataVar: pluginDataVar, PluginDataDir: pluginDataDir}
}
