package hook

import (
	"errors"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Event is the holaryn event contract (schema_version 1). Data stays raw:
// the executor passes the event bytes through unchanged.
type Event struct {
	SchemaVersion int            `json:"schema_version"`
	EventID       string         `json:"event_id"`
	Timestamp     jsontext.Value `json:"timestamp,omitzero"`
	Point         string         `json:"point"`
	SessionID     string         `json:"session_id"`
	RunID         string         `json:"run_id"`
	TraceID       string         `json:"trace_id"`
	Workspace     string         `json:"workspace"`
	Depth         int            `json:"depth"`
	Data          jsontext.Value `json:"data,omitzero"`
}

// ParseEvent checks an event's envelope: one JSON object, schema_version 1,
// a point, a non-negative depth and an object as data.
func ParseEvent(b []byte) (*Event, error) {
	var e Event
	if err := unmarshal(b, &e); err != nil {
		return nil, fmt.Errorf("%w: event: %w", ErrInvalid, err)
	}
	switch {
	case len(e.Timestamp) > 0 && e.Timestamp.Kind() != '0':
		return nil, fmt.Errorf("%w: event timestamp must be a number", ErrInvalid)
	case e.SchemaVersion != 1:
		return nil, fmt.Errorf("%w: event schema_version %d: want 1", ErrInvalid, e.SchemaVersion)
	case e.Point == "":
		return nil, fmt.Errorf("%w: event has no point", ErrInvalid)
	case e.Depth < 0:
		return nil, fmt.Errorf("%w: event depth %d is negative", ErrInvalid, e.Depth)
	case len(e.Data) > 0 && e.Data.Kind() != '{':
		return nil, fmt.Errorf("%w: event data must be an object", ErrInvalid)
	}
	return &e, nil
}

// EnvVars are the HOLARYN_HOOK_* variables a hook's sandbox gets for the event.
func (e *Event) EnvVars(hookID string) map[string]string {
	vars := map[string]string{
		"HOLARYN_HOOK_ID":         hookID,
		"HOLARYN_HOOK_POINT":      e.Point,
		"HOLARYN_HOOK_EVENT_ID":   e.EventID,
		"HOLARYN_HOOK_SESSION_ID": e.SessionID,
		"HOLARYN_HOOK_RUN_ID":     e.RunID,
		"HOLARYN_HOOK_TRACE_ID":   e.TraceID,
		"HOLARYN_HOOK_DEPTH":      fmt.Sprint(e.Depth),
	}
	for k, v := range vars {
		if v == "" || strings.IndexByte(v, 0) >= 0 {
			delete(vars, k)
		}
	}
	return vars
}

// unmarshal decodes untrusted JSON exactly (json v2 semantics): member
// names match by exact name, never by case; a duplicate name, a member v
// does not know, invalid UTF-8 (a lone surrogate escape included) and
// anything after the value are refused. The same rules hold at every depth.
func unmarshal(b []byte, v any) error {
	return json.Unmarshal(b, v, json.RejectUnknownMembers(true))
}

// object decodes one JSON object's members exactly, without knowing them.
func object(b []byte) (map[string]jsontext.Value, error) {
	var m map[string]jsontext.Value
	if err := unmarshal(b, &m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, errors.New("not a JSON object")
	}
	return m, nil
}
