package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/go-json-experiment/json/jsontext"
)

// Cline: Cline's hooks, executable files named by their event in
// .clinerules/hooks/ (the project's) and ~/Documents/Cline/Hooks/ (the
// user's). The event arrives as {clineVersion, hookName, timestamp,
// taskId, workspaceRoots, userId, model, <event>: {...}} on stdin; the
// answer is one JSON object on stdout, {cancel, contextModification,
// errorMessage}, read whatever the exit status. Cline fails open
// everywhere else. Read from cline/cline at 21cb8d25 (the VS Code
// extension 4.1.13's hook-factory.ts and hooks-adapter.ts; the CLI's SDK
// runner names its events otherwise, mapped below) and its hooks page at
// 901d1b5c.
const Cline Dialect = "cline"

// clineEvent is what the dialect knows of one Cline event.
type clineEvent struct {
	// cancels: its cancel stops what is about to happen (the tool, the
	// task's start, the prompt).
	cancels bool
	// after: its cancel stops the task after the fact (PostToolUse: the
	// tool ran), so a failure there never cancels.
	after bool
	// member is its own object in the payload (preToolUse); tool: that
	// object names the tool (toolName).
	member string
	tool   bool
}

// ClineEvents are Cline's hook events, each a file's name.
var ClineEvents = map[string]clineEvent{
	"PreToolUse":       {cancels: true, member: "preToolUse", tool: true},
	"PostToolUse":      {cancels: true, after: true, member: "postToolUse", tool: true},
	"UserPromptSubmit": {cancels: true, member: "userPromptSubmit"},
	"TaskStart":        {cancels: true, member: "taskStart"},
	"TaskResume":       {cancels: true, member: "taskResume"},
	"TaskCancel":       {member: "taskCancel"},
	"TaskComplete":     {member: "taskComplete"},
	"PreCompact":       {member: "preCompact"},
	"Notification":     {member: "notification"},
	"TaskError":        {member: "taskError"},
	"SessionShutdown":  {member: "sessionShutdown"},
}

// clineSDKEvents are the events as the CLI's SDK runner names them in
// hookName, by the file each runs.
var clineSDKEvents = map[string]string{
	"agent_start": "TaskStart", "agent_resume": "TaskResume", "prompt_submit": "UserPromptSubmit",
	"tool_call": "PreToolUse", "tool_result": "PostToolUse", "agent_end": "TaskComplete",
	"agent_error": "TaskError", "agent_abort": "TaskCancel", "session_shutdown": "SessionShutdown",
}

var clineCommon = map[string]jsontext.Kind{
	"clineVersion": '"', "hookName": '"', "timestamp": '"', "taskId": '"', "workspaceRoots": '[', "userId": '"', "model": '{',
	"preToolUse": '{', "postToolUse": '{', "userPromptSubmit": '{', "taskStart": '{', "taskResume": '{', "taskCancel": '{',
	"taskComplete": '{', "preCompact": '{', "notification": '{',
}

type clineHost struct{}

var _ Host = clineHost{}

func (clineHost) Name() Dialect { return Cline }

// Parse reads a Cline event: the extension's (hookName PreToolUse) or the
// SDK runner's (hookName tool_call, the same members beside its own).
func (clineHost) Parse(b []byte) (*Envelope, error) {
	m, err := typedObject(b, clineCommon)
	if err != nil {
		return nil, err
	}
	name, err := stringField(m, "hookName", true)
	if err != nil {
		return nil, err
	}
	if _, ok := m["clineVersion"]; !ok {
		return nil, fmt.Errorf("%w: a cline event has \"clineVersion\"", ErrInvalid)
	}
	point := name
	if ext, ok := clineSDKEvents[name]; ok {
		point = ext
	}
	ev, known := ClineEvents[point]
	var roots []string
	if raw, ok := m["workspaceRoots"]; ok {
		if err := unmarshal(raw, &roots); err != nil {
			return nil, fmt.Errorf("%w: event member \"workspaceRoots\": %w", ErrInvalid, err)
		}
	}
	workspace := ""
	if len(roots) > 0 {
		workspace = roots[0]
	}
	var tool, edited string
	if ev.tool {
		raw, ok := m[ev.member]
		if !ok {
			return nil, fmt.Errorf("%w: cline %s event has no %q", ErrInvalid, point, ev.member)
		}
		in, err := typedObject(raw, map[string]jsontext.Kind{"toolName": '"', "parameters": '{'})
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrInvalid, ev.member, err)
		}
		if tool, err = stringField(in, "toolName", true); err != nil {
			return nil, err
		}
		edited = clineEdited(in["parameters"], workspace)
	}
	session, _ := stringField(m, "taskId", false)
	return &Envelope{Dialect: Cline, Point: point, SessionID: session, Workspace: workspace, ToolName: tool,
		CanBlock: known && ev.cancels, EditedFile: edited, vars: map[string]string{}}, nil
}

// clineEdited is the file a tool's parameters name (write_to_file's and
// replace_in_file's path, relative to the workspace), "" for none.
func clineEdited(params jsontext.Value, workspace string) string {
	if len(params) == 0 {
		return ""
	}
	in, err := object(params)
	if err != nil {
		return ""
	}
	path, _ := stringField(in, "path", false)
	return resolvedIn(path, workspace)
}

// CheckMatcher refuses every matcher: a Cline hook is its event's file,
// run at every call of its event.
func (clineHost) CheckMatcher(matcher string) error {
	if matcher == "" || matcher == "*" {
		return nil
	}
	return fmt.Errorf("%w: matcher %q: cline hooks have no matcher", ErrInvalid, matcher)
}

func (clineHost) Matches(string, *Envelope) bool { return true }

// clineOutput is a hook's answer as Cline's extension reads it: cancel,
// contextModification and errorMessage (and the SDK's context, read
// where the extension's is absent).
type clineOutput struct {
	Cancel                bool
	Context, ErrorMessage string
}

// clineJSON is JSON.parse: any value, a repeated name's last one counting,
// invalid UTF-8 (replaced, as Node decodes stdout) and unpaired surrogate
// escapes taken; nil for what JSON.parse throws on. A value that is not an
// object has no members (an empty answer), as an array has none in JS.
func clineJSON(b []byte) (members map[string]jsontext.Value, ok bool) {
	b = []byte(strings.ToValidUTF8(string(b), "\uFFFD"))
	v := jsontext.Value(bytes.TrimSpace(b))
	if len(v) == 0 || !v.IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)) {
		return nil, false
	}
	if v.Kind() != '{' {
		return map[string]jsontext.Value{}, v.Kind() != 'n' // null: reading its members throws
	}
	m := map[string]jsontext.Value{}
	dec := jsontext.NewDecoder(bytes.NewReader(v), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	dec.ReadToken() // {
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, false
		}
		name := tok.String() // before the next read voids it
		val, err := dec.ReadValue()
		if err != nil {
			return nil, false
		}
		m[name] = val.Clone()
	}
	return m, true
}

// readCline is validateHookOutput and HookOutput.fromJSON: an answer with
// shouldContinue (the old member, null included), or a cancel that is not
// a boolean, or a contextModification or errorMessage that is not a
// string (null included) is none.
func readCline(m map[string]jsontext.Value) *clineOutput {
	if _, ok := m["shouldContinue"]; ok {
		return nil
	}
	kinds := map[string]jsontext.Kind{"cancel": 't', "contextModification": '"', "errorMessage": '"'}
	for k, kind := range kinds {
		if raw, ok := m[k]; ok && raw.Kind() != kind && !(kind == 't' && raw.Kind() == 'f') {
			return nil
		}
	}
	str := func(k string) string {
		var s string
		if raw, ok := m[k]; ok && raw.Kind() == '"' {
			json.Unmarshal(raw, &s)
		}
		return s
	}
	o := &clineOutput{Cancel: m["cancel"].Kind() == 't', Context: str("contextModification"), ErrorMessage: str("errorMessage")}
	if _, ok := m["contextModification"]; !ok {
		o.Context = str("context") // the SDK's
	}
	return o
}

// clineAnswer is the answer in a hook's stdout as Cline's extension finds
// it (hook-factory.ts parseJsonOutput): the whole of it as JSON; else,
// scanning lines from the last, the lines from the one where the braces
// counted from the end balance, cut before their first {; nil when there
// is none, or it does not read as an answer.
func clineAnswer(stdout []byte) *clineOutput {
	if len(stdout) > MaxDecisionBytes<<4 {
		return nil
	}
	if m, ok := clineJSON(stdout); ok {
		return readCline(m)
	}
	lines := strings.Split(string(stdout), "\n")
	var candidate string
	count, collecting := 0, false
	for i := len(lines) - 1; i >= 0; i-- {
		line := strings.TrimRightFunc(lines[i], unicode.IsSpace)
		for j := len(line) - 1; j >= 0; j-- {
			switch line[j] {
			case '}':
				count, collecting = count+1, true
			case '{':
				count--
			}
		}
		if collecting {
			candidate = line + "\n" + candidate
		}
		if collecting && count == 0 {
			break
		}
	}
	candidate = strings.TrimSpace(candidate)
	if candidate == "" {
		return nil
	}
	if i := strings.IndexByte(candidate, '{'); i >= 0 {
		candidate = candidate[i:]
	}
	if m, ok := clineJSON([]byte(candidate)); ok {
		return readCline(m)
	}
	return nil
}

// Interpret reads a hook's answer as Cline does: an answer on stdout
// counts whatever the exit status (cancel: true cancels with errorMessage
// where Cline reads it; contextModification, the SDK's context, is context
// for the model); without one, exit 0 lets it go on. Where Cline fails
// open before what it could stop (PreToolUse, UserPromptSubmit, TaskStart,
// TaskResume), hook-exec does not: a failing exit without an answer is a
// failure there (ErrExit), which the failure policy answers; elsewhere it
// is Cline's logged failure, an allow. 126 and 127 (a program the hook
// runs is missing) are a failure everywhere (ErrMissing).
func (clineHost) Interpret(e *Envelope, exitCode int, stdout, stderr []byte) (*Decision, error) {
	ev, known := ClineEvents[e.Point]
	o := clineAnswer(stdout)
	if o == nil {
		if err := missing(exitCode, stderr); err != nil {
			return nil, err
		}
		if exitCode != 0 && known && ev.cancels && !ev.after {
			return nil, errExit(exitCode)
		}
		// Cline logs it and goes on: nothing it could stop (after the
		// fact at PostToolUse, a failure never stops the task).
		return &Decision{SchemaVersion: 1, Action: Allow}, nil
	}
	d := &Decision{SchemaVersion: 1, Action: Allow}
	a := ClaudeAnswer{Context: o.Context}
	if o.Cancel && known && ev.cancels {
		// Cline tells the model the errorMessage, else the context.
		d.Action, d.Reason = Deny, firstOf(o.ErrorMessage, o.Context, "cancelled by "+e.Point+" hook")
	}
	return withClaude(d, a), nil
}

// Encode writes the final decision as Cline reads a hook's answer: cancel,
// its errorMessage, and the context; never null (Cline refuses an answer
// with one). A failure never cancels after the fact (PostToolUse: the
// tool ran), nor where nothing can be cancelled.
func (clineHost) Encode(point string, dec Decision, failure *Failure) ([]byte, error) {
	ev, known := ClineEvents[point]
	out := map[string]any{"cancel": false}
	refused := dec.Action == Deny || dec.Action == RequestApproval
	// A failure cancels where the event is one Cline cancels before the
	// fact, and where the event is not known (a payload that did not
	// read): Cline ignores a cancel where it reads none.
	if refused && (failure == nil || !known || ev.cancels && !ev.after) {
		out["cancel"], out["errorMessage"] = true, nonEmptyReason(dec.Reason, point)
	}
	if c := ClaudeOf(dec).Context; c != "" {
		out["contextModification"] = c
	}
	b, err := json.Marshal(out)
	return append(b, '\n'), err
}

func (clineHost) DefaultFailurePolicy(m Mode, _ bool) FailurePolicy { return defaultFailurePolicy(m) }

func (clineHost) HookVars(string) map[string]string { return nil }

// Answer: the JSON on exit 0 (Cline reads it whatever the status).
func (h clineHost) Answer(point string, dec Decision, failure *Failure) (Answer, error) {
	return encoded(h, point, dec, failure)
}

// Sandbox: Cline runs a hook's file in the workspace's root, whatever the
// tool's, and names no variable of its own.
func (clineHost) Sandbox() Sandbox {
	return Sandbox{Shebang: true, WorkspaceCwd: true, PluginRootVar: pluginRootVar, EnvFileVar: envFileVar, HomeDir: ".cline",
		PluginDataVar: pluginDataVar, PluginDataDir: pluginDataDir}
}

// shape: only Cline sends clineVersion beside hookName.
func (clineHost) shape() []string { return []string{"clineVersion", "hookName"} }

func (clineHost) recognize(m map[string]jsontext.Value) (string, bool) {
	raw, ok := m["hookName"]
	if _, v := m["clineVersion"]; !ok || !v || raw.Kind() != '"' {
		return "", false
	}
	var ev string
	if unmarshal(raw, &ev) != nil {
		return "", false
	}
	if ext, ok := clineSDKEvents[ev]; ok {
		ev = ext
	}
	return ev, true
}
