package hook

import (
	"errors"
	"strings"
	"testing"
)

func clinePayloadOf(name, sub string) []byte {
	return []byte(`{"clineVersion":"4.1.13","hookName":"` + name + `","timestamp":"1736654400000","taskId":"abc123","workspaceRoots":["/work/app"],"userId":"u","model":{"provider":"openrouter","slug":"m"}` + sub + `}`)
}

var clinePre = clinePayloadOf("PreToolUse", `,"preToolUse":{"toolName":"write_to_file","parameters":{"path":"src/a.ts","content":"x"}}`)

func TestClineParse(t *testing.T) {
	t.Parallel()
	e, err := ParseEnvelope(Cline, clinePre)
	if err != nil {
		t.Fatal(err)
	}
	if e.Point != "PreToolUse" || e.ToolName != "write_to_file" || !e.CanBlock || e.Workspace != "/work/app" || e.SessionID != "abc123" || e.EditedFile != "/work/app/src/a.ts" {
		t.Errorf("envelope %+v", e)
	}
	if d, point := Sniff(clinePre); d != Cline || point != "PreToolUse" {
		t.Errorf("Sniff = %s %s", d, point)
	}
	// The CLI's SDK runner names the events otherwise.
	sdk := clinePayloadOf("tool_call", `,"iteration":3,"tool_call":{"id":"t","name":"execute_command","input":{"command":"ls"}},"preToolUse":{"toolName":"execute_command","parameters":{"command":"ls"}}`)
	if e, err := ParseEnvelope(Cline, sdk); err != nil || e.Point != "PreToolUse" || e.ToolName != "execute_command" {
		t.Errorf("the SDK's tool_call: %+v %v", e, err)
	}
	if e, err := ParseEnvelope(Cline, clinePayloadOf("TaskComplete", `,"taskComplete":{"taskMetadata":{}}`)); err != nil || e.CanBlock {
		t.Errorf("TaskComplete: %+v %v", e, err)
	}
	for name, bad := range map[string][]byte{
		"no preToolUse":           clinePayloadOf("PreToolUse", ``),
		"no clineVersion":         []byte(`{"hookName":"TaskStart","workspaceRoots":[]}`),
		"toolName in a case":      clinePayloadOf("PreToolUse", `,"preToolUse":{"toolName":"read_file","ToolName":"execute_command"}`),
		"workspaceRoots not list": []byte(`{"clineVersion":"1","hookName":"TaskStart","workspaceRoots":"/w"}`),
		"hookName a number":       []byte(`{"clineVersion":"1","hookName":1}`),
	} {
		if _, err := ParseEnvelope(Cline, bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
	if _, err := ParseEnvelope(Claude, clinePre); !errors.Is(err, ErrOtherHost) {
		t.Errorf("a Cline payload as Claude's: %v, want ErrOtherHost", err)
	}
}

// clineReads are stdouts and what Cline's extension makes of them
// (hook-factory.ts parseJsonOutput, run in node): cancel and its message,
// "none" when it finds no answer.
var clineReads = []struct {
	stdout string
	cancel bool
	msg    string
	none   bool
}{
	{"debug\n{\"cancel\":true,\"errorMessage\":\"a } b\"}\n", true, "a } b", false},
	{"debug\n{\"cancel\":true,\"errorMessage\":\"use { here\"}\n", true, "use { here", false},
	{`{"cancel":false,"cancel":true}`, true, "", false},
	{"{\"cancel\":true,\"errorMessage\":\"bad \xff byte\"}", true, "bad \uFFFD byte", false},
	{`{"cancel":true,"context":5}`, true, "", false},
	{`{"cancel":true,"ErrorMessage":"x"}`, true, "", false},
	{`[{"cancel":true}]`, false, "", false},
	{`{"a":1} {"cancel":true}`, false, "", true},
	{`{"cancel":true} trailing`, false, "", true},
	{"null\n{\"cancel\":true}", true, "", false},
	{`null`, false, "", true},
	{`{"cancel":true,"errorMessage":null}`, false, "", true},
	{`{"shouldContinue":null}`, false, "", true},
}

func TestClineReadsAsCline(t *testing.T) {
	t.Parallel()
	for _, c := range clineReads {
		o := clineAnswer([]byte(c.stdout))
		if c.none {
			if o != nil {
				t.Errorf("%q: %+v, want no answer", c.stdout, o)
			}
			continue
		}
		if o == nil || o.Cancel != c.cancel || o.ErrorMessage != c.msg {
			t.Errorf("%q: %+v, want cancel %v %q", c.stdout, o, c.cancel, c.msg)
		}
	}
}

func TestClineInterpret(t *testing.T) {
	t.Parallel()
	at := func(p string) *Envelope { return &Envelope{Dialect: Cline, Point: p} }
	for _, c := range []struct {
		name, point string
		code        int
		stdout      string
		action      Action
		reason, ctx string
	}{
		{"cancel", "PreToolUse", 0, `{"cancel": true, "errorMessage": "no writes"}`, Deny, "no writes", ""},
		{"cancel on a failing exit", "PreToolUse", 1, `{"cancel": true, "errorMessage": "no"}`, Deny, "no", ""},
		{"debug text first", "PreToolUse", 0, "Running checks...\n{\n  \"cancel\": true,\n  \"errorMessage\": \"lint failed\"\n}\n", Deny, "lint failed", ""},
		{"context", "PreToolUse", 0, `{"cancel": false, "contextModification": "read the rules"}`, Allow, "", "read the rules"},
		{"the SDK's context", "TaskStart", 0, `{"context": "branch main"}`, Allow, "", "branch main"},
		{"a null is no answer", "PreToolUse", 0, `{"cancel": true, "errorMessage": null}`, Allow, "", ""},
		{"cancel with only a context: that is the reason", "PreToolUse", 0, `{"cancel": true, "contextModification": "why"}`, Deny, "why", "why"},
		{"shouldContinue is no answer", "PreToolUse", 0, `{"shouldContinue": false}`, Allow, "", ""},
		{"nothing", "PreToolUse", 0, ``, Allow, "", ""},
		{"cancel where Cline reads none", "TaskCancel", 0, `{"cancel": true, "errorMessage": "x"}`, Allow, "", ""},
		{"a failure after the tool ran", "PostToolUse", 1, ``, Allow, "", ""},
		{"a failure at TaskComplete", "TaskComplete", 3, ``, Allow, "", ""},
		{"cancel without a message", "UserPromptSubmit", 0, `{"cancel": true}`, Deny, "cancelled by UserPromptSubmit hook", ""},
	} {
		d, err := Interpret(at(c.point), c.code, []byte(c.stdout), nil)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if d.Action != c.action || d.Reason != c.reason || ClaudeOf(*d).Context != c.ctx {
			t.Errorf("%s: %s %q %q, want %s %q %q", c.name, d.Action, d.Reason, ClaudeOf(*d).Context, c.action, c.reason, c.ctx)
		}
	}
	if _, err := Interpret(at("PreToolUse"), 1, []byte("Traceback"), nil); !errors.Is(err, ErrExit) {
		t.Errorf("a failing guard without an answer: %v, want ErrExit", err)
	}
	if _, err := Interpret(at("TaskStart"), 127, nil, []byte("jq: not found")); !errors.Is(err, ErrMissing) {
		t.Errorf("a missing program: %v, want ErrMissing", err)
	}
}

// TestClineAnswer: what hook-exec answers Cline reads back as the same
// decision; a failure never cancels after the fact.
func TestClineAnswer(t *testing.T) {
	t.Parallel()
	h := clineHost{}
	fail := &Failure{Kind: FailTimeout, Message: "10s"}
	for _, c := range []struct {
		point  string
		dec    Decision
		fail   *Failure
		action Action
		reason string
	}{
		{"PreToolUse", Decision{Action: Deny, Reason: "no"}, nil, Deny, "no"},
		{"PreToolUse", Decision{Action: Deny, Reason: "timed out"}, fail, Deny, "timed out"},
		{"PreToolUse", Decision{Action: RequestApproval, Reason: "ask"}, nil, Deny, "ask"},
		{"PostToolUse", Decision{Action: Deny, Reason: "stop"}, nil, Deny, "stop"},
		{"PostToolUse", Decision{Action: Deny, Reason: "timed out"}, fail, Allow, ""},
		{"TaskStart", Decision{Action: Allow, Extension: &ClaudeAnswer{Context: "ctx"}}, nil, Allow, ""},
		{"TaskComplete", Decision{Action: Deny, Reason: "x"}, fail, Allow, ""},
	} {
		c.dec.SchemaVersion = 1
		a, err := h.Answer(c.point, c.dec, c.fail)
		if err != nil || a.Exit != 0 {
			t.Fatalf("%s: %+v %v", c.point, a, err)
		}
		if strings.Contains(string(a.Stdout), "null") {
			t.Errorf("%s: a null in %s", c.point, a.Stdout)
		}
		back, err := Interpret(&Envelope{Dialect: Cline, Point: c.point}, 0, a.Stdout, nil)
		if err != nil || back.Action != c.action || back.Reason != c.reason || ClaudeOf(*back).Context != ClaudeOf(c.dec).Context {
			t.Errorf("%s %s: %s read back as %+v %v", c.point, c.dec.Action, a.Stdout, back, err)
		}
	}
}

// A payload that did not read names no event: the refusal cancels, as
// Cline reads it at whatever event it was (never a silent allow).
func TestClineRefusesAnUnreadableEvent(t *testing.T) {
	t.Parallel()
	a, err := clineHost{}.Answer("", Decision{SchemaVersion: 1, Action: Deny, Reason: "unreadable"}, &Failure{Kind: FailInvalidEvent, Message: "x"})
	if err != nil || a.Exit != 0 || !strings.Contains(string(a.Stdout), `"cancel":true`) {
		t.Errorf("answer %+v %v, want a cancel", a, err)
	}
}

func FuzzClineInterpret(f *testing.F) {
	f.Add("PreToolUse", 0, []byte(`{"cancel": true, "errorMessage": "no"}`))
	f.Add("PreToolUse", 0, []byte("debug {\n}\n{\"cancel\":false}"))
	f.Add("PostToolUse", 1, []byte(`}}{{"cancel":true}`))
	f.Add("TaskStart", 0, []byte(`{"context":"c","review":true,"overrideInput":{}}`))
	for _, c := range clineReads {
		f.Add("PreToolUse", 0, []byte(c.stdout))
	}
	f.Fuzz(func(t *testing.T, point string, code int, out []byte) {
		d, err := Interpret(&Envelope{Dialect: Cline, Point: point}, code, out, out)
		if err != nil {
			if !errors.Is(err, ErrExit) && !errors.Is(err, ErrMissing) {
				t.Fatalf("an error of no class: %v", err)
			}
			return
		}
		if d.Action == Deny && strings.TrimSpace(d.Reason) == "" {
			t.Fatal("a cancel without a reason")
		}
		if d.Action == Deny && !ClineEvents[point].cancels {
			t.Fatalf("a cancel at %q, which Cline does not read", point)
		}
	})
}
