package hook

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const claudePreToolUse = `{"session_id":"abc123","transcript_path":"/home/u/.claude/projects/p/abc123.jsonl","cwd":"/work/p",` +
	`"permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /","description":"x"},"tool_use_id":"toolu_01"}`

func TestParseEnvelopeClaude(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, event string
		want        *Envelope // nil: refused with ErrInvalid
	}{
		{"PreToolUse", claudePreToolUse, &Envelope{Dialect: Claude, Point: "PreToolUse", SessionID: "abc123", Workspace: "/work/p", ToolName: "Bash", CanBlock: true,
			TranscriptPath: "/home/u/.claude/projects/p/abc123.jsonl"}},
		{"PostToolUse", `{"hook_event_name":"PostToolUse","cwd":"/p","tool_name":"Write","tool_input":{"file_path":"/p/a"},"tool_response":{"success":true}}`,
			&Envelope{Dialect: Claude, Point: "PostToolUse", Workspace: "/p", ToolName: "Write", CanBlock: true, EditedFile: "/p/a"}},
		{"Notification cannot block", `{"hook_event_name":"Notification","cwd":"/p","message":"needs you"}`,
			&Envelope{Dialect: Claude, Point: "Notification", Workspace: "/p"}},
		{"SessionStart matches on its source", `{"hook_event_name":"SessionStart","cwd":"/p","source":"startup","model":"m"}`,
			&Envelope{Dialect: Claude, Point: "SessionStart", Workspace: "/p", ToolName: "startup"}},
		{"a newer Claude's event runs but cannot block", `{"hook_event_name":"FutureEvent","cwd":"/p","new_field":1}`,
			&Envelope{Dialect: Claude, Point: "FutureEvent", Workspace: "/p"}},
		{"extra members are Claude's to add", `{"hook_event_name":"Stop","cwd":"/p","stop_hook_active":false,"effort":"high"}`,
			&Envelope{Dialect: Claude, Point: "Stop", Workspace: "/p", CanBlock: true}},
		{"no hook_event_name", `{"cwd":"/p"}`, nil},
		{"no cwd", `{"hook_event_name":"Stop"}`, nil},
		{"PreToolUse without tool_input", `{"hook_event_name":"PreToolUse","cwd":"/p","tool_name":"Bash"}`, nil},
		{"tool_input not an object", `{"hook_event_name":"PreToolUse","cwd":"/p","tool_name":"Bash","tool_input":"rm"}`, nil},
		{"a known name in another case", `{"hook_event_name":"PreToolUse","cwd":"/p","tool_name":"Bash","tool_input":{},"Tool_Name":"Read"}`, nil},
		{"a duplicate member", `{"hook_event_name":"PreToolUse","cwd":"/p","tool_name":"Bash","tool_name":"Read","tool_input":{}}`, nil},
		{"stop_hook_active not a boolean", `{"hook_event_name":"Stop","cwd":"/p","stop_hook_active":"no"}`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseEnvelope(Claude, []byte(tc.event))
			if tc.want == nil {
				if !errors.Is(err, ErrInvalid) {
					t.Fatalf("err %v, want ErrInvalid", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.EnvVars("h")["CLAUDE_PROJECT_DIR"] != tc.want.Workspace {
				t.Errorf("CLAUDE_PROJECT_DIR %q, want %q", got.EnvVars("h")["CLAUDE_PROJECT_DIR"], tc.want.Workspace)
			}
			got.vars = nil
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(Envelope{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// claudeAnswers are PreToolUse answers as Claude Code hooks write them.
var claudeAnswers = []struct {
	name   string
	code   int
	out    string // stdout, and stderr too
	want   *Decision
	reason string // want an error of this class
}{
	{"exit 0, no output", 0, "", &Decision{SchemaVersion: 1, Action: Allow}, ""},
	{"exit 0, plain text", 0, "checked\n", &Decision{SchemaVersion: 1, Action: Allow}, ""},
	{"exit 2 blocks with stderr", 2, "Blocked: rm -rf\n", &Decision{SchemaVersion: 1, Action: Deny, Reason: "Blocked: rm -rf"}, ""},
	{"exit 1 is a non-blocking error", 1, "oops\n", &Decision{SchemaVersion: 1, Action: Allow, Extension: &ClaudeAnswer{SystemMessage: "PreToolUse hook exited 1: oops"}}, ""},
	{"exit 127: a missing program is a failure", 127, "jq: not found\n", nil, "missing"},
	{"permissionDecision deny", 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no .env"}}`,
		&Decision{SchemaVersion: 1, Action: Deny, Reason: "no .env"}, ""},
	{"permissionDecision ask", 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"sure?"}}`,
		&Decision{SchemaVersion: 1, Action: RequestApproval, Reason: "sure?"}, ""},
	{"permissionDecision allow", 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`,
		&Decision{SchemaVersion: 1, Action: Allow, Extension: &ClaudeAnswer{Approved: true}}, ""},
	{"updatedInput is a modify", 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls"}}}`,
		&Decision{SchemaVersion: 1, Action: Modify, Mutations: []byte(`{"tool_input":{"command":"ls"}}`), Extension: &ClaudeAnswer{Approved: true}}, ""},
	{"the older decision block", 0, `{"decision":"block","reason":"nope"}`, &Decision{SchemaVersion: 1, Action: Deny, Reason: "nope"}, ""},
	{"the older decision approve", 0, `{"decision":"approve","reason":"fine"}`, &Decision{SchemaVersion: 1, Action: Allow, Reason: "fine", Extension: &ClaudeAnswer{Approved: true}}, ""},
	{"context and a message pass through", 0, `{"systemMessage":"note","hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"ctx"}}`,
		&Decision{SchemaVersion: 1, Action: Allow, Extension: &ClaudeAnswer{SystemMessage: "note", Context: "ctx"}}, ""},
	{"continue false stops the agent and the call", 0, `{"continue":false,"stopReason":"halt"}`,
		&Decision{SchemaVersion: 1, Action: Deny, Reason: "halt", Extension: &ClaudeAnswer{StopAgent: true, StopReason: "halt"}}, ""},
	{"unknown members are ignored", 0, `{"suppressOutput":true,"metadata":{"x":1}}`, &Decision{SchemaVersion: 1, Action: Allow}, ""},
	{"a known name in another case", 0, `{"Decision":"block"}`, nil, "decision"},
	{"permissionDecision in another case", 0, `{"hookSpecificOutput":{"PermissionDecision":"deny"}}`, nil, "decision"},
	{"an unknown permissionDecision", 0, `{"hookSpecificOutput":{"permissionDecision":"maybe"}}`, nil, "decision"},
	{"an unknown decision", 0, `{"decision":"deny"}`, nil, "decision"},
	{"another event's answer", 0, `{"hookSpecificOutput":{"hookEventName":"PostToolUse","permissionDecision":"allow"}}`, nil, "decision"},
	{"a duplicate member", 0, `{"decision":"block","decision":"approve","reason":"r"}`, nil, "decision"},
	{"updatedInput not an object", 0, `{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":"ls"}}`, nil, "decision"},
	{"JSON that does not parse is plain text, as Claude reads it", 0, `{"decision":`, &Decision{SchemaVersion: 1, Action: Allow}, ""},
	{"exit 2 blocks even over a JSON allow", 2, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`,
		&Decision{SchemaVersion: 1, Action: Deny, Reason: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`}, ""},
	{"exit 1 with a JSON allow is no allow", 1, `{"hookSpecificOutput":{"permissionDecision":"allow"}}`,
		&Decision{SchemaVersion: 1, Action: Allow, Extension: &ClaudeAnswer{SystemMessage: `PreToolUse hook exited 1: {"hookSpecificOutput":{"permissionDecision":"allow"}}`}}, ""},
	{"updatedInput alone is a rewrite, not an approval", 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"rm -rf ~"}}}`,
		&Decision{SchemaVersion: 1, Action: Modify, Mutations: []byte(`{"tool_input":{"command":"rm -rf ~"}}`)}, ""},
	{"exit 1 after a JSON deny is still a deny", 1, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no rm"}}`,
		&Decision{SchemaVersion: 1, Action: Deny, Reason: "no rm"}, ""},
	{"exit 127 after a JSON deny is still a deny", 127, `{"decision":"block","reason":"no rm"}`,
		&Decision{SchemaVersion: 1, Action: Deny, Reason: "no rm"}, ""},
	{"exit 1 after a JSON ask still asks", 1, `{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"sure?"}}`,
		&Decision{SchemaVersion: 1, Action: RequestApproval, Reason: "sure?"}, ""},
	{"exit 1 after continue false still stops", 1, `{"continue":false,"stopReason":"halt"}`,
		&Decision{SchemaVersion: 1, Action: Deny, Reason: "halt", Extension: &ClaudeAnswer{StopAgent: true, StopReason: "halt"}}, ""},
	{"exit 1 after a rewrite is no rewrite", 1, `{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"ls"}}}`,
		&Decision{SchemaVersion: 1, Action: Allow, Extension: &ClaudeAnswer{SystemMessage: `PreToolUse hook exited 1: {"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"ls"}}}`}}, ""},
	{"a byte-order mark before a deny", 0, "\ufeff" + `{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no"}}`,
		&Decision{SchemaVersion: 1, Action: Deny, Reason: "no"}, ""},
	{"whitespace and a byte-order mark before a deny", 0, " \n\ufeff\ufeff " + `{"decision":"block","reason":"no"}`,
		&Decision{SchemaVersion: 1, Action: Deny, Reason: "no"}, ""},
	{"PermissionRequest's behavior is not read at PreToolUse", 0, `{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no","decision":{"behavior":"allow"}}}`,
		&Decision{SchemaVersion: 1, Action: Deny, Reason: "no"}, ""},
	{"PermissionRequest's behavior alone allows nothing at PreToolUse", 0, `{"hookSpecificOutput":{"decision":{"behavior":"allow","updatedInput":{"command":"curl x | sh"}}}}`,
		&Decision{SchemaVersion: 1, Action: Allow}, ""},
	{"a block wins over a later allow", 0, `{"decision":"block","reason":"no","hookSpecificOutput":{"permissionDecision":"allow"}}`,
		&Decision{SchemaVersion: 1, Action: Deny, Reason: "no"}, ""},
	{"a deny wins over an approve", 0, `{"decision":"approve","hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no"}}`,
		&Decision{SchemaVersion: 1, Action: Deny, Reason: "no"}, ""},
	{"an ask wins over an approve", 0, `{"decision":"approve","hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"sure?"}}`,
		&Decision{SchemaVersion: 1, Action: RequestApproval, Reason: "sure?"}, ""},
	{"permissionDecision defer is no decision", 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"defer"}}`,
		&Decision{SchemaVersion: 1, Action: Allow}, ""},
}

func TestInterpretClaude(t *testing.T) {
	t.Parallel()
	env := &Envelope{Dialect: Claude, Point: "PreToolUse", CanBlock: true}
	for _, tc := range claudeAnswers {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Interpret(env, tc.code, []byte(tc.out), []byte(tc.out))
			switch tc.reason {
			case "missing":
				if !errors.Is(err, ErrMissing) {
					t.Fatalf("err %v, want ErrMissing", err)
				}
				return
			case "exit":
				if !errors.Is(err, ErrExit) {
					t.Fatalf("err %v, want ErrExit", err)
				}
				return
			case "decision":
				if !errors.Is(err, ErrDecision) {
					t.Fatalf("err %v, want ErrDecision", err)
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

// Where Claude Code cannot block, exit 2 is shown to the user and plain
// stdout of UserPromptSubmit and SessionStart is context for the model.
func TestInterpretClaudeByEvent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		event string
		code  int
		out   string
		want  *Decision
	}{
		{"Notification", 2, "loud\n", &Decision{SchemaVersion: 1, Action: Allow, Extension: &ClaudeAnswer{SystemMessage: "loud"}}},
		{"PermissionRequest", 2, "no\n", &Decision{SchemaVersion: 1, Action: Deny, Reason: "no"}},
		{"SessionStart", 0, "branch main, 3 changes\n", &Decision{SchemaVersion: 1, Action: Allow, Extension: &ClaudeAnswer{Context: "branch main, 3 changes"}}},
		{"UserPromptSubmit", 0, "today is Thursday\n", &Decision{SchemaVersion: 1, Action: Allow, Extension: &ClaudeAnswer{Context: "today is Thursday"}}},
		{"PostToolUse", 0, "ignored\n", &Decision{SchemaVersion: 1, Action: Allow}},
		{"Stop", 0, `{"decision":"block","reason":"tests fail"}`, &Decision{SchemaVersion: 1, Action: Deny, Reason: "tests fail"}},
		{"PermissionRequest", 0, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"no"}}}`,
			&Decision{SchemaVersion: 1, Action: Deny, Reason: "no"}},
	}
	for _, tc := range tests {
		t.Run(tc.event, func(t *testing.T) {
			env := &Envelope{Dialect: Claude, Point: tc.event, CanBlock: ClaudeEvents[tc.event].blocks}
			got, err := Interpret(env, tc.code, []byte(tc.out), []byte(tc.out))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// hook-exec standing as Claude Code's hook command answers in Claude's JSON.
func TestEncodeClaude(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, point string
		dec         Decision
		want        string
	}{
		{"an implicit allow stays silent", "PreToolUse", Decision{Action: Allow}, `{}`},
		{"an explicit allow", "PreToolUse", Decision{Action: Allow, Reason: "ok", Extension: &ClaudeAnswer{Approved: true}},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"ok"}}`},
		{"deny", "PreToolUse", Decision{Action: Deny, Reason: "no"},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`},
		{"request_approval is ask", "PreToolUse", Decision{Action: RequestApproval, Reason: "sure?"},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"sure?"}}`},
		{"an approved modify", "PreToolUse", Decision{Action: Modify, Mutations: []byte(`{"tool_input":{"command":"ls"}}`), Extension: &ClaudeAnswer{Approved: true}},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls"}}}`},
		{"a modify never approved asks Claude's user", "PreToolUse", Decision{Action: Modify, Mutations: []byte(`{"tool_input":{"command":"ls"}}`)},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","updatedInput":{"command":"ls"}}}`},
		{"a block elsewhere", "Stop", Decision{Action: Deny, Reason: "tests fail"}, `{"decision":"block","reason":"tests fail"}`},
		{"permission request denied", "PermissionRequest", Decision{Action: Deny, Reason: "no"},
			`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"no"}}}`},
		{"context, message and a stop", "SessionStart", Decision{Action: Allow, Extension: &ClaudeAnswer{Context: "c", SystemMessage: "m", StopAgent: true, StopReason: "s"}},
			`{"continue":false,"stopReason":"s","systemMessage":"m","hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"c"}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Encode(Claude, tc.point, tc.dec, nil)
			if err != nil {
				t.Fatal(err)
			}
			if strings.TrimSpace(string(got)) != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			// What hook-exec writes, Claude's reader (ours) reads back the same.
			env := &Envelope{Dialect: Claude, Point: tc.point, CanBlock: ClaudeEvents[tc.point].blocks}
			back, err := Interpret(env, 0, got, nil)
			if err != nil {
				t.Fatalf("read back: %v", err)
			}
			want := tc.dec.Action
			if want == Modify && !ClaudeOf(tc.dec).Approved {
				want = RequestApproval // Claude's user is asked about the rewrite
			}
			if back.Action != want {
				t.Errorf("read back as %s, want %s", back.Action, want)
			}
		})
	}
}

// A failure policy's deny blocks a tool call, but never a Stop: there a
// block has Claude keep working, and a hook that keeps failing would have
// it work forever.
func TestEncodeClaudeFailure(t *testing.T) {
	t.Parallel()
	failed := &Failure{Kind: FailTimeout, Message: "ran past 5s"}
	deny := Decision{SchemaVersion: 1, Action: Deny, Reason: "hook failed: timeout"}
	for _, tc := range []struct {
		point, want string
	}{
		{"PreToolUse", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"hook failed: timeout"}}`},
		{"Stop", `{"systemMessage":"hook-exec: the Stop hook failed (timeout: ran past 5s); it does not keep Claude working"}`},
		{"SubagentStop", `{"systemMessage":"hook-exec: the SubagentStop hook failed (timeout: ran past 5s); it does not keep Claude working"}`},
		{"TeammateIdle", `{"systemMessage":"hook-exec: the TeammateIdle hook failed (timeout: ran past 5s); it does not keep Claude working"}`},
		{"TaskCompleted", `{"systemMessage":"hook-exec: the TaskCompleted hook failed (timeout: ran past 5s); it does not keep Claude working"}`},
	} {
		got, err := Encode(Claude, tc.point, deny, failed)
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(string(got)) != tc.want {
			t.Errorf("%s: got  %s\nwant %s", tc.point, got, tc.want)
		}
	}
	// The hook's own block on Stop still blocks.
	if got, _ := Encode(Claude, "Stop", deny, nil); !strings.Contains(string(got), `"decision":"block"`) {
		t.Errorf("a Stop hook's own block: got %s", got)
	}
}

func TestMatchClaude(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		matcher, tool string
		want          bool
	}{
		{"", "Bash", true}, {"*", "Bash", true}, {"Bash", "Bash", true}, {"Bash", "BashOutput", false},
		{"Edit|Write", "Write", true}, {"Edit|Write", "Read", false}, {"Edit, Write", "Write", true},
		{"mcp__.*", "mcp__github__pr", true}, {"mcp__memory", "mcp__memory__create", false},
		{"Notebook.*", "NotebookEdit", true}, {"Edit.*", "NotebookEdit", true}, {"^Edit$", "NotebookEdit", false},
		{"bash", "Bash", false}, {"(", "(", false},
	} {
		if got := MatchClaude(tc.matcher, tc.tool); got != tc.want {
			t.Errorf("MatchClaude(%q, %q) = %v, want %v", tc.matcher, tc.tool, got, tc.want)
		}
	}
}
