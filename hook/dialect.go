package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/hookexec/hook-exec/internal/secretname"
)

// Dialect is the wire protocol of the host a hook answers: what its event
// looks like, how its answer is read, how the final decision is written.
type Dialect string

const (
	// Holaryn: the JSON event contract and strict JSON decisions.
	Holaryn Dialect = "holaryn"
	// Arcturn: {event, toolName, input, cwd} on stdin; exit 2 denies with
	// stderr as the reason; everything else fails open.
	Arcturn Dialect = "arcturn"
	// Bernstein: the {event, task, session_id, workdir, env, timestamp, data}
	// envelope and single-line JSON decisions.
	Bernstein Dialect = "bernstein"
)

// ParseDialect accepts the dialect names.
func ParseDialect(s string) (Dialect, error) {
	switch d := Dialect(s); d {
	case Holaryn, Arcturn, Bernstein, Claude:
		return d, nil
	}
	return "", fmt.Errorf("%w: dialect %q: use holaryn, arcturn, bernstein or claude", ErrInvalid, s)
}

// DefaultFailurePolicy is a dialect's failure policy for a failure when
// the hook sets none; own says the hook ran and failed on its own (see
// FailureKind.HooksOwn). Observational hooks warn. Blocking hooks fail
// closed, with one exception: an arcturn hook that ran and failed on its
// own (Arcturn's contract: such failures fail open) warns. A hook that
// could not run at all (a refused script, a missing program, an engine
// that is down, a timeout before it started) is refused in every dialect:
// the guard never ran.
func (d Dialect) DefaultFailurePolicy(m Mode, own bool) FailurePolicy {
	if m == Observational || (d == Arcturn && own) {
		return Warn
	}
	return Deny
}

// ErrExit is the class of a hook's non-zero exit that its dialect reads as a
// failure (trace kind exit_nonzero).
var ErrExit = errors.New("hook exited non-zero")

// ErrMissing is the class of a hook's exit 126 or 127: its shell could not
// run a program the hook runs (not found, not executable, such as a
// missing jq). The hook as written never ran (trace kind missing_program),
// in every dialect: Arcturn's "other exits fail open" is for a hook that
// ran and failed.
var ErrMissing = errors.New("a program the hook runs is missing or not executable")

// missing is the failure of an exit 126 or 127, or nil.
func missing(exitCode int, stderr []byte) error {
	if exitCode != exitNotExecutable && exitCode != exitNotFound {
		return nil
	}
	return fmt.Errorf("%w: status %d: %s", ErrMissing, exitCode, reasonFrom(stderr, "no message"))
}

// Envelope is what the executor needs of an event, whatever its dialect.
type Envelope struct {
	Dialect   Dialect
	Point     string // holaryn point; arcturn or bernstein event name
	EventID   string
	SessionID string
	Depth     int
	Workspace string // holaryn workspace, arcturn cwd, bernstein workdir
	ToolName  string // for arcturn matchers
	// CanBlock is false where a deny cannot stop anything (arcturn's events
	// other than preToolUse): a deny there is let through as allow.
	CanBlock bool
	vars     map[string]string
}

// EnvVars returns the event variables a sandbox gets for this event.
func (e *Envelope) EnvVars(hookID string) map[string]string {
	vars := map[string]string{}
	for k, v := range e.vars {
		vars[k] = v
	}
	if e.Dialect == Holaryn {
		vars["HOLARYN_HOOK_ID"] = hookID
	}
	for k, v := range vars {
		if v == "" || strings.IndexByte(v, 0) >= 0 {
			delete(vars, k)
		}
	}
	return vars
}

// ParseEnvelope checks an event in its dialect before anything runs.
func ParseEnvelope(d Dialect, b []byte) (*Envelope, error) {
	switch d {
	case Holaryn:
		ev, err := ParseEvent(b)
		if err != nil {
			return nil, err
		}
		vars := ev.EnvVars("")
		delete(vars, "HOLARYN_HOOK_ID")
		return &Envelope{Dialect: d, Point: ev.Point, EventID: ev.EventID, SessionID: ev.SessionID,
			Depth: ev.Depth, Workspace: ev.Workspace, CanBlock: true, vars: vars}, nil
	case Arcturn:
		return parseArcturn(b)
	case Bernstein:
		return parseBernstein(b)
	case Claude:
		return parseClaude(b)
	}
	return nil, fmt.Errorf("%w: dialect %q", ErrInvalid, d)
}

// objectOf decodes a host's payload exactly: a duplicate member (at any
// depth) or one of names in another case is refused. A member not in
// names is left alone: a newer host adds members, and the hook still gets
// the payload's original bytes, so what is not read here is passed on.
func objectOf(b []byte, names ...string) (map[string]jsontext.Value, error) {
	m, err := object(b)
	if err == nil {
		err = exactNames(m, names)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: event: %w", ErrInvalid, err)
	}
	return m, nil
}

func stringField(m map[string]jsontext.Value, key string, required bool) (string, error) {
	raw, ok := m[key]
	if !ok {
		if required {
			return "", fmt.Errorf("%w: event has no %q", ErrInvalid, key)
		}
		return "", nil
	}
	if raw.Kind() != '"' {
		return "", fmt.Errorf("%w: event %q must be a string", ErrInvalid, key)
	}
	var s string
	if err := unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("%w: event %q: %w", ErrInvalid, key, err)
	}
	return s, nil
}

// nullableString reads an optional string member that its host writes as
// null when it has no value (Bernstein's task and session_id).
func nullableString(m map[string]jsontext.Value, key string) (string, error) {
	if raw, ok := m[key]; ok && raw.Kind() == 'n' {
		return "", nil
	}
	return stringField(m, key, false)
}

func isObject(raw []byte) bool { return jsontext.Value(raw).Kind() == '{' }

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

// Matches reports whether a hook's matcher selects the event: arcturn's
// tool matcher (MatchTool), Claude Code's (MatchClaude); other dialects
// have none.
func Matches(d Dialect, matcher string, e *Envelope) bool {
	switch d {
	case Arcturn:
		return MatchTool(matcher, e.ToolName, e.ToolName != "")
	case Claude:
		return MatchClaude(matcher, e.ToolName)
	}
	return true
}

// BernsteinSchemas are the required data keys of the seven cross-CLI
// events; other events accept any payload.
var BernsteinSchemas = map[string][]string{
	"sessionStart":        {"session_id"},
	"userPromptSubmitted": {"session_id", "prompt"},
	"preToolUse":          {"session_id", "tool", "args"},
	"postToolUse":         {"session_id", "tool", "args", "result"},
	"errorOccurred":       {"session_id", "error_class", "message"},
	"idle":                {"session_id", "idle_duration_s"},
	"sessionEnd":          {"session_id", "status"},
}

// bernsteinMembers are the envelope's members hook-exec reads; data is
// the event's own. Others are passed on unread.
var bernsteinMembers = []string{"event", "task", "session_id", "workdir", "env", "timestamp", "data"}

// parseBernstein reads a bernstein envelope. task and session_id may be
// null (Bernstein writes null when the event has none). A data member
// that has keys is checked against the event's schema; an empty one is
// Bernstein's empty context (`bernstein hooks run`), which Bernstein
// fires unchecked.
func parseBernstein(b []byte) (*Envelope, error) {
	m, err := objectOf(b, bernsteinMembers...)
	if err != nil {
		return nil, err
	}
	event, err := stringField(m, "event", true)
	if err != nil {
		return nil, err
	}
	task, err := nullableString(m, "task")
	if err != nil {
		return nil, err
	}
	session, err := nullableString(m, "session_id")
	if err != nil {
		return nil, err
	}
	workdir, err := stringField(m, "workdir", false)
	if err != nil {
		return nil, err
	}
	if raw, ok := m["timestamp"]; ok && raw.Kind() != '0' {
		return nil, fmt.Errorf("%w: bernstein \"timestamp\" must be a number", ErrInvalid)
	}
	var data map[string]jsontext.Value
	if raw, ok := m["data"]; ok && raw.Kind() != 'n' {
		if !isObject(raw) {
			return nil, fmt.Errorf("%w: bernstein \"data\" must be an object", ErrInvalid)
		}
		if data, err = object(raw); err != nil {
			return nil, fmt.Errorf("%w: bernstein \"data\": %w", ErrInvalid, err)
		}
	}
	if len(data) > 0 {
		if err := requiredKeys(event, data); err != nil {
			return nil, err
		}
	}
	if raw, ok := data["session_id"]; session == "" && ok && raw.Kind() == '"' {
		unmarshal(raw, &session)
	}
	vars := map[string]string{
		"BERNSTEIN_EVENT":      event,
		"BERNSTEIN_TASK_ID":    task,
		"BERNSTEIN_SESSION_ID": session,
		"BERNSTEIN_WORKDIR":    workdir,
	}
	if raw, ok := m["env"]; ok && raw.Kind() != 'n' {
		var env map[string]any
		if unmarshal(raw, &env) != nil || env == nil {
			return nil, fmt.Errorf("%w: bernstein \"env\" must be an object", ErrInvalid)
		}
		for k, v := range env {
			s, isStr := v.(string)
			// Only BERNSTEIN_* passes, and never a secret-like name: the rest is stripped.
			if _, secret := secretname.Match(k); isStr && strings.HasPrefix(k, "BERNSTEIN_") && !secret {
				if _, set := vars[k]; !set {
					vars[k] = s
				}
			}
		}
	}
	return &Envelope{Dialect: Bernstein, Point: event, SessionID: session, Workspace: workdir, CanBlock: true, vars: vars}, nil
}

// CheckBernsteinData checks an event's data (a JSON object) against the
// event's schema, as Bernstein checks a payload that is supplied (dry-run
// --payload, a dispatch with a payload), an empty one included.
func CheckBernsteinData(event string, data []byte) error {
	m, err := object(data)
	if err != nil {
		return fmt.Errorf("%w: bernstein \"data\": %w", ErrInvalid, err)
	}
	return requiredKeys(event, m)
}

// requiredKeys refuses data that lacks a key the event's schema requires.
func requiredKeys(event string, data map[string]jsontext.Value) error {
	for _, k := range BernsteinSchemas[event] {
		if _, ok := data[k]; !ok {
			return fmt.Errorf("%w: bernstein %s payload is missing the required key %q", ErrInvalid, event, k)
		}
	}
	return nil
}

// Interpret reads a finished hook's exit status and output in its dialect.
// The error is ErrExit for a failing exit, ErrDecision for an answer that
// cannot be read.
func Interpret(e *Envelope, exitCode int, stdout, stderr []byte) (*Decision, error) {
	switch e.Dialect {
	case Holaryn:
		if exitCode != 0 {
			// A refusal the hook wrote before it failed still refuses;
			// an allow or a modify counts only on exit 0.
			if d, err := ParseDecision(stdout, e.Point); err == nil && d.refuses() {
				return d, nil
			}
			if err := missing(exitCode, stderr); err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("%w: status %d", ErrExit, exitCode)
		}
		return ParseDecision(stdout, e.Point)
	case Arcturn:
		switch exitCode {
		case 0:
			return &Decision{SchemaVersion: 1, Action: Allow}, nil
		case 2:
			return &Decision{SchemaVersion: 1, Action: DenyAction, Reason: reasonFrom(stderr, "blocked by "+e.Point+" hook")}, nil
		}
		if err := missing(exitCode, stderr); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: status %d", ErrExit, exitCode)
	case Bernstein:
		d, err := parseBernsteinDecision(stdout)
		switch {
		case err == nil && d.Action == DenyAction:
			// A deny the hook wrote stands whatever its exit status: a
			// guard that refused and then failed has still refused.
			return d, nil
		case exitCode == 0:
			return d, err
		case exitCode == 2:
			// A blocking error: the pipeline halts and stderr is surfaced.
			return &Decision{SchemaVersion: 1, Action: DenyAction, Reason: reasonFrom(stderr, "blocking error (exit 2)")}, nil
		}
		// Anything else, an allow included, is honoured only on exit 0.
		if err := missing(exitCode, stderr); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: status %d (a hook failure, not a deny)", ErrExit, exitCode)
	case Claude:
		return interpretClaude(e, exitCode, stdout, stderr)
	}
	return nil, fmt.Errorf("%w: dialect %q", ErrInvalid, e.Dialect)
}

// maxReasonBytes bounds a reason taken from stderr.
const maxReasonBytes = 1024

func reasonFrom(stderr []byte, fallback string) string {
	s := strings.TrimSpace(strings.ToValidUTF8(string(stderr), "\uFFFD"))
	if len(s) > maxReasonBytes {
		s = strings.ToValidUTF8(s[:maxReasonBytes], "")
	}
	if s == "" {
		return fallback
	}
	return s
}

// bernsteinAnswer is the members of a bernstein answer hook-exec reads;
// Bernstein ignores the others, and so does hook-exec.
var bernsteinAnswer = []string{"decision", "reason", "data"}

// parseBernsteinDecision reads a bernstein hook's stdout: the last line
// that is a JSON object is the decision; empty, plain or non-object output
// is an implicit allow; a record without a decision, or with a verb
// Bernstein does not know, is an allow with the record kept (Raw) for
// whoever reads richer answers downstream.
func parseBernsteinDecision(stdout []byte) (*Decision, error) {
	allow := &Decision{SchemaVersion: 1, Action: Allow}
	if len(stdout) > MaxDecisionBytes {
		return nil, fmt.Errorf("%w: output is %d bytes, more than %d", ErrDecision, len(stdout), MaxDecisionBytes)
	}
	// The last line that is a JSON object is the decision: a line that
	// opens one but does not read exactly (a duplicate member, a known
	// name in another case, a known member of the wrong type, invalid
	// UTF-8) is refused, never skipped for an earlier line. Other members
	// are ignored, as Bernstein ignores them.
	lines := bytes.Split(bytes.TrimSpace(stdout), []byte("\n"))
	var line []byte
	for i := len(lines) - 1; i >= 0; i-- {
		if l := bytes.TrimSpace(lines[i]); bytes.HasPrefix(l, []byte("{")) {
			line = l
			break
		}
	}
	if line == nil {
		return allow, nil
	}
	var rec struct {
		Decision *string        `json:"decision"`
		Reason   jsontext.Value `json:"reason"`
		Data     jsontext.Value `json:"data"`
	}
	if err := decodeOpen(line, &rec, bernsteinAnswer); err != nil {
		return nil, fmt.Errorf("%w: the last JSON line: %w", ErrDecision, err)
	}
	if rec.Decision == nil {
		return &Decision{SchemaVersion: 1, Action: Allow, Raw: line}, nil
	}
	reason := ""
	switch rec.Reason.Kind() {
	case '"':
		unmarshal(rec.Reason, &reason)
	case 0, 'n':
	default:
		reason = string(rec.Reason)
	}
	hasData := len(rec.Data) > 0 && rec.Data.Kind() != 'n'
	switch *rec.Decision {
	case "allow":
		return &Decision{SchemaVersion: 1, Action: Allow, Reason: reason}, nil
	case "deny":
		return &Decision{SchemaVersion: 1, Action: DenyAction, Reason: reason}, nil
	case "annotate":
		if !hasData || !isObject(rec.Data) {
			return nil, fmt.Errorf("%w: annotate needs a \"data\" object", ErrDecision)
		}
		return &Decision{SchemaVersion: 1, Action: Allow, Reason: reason, Annotations: json.RawMessage(rec.Data)}, nil
	case "mutate":
		if !hasData || !isObject(rec.Data) {
			return nil, fmt.Errorf("%w: mutate needs a \"data\" object", ErrDecision)
		}
		mut, _ := json.Marshal(map[string]json.RawMessage{"data": json.RawMessage(rec.Data)})
		return &Decision{SchemaVersion: 1, Action: Modify, Reason: reason, Mutations: mut}, nil
	}
	return &Decision{SchemaVersion: 1, Action: Allow, Reason: reason, Raw: line}, nil
}

// Encode writes the final decision at point (the event's name) in the
// host's dialect, as one line. failure is the run's, nil when it ran
// cleanly: where the host reads a block as "keep working" (Claude's
// Stop), a decision that a failure policy made does not block.
func Encode(d Dialect, point string, dec Decision, failure *Failure) ([]byte, error) {
	var v any
	switch d {
	case Claude:
		return encodeClaude(point, dec, failure)
	case Holaryn:
		v = holaryn{SchemaVersion: 1, Action: dec.Action, Reason: dec.Reason, Mutations: dec.Mutations, Output: dec.Output}
	case Arcturn:
		action := "allow"
		if dec.Action == DenyAction {
			action = "deny"
		}
		v = struct {
			Decision string `json:"decision"`
			Reason   string `json:"reason,omitempty"`
		}{action, dec.Reason}
	case Bernstein:
		if raw := jsontext.Value(dec.Raw); dec.Action == Allow && raw.Kind() == '{' && raw.IsValid() {
			// A record Bernstein normalises to allow is passed on as the
			// hook wrote it (redacted): Bernstein keeps it for its
			// downstream consumers.
			return append(bytes.Clone(dec.Raw), '\n'), nil
		}
		out := struct {
			Decision string          `json:"decision"`
			Reason   string          `json:"reason,omitempty"`
			Data     json.RawMessage `json:"data,omitempty"`
		}{Decision: "allow", Reason: dec.Reason}
		switch {
		case dec.Action == DenyAction || dec.Action == RequestApproval:
			out.Decision = "deny"
		case dec.Action == Modify:
			var m map[string]json.RawMessage
			json.Unmarshal(dec.Mutations, &m)
			out.Decision, out.Data = "mutate", m["data"]
		case len(dec.Annotations) > 0:
			out.Decision, out.Data = "annotate", dec.Annotations
		}
		v = out
	default:
		return nil, fmt.Errorf("%w: dialect %q", ErrInvalid, d)
	}
	b, err := json.Marshal(v)
	return append(b, '\n'), err
}
