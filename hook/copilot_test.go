package hook

import (
	"errors"
	"strings"
	"testing"
)

// copilotPre is a camelCase preToolUse payload as Copilot's reference
// shows one (toolArgs as the older JSON string).
const copilotPre = `{"sessionId":"s1","timestamp":1704614600000,"cwd":"/work/repo","toolName":"bash","toolArgs":"{\"command\":\"rm -rf dist\"}"}`

// copilotPascalPre is the VS Code compatible twin's payload.
const copilotPascalPre = `{"hook_event_name":"PreToolUse","session_id":"s1","timestamp":"2026-02-09T10:30:00.000Z","cwd":"/work/repo","tool_name":"Bash","tool_input":{"command":"rm -rf dist"}}`

func TestCopilotParse(t *testing.T) {
	t.Parallel()
	e, err := ParseAt(Copilot, "preToolUse", []byte(copilotPre))
	if err != nil {
		t.Fatal(err)
	}
	if e.Point != "preToolUse" || e.ToolName != "bash" || !e.CanBlock || e.Workspace != "/work/repo" || e.SessionID != "s1" {
		t.Errorf("envelope %+v", e)
	}
	// A camelCase payload names no event: without the configuration's,
	// it does not read (a guard would run at a point it cannot know).
	if _, err := ParseEnvelope(Copilot, []byte(copilotPre)); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "--point") {
		t.Errorf("without a point: %v, want ErrInvalid naming --point", err)
	}
	if d, point := Sniff([]byte(copilotPre)); d != Copilot || point != "" {
		t.Errorf("Sniff = %q %q, want copilot and no point", d, point)
	}
	p, err := ParseEnvelope(Copilot, []byte(copilotPascalPre))
	if err != nil || p.Point != "PreToolUse" || p.ToolName != "Bash" || !p.CanBlock {
		t.Errorf("PascalCase: %+v %v", p, err)
	}
	if p, err := ParseAt(Copilot, "PreToolUse", []byte(copilotPascalPre)); err != nil || p.Point != "PreToolUse" {
		t.Errorf("PascalCase at its point: %+v %v", p, err)
	}
	edit, err := ParseAt(Copilot, "postToolUse", []byte(`{"sessionId":"s","timestamp":1,"cwd":"/work/repo","toolName":"edit","toolArgs":{"path":"src/a.ts","old_str":"a","new_str":"b"},"toolResult":{"resultType":"success","textResultForLlm":"ok"}}`))
	if err != nil || edit.EditedFile != "/work/repo/src/a.ts" || edit.CanBlock {
		t.Errorf("postToolUse edit: %+v %v", edit, err)
	}
	if stop, err := ParseAt(Copilot, "agentStop", []byte(`{"sessionId":"s","timestamp":1,"cwd":"/r","transcriptPath":"/h/t.jsonl","stopReason":"end_turn","stop_hook_active":false}`)); err != nil || !stop.CanBlock || stop.TranscriptPath != "/h/t.jsonl" {
		t.Errorf("agentStop: %+v %v", stop, err)
	}
	for name, c := range map[string]struct{ point, payload string }{
		"the event another than configured":     {"PreToolUse", strings.Replace(copilotPascalPre, `"PreToolUse"`, `"PostToolUse"`, 1)},
		"a PascalCase point, camelCase payload": {"PreToolUse", copilotPre},
		"no toolName":                           {"preToolUse", `{"sessionId":"s","timestamp":1,"cwd":"/r"}`},
		"toolName in another case":              {"preToolUse", `{"sessionId":"s","timestamp":1,"cwd":"/r","toolName":"bash","ToolName":"view"}`},
		"timestamp a string":                    {"preToolUse", `{"sessionId":"s","timestamp":"1","cwd":"/r","toolName":"bash"}`},
		"no cwd":                                {"sessionStart", `{"sessionId":"s","timestamp":1,"source":"new"}`},
		"not an object":                         {"preToolUse", `["bash"]`},
		// An entry moved to agentStop's list gets preToolUse's payload.
		"a tool's call at agentStop": {"agentStop", copilotPre},
	} {
		if _, err := ParseAt(Copilot, c.point, []byte(c.payload)); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
	if _, err := ParseAt(Claude, "PreToolUse", []byte(claudePreToolUse)); !errors.Is(err, ErrInvalid) {
		t.Errorf("a point for a host whose payload names it: %v, want ErrInvalid", err)
	}
	if err := (&Hook{Dialect: Claude, Point: "PreToolUse", Script: "x.sh"}).Validate(); !errors.Is(err, ErrInvalid) {
		t.Errorf("Validate of a claude hook with a point: %v, want ErrInvalid", err)
	}
}

func TestCopilotMatches(t *testing.T) {
	t.Parallel()
	camel, _ := ParseAt(Copilot, "preToolUse", []byte(copilotPre))
	edit, _ := ParseAt(Copilot, "preToolUse", []byte(strings.Replace(copilotPre, `"bash"`, `"str_replace_editor"`, 1)))
	pascal, _ := ParseEnvelope(Copilot, []byte(copilotPascalPre))
	start, _ := ParseAt(Copilot, "sessionStart", []byte(`{"sessionId":"s","timestamp":1,"cwd":"/r","source":"new"}`))
	h := copilotHost{}
	for _, c := range []struct {
		matcher string
		e       *Envelope
		want    bool
	}{
		{"", camel, true},
		{"bash|edit", camel, true},
		{"bas", camel, false}, // the whole name: ^(?:PATTERN)$
		{"edit", edit, false},
		{"str_.*", edit, true},
		{"Bash", camel, false}, // camelCase events match the runtime name, case and all
		{"view", start, true},  // sessionStart takes no matcher
		{"Bash", pascal, true},
		{"bash", pascal, true}, // a runtime name at the PascalCase twin
		{"Edit|Write", pascal, false},
		{"*", pascal, true},
		{"B.*", pascal, true},
		{"ash", pascal, false},
	} {
		if got := h.Matches(c.matcher, c.e); got != c.want {
			t.Errorf("Matches(%q, %s %s) = %v, want %v", c.matcher, c.e.Point, c.e.ToolName, got, c.want)
		}
	}
	if err := h.CheckMatcher("bash|("); !errors.Is(err, ErrInvalid) {
		t.Errorf("CheckMatcher of a broken expression: %v", err)
	}
	for _, ok := range []string{"", "*", "**", "bash|edit"} {
		if err := h.CheckMatcher(ok); err != nil {
			t.Errorf("CheckMatcher(%q): %v", ok, err)
		}
	}
}

// copilotReads are hooks' answers as Copilot's reference reads them.
var copilotReads = []struct {
	name, point    string
	code           int
	stdout, stderr string
	action         Action
	reason         string
}{
	{"deny", "preToolUse", 0, `{"permissionDecision":"deny","permissionDecisionReason":"no rm"}`, "", Deny, "no rm"},
	{"deny without a reason", "preToolUse", 0, `{"permissionDecision":"deny"}`, "", Deny, "Denied by preToolUse hook"},
	{"ask", "preToolUse", 0, `{"permissionDecision":"ask","permissionDecisionReason":"sure?"}`, "", RequestApproval, "sure?"},
	{"allow", "preToolUse", 0, `{"permissionDecision":"allow"}`, "", Allow, ""},
	{"nothing", "preToolUse", 0, ``, "", Allow, ""},
	{"progress lines, then the answer", "preToolUse", 0, "{\"type\":\"progress\",\"message\":\"Checking...\"}\n{\"permissionDecision\":\"deny\",\n \"permissionDecisionReason\":\"no\"}\n", "", Deny, "no"},
	{"two answers are none", "preToolUse", 0, `{"permissionDecision":"deny","permissionDecisionReason":"a"}` + "\n" + `{"permissionDecision":"allow"}`, "", Allow, ""},
	{"text is none", "preToolUse", 0, "checked, all fine", "", Allow, ""},
	{"exit 2 over an allow", "preToolUse", 2, `{"permissionDecision":"allow"}`, "stop", Deny, "stop"},
	{"exit 2 with a reason", "preToolUse", 2, `{"permissionDecisionReason":"policy"}`, "x", Deny, "policy"},
	{"exit 1 errored", "preToolUse", 1, "", "Blocked: rm -rf", Deny, "Denied by preToolUse hook (hook errored): Blocked: rm -rf"},
	{"exit 1 over an allow", "preToolUse", 1, `{"permissionDecision":"allow"}`, "", Deny, "Denied by preToolUse hook (hook errored)"},
	{"PascalCase exit 1", "PreToolUse", 1, "", "", Deny, "Denied by PreToolUse hook (hook errored)"},
	{"permission deny", "permissionRequest", 0, `{"behavior":"deny","message":"not here"}`, "", Deny, "not here"},
	{"permission exit 2", "permissionRequest", 2, ``, "ignored", Deny, "Denied by permissionRequest hook"},
	{"permission exit 1 falls through", "permissionRequest", 1, ``, "", Allow, ""},
	{"agentStop block", "agentStop", 0, `{"decision":"block","reason":"run the tests"}`, "", Deny, "run the tests"},
	{"agentStop exit 1 is logged", "agentStop", 1, `{"decision":"block","reason":"x"}`, "", Allow, ""},
	{"sessionStart exit 2 is a warning", "sessionStart", 2, "", "careful", Allow, ""},
	{"sessionStart context", "sessionStart", 0, `{"additionalContext":"branch main"}`, "", Allow, ""},
	{"a progress line as JSON.parse reads it", "preToolUse", 0, "{\"type\":\"progress\",\"message\":\"caf\xe9\",\"type\":\"progress\"}\n{\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"no\"}", "", Deny, "no"},
	{"Claude's deny at the PascalCase twin", "PreToolUse", 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"claude says no"}}`, "", Deny, "claude says no"},
	{"Claude's deny is not Copilot's at camelCase", "preToolUse", 0, `{"hookSpecificOutput":{"permissionDecision":"deny"}}`, "", Allow, ""},
}

func TestCopilotInterpret(t *testing.T) {
	t.Parallel()
	for _, c := range copilotReads {
		e := &Envelope{Dialect: Copilot, Point: c.point}
		d, err := Interpret(e, c.code, []byte(c.stdout), []byte(c.stderr))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if d.Action != c.action || d.Reason != c.reason {
			t.Errorf("%s: %s %q, want %s %q", c.name, d.Action, d.Reason, c.action, c.reason)
		}
	}
	pre := &Envelope{Dialect: Copilot, Point: "preToolUse"}
	if d, _ := Interpret(pre, 0, []byte(`{"permissionDecision":"allow"}`), nil); !CopilotOf(*d).Approved {
		t.Error("the hook's own allow is not kept (Copilot skips its permission flow for it)")
	}
	if d, _ := Interpret(pre, 0, []byte(`{"modifiedArgs":{"command":"ls"}}`), nil); d.Action != Modify || string(d.Mutations) != `{"tool_input":{"command":"ls"}}` {
		t.Errorf("modifiedArgs: %s %s", d.Action, d.Mutations)
	}
	start := &Envelope{Dialect: Copilot, Point: "sessionStart"}
	if d, _ := Interpret(start, 2, nil, []byte("careful")); CopilotOf(*d).Warning != "careful" {
		t.Errorf("the warning of an exit 2: %+v", CopilotOf(*d))
	}
	if d, _ := Interpret(start, 1, []byte(`{"additionalContext":"x"}`), nil); CopilotOf(*d).Context != "" {
		t.Errorf("a failed hook's context passed on: %+v", CopilotOf(*d))
	}
	// PostToolUseFailure's exit 2 hands stdout to the agent, in both forms.
	for _, p := range []string{"postToolUseFailure", "PostToolUseFailure"} {
		if d, _ := Interpret(&Envelope{Dialect: Copilot, Point: p}, 2, []byte("retry with --force"), nil); CopilotOf(*d).Context != "retry with --force" {
			t.Errorf("%s exit 2: %+v", p, CopilotOf(*d))
		}
	}
	for name, c := range map[string]struct {
		code   int
		stdout string
		err    error
	}{
		"jq missing":                      {127, "", ErrMissing},
		"an unknown decision":             {0, `{"permissionDecision":"maybe"}`, ErrDecision},
		"a member in another case":        {0, `{"permissionDecision":"allow","PermissionDecision":"deny"}`, ErrDecision},
		"modifiedArgs not an object":      {0, `{"modifiedArgs":"ls"}`, ErrDecision},
		"permissionDecision not a string": {0, `{"permissionDecision":true}`, ErrDecision},
	} {
		if _, err := Interpret(pre, c.code, []byte(c.stdout), nil); !errors.Is(err, c.err) {
			t.Errorf("%s: %v, want %v", name, err, c.err)
		}
	}
}

// TestCopilotAnswer: what hook-exec answers Copilot reads back as the
// same decision, and a refusal is one whatever else reached stdout.
func TestCopilotAnswer(t *testing.T) {
	t.Parallel()
	h := copilotHost{}
	for _, c := range []struct {
		point  string
		dec    Decision
		fail   *Failure
		exit   int
		action Action
		reason string
	}{
		{"preToolUse", Decision{Action: Deny, Reason: "no rm"}, nil, ExitBlock, Deny, "no rm"},
		{"preToolUse", Decision{Action: Deny, Reason: "engine down"}, &Failure{Kind: FailEngineError, Message: "down"}, ExitBlock, Deny, "engine down"},
		{"preToolUse", Decision{Action: RequestApproval, Reason: "sure?"}, nil, 0, RequestApproval, "sure?"},
		{"preToolUse", Decision{Action: Allow}, nil, 0, Allow, ""},
		{"PreToolUse", Decision{Action: Deny, Reason: "no"}, nil, ExitBlock, Deny, "no"},
		{"permissionRequest", Decision{Action: Deny, Reason: "no"}, nil, ExitBlock, Deny, "no"},
		{"permissionRequest", Decision{Action: RequestApproval, Reason: "ask"}, nil, 0, Allow, ""},
		{"agentStop", Decision{Action: Deny, Reason: "run the tests"}, nil, 0, Deny, "run the tests"},
		// A failure never keeps the agent working: a warning, and it stops.
		{"agentStop", Decision{Action: Deny, Reason: "x"}, &Failure{Kind: FailTimeout, Message: "10s"}, ExitBlock, Allow, ""},
		{"sessionStart", Decision{Action: Deny, Reason: "x"}, &Failure{Kind: FailMissingProgram, Message: "jq"}, ExitBlock, Allow, ""},
	} {
		c.dec.SchemaVersion = 1
		a, err := h.Answer(c.point, c.dec, c.fail)
		if err != nil {
			t.Fatalf("%s %s: %v", c.point, c.dec.Action, err)
		}
		if a.Exit != c.exit {
			t.Errorf("%s %s: exit %d, want %d", c.point, c.dec.Action, a.Exit, c.exit)
		}
		// Behind a shell profile's line, exit 2 still denies, for the
		// reason given (permissionRequest ignores stderr: not there).
		stdout := a.Stdout
		if c.exit != 0 && c.point != "permissionRequest" {
			stdout = append([]byte("Welcome to bash\n"), a.Stdout...)
		}
		back, err := Interpret(&Envelope{Dialect: Copilot, Point: c.point}, a.Exit, stdout, []byte(a.Stderr))
		if err != nil {
			t.Fatalf("%s %s: the answer %q does not read: %v", c.point, c.dec.Action, a.Stdout, err)
		}
		if back.Action != c.action || back.Reason != c.reason {
			t.Errorf("%s %s: read back as %s %q (stdout %q, exit %d), want %s %q", c.point, c.dec.Action, back.Action, back.Reason, a.Stdout, a.Exit, c.action, c.reason)
		}
	}
	// The hook's own allow, its context and what it rewrites pass on.
	pre := &Envelope{Dialect: Copilot, Point: "postToolUse"}
	d, err := Interpret(pre, 0, []byte(`{"additionalContext":"lint: 2 warnings","modifiedResult":{"resultType":"success","textResultForLlm":"[redacted]"}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := h.Encode("postToolUse", *d, nil)
	if got := strings.TrimSpace(string(b)); got != `{"additionalContext":"lint: 2 warnings","modifiedResult":{"resultType":"success","textResultForLlm":"[redacted]"}}` {
		t.Errorf("postToolUse answer %s", got)
	}
}

func FuzzCopilotParseAt(f *testing.F) {
	for _, s := range []struct{ point, payload string }{
		{"preToolUse", copilotPre}, {"", copilotPascalPre}, {"PreToolUse", copilotPascalPre},
		{"postToolUse", `{"sessionId":"s","timestamp":1,"cwd":"/r","toolName":"edit","toolArgs":{"path":"a"}}`},
		{"notification", `{"sessionId":"s","timestamp":1,"cwd":"/r","hook_event_name":"Notification","message":"m","notification_type":"agent_idle"}`},
	} {
		f.Add(s.point, []byte(s.payload))
	}
	f.Fuzz(func(t *testing.T, point string, b []byte) {
		e, err := ParseAt(Copilot, point, b)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("an error outside ErrInvalid: %v", err)
			}
			return
		}
		if point != "" && e.Point != point {
			t.Fatalf("read at %q as %q", point, e.Point)
		}
		if e.EditedFile != "" && !strings.HasPrefix(e.EditedFile, "/") {
			t.Fatalf("a relative edited file %q", e.EditedFile)
		}
	})
}
