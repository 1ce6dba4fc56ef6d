package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/hookexec/hook-exec/internal/secretname"
)

// Bernstein: the {event, task, session_id, workdir, env, timestamp, data}
// envelope and single-line JSON decisions.
const Bernstein Dialect = "bernstein"

// BernsteinAnswer is what a bernstein answer says beyond allow, deny and
// mutate.
type BernsteinAnswer struct {
	// Annotations (annotate) are merged into the event's data for later
	// hooks; the action stays allow.
	Annotations json.RawMessage
	// Raw keeps a record whose verb was unknown and normalised to allow.
	Raw json.RawMessage
}

var _ Extension = (*BernsteinAnswer)(nil)

// Redact redacts the annotations and the record the hook wrote.
func (a *BernsteinAnswer) Redact() Extension {
	r := *a
	for _, raw := range []*json.RawMessage{&r.Annotations, &r.Raw} {
		if len(*raw) > 0 {
			*raw = RedactJSON(*raw)
		}
	}
	return &r
}

// BernsteinOf is the bernstein part of d, zero when it has none.
func BernsteinOf(d Decision) BernsteinAnswer {
	if a, ok := d.Extension.(*BernsteinAnswer); ok && a != nil {
		return *a
	}
	return BernsteinAnswer{}
}

// bernsteinHost runs a script by its #! line, in the event's workdir.
type bernsteinHost struct{}

var _ Host = bernsteinHost{}

func (bernsteinHost) Name() Dialect { return Bernstein }

func (bernsteinHost) Parse(b []byte) (*Envelope, error) { return parseBernstein(b) }

// CheckMatcher accepts anything: a bernstein hook has no matcher.
func (bernsteinHost) CheckMatcher(string) error { return nil }

func (bernsteinHost) Matches(string, *Envelope) bool { return true }

func (bernsteinHost) Interpret(_ *Envelope, exitCode int, stdout, stderr []byte) (*Decision, error) {
	d, err := parseBernsteinDecision(stdout)
	switch {
	case err == nil && d.Action == Deny:
		// A deny the hook wrote stands whatever its exit status: a
		// guard that refused and then failed has still refused.
		return d, nil
	case exitCode == 0:
		return d, err
	case exitCode == 2:
		// A blocking error: the pipeline halts and stderr is surfaced.
		return &Decision{SchemaVersion: 1, Action: Deny, Reason: reasonFrom(stderr, "blocking error (exit 2)")}, nil
	}
	// Anything else, an allow included, is honoured only on exit 0.
	if err := missing(exitCode, stderr); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("%w: status %d (a hook failure, not a deny)", ErrExit, exitCode)
}

func (bernsteinHost) Encode(_ string, dec Decision, _ *Failure) ([]byte, error) {
	ext := BernsteinOf(dec)
	if raw := jsontext.Value(ext.Raw); dec.Action == Allow && raw.Kind() == '{' && raw.IsValid() {
		// A record Bernstein normalises to allow is passed on as the
		// hook wrote it (redacted): Bernstein keeps it for its
		// downstream consumers.
		return append(bytes.Clone(ext.Raw), '\n'), nil
	}
	out := struct {
		Decision string          `json:"decision"`
		Reason   string          `json:"reason,omitempty"`
		Data     json.RawMessage `json:"data,omitempty"`
	}{Decision: "allow", Reason: dec.Reason}
	switch {
	case dec.Action == Deny || dec.Action == RequestApproval:
		out.Decision = "deny"
	case dec.Action == Modify:
		var m map[string]json.RawMessage
		json.Unmarshal(dec.Mutations, &m)
		out.Decision, out.Data = "mutate", m["data"]
	case len(ext.Annotations) > 0:
		out.Decision, out.Data = "annotate", ext.Annotations
	}
	b, err := json.Marshal(out)
	return append(b, '\n'), err
}

func (bernsteinHost) DefaultFailurePolicy(m Mode, _ bool) FailurePolicy {
	return defaultFailurePolicy(m)
}

func (bernsteinHost) HookVars(string) map[string]string { return nil }

// Answer implements Host: Bernstein records a deny on stdout as the hook's
// own structured refusal; a run that failed is not one, and answers by
// status: a blocking error (2) for an event it could not read, else a hook
// failure (1). The failure's line is the caller's to print.
func (h bernsteinHost) Answer(point string, dec Decision, failure *Failure) (Answer, error) {
	if failure != nil && dec.Action == Deny {
		if failure.Kind == FailInvalidEvent {
			return Answer{Exit: ExitBlock}, nil
		}
		return Answer{Exit: ExitHookFailed}, nil
	}
	return encoded(h, point, dec, failure)
}

func (bernsteinHost) Sandbox() Sandbox {
	return Sandbox{Shebang: true, EventCwd: true, PluginRootVar: pluginRootVar, EnvFileVar: envFileVar, VarPrefix: "BERNSTEIN_", PluginDataVar: pluginDataVar, PluginDataDir: pluginDataDir}
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

// bernsteinAnswer is the members of a bernstein answer hook-exec reads;
// Bernstein ignores the others, and so does hook-exec.
var bernsteinAnswer = []string{"decision", "reason", "data"}

// parseBernsteinDecision reads a bernstein hook's stdout: the last line
// that is a JSON object is the decision; empty, plain or non-object output
// is an implicit allow; a record without a decision, or with a verb
// Bernstein does not know, is an allow with the record kept (BernsteinAnswer.Raw) for
// whoever reads richer answers downstream.
func parseBernsteinDecision(stdout []byte) (*Decision, error) {
	allow := &Decision{SchemaVersion: 1, Action: Allow}
	if len(stdout) > MaxDecisionBytes {
		return nil, fmt.Errorf("%w: output is %d bytes, more than %d", ErrDecision, len(stdout), MaxDecisionBytes)
	}
	// The last line that is a JSON object is the decision: a line that
	// is one but does not read exactly (a duplicate member, a known name
	// in another case, a known member of the wrong type, invalid UTF-8, a
	// NaN Python's json writes) is refused, never skipped for an earlier
	// line. A line that only begins with { and names no member ({not
	// json) is plain text, which Bernstein reads as an implicit allow.
	// Other members are ignored, as Bernstein ignores them.
	out := bytes.TrimSpace(stdout)
	lines := bytes.Split(out, []byte("\n"))
	var line []byte
	for i := len(lines) - 1; i >= 0; i-- {
		l := bytes.TrimSpace(lines[i])
		if bytes.HasPrefix(l, []byte("{")) && (bytes.Contains(l, []byte(`":`)) || jsontext.Value(l).IsValid()) {
			line = l
			break
		}
	}
	if line == nil {
		if len(lines) > 1 && bytes.HasPrefix(out, []byte("{")) && bytes.HasSuffix(out, []byte("}")) && bytes.Contains(out, []byte(`":`)) {
			// A decision written over several lines (indent=2): not the
			// single line Bernstein reads, and no plain text either.
			return nil, fmt.Errorf("%w: the decision spans %d lines: Bernstein reads a single-line JSON object", ErrDecision, len(lines))
		}
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
		return &Decision{SchemaVersion: 1, Action: Allow, Extension: &BernsteinAnswer{Raw: line}}, nil
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
		return &Decision{SchemaVersion: 1, Action: Deny, Reason: reason}, nil
	case "annotate":
		if !hasData || !isObject(rec.Data) {
			return nil, fmt.Errorf("%w: annotate needs a \"data\" object", ErrDecision)
		}
		return &Decision{SchemaVersion: 1, Action: Allow, Reason: reason, Extension: &BernsteinAnswer{Annotations: json.RawMessage(rec.Data)}}, nil
	case "mutate":
		if !hasData || !isObject(rec.Data) {
			return nil, fmt.Errorf("%w: mutate needs a \"data\" object", ErrDecision)
		}
		mut, _ := json.Marshal(map[string]json.RawMessage{"data": json.RawMessage(rec.Data)})
		return &Decision{SchemaVersion: 1, Action: Modify, Reason: reason, Mutations: mut}, nil
	}
	return &Decision{SchemaVersion: 1, Action: Allow, Reason: reason, Extension: &BernsteinAnswer{Raw: line}}, nil
}
