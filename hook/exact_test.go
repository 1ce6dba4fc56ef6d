package hook

import (
	"bytes"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"testing"
	"unicode/utf8"

	"github.com/hookexec/hook-exec/internal/jsonoracle"
)

// Forged answers: bytes that another reader (a host in Python or
// JavaScript, jq) reads as one thing must not be acted on as another.
func TestDecisionsReadExactly(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, doc string }{
		{"another case of action", `{"schema_version":1,"action":"deny","reason":"x","ACTION":"allow"}`},
		{"another case of mutations", `{"schema_version":1,"action":"modify","mutations":{"args":{"path":"a"}},"Mutations":{"args":{"command":"rm -rf /"}}}`},
		{"a folded letter (U+017F) in reason", `{"schema_version":1,"action":"deny","reason":"x","reaſon":"y"}`},
		{"duplicate action", `{"schema_version":1,"action":"deny","reason":"x","action":"allow"}`},
		{"duplicate inside mutations", `{"schema_version":1,"action":"modify","mutations":{"args":{"p":"a","p":"b"}}}`},
		{"duplicate inside output", `{"schema_version":1,"action":"allow","output":{"k":1,"k":2}}`},
		{"invalid UTF-8 in reason", "{\"schema_version\":1,\"action\":\"deny\",\"reason\":\"\xff\"}"},
		{"lone surrogate in reason", `{"schema_version":1,"action":"deny","reason":"\ud800"}`},
		{"deny without a reason", `{"schema_version":1,"action":"deny"}`},
		{"deny with a blank reason", `{"schema_version":1,"action":"deny","reason":"  "}`},
		{"trailing value", `{"schema_version":1,"action":"allow"} {"schema_version":1,"action":"deny","reason":"x"}`},
	} {
		if d, err := ParseDecision([]byte(tc.doc), "tool.before"); !errors.Is(err, ErrDecision) {
			t.Errorf("%s: accepted as %+v (err %v), want ErrDecision", tc.name, d, err)
		}
	}
}

func TestEventsReadExactly(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, doc string }{
		{"another case of depth", `{"schema_version":1,"point":"tool.before","depth":5,"Depth":0,"data":{}}`},
		{"unknown member", `{"schema_version":1,"point":"tool.before","depth":0,"data":{},"extra":1}`},
		{"duplicate inside data", `{"schema_version":1,"point":"tool.before","depth":0,"data":{"a":1,"a":2}}`},
		{"timestamp not a number", `{"schema_version":1,"point":"tool.before","timestamp":"0","depth":0,"data":{}}`},
		{"invalid UTF-8", "{\"schema_version\":1,\"point\":\"tool.before\",\"depth\":0,\"data\":{\"x\":\"\xc0\"}}"},
	} {
		if e, err := ParseEvent([]byte(tc.doc)); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: accepted as %+v (err %v), want ErrInvalid", tc.name, e, err)
		}
	}
	e, err := ParseEvent([]byte(`{"schema_version":1,"point":"tool.before","depth":2,"data":{"args":{}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if e.Depth != 2 {
		t.Errorf("depth = %d, want 2", e.Depth)
	}
}

// independent reads a decision or an event with the second, independent
// reader: the top-level members by exact name.
func independent(b []byte) (map[string]any, error) {
	v, _, err := jsonoracle.Read(b)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("not an object")
	}
	return m, nil
}

// FuzzDecisionDifferential: whatever ParseDecision accepts, the
// independent reader reads the same way: valid UTF-8, no duplicate, only
// the contract's members by exact name, the same action and reason.
func FuzzDecisionDifferential(f *testing.F) {
	for _, s := range []string{
		`{"schema_version":1,"action":"allow"}`,
		`{"schema_version":1,"action":"deny","reason":"no"}`,
		`{"schema_version":1,"action":"deny","reason":"x","ACTION":"allow"}`,
		`{"schema_version":1,"action":"modify","mutations":{"args":{"a":1}},"output":{"k":[1,{"b":"\u00e9"}]}}`,
		`{"schema_version":1,"action":"request_approval","reason":"re\u017Fon"}`,
		`{"schema_version":1,"action":"deny","reason":"\ud83d\ude00"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := ParseDecision(b, "tool.before")
		if err != nil {
			return
		}
		if !utf8.Valid(bytes.TrimSpace(b)) {
			t.Fatalf("accepted invalid UTF-8: %q", b)
		}
		m, err := independent(bytes.TrimSpace(b))
		if err != nil {
			t.Fatalf("accepted what the independent reader refuses (%v): %q", err, b)
		}
		for k := range m {
			switch k {
			case "schema_version", "action", "reason", "mutations", "output":
			default:
				t.Fatalf("accepted a member %q the contract does not have: %q", k, b)
			}
		}
		if got, _ := m["action"].(string); got != string(d.Action) {
			t.Fatalf("action %q, the independent reader says %q: %q", d.Action, got, b)
		}
		if got, _ := m["reason"].(string); got != d.Reason {
			t.Fatalf("reason %q, the independent reader says %q: %q", d.Reason, got, b)
		}
	})
}

// FuzzEventDifferential does the same for events: depth and point as the
// independent reader reads them.
func FuzzEventDifferential(f *testing.F) {
	f.Add([]byte(`{"schema_version":1,"point":"tool.before","depth":1,"data":{"a":"b"}}`))
	f.Add([]byte(`{"schema_version":1,"point":"tool.before","depth":5,"Depth":0,"data":{}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := ParseEvent(b)
		if err != nil {
			return
		}
		m, err := independent(bytes.TrimSpace(b))
		if err != nil {
			t.Fatalf("accepted what the independent reader refuses (%v): %q", err, b)
		}
		if got, _ := m["point"].(string); got != e.Point {
			t.Fatalf("point %q, the independent reader says %q", e.Point, got)
		}
		if n, ok := m["depth"].(stdjson.Number); ok {
			if got, err := n.Int64(); err != nil || got != int64(e.Depth) {
				t.Fatalf("depth %d, the independent reader says %v", e.Depth, n)
			}
		} else if e.Depth != 0 {
			t.Fatalf("depth %d without a depth member", e.Depth)
		}
	})
}
