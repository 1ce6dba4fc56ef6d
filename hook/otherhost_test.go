package hook

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Payloads of one host given in another host's dialect: each is refused
// (ErrOtherHost, ErrInvalid), naming the host it looks like, before any
// hook runs. Read as the named host's, a deny at an event that host does
// not know would be let through as an allow (issue 44, finding 5).
var otherHostCases = []struct {
	name    string
	dialect Dialect
	event   string
	looks   Dialect
}{
	{"claude PreToolUse as cursor", Cursor, claudePreToolUse, Claude},
	{"claude PreToolUse as gemini", Gemini, claudePreToolUse, Claude},
	{"cursor beforeShellExecution as claude", Claude, cursorShell, Cursor},
	{"cursor beforeShellExecution as gemini", Gemini, cursorShell, Cursor},
	{"gemini BeforeTool as claude", Claude, geminiBeforeTool, Gemini},
	{"gemini BeforeTool as cursor", Cursor, geminiBeforeTool, Gemini},
	{"claude Stop, no permission_mode, as cursor", Cursor, `{"hook_event_name":"Stop","session_id":"s","cwd":"/p","stop_hook_active":false}`, Claude},
	{"gemini SessionStart (its timestamp) as claude", Claude,
		`{"hook_event_name":"SessionStart","session_id":"s","cwd":"/p","timestamp":"2026-08-21T10:00:00Z","source":"startup"}`, Gemini},
	{"claude SessionStart (its permission_mode) as gemini", Gemini,
		`{"hook_event_name":"SessionStart","session_id":"s","cwd":"/p","permission_mode":"default","source":"startup"}`, Claude},
	{"a bare cursor event as claude", Claude, `{"hook_event_name":"beforeReadFile","cwd":"/p","file_path":"/p/.env"}`, Cursor},
	{"an event Claude and Gemini share, as cursor: Sniff decides", Cursor,
		`{"hook_event_name":"SessionStart","session_id":"s","cwd":"/p","source":"startup"}`, Claude},
}

func TestParseRefusesAnotherHostsEvent(t *testing.T) {
	t.Parallel()
	for _, tc := range otherHostCases {
		t.Run(tc.name, func(t *testing.T) {
			e, err := ParseEnvelope(tc.dialect, []byte(tc.event))
			if !errors.Is(err, ErrOtherHost) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("ParseEnvelope(%s) = %+v, %v; want ErrOtherHost and ErrInvalid", tc.dialect, e, err)
			}
			var oh *OtherHostError
			if !errors.As(err, &oh) || oh.Looks != tc.looks || oh.Dialect != tc.dialect || len(oh.Signs) == 0 {
				t.Fatalf("error %#v, want an *OtherHostError saying %s, not %s, with its signs", err, tc.looks, tc.dialect)
			}
			if msg := err.Error(); !strings.Contains(msg, string(tc.looks)) || !strings.Contains(msg, string(tc.dialect)) {
				t.Errorf("message %q names neither %s nor %s", msg, tc.looks, tc.dialect)
			}
		})
	}
}

// Events a host's dialect still reads as its own: shared event names
// (SessionStart, Notification) without another host's members, and
// events of the dialect's own that carry none of its members.
func TestParseKeepsWhatFitsTheDialect(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		dialect Dialect
		event   string
	}{
		{Claude, claudePreToolUse},
		{Cursor, cursorShell},
		{Gemini, geminiBeforeTool},
		{Claude, `{"hook_event_name":"SessionStart","cwd":"/p","source":"startup","model":"m"}`},
		{Gemini, `{"hook_event_name":"SessionStart","cwd":"/p","source":"startup"}`},
		{Gemini, `{"hook_event_name":"Notification","cwd":"/p","message":"m"}`},
		{Cursor, `{"hook_event_name":"beforeReadFile","cwd":"/p","file_path":"/p/a"}`},
		{Claude, `{"hook_event_name":"FutureEvent","cwd":"/p","new_field":1}`},
		{Cursor, `{"hook_event_name":"futureEvent","conversation_id":"c","cwd":"/p"}`},
	} {
		if _, err := ParseEnvelope(tc.dialect, []byte(tc.event)); err != nil {
			t.Errorf("ParseEnvelope(%s, %s): %v", tc.dialect, tc.event, err)
		}
	}
}

// Every payload of the public corpus (e2e/testdata/corpus) reads in its
// own host's dialect and is refused in the other two.
func TestCorpusPayloadsFitTheirHost(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob(filepath.Join("..", "e2e", "testdata", "corpus", "*", "cases.json"))
	if len(files) == 0 {
		t.Skip("no corpus at ../e2e/testdata/corpus")
	}
	n := 0
	for _, f := range files {
		host := Dialect(strings.SplitN(filepath.Base(filepath.Dir(f)), "-", 2)[0])
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cases []struct {
			Name    string          `json:"name"`
			Event   string          `json:"event"`
			Payload json.RawMessage `json:"payload"`
		}
		if err := json.Unmarshal(b, &cases); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, c := range cases {
			n++
			if _, err := ParseAt(host, c.Event, c.Payload); err != nil {
				t.Errorf("%s %s: its own dialect refuses it: %v", f, c.Name, err)
			}
			for _, other := range []Dialect{Claude, Codex, Cursor, Gemini} {
				if other == host || sharedEvent(host, other, c.Payload) {
					continue
				}
				var oh *OtherHostError
				if _, err := ParseEnvelope(other, c.Payload); !errors.As(err, &oh) || oh.Looks != host {
					t.Errorf("%s %s as %s: %v, want it refused as a %s payload", f, c.Name, other, err, host)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no payloads in the corpus")
	}
}

// sharedEvent: a Claude Code payload read as Codex's, at an event both
// have, is not refused: Codex's payload is Claude's with more (turn_id,
// model), and at such an event both read the same answer. Nor is
// Copilot's VS Code compatible payload (a PascalCase event's), which is
// Claude Code's by design.
func sharedEvent(host, other Dialect, payload []byte) bool {
	var e struct {
		Event string `json:"hook_event_name"`
	}
	json.Unmarshal(payload, &e)
	if host == Copilot && e.Event != "" {
		return true
	}
	if !(host == Claude && other == Codex) {
		return false
	}
	_, claude := ClaudeEvents[e.Event]
	_, codex := CodexEvents[e.Event]
	return claude && codex
}

// A payload GitHub Copilot CLI sends to a hook of .claude/settings.json
// (its PascalCase events: Claude's shape with an ISO timestamp) reads as
// Claude Code's, the dialect its installed command names.
func TestCopilotRunsClaudeHooks(t *testing.T) {
	t.Parallel()
	b := []byte(`{"hook_event_name":"PreToolUse","session_id":"s","timestamp":"2026-02-09T10:30:00.000Z","cwd":"/repo","tool_name":"Bash","tool_input":{"command":"rm -rf dist"}}`)
	e, err := ParseEnvelope(Claude, b)
	if err != nil || e.Point != "PreToolUse" || e.ToolName != "Bash" || !e.CanBlock {
		t.Fatalf("%+v %v", e, err)
	}
	if d, _ := Sniff(b); d != Claude {
		t.Errorf("Sniff = %s, want claude", d)
	}
}
