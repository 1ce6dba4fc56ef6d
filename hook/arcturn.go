package hook

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Arcturn: {event, toolName, input, cwd} on stdin; exit 2 denies with
// stderr as the reason; everything else fails open.
const Arcturn Dialect = "arcturn"

// arcturnHost runs a script by its #! line, in the event's cwd; its tool
// matcher is MatchTool.
type arcturnHost struct{}

var _ Host = arcturnHost{}

func (arcturnHost) Name() Dialect { return Arcturn }

func (arcturnHost) Parse(b []byte) (*Envelope, error) { return parseArcturn(b) }

// CheckMatcher accepts anything: every matcher is a name or a prefix.
func (arcturnHost) CheckMatcher(string) error { return nil }

func (arcturnHost) Matches(matcher string, e *Envelope) bool {
	return MatchTool(matcher, e.ToolName, e.ToolName != "")
}

func (arcturnHost) Interpret(e *Envelope, exitCode int, _, stderr []byte) (*Decision, error) {
	switch exitCode {
	case 0:
		return &Decision{SchemaVersion: 1, Action: Allow}, nil
	case 2:
		return &Decision{SchemaVersion: 1, Action: Deny, Reason: reasonFrom(stderr, "blocked by "+e.Point+" hook")}, nil
	}
	if err := missing(exitCode, stderr); err != nil {
		return nil, err
	}
	return nil, errExit(exitCode)
}

func (arcturnHost) Encode(_ string, dec Decision, _ *Failure) ([]byte, error) {
	action := "allow"
	if dec.Action == Deny {
		action = "deny"
	}
	b, err := json.Marshal(struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason,omitempty"`
	}{action, dec.Reason})
	return append(b, '\n'), err
}

// DefaultFailurePolicy follows Arcturn's contract: a hook that ran and
// failed on its own fails open (warns); one that could not run is refused.
func (arcturnHost) DefaultFailurePolicy(m Mode, own bool) FailurePolicy {
	if own {
		return PolicyWarn
	}
	return defaultFailurePolicy(m)
}

func (arcturnHost) HookVars(string) map[string]string { return nil }

// Answer implements Host: Arcturn reads a blocking exit's reason from
// stderr.
func (h arcturnHost) Answer(point string, dec Decision, failure *Failure) (Answer, error) {
	a, err := encoded(h, point, dec, failure)
	if dec.Action == Deny {
		a.Stderr, a.Exit = dec.Reason, ExitBlock
	}
	return a, err
}

func (arcturnHost) Sandbox() Sandbox {
	return Sandbox{Shebang: true, EventCwd: true, PluginRootVar: pluginRootVar, EnvFileVar: envFileVar, PluginDataVar: pluginDataVar, PluginDataDir: pluginDataDir}
}

// ArcturnEvents are the lifecycle points of an arcturn config.
var ArcturnEvents = []string{"preToolUse", "postToolUse", "sessionStart", "runEnd"}

// arcturnMembers are the members of an arcturn payload hook-exec reads
// (event and cwd added by the runner); others are passed on unread.
var arcturnMembers = []string{"event", "toolName", "input", "resultText", "isError", "cwd"}

// parseArcturn reads an arcturn payload: a known member has its type
// whatever the event; toolName and input are required at preToolUse and
// postToolUse, resultText and isError at postToolUse.
func parseArcturn(b []byte) (*Envelope, error) {
	m, err := objectOf(b, arcturnMembers...)
	if err != nil {
		return nil, err
	}
	event, err := stringField(m, "event", true)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(ArcturnEvents, event) {
		return nil, fmt.Errorf("%w: arcturn event %q: use one of %v", ErrInvalid, event, ArcturnEvents)
	}
	cwd, err := stringField(m, "cwd", true)
	if err != nil {
		return nil, err
	}
	toolEvent, post := event == "preToolUse" || event == "postToolUse", event == "postToolUse"
	tool, err := stringField(m, "toolName", toolEvent)
	if err != nil {
		return nil, err
	}
	if in, ok := m["input"]; (toolEvent && !ok) || (ok && !isObject(in)) {
		return nil, fmt.Errorf("%w: arcturn %s needs an \"input\" object", ErrInvalid, event)
	}
	if _, err := stringField(m, "resultText", post); err != nil {
		return nil, err
	}
	if raw, ok := m["isError"]; (post && !ok) || (ok && raw.Kind() != 't' && raw.Kind() != 'f') {
		return nil, fmt.Errorf("%w: arcturn %s needs a boolean \"isError\"", ErrInvalid, event)
	}
	e := &Envelope{Dialect: Arcturn, Point: event, Workspace: cwd, CanBlock: event == "preToolUse"}
	if toolEvent {
		// sessionStart and runEnd have no tool: their hooks always fire.
		e.ToolName = tool
	}
	return e, nil
}

// MatchTool reports whether an arcturn matcher selects a tool: omitted
// matches everything, a trailing * is a prefix glob, anything else is exact.
// Events without a tool (sessionStart, runEnd) always match.
func MatchTool(matcher, tool string, hasTool bool) bool {
	if matcher == "" || !hasTool {
		return true
	}
	if p, ok := strings.CutSuffix(matcher, "*"); ok {
		return strings.HasPrefix(tool, p)
	}
	return matcher == tool
}
