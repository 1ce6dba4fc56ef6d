package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

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
	if path == "" || strings.ContainsRune(path, 0) {
		return ""
	}
	if !filepath.IsAbs(path) {
		if !filepath.IsAbs(workspace) {
			return ""
		}
		path = filepath.Join(workspace, path)
	}
	return filepath.Clean(path)
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

// clineOutput is a hook's answer: the extension's members, the SDK's
// beside them (read, never written), and the one the extension refuses.
type clineOutput struct {
	Cancel              *bool          `json:"cancel"`
	ContextModification *string        `json:"contextModification"`
	ErrorMessage        *string        `json:"errorMessage"`
	Context             *string        `json:"context"`
	Review              jsontext.Value `json:"review"`
	OverrideInput       jsontext.Value `json:"overrideInput"`
	ShouldContinue      jsontext.Value `json:"shouldContinue"`
}

var clineOutputNames = []string{"cancel", "contextModification", "errorMessage", "context", "review", "overrideInput", "shouldContinue"}

// clineAnswer is the answer in a hook's stdout as Cline's extension
// finds it: the whole of it as one JSON object, else the last
// brace-balanced {...} in it (text before the JSON is a hook's debug
// output); nil when there is none, or it does not read as an answer (a
// member of the wrong type, null included, or the old shouldContinue).
func clineAnswer(stdout []byte) *clineOutput {
	read := func(b []byte) *clineOutput {
		if len(b) == 0 || b[0] != '{' || len(b) > MaxDecisionBytes {
			return nil
		}
		var o clineOutput
		if err := decodeOpen(b, &o, clineOutputNames); err != nil || len(o.ShouldContinue) > 0 {
			return nil
		}
		m, _ := object(b)
		for k, kind := range map[string]jsontext.Kind{"cancel": 't', "contextModification": '"', "errorMessage": '"', "context": '"'} {
			if raw, ok := m[k]; ok && raw.Kind() != kind && !(kind == 't' && raw.Kind() == 'f') {
				return nil // null too: Cline checks each one's type
			}
		}
		return &o
	}
	out := trimAnswer(stdout)
	if o := read(out); o != nil {
		return o
	}
	end := bytes.LastIndexByte(out, '}')
	depth := 0
	for i := end; i >= 0; i-- {
		switch out[i] {
		case '}':
			depth++
		case '{':
			if depth--; depth == 0 {
				return read(out[i : end+1])
			}
		}
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
	var a ClaudeAnswer
	if o.ContextModification != nil {
		a.Context = *o.ContextModification
	} else if o.Context != nil {
		a.Context = *o.Context
	}
	if o.Cancel != nil && *o.Cancel && known && ev.cancels {
		d.Action = Deny
		if o.ErrorMessage != nil {
			d.Reason = *o.ErrorMessage
		}
		if strings.TrimSpace(d.Reason) == "" {
			d.Reason = "cancelled by " + e.Point + " hook"
		}
	}
	return withClaude(d, a), nil
}

// Encode writes the final decision as Cline reads a hook's answer: cancel,
// its errorMessage, and the context; never null (Cline refuses an answer
// with one). A failure never cancels after the fact (PostToolUse: the
// tool ran), nor where nothing can be cancelled.
func (clineHost) Encode(point string, dec Decision, failure *Failure) ([]byte, error) {
	ev := ClineEvents[point]
	out := map[string]any{"cancel": false}
	refused := dec.Action == Deny || dec.Action == RequestApproval
	if refused && (ev.cancels || failure == nil) && !(failure != nil && ev.after) {
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
