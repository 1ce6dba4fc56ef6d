package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Event is the holaryn event contract (schema_version 1). Data stays raw:
// the executor passes the event bytes through unchanged.
type Event struct {
	SchemaVersion int             `json:"schema_version"`
	EventID       string          `json:"event_id"`
	Timestamp     json.Number     `json:"timestamp"`
	Point         string          `json:"point"`
	SessionID     string          `json:"session_id"`
	RunID         string          `json:"run_id"`
	TraceID       string          `json:"trace_id"`
	Workspace     string          `json:"workspace"`
	Depth         int             `json:"depth"`
	Data          json.RawMessage `json:"data"`
}

// ParseEvent checks an event's envelope: one JSON object, schema_version 1,
// a point, a non-negative depth and an object as data.
func ParseEvent(b []byte) (*Event, error) {
	if err := checkJSON(b); err != nil {
		return nil, fmt.Errorf("%w: event: %w", ErrInvalid, err)
	}
	var e Event
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, fmt.Errorf("%w: event: %w", ErrInvalid, err)
	}
	switch {
	case e.SchemaVersion != 1:
		return nil, fmt.Errorf("%w: event schema_version %d: want 1", ErrInvalid, e.SchemaVersion)
	case e.Point == "":
		return nil, fmt.Errorf("%w: event has no point", ErrInvalid)
	case e.Depth < 0:
		return nil, fmt.Errorf("%w: event depth %d is negative", ErrInvalid, e.Depth)
	case len(e.Data) > 0 && !bytes.HasPrefix(bytes.TrimSpace(e.Data), []byte("{")):
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

// checkJSON accepts exactly one JSON object with no duplicate member names
// at any depth and nothing after it.
func checkJSON(b []byte) error {
	d := json.NewDecoder(bytes.NewReader(b))
	tok, err := d.Token()
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	if tok != json.Delim('{') {
		return fmt.Errorf("not a JSON object")
	}
	if err := walkObject(d, 1); err != nil {
		return err
	}
	if _, err := d.Token(); err == nil {
		return fmt.Errorf("more than one JSON value")
	} else if !errors.Is(err, io.EOF) {
		return fmt.Errorf("data after the JSON object: %w", err)
	}
	return nil
}

const maxNesting = 64

// walkObject reads the members of an object whose '{' was read.
func walkObject(d *json.Decoder, depth int) error {
	if depth > maxNesting {
		return fmt.Errorf("nested deeper than %d", maxNesting)
	}
	seen := map[string]bool{}
	for d.More() {
		k, err := d.Token()
		if err != nil {
			return err
		}
		name := k.(string)
		if seen[name] {
			return fmt.Errorf("duplicate member %q", name)
		}
		seen[name] = true
		if err := walkValue(d, depth); err != nil {
			return err
		}
	}
	_, err := d.Token()
	return err
}

func walkValue(d *json.Decoder, depth int) error {
	tok, err := d.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		return walkObject(d, depth+1)
	case json.Delim('['):
		if depth+1 > maxNesting {
			return fmt.Errorf("nested deeper than %d", maxNesting)
		}
		for d.More() {
			if err := walkValue(d, depth+1); err != nil {
				return err
			}
		}
		_, err := d.Token()
		return err
	}
	return nil
}
