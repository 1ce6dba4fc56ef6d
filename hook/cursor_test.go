package hook

import (
	"strings"
	"testing"
)

// A Cursor hook's user_message goes to the user and its agent_message to
// the agent, each in its own field of hook-exec's answer, never one in the
// other's place (issue 44, finding 8); a refusal hook-exec's failure policy
// made gives its reason in both.
var cursorMessages = []struct {
	name, point string
	code        int
	out         string
	want        string
}{
	{"deny", "beforeShellExecution", 0, `{"permission":"deny","user_message":"u","agent_message":"a"}`,
		`{"agent_message":"a","permission":"deny","user_message":"u"}`},
	{"deny, exit 1", "beforeShellExecution", 1, `{"permission":"deny","user_message":"u","agent_message":"a"}`,
		`{"agent_message":"a","permission":"deny","user_message":"u"}`},
	{"deny, exit 2", "beforeShellExecution", 2, `{"permission":"deny","user_message":"u","agent_message":"a"}`,
		`{"agent_message":"a","permission":"deny","user_message":"u"}`},
	{"Cursor 1.7's names", "beforeReadFile", 0, `{"permission":"deny","userMessage":"u","agentMessage":"a"}`,
		`{"agent_message":"a","permission":"deny","user_message":"u"}`},
	{"ask", "beforeMCPExecution", 0, `{"permission":"ask","user_message":"u","agent_message":"a"}`,
		`{"agent_message":"a","permission":"ask","user_message":"u"}`},
	{"an ask preToolUse cannot enforce", "preToolUse", 0, `{"permission":"ask","user_message":"u","agent_message":"a"}`,
		`{"agent_message":"needs approval, which Cursor cannot ask for here: a","permission":"deny",` +
			`"user_message":"needs approval, which Cursor cannot ask for here: u"}`},
	{"deny, the user's message only", "beforeShellExecution", 0, `{"permission":"deny","user_message":"u"}`,
		`{"agent_message":"u","permission":"deny","user_message":"u"}`},
	{"deny, the agent's message only", "beforeShellExecution", 0, `{"permission":"deny","agent_message":"a"}`,
		`{"agent_message":"a","permission":"deny","user_message":"a"}`},
	{"allow with both", "beforeShellExecution", 0, `{"permission":"allow","user_message":"u","agent_message":"a"}`,
		`{"agent_message":"a","permission":"allow","user_message":"u"}`},
	{"exit 2 where nothing blocks shows the user's message", "afterFileEdit", 2,
		`{"permission":"deny","user_message":"u","agent_message":"a"}`, `{"user_message":"u"}`},
}

func TestCursorMessagesKeepTheirPlace(t *testing.T) {
	t.Parallel()
	for _, tc := range cursorMessages {
		t.Run(tc.name, func(t *testing.T) {
			ev := `{"hook_event_name":"` + tc.point + `","conversation_id":"c","generation_id":"g","workspace_roots":["/p"],` +
				`"command":"ls","tool_name":"Shell","tool_input":{},"file_path":"/p/a"}`
			e, err := ParseEnvelope(Cursor, []byte(ev))
			if err != nil {
				t.Fatal(err)
			}
			d, err := Interpret(e, tc.code, []byte(tc.out), []byte("stderr says"))
			if err != nil {
				t.Fatal(err)
			}
			red := *d
			if d.Extension != nil {
				red.Extension = d.Extension.Redact() // as the executor hands it on
			}
			b, err := Encode(Cursor, tc.point, red, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(string(b)); got != tc.want {
				t.Errorf("answer %s, want %s", got, tc.want)
			}
		})
	}
	// The failure policy's refusal has no message of the hook's: its
	// reason goes to both.
	policy := Decision{SchemaVersion: 1, Action: Deny, Reason: "hook h failed (exit_nonzero): status 1"}
	b, err := Encode(Cursor, "beforeShellExecution", policy, &Failure{Kind: FailExitNonzero, Message: "status 1"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(string(b)), `{"agent_message":"hook h failed (exit_nonzero): status 1","permission":"deny",`+
		`"user_message":"hook h failed (exit_nonzero): status 1"}`; got != want {
		t.Errorf("policy's answer %s, want %s", got, want)
	}
}

// The messages are redacted as the reason they stand in for is.
func TestCursorMessagesRedacted(t *testing.T) {
	t.Parallel()
	secret := fake(hexLow, 40)
	d := Decision{SchemaVersion: 1, Action: Deny, Reason: "r",
		Extension: &CursorAnswer{UserMessage: "token " + secret, AgentMessage: "aws_secret_access_key=" + secret, Context: "c"}}
	red := CursorOf(Decision{Extension: d.Extension.Redact()})
	if strings.Contains(red.UserMessage, secret) || strings.Contains(red.AgentMessage, secret) || red.Context != "c" {
		t.Errorf("redacted = %+v, want the secret gone, the context kept", red)
	}
	if !strings.Contains(CursorOf(d).AgentMessage, secret) {
		t.Error("Redact changed the original")
	}
}
