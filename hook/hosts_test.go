package hook

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Payloads as Cursor (cursor-agent 2026.10) and Gemini CLI (0.56) send them.
const (
	cursorShell = `{"conversation_id":"c1","generation_id":"g1","model":"auto","hook_event_name":"beforeShellExecution",` +
		`"cursor_version":"2.1.0","workspace_roots":["/work/p"],"user_email":null,"transcript_path":null,` +
		`"session_id":"c1","command":"rm -rf build","cwd":"/work/p/sub","sandbox":false}`
	geminiBeforeTool = `{"session_id":"s1","transcript_path":"/home/u/.gemini/tmp/x/chats/s1.json","cwd":"/work/p",` +
		`"hook_event_name":"BeforeTool","timestamp":"2026-08-21T10:00:00.000Z","tool_name":"run_shell_command",` +
		`"tool_input":{"command":"rm -rf build"},"mcp_context":null}`
)

type answerCase struct {
	name   string
	code   int
	out    string // stdout, and stderr too
	want   *Decision
	reason string // want an error of this class
}

var cursorAnswers = []answerCase{
	{"exit 0, no output", 0, "", &Decision{SchemaVersion: 1, Action: Allow}, ""},
	{"permission deny", 0, `{"permission":"deny","user_message":"u","agent_message":"a"}`,
		&Decision{SchemaVersion: 1, Action: Deny, Reason: "a", Extension: &CursorAnswer{UserMessage: "u", AgentMessage: "a"}}, ""},
	{"permission allow", 0, `{"permission":"allow"}`, &Decision{SchemaVersion: 1, Action: Allow, Extension: &CursorAnswer{Approved: true}}, ""},
	{"permission ask", 0, `{"permission":"ask","user_message":"sure?"}`,
		&Decision{SchemaVersion: 1, Action: RequestApproval, Reason: "sure?", Extension: &CursorAnswer{UserMessage: "sure?"}}, ""},
	{"Cursor 1.7's camelCase", 0, `{"continue":true,"permission":"deny","userMessage":"no"}`,
		&Decision{SchemaVersion: 1, Action: Deny, Reason: "no", Extension: &CursorAnswer{UserMessage: "no"}}, ""},
	{"exit 2 blocks with stderr", 2, "no rm\n", &Decision{SchemaVersion: 1, Action: Deny, Reason: "no rm"}, ""},
	{"plain text is no answer", 0, "ok\n", nil, "decision"},
	{"an unknown permission", 0, `{"permission":"maybe"}`, nil, "decision"},
	{"a known name in another case", 0, `{"Permission":"allow"}`, nil, "decision"},
	{"a duplicate", 0, `{"permission":"deny","permission":"allow"}`, nil, "decision"},
	{"exit 1 fails (Cursor would let it through)", 1, "crash\n", nil, "exit"},
	{"exit 1 after a deny is a deny", 1, `{"permission":"deny","agent_message":"no"}`,
		&Decision{SchemaVersion: 1, Action: Deny, Reason: "no", Extension: &CursorAnswer{AgentMessage: "no"}}, ""},
	{"exit 1 after an allow is no allow", 1, `{"permission":"allow"}`, nil, "exit"},
	{"exit 127: a missing program", 127, "jq: not found\n", nil, "missing"},
}

func TestInterpretCursor(t *testing.T) {
	t.Parallel()
	e, err := ParseEnvelope(Cursor, []byte(cursorShell))
	if err != nil {
		t.Fatal(err)
	}
	testAnswers(t, e, cursorAnswers)
}

var geminiAnswers = []answerCase{
	{"exit 0, no output", 0, "", &Decision{SchemaVersion: 1, Action: Allow}, ""},
	{"decision deny", 0, `{"decision":"deny","reason":"no rm"}`, &Decision{SchemaVersion: 1, Action: Deny, Reason: "no rm"}, ""},
	{"decision block", 0, `{"decision":"block","reason":"no rm"}`, &Decision{SchemaVersion: 1, Action: Deny, Reason: "no rm"}, ""},
	{"decision ask", 0, `{"decision":"ask","reason":"sure?"}`, &Decision{SchemaVersion: 1, Action: RequestApproval, Reason: "sure?"}, ""},
	{"decision allow", 0, `{"decision":"allow"}`, &Decision{SchemaVersion: 1, Action: Allow, Extension: &ClaudeAnswer{Approved: true}}, ""},
	{"tool_input rewrite", 0, `{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"command":"ls"}}}`,
		&Decision{SchemaVersion: 1, Action: Modify, Mutations: []byte(`{"tool_input":{"command":"ls"}}`)}, ""},
	{"exit 2 blocks with stderr", 2, "no rm\n", &Decision{SchemaVersion: 1, Action: Deny, Reason: "no rm"}, ""},
	{"exit 3 with text blocks too", 3, "no rm\n", &Decision{SchemaVersion: 1, Action: Deny, Reason: "no rm"}, ""},
	{"exit 1 is Gemini's warning", 1, "oops\n", &Decision{SchemaVersion: 1, Action: Allow, Extension: &ClaudeAnswer{SystemMessage: "BeforeTool hook exited 1: oops"}}, ""},
	{"exit 1 after an allow is no approval", 1, `{"decision":"allow"}`,
		&Decision{SchemaVersion: 1, Action: Allow, Extension: &ClaudeAnswer{SystemMessage: `BeforeTool hook exited 1: {"decision":"allow"}`}}, ""},
	{"exit 1 after a deny is a deny", 1, `{"decision":"deny","reason":"no"}`, &Decision{SchemaVersion: 1, Action: Deny, Reason: "no"}, ""},
	{"exit 127: a missing program", 127, "jq: not found\n", nil, "missing"},
	{"a known name in another case", 0, `{"Decision":"allow"}`, nil, "decision"},
	{"an unknown decision", 0, `{"decision":"maybe"}`, nil, "decision"},
	{"continue false stops", 0, `{"continue":false,"stopReason":"halt"}`,
		&Decision{SchemaVersion: 1, Action: Deny, Reason: "halt", Extension: &ClaudeAnswer{StopAgent: true, StopReason: "halt"}}, ""},
}

func TestInterpretGemini(t *testing.T) {
	t.Parallel()
	e, err := ParseEnvelope(Gemini, []byte(geminiBeforeTool))
	if err != nil {
		t.Fatal(err)
	}
	testAnswers(t, e, geminiAnswers)
}

func testAnswers(t *testing.T, e *Envelope, cases []answerCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Interpret(e, tc.code, []byte(tc.out), []byte(tc.out))
			want := map[string]error{"missing": ErrMissing, "exit": ErrExit, "decision": ErrDecision}[tc.reason]
			if want != nil {
				if !errors.Is(err, want) {
					t.Fatalf("err %v, want %v", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseCursorAndGemini(t *testing.T) {
	t.Parallel()
	e, err := ParseEnvelope(Cursor, []byte(cursorShell))
	if err != nil {
		t.Fatal(err)
	}
	if e.Point != "beforeShellExecution" || e.ToolName != "rm -rf build" || e.Workspace != "/work/p/sub" || !e.CanBlock ||
		e.SessionID != "c1" || e.EnvVars("h")["CURSOR_PROJECT_DIR"] != "/work/p" {
		t.Fatalf("cursor: %+v %v", e, e.EnvVars("h"))
	}
	g, err := ParseEnvelope(Gemini, []byte(geminiBeforeTool))
	if err != nil {
		t.Fatal(err)
	}
	if g.Point != "BeforeTool" || g.ToolName != "run_shell_command" || g.Workspace != "/work/p" || !g.CanBlock ||
		g.EnvVars("h")["GEMINI_PROJECT_DIR"] != "/work/p" {
		t.Fatalf("gemini: %+v", g)
	}
	for _, tc := range []struct {
		d    Dialect
		ev   string
		want string
	}{
		{Cursor, strings.Replace(cursorShell, `"cwd"`, `"CWD"`, 1), "another case"},
		{Cursor, strings.Replace(cursorShell, `["/work/p"]`, `"/work/p"`, 1), "wrong type"},
		{Cursor, `{"hook_event_name":"beforeReadFile","conversation_id":"c"}`, "file_path"},
		{Gemini, strings.Replace(geminiBeforeTool, `"tool_input":{"command":"rm -rf build"}`, `"tool_input":"rm"`, 1), "wrong type"},
		{Gemini, `{"hook_event_name":"BeforeTool","cwd":"/p","tool_name":"x"}`, "tool_input"},
		{Gemini, `{"hook_event_name":"BeforeAgent","prompt":"p"}`, "cwd"},
	} {
		if _, err := ParseEnvelope(tc.d, []byte(tc.ev)); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: %v, want ErrInvalid naming %q", tc.d, tc.ev, err, tc.want)
		}
	}
}

func TestEncodeCursorAndGemini(t *testing.T) {
	t.Parallel()
	deny := Decision{SchemaVersion: 1, Action: Deny, Reason: "no"}
	ask := Decision{SchemaVersion: 1, Action: RequestApproval, Reason: "sure?"}
	allow := Decision{SchemaVersion: 1, Action: Allow}
	failed := &Failure{Kind: FailTimeout, Message: "10s"}
	for _, tc := range []struct {
		d       Dialect
		point   string
		dec     Decision
		failure *Failure
		want    string
	}{
		{Cursor, "beforeShellExecution", deny, nil, `{"agent_message":"no","permission":"deny","user_message":"no"}`},
		{Cursor, "beforeShellExecution", ask, nil, `{"agent_message":"sure?","permission":"ask","user_message":"sure?"}`},
		// Cursor's preToolUse does not enforce an ask: it must not pass.
		{Cursor, "preToolUse", ask, nil, `{"agent_message":"needs approval, which Cursor cannot ask for here: sure?","permission":"deny","user_message":"needs approval, which Cursor cannot ask for here: sure?"}`},
		{Cursor, "beforeShellExecution", allow, nil, `{"permission":"allow"}`},
		{Cursor, "beforeSubmitPrompt", deny, nil, `{"continue":false,"user_message":"no"}`},
		{Cursor, "stop", deny, nil, `{"followup_message":"no"}`},
		// A failing stop hook never keeps the agent working.
		{Cursor, "stop", deny, failed, `{"user_message":"hook-exec: the stop hook failed (timeout: 10s)"}`},
		{Cursor, "afterFileEdit", allow, nil, `{}`},
		{Gemini, "BeforeTool", deny, nil, `{"decision":"deny","reason":"no"}`},
		{Gemini, "BeforeTool", ask, nil, `{"decision":"ask","reason":"sure?"}`},
		{Gemini, "BeforeAgent", ask, nil, `{"decision":"deny","reason":"sure?"}`},
		{Gemini, "BeforeTool", allow, nil, `{}`},
		{Gemini, "AfterAgent", deny, failed, `{"systemMessage":"hook-exec: the AfterAgent hook failed (timeout: 10s); it does not send Gemini back to work"}`},
	} {
		b, err := Encode(tc.d, tc.point, tc.dec, tc.failure)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(string(b)); got != tc.want {
			t.Errorf("Encode(%s, %s, %s) = %s, want %s", tc.d, tc.point, tc.dec.Action, got, tc.want)
		}
	}
}

func TestMatchersCursorAndGemini(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		d              Dialect
		point, subject string
		matcher        string
		want           bool
	}{
		{Cursor, "beforeShellExecution", "curl x | sh", "curl|wget", true},
		{Cursor, "beforeShellExecution", "ls", "curl|wget", false},
		{Cursor, "preToolUse", "Shell", "", true},
		{Gemini, "BeforeTool", "read_file", "file", true},
		{Gemini, "BeforeTool", "run_shell_command", "write_file|replace", false},
		{Gemini, "BeforeTool", "a(b", "a(b", true}, // no regex: exact
		{Gemini, "SessionStart", "startup", "start", false},
		{Gemini, "SessionStart", "startup", "startup", true},
		{Gemini, "BeforeAgent", "", "anything", true}, // ignored there
	} {
		if got := tc.d.Host().Matches(tc.matcher, &Envelope{Dialect: tc.d, Point: tc.point, ToolName: tc.subject}); got != tc.want {
			t.Errorf("%s %s %q ~ %q: %v", tc.d, tc.point, tc.matcher, tc.subject, got)
		}
	}
}

func TestSniffHosts(t *testing.T) {
	t.Parallel()
	for ev, want := range map[string]Dialect{
		cursorShell:      Cursor,
		geminiBeforeTool: Gemini,
		claudePreToolUse: Claude,
		`{"hook_event_name":"SessionStart","session_id":"s","cwd":"/p","timestamp":"t","source":"startup"}`:       Gemini,
		`{"hook_event_name":"SessionStart","session_id":"s","cwd":"/p","permission_mode":"default","source":"x"}`: Claude,
	} {
		if got, _ := Sniff([]byte(ev)); got != want {
			t.Errorf("Sniff(%s) = %s, want %s", ev, got, want)
		}
	}
}
