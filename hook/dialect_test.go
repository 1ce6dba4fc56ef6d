package hook

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/hookexec/hook-exec/internal/secretname"
)

func TestMatchTool(t *testing.T) {
	t.Parallel()
	tests := []struct {
		matcher, tool string
		hasTool, want bool
	}{
		{"", "bash", true, true},
		{"bash", "bash", true, true},
		{"bash", "bash2", true, false},
		{"mcp_*", "mcp_github", true, true},
		{"mcp_*", "bash", true, false},
		{"*", "anything", true, true},
		{"bash", "", false, true}, // sessionStart/runEnd always fire
	}
	for _, tc := range tests {
		if got := MatchTool(tc.matcher, tc.tool, tc.hasTool); got != tc.want {
			t.Errorf("MatchTool(%q, %q) = %v", tc.matcher, tc.tool, got)
		}
	}
}

func TestParseEnvelopeArcturn(t *testing.T) {
	t.Parallel()
	good := map[string]bool{
		`{"event":"preToolUse","toolName":"bash","input":{"command":"ls"},"cwd":"/p"}`:                      true,
		`{"event":"postToolUse","toolName":"bash","input":{},"resultText":"ok","isError":false,"cwd":"/p"}`: false,
		`{"event":"sessionStart","cwd":"/p"}`:                                                               false,
		`{"event":"runEnd","cwd":"/p"}`:                                                                     false,
	}
	for ev, blocks := range good {
		e, err := ParseEnvelope(Arcturn, []byte(ev))
		if err != nil {
			t.Errorf("%s: %v", ev, err)
			continue
		}
		if e.CanBlock != blocks {
			t.Errorf("%s: can block = %v, want %v", ev, e.CanBlock, blocks)
		}
		if e.Workspace != "/p" {
			t.Errorf("%s: workspace = %q, want %q", ev, e.Workspace, "/p")
		}
	}
	for _, bad := range []string{
		`{"event":"preToolUse","toolName":"bash","input":{},"cwd":"/p","CWD":"/"}`,
		`{"event":"preToolUse","toolName":"bash","input":{},"cwd":"/p","ToolName":"mcp_x"}`,
		`{"event":"preToolUse","toolName":"bash","input":{},"cwd":"/p","model":{"a":1,"a":2}}`,
		`{"event":"preToolUse","toolName":"bash","input":{},"cwd":"/p","resultText":1}`,
		`{"event":"sessionStart","cwd":"/p","toolName":5}`,
		`{"event":"runEnd","cwd":"/p","isError":"no"}`,
		`{"event":"runEnd","cwd":"/p","input":[]}`,
		`{"event":"preToolUse","toolName":"bash","input":{},"cwd":"/p","cwd":"/"}`,
		`{"event":"preToolUse","input":{},"cwd":"/p"}`,
		`{"event":"preToolUse","toolName":"bash","cwd":"/p"}`,
		`{"event":"preToolUse","toolName":"bash","input":[],"cwd":"/p"}`,
		`{"event":"postToolUse","toolName":"bash","input":{},"cwd":"/p"}`,
		`{"event":"postToolUse","toolName":"bash","input":{},"resultText":"x","isError":"no","cwd":"/p"}`,
		`{"event":"onSave","cwd":"/p"}`,
		`{"event":"sessionStart"}`,
		`{"event":"sessionStart","cwd":"/p","cwd":"/q"}`,
		`[]`,
	} {
		if _, err := ParseEnvelope(Arcturn, []byte(bad)); !errors.Is(err, ErrInvalid) {
			t.Errorf("accepted %s", bad)
		}
	}
}

// A newer Arcturn adds members: they are passed on unread (the hook gets
// the original bytes), and a tool-less event keeps firing every hook.
func TestParseEnvelopeArcturnTolerant(t *testing.T) {
	t.Parallel()
	for ev, tool := range map[string]string{
		`{"event":"preToolUse","toolName":"bash","input":{"command":"ls"},"cwd":"/p","sessionId":"s-1","model":{"id":"m"}}`: "bash",
		`{"event":"postToolUse","toolName":"bash","input":{},"resultText":"ok","isError":false,"durationMs":12,"cwd":"/p"}`: "bash",
		`{"event":"runEnd","cwd":"/p","extra":1}`:                        "",
		`{"event":"sessionStart","cwd":"/p","toolName":"bash","x":null}`: "",
	} {
		e, err := ParseEnvelope(Arcturn, []byte(ev))
		if err != nil {
			t.Errorf("%s: %v", ev, err)
			continue
		}
		if e.ToolName != tool {
			t.Errorf("%s: tool %q, want %q", ev, e.ToolName, tool)
		}
	}
}

func TestParseEnvelopeBernstein(t *testing.T) {
	t.Parallel()
	for event, keys := range BernsteinSchemas {
		data := []string{}
		for _, k := range keys {
			data = append(data, `"`+k+`":"v"`)
		}
		ev := `{"event":"` + event + `","session_id":"s","data":{` + strings.Join(data, ",") + `}}`
		if _, err := ParseEnvelope(Bernstein, []byte(ev)); err != nil {
			t.Errorf("%s: %v", event, err)
		}
		for _, k := range keys {
			missing := strings.Replace(ev, `"`+k+`":"v"`, `"other":"v"`, 1)
			if _, err := ParseEnvelope(Bernstein, []byte(missing)); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), k) {
				t.Errorf("%s without %s: err = %v, want ErrInvalid naming %s", event, k, err, k)
			}
		}
	}
	// Native events take any payload; unknown keys are always allowed.
	for _, ok := range []string{`{"event":"pre_task","data":{"x":1}}`, `{"event":"pre_merge"}`, `{"event":"idle","data":{"session_id":"s","idle_duration_s":3,"more":true}}`} {
		if _, err := ParseEnvelope(Bernstein, []byte(ok)); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{`{"data":{}}`, `{"event":"pre_task","data":[1]}`, `{"event":"pre_task","env":[1]}`, `{"event":1}`,
		`{"event":"pre_task","Event":"preToolUse"}`, `{"event":"pre_task","task":5}`, `{"event":"pre_task","timestamp":"now"}`,
		`{"event":"pre_task","workdir":null}`, `{"event":"pre_task","extra":{"a":1,"a":2}}`, `{"event":"pre_task","data":{},"data":{}}`} {
		if _, err := ParseEnvelope(Bernstein, []byte(bad)); !errors.Is(err, ErrInvalid) {
			t.Errorf("accepted %s", bad)
		}
	}
}

// What Bernstein writes is read: members it adds later, a task and a
// session of null, and the empty context of `bernstein hooks run`, which
// Bernstein fires unchecked; a supplied payload is still checked.
func TestParseEnvelopeBernsteinTolerant(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{
		`{"event":"preToolUse","task":null,"session_id":null,"workdir":"/w","env":{},"timestamp":1736251200.0,"data":{}}`,
		`{"event":"sessionEnd","task":"T-1","session_id":"s","workdir":"/w","env":{},"timestamp":1,"trace_id":"x","data":{"session_id":"s","status":"ok"}}`,
	} {
		if _, err := ParseEnvelope(Bernstein, []byte(ok)); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for event := range BernsteinSchemas {
		if err := CheckBernsteinData(event, []byte(`{}`)); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `"session_id"`) {
			t.Errorf("%s: a supplied {}: err %v, want ErrInvalid naming session_id", event, err)
		}
	}
	if err := CheckBernsteinData("pre_task", []byte(`{}`)); err != nil {
		t.Errorf("a native event takes any payload: %v", err)
	}
	if err := CheckBernsteinData("pre_task", []byte(`{"a":1,"a":2}`)); !errors.Is(err, ErrInvalid) {
		t.Errorf("a duplicate key: err %v, want ErrInvalid", err)
	}
}

func TestBernsteinDecisions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		out     string
		action  Action
		annot   string
		raw     bool
		invalid bool
	}{
		{``, Allow, "", false, false},
		{"plain text\n", Allow, "", false, false},
		{`[1,2]`, Allow, "", false, false},
		{`"allow"`, Allow, "", false, false},
		{`{"decision":"allow"}`, Allow, "", false, false},
		{`{"decision":"deny","reason":"no"}`, Deny, "", false, false},
		{`{"decision":"annotate","data":{"billing_unit_cost":0.5}}`, Allow, `{"billing_unit_cost":0.5}`, false, false},
		{`{"decision":"annotate"}`, "", "", false, true},
		{`{"decision":"mutate","data":{"tool":"x"}}`, Modify, "", false, false},
		{`{"decision":"escalate"}`, Allow, "", true, false},
		// Members besides decision, reason and data are ignored, as
		// Bernstein ignores them; no decision is an allow, its record kept.
		{`{"decision":"escalate","why":"?"}`, Allow, "", true, false},
		{`{"decision":"allow","message":"ok"}`, Allow, "", false, false},
		{`{"decision":"deny","reason":"no","ticket":{"id":7}}`, Deny, "", false, false},
		{`{"continue":true}`, Allow, "", true, false},
		{`{"verdict":"deny"}`, Allow, "", true, false},
		// A known name in another case, a duplicate (at any depth), a
		// known member of the wrong type: refused.
		{`{"decision":"deny","reason":"no","Decision":"allow"}`, "", "", false, true},
		{`{"DECISION":"deny"}`, "", "", false, true},
		{`{"decision":"allow","reaſon":"x"}`, "", "", false, true},
		{`{"decision":"deny","decision":"allow"}`, "", "", false, true},
		{`{"decision":"allow","message":{"a":1,"a":2}}`, "", "", false, true},
		{`{"decision":1}`, "", "", false, true},
		{"{\"decision\":\"allow\"}\n{\"decision\":\"deny\",\"decision\":\"allow\"}", "", "", false, true},
	}
	for _, tc := range tests {
		d, err := Interpret(&Envelope{Dialect: Bernstein, Point: "preToolUse"}, 0, []byte(tc.out), nil)
		if tc.invalid {
			if !errors.Is(err, ErrDecision) {
				t.Errorf("%s: accepted", tc.out)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.out, err)
			continue
		}
		if d.Action != tc.action {
			t.Errorf("%s: action = %q, want %q", tc.out, d.Action, tc.action)
		}
		if string(BernsteinOf(*d).Annotations) != tc.annot {
			t.Errorf("%s: annotations = %s, want %s", tc.out, BernsteinOf(*d).Annotations, tc.annot)
		}
		if (len(BernsteinOf(*d).Raw) > 0) != tc.raw {
			t.Errorf("%s: raw = %s, want one kept: %v", tc.out, BernsteinOf(*d).Raw, tc.raw)
		}
	}
}

// A Bernstein hook's exit status: a deny it wrote stands whatever the
// status; an allow, annotate or mutate counts only on exit 0; exit 2 is a
// blocking error; anything else is a failure.
func TestBernsteinExitStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		code     int
		out, err string
		action   Action
		reason   string
		fails    error
	}{
		{1, `{"decision":"deny","reason":"no"}`, "boom", Deny, "no", nil},
		{127, "log\n{\"decision\":\"deny\",\"reason\":\"no\"}\n", "jq: not found", Deny, "no", nil},
		{2, `{"decision":"deny","reason":"no"}`, "stderr", Deny, "no", nil},
		{2, ``, "blocked here", Deny, "blocked here", nil},
		{2, `{"decision":"allow"}`, "blocked here", Deny, "blocked here", nil},
		{1, `{"decision":"allow"}`, "", "", "", ErrExit},
		{1, `{"decision":"annotate","data":{"a":1}}`, "", "", "", ErrExit},
		{1, ``, "", "", "", ErrExit},
		{1, `{"decision":"deny","decision":"allow"}`, "", "", "", ErrExit},
		{0, `{"decision":"deny","decision":"allow"}`, "", "", "", ErrDecision},
		{0, `{"decision":"allow"}`, "", Allow, "", nil},
	}
	for _, tc := range tests {
		d, err := Interpret(&Envelope{Dialect: Bernstein, Point: "preToolUse", CanBlock: true}, tc.code, []byte(tc.out), []byte(tc.err))
		if tc.fails != nil {
			if !errors.Is(err, tc.fails) {
				t.Errorf("exit %d %s: decision %+v err %v, want %v", tc.code, tc.out, d, err, tc.fails)
			}
			continue
		}
		if err != nil || d.Action != tc.action || d.Reason != tc.reason {
			t.Errorf("exit %d %s: decision %+v err %v, want %s %q", tc.code, tc.out, d, err, tc.action, tc.reason)
		}
	}
}

func TestEncode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		d    Dialect
		dec  Decision
		want string
	}{
		{Holaryn, Decision{SchemaVersion: 1, Action: Deny, Reason: "r", Extension: &BernsteinAnswer{Annotations: []byte(`{"a":1}`)}}, `{"schema_version":1,"action":"deny","reason":"r"}`},
		{Arcturn, Decision{SchemaVersion: 1, Action: Deny, Reason: "r"}, `{"decision":"deny","reason":"r"}`},
		{Arcturn, Decision{SchemaVersion: 1, Action: Modify}, `{"decision":"allow"}`},
		{Bernstein, Decision{SchemaVersion: 1, Action: Allow, Extension: &BernsteinAnswer{Annotations: []byte(`{"a":1}`)}}, `{"decision":"annotate","data":{"a":1}}`},
		{Bernstein, Decision{SchemaVersion: 1, Action: Modify, Mutations: []byte(`{"data":{"b":2}}`)}, `{"decision":"mutate","data":{"b":2}}`},
		{Bernstein, Decision{SchemaVersion: 1, Action: RequestApproval, Reason: "ask"}, `{"decision":"deny","reason":"ask"}`},
		// A record normalised to allow is passed on whole, for Bernstein to keep.
		{Bernstein, Decision{SchemaVersion: 1, Action: Allow, Extension: &BernsteinAnswer{Raw: []byte(`{"decision":"escalate","to":"oncall"}`)}}, `{"decision":"escalate","to":"oncall"}`},
		{Bernstein, Decision{SchemaVersion: 1, Action: Allow, Extension: &BernsteinAnswer{Raw: []byte(`{"decision":"escalate"} {}`)}}, `{"decision":"allow"}`},
		{Bernstein, Decision{SchemaVersion: 1, Action: Deny, Reason: "r", Extension: &BernsteinAnswer{Raw: []byte(`{"decision":"escalate"}`)}}, `{"decision":"deny","reason":"r"}`},
	}
	for _, tc := range tests {
		b, err := Encode(tc.d, "preToolUse", tc.dec, nil)
		if err != nil {
			t.Errorf("Encode(%s, %+v): %v", tc.d, tc.dec, err)
			continue
		}
		if got := strings.TrimSpace(string(b)); got != tc.want {
			t.Errorf("Encode(%s, %+v) = %s, want %s", tc.d, tc.dec, got, tc.want)
		}
	}
}

func FuzzParseEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"event":"preToolUse","toolName":"bash","input":{"command":"ls"},"cwd":"/p"}`,
		`{"event":"preToolUse","session_id":"s","env":{"BERNSTEIN_X":"1"},"data":{"session_id":"s","tool":"t","args":{}}}`,
		`{"event":"preToolUse","task":null,"session_id":null,"workdir":"/w","env":{},"timestamp":1.5,"data":{},"new":1}`,
		`{"event":"postToolUse","toolName":"bash","input":{},"resultText":"ok","isError":false,"cwd":"/p","durationMs":3}`,
		`{"schema_version":1,"point":"tool.before","depth":0,"data":{}}`,
		claudePreToolUse, cursorShell, geminiBeforeTool,
		string(codexEvent("PreToolUse", `"tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch"}`)),
		string(windsurfPayload("pre_write_code", `{"file_path":"/p/a.py","edits":[{"old_string":"a","new_string":"b"}]}`)),
		string(clinePre), copilotPascalPre,
	} {
		for _, d := range Dialects() {
			f.Add(d, []byte(s))
		}
	}
	for _, tc := range otherHostCases {
		f.Add(string(tc.dialect), []byte(tc.event))
	}
	f.Fuzz(func(t *testing.T, dialect string, b []byte) {
		d, err := ParseDialect(dialect)
		if err != nil {
			return
		}
		if err := CheckBernsteinData("preToolUse", b); err != nil && !errors.Is(err, ErrInvalid) {
			t.Fatalf("CheckBernsteinData: an error outside ErrInvalid: %v", err)
		}
		e, err := ParseEnvelope(d, b)
		if err != nil {
			return
		}
		for k := range e.EnvVars("h") {
			if !strings.HasPrefix(k, "HOLARYN_HOOK_") && !strings.HasPrefix(k, "BERNSTEIN_") && !strings.HasPrefix(k, "GEMINI_") &&
				k != "CLAUDE_PROJECT_DIR" && k != "CURSOR_PROJECT_DIR" {
				t.Fatalf("event variable %q", k)
			}
			if _, secret := secretname.Match(k); secret {
				t.Fatalf("secret-like event variable %q passed", k)
			}
		}
	})
}

func FuzzInterpret(f *testing.F) {
	f.Add("bernstein", 0, []byte(`{"decision":"annotate","data":{"a":1}}`))
	f.Add("bernstein", 1, []byte(`{"decision":"deny","reason":"no","extra":[1]}`))
	f.Add("bernstein", 0, []byte(`{"decision":"escalate","to":"x"}`))
	f.Add("arcturn", 2, []byte("reason"))
	f.Add("holaryn", 0, []byte(`{"schema_version":1,"action":"allow"}`))
	f.Add("holaryn", 1, []byte(`{"schema_version":1,"action":"deny","reason":"r"}`))
	f.Add("holaryn", 1, []byte(`{"schema_version":1,"action":"modify","mutations":{"args":{}}}`))
	for _, tc := range claudeAnswers {
		f.Add("claude", tc.code, []byte(tc.out))
	}
	for _, tc := range cursorAnswers {
		f.Add("cursor", tc.code, []byte(tc.out))
	}
	for _, tc := range geminiAnswers {
		f.Add("gemini", tc.code, []byte(tc.out))
	}
	for _, tc := range cursorMessages {
		f.Add("cursor", tc.code, []byte(tc.out))
	}
	for _, tc := range geminiReads {
		f.Add("gemini", tc.code, []byte(tc.stdout))
	}
	for _, tc := range claudeAnswers {
		f.Add("codex", tc.code, []byte(tc.out))
	}
	f.Add("windsurf", 2, []byte("blocked"))
	for _, c := range copilotReads {
		f.Add("copilot", c.code, []byte(c.stdout))
	}
	f.Fuzz(func(t *testing.T, dialect string, code int, out []byte) {
		d, err := ParseDialect(dialect)
		if err != nil {
			return
		}
		point := map[Dialect]string{Claude: "PreToolUse", Codex: "PreToolUse", Gemini: "BeforeTool", Windsurf: "pre_run_command"}[d]
		if point == "" {
			point = "preToolUse"
		}
		dec, err := Interpret(&Envelope{Dialect: d, Point: point, CanBlock: true}, code, out, out)
		if err != nil {
			return
		}
		switch dec.Action {
		case Allow, Deny, Modify, RequestApproval:
		default:
			t.Fatalf("action %q", dec.Action)
		}
		approved := ClaudeOf(*dec).Approved || CursorOf(*dec).Approved || ClaudeOf(*dec).Approved
		if code != 0 && (dec.Action == Modify || approved) {
			t.Fatalf("exit %d: %s (approved %v): only exit 0 allows or rewrites", code, dec.Action, approved)
		}
		if _, err := Encode(d, point, *dec, nil); err != nil {
			t.Fatal(err)
		}
	})
}

// A refusal a holaryn hook wrote holds whatever its exit status; anything
// else on a non-zero exit is the failure its policy handles.
func TestInterpretHolarynRefusalOnFailure(t *testing.T) {
	t.Parallel()
	env := &Envelope{Dialect: Holaryn, Point: "tool.before", CanBlock: true}
	tests := []struct {
		name string
		code int
		out  string
		want Action // "": ErrExit
	}{
		{"deny then exit 1", 1, `{"schema_version":1,"action":"deny","reason":"no"}`, Deny},
		{"request_approval then exit 3", 3, `{"schema_version":1,"action":"request_approval","reason":"ask"}`, RequestApproval},
		{"allow then exit 1", 1, `{"schema_version":1,"action":"allow"}`, ""},
		{"modify then exit 1", 1, `{"schema_version":1,"action":"modify","mutations":{"args":{"p":1}}}`, ""},
		{"nothing then exit 1", 1, ``, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Interpret(env, tc.code, []byte(tc.out), nil)
			if tc.want == "" {
				if !errors.Is(err, ErrExit) {
					t.Fatalf("got %+v, %v; want ErrExit", d, err)
				}
				return
			}
			if err != nil || d.Action != tc.want {
				t.Fatalf("got %+v, %v; want %s", d, err, tc.want)
			}
		})
	}
}

func TestSniff(t *testing.T) {
	t.Parallel()
	tests := []struct {
		payload string
		want    Dialect
		point   string
	}{
		{claudePreToolUse, Claude, "PreToolUse"},
		{`{"schema_version":1,"point":"tool.before","data":{}}`, Holaryn, "tool.before"},
		{`{"event":"preToolUse","toolName":"bash","input":{},"cwd":"/p"}`, Arcturn, "preToolUse"},
		{`{"event":"sessionStart","cwd":"/p"}`, Arcturn, "sessionStart"},
		{`{"event":"preToolUse","task":"t1","data":{"tool":"x"}}`, Bernstein, "preToolUse"},
		{`{"event":"x"}`, "", ""},
		{`[1]`, "", ""},
		{`{"hook_event_name":7}`, "", ""},
	}
	for _, tc := range tests {
		d, p := Sniff([]byte(tc.payload))
		if d != tc.want || p != tc.point {
			t.Errorf("Sniff(%s) = %q, %q; want %q, %q", tc.payload, d, p, tc.want, tc.point)
		}
	}
}

// A hook that could not run is refused in every dialect; only a hook that
// ran and failed on its own follows Arcturn's fail-open contract.
func TestDefaultFailurePolicy(t *testing.T) {
	t.Parallel()
	for _, d := range []Dialect{Holaryn, Arcturn, Bernstein, Claude} {
		for _, own := range []bool{false, true} {
			want := PolicyDeny
			if d == Arcturn && own {
				want = PolicyWarn
			}
			if got := d.Host().DefaultFailurePolicy(Blocking, own); got != want {
				t.Errorf("%s, own %v: %s, want %s", d, own, got, want)
			}
			if got := d.Host().DefaultFailurePolicy(Observational, own); got != PolicyWarn {
				t.Errorf("%s observational, own %v: %s, want warn", d, own, got)
			}
		}
	}
	for _, k := range []FailureKind{FailMissingProgram, FailEngineError, FailRefusedChanged, FailRefusedRule, FailLauncherError,
		FailNotIsolated, FailInvalidEvent, FailOverloaded, FailInvocation, FailCircuitOpen, FailWorkspaceUnsafe} {
		if k.HooksOwn() {
			t.Errorf("%s is the hook's own: it never ran", k)
		}
	}
	for _, k := range []FailureKind{FailExitNonzero, FailTimeout, FailOutputLimit, FailOOM, FailInvalidDecision} {
		if !k.HooksOwn() {
			t.Errorf("%s is not the hook's own", k)
		}
	}
}

// Exit 126 or 127 (the hook's shell could not run a program it runs) is a
// missing program in every dialect, never the hook's own failure: under
// Arcturn's fail-open contract a guard missing its jq would allow all.
func TestMissingProgramInEveryDialect(t *testing.T) {
	t.Parallel()
	for _, d := range []Dialect{Holaryn, Arcturn, Bernstein, Claude} {
		for _, code := range []int{126, 127} {
			_, err := Interpret(&Envelope{Dialect: d, Point: "preToolUse", CanBlock: true}, code, nil, []byte("jq: not found"))
			if !errors.Is(err, ErrMissing) {
				t.Errorf("%s, exit %d: %v, want ErrMissing", d, code, err)
			}
		}
	}
}

// Each name has its own host, and what the executor asks of it is what
// the host's contract says; a name no host has refuses events and answers.
func TestHosts(t *testing.T) {
	t.Parallel()
	pd, pdDir := "CLAUDE_PLUGIN_DATA", ".claude/plugins/data"
	want := map[Dialect]Sandbox{
		Holaryn:   {PluginRootVar: "CLAUDE_PLUGIN_ROOT", EnvFileVar: "CLAUDE_ENV_FILE", VarPrefix: "HOLARYN_HOOK_", PluginDataVar: pd, PluginDataDir: pdDir},
		Arcturn:   {Shebang: true, EventCwd: true, PluginRootVar: "CLAUDE_PLUGIN_ROOT", EnvFileVar: "CLAUDE_ENV_FILE", PluginDataVar: pd, PluginDataDir: pdDir},
		Bernstein: {Shebang: true, EventCwd: true, PluginRootVar: "CLAUDE_PLUGIN_ROOT", EnvFileVar: "CLAUDE_ENV_FILE", VarPrefix: "BERNSTEIN_", PluginDataVar: pd, PluginDataDir: pdDir},
		Claude:    {Shebang: true, EventCwd: true, PluginRootVar: "CLAUDE_PLUGIN_ROOT", EnvFileVar: "CLAUDE_ENV_FILE", HomeDir: ".claude", VarPrefix: "CLAUDE_", PluginDataVar: pd, PluginDataDir: pdDir},
		Cursor:    {Shebang: true, EventCwd: true, PluginRootVar: "CURSOR_PLUGIN_ROOT", EnvFileVar: "CLAUDE_ENV_FILE", HomeDir: ".cursor", VarPrefix: "CURSOR_", PluginDataVar: pd, PluginDataDir: pdDir},
		Gemini:    {Shebang: true, EventCwd: true, PluginRootVar: "CLAUDE_PLUGIN_ROOT", EnvFileVar: "CLAUDE_ENV_FILE", HomeDir: ".gemini", VarPrefix: "GEMINI_", PluginDataVar: pd, PluginDataDir: pdDir},
		Windsurf:  {Shebang: true, EventCwd: true, WorkspaceCwd: true, PluginRootVar: "CLAUDE_PLUGIN_ROOT", EnvFileVar: "CLAUDE_ENV_FILE", HomeDir: ".codeium", PluginDataVar: pd, PluginDataDir: pdDir},
		Codex:     {Shebang: true, EventCwd: true, PluginRootVar: "CLAUDE_PLUGIN_ROOT", EnvFileVar: "CLAUDE_ENV_FILE", HomeDir: ".codex", VarPrefix: "CODEX_", PluginDataVar: pd, PluginDataDir: pdDir},
	}
	// The variables no hook declares: every host's, as the sandbox had them.
	if got, want := VarPrefixes(), []string{"BERNSTEIN_", "CLAUDE_", "CODEX_", "CURSOR_", "GEMINI_", "HOLARYN_HOOK_"}; !slices.Equal(got, want) {
		t.Errorf("VarPrefixes() = %q, want %q", got, want)
	}
	for d, sb := range want {
		if _, err := ParseDialect(string(d)); err != nil {
			t.Errorf("ParseDialect(%s): %v", d, err)
		}
		if got := d.Host().Name(); got != d {
			t.Errorf("%s.Host().Name() = %s", d, got)
		}
		if got := d.Host().Sandbox(); got != sb {
			t.Errorf("%s sandbox = %+v, want %+v", d, got, sb)
		}
	}
	if got := Holaryn.Host().HookVars("h1")["HOLARYN_HOOK_ID"]; got != "h1" {
		t.Errorf("holaryn HOLARYN_HOOK_ID = %q, want h1", got)
	}
	unknown := Dialect("nohost").Host()
	if _, err := unknown.Parse([]byte(`{}`)); !errors.Is(err, ErrInvalid) {
		t.Errorf("unknown Parse: %v, want ErrInvalid", err)
	}
	if _, err := unknown.Encode("p", Decision{SchemaVersion: 1, Action: Allow}, nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("unknown Encode: %v, want ErrInvalid", err)
	}
	if _, err := unknown.Interpret(&Envelope{Dialect: "nohost"}, 0, nil, nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("unknown Interpret: %v, want ErrInvalid", err)
	}
	if err := Claude.Host().CheckMatcher("(["); !errors.Is(err, ErrInvalid) {
		t.Errorf("claude CheckMatcher((): %v, want ErrInvalid", err)
	}
}

// A host's part of an answer rides in the decision's extension: redacted
// like the rest of what a hook wrote, and no part of the decision's JSON.
func TestDecisionExtension(t *testing.T) {
	t.Parallel()
	secret := fake(hexLow, 40)
	rec := []byte(`{"decision":"escalate","private_key_id":"` + secret + `"}`)
	d := Decision{SchemaVersion: 1, Action: Allow, Extension: &BernsteinAnswer{Raw: rec, Annotations: rec}}
	red := BernsteinOf(Decision{Extension: d.Extension.Redact()})
	for _, raw := range [][]byte{red.Raw, red.Annotations} {
		if strings.Contains(string(raw), secret) || !strings.Contains(string(raw), `"escalate"`) {
			t.Errorf("redacted = %s, want the secret gone and the rest kept", raw)
		}
	}
	if !strings.Contains(string(BernsteinOf(d).Raw), secret) {
		t.Error("Redact changed the original")
	}
	if got := ClaudeOf(d); got != (ClaudeAnswer{}) {
		t.Errorf("ClaudeOf a bernstein answer = %+v, want zero", got)
	}
	b, err := json.Marshal(Decision{SchemaVersion: 1, Action: Allow, Reason: "r", Extension: &ClaudeAnswer{Context: "c", Approved: true}})
	if err != nil || string(b) != `{"schema_version":1,"action":"allow","reason":"r"}` {
		t.Errorf("JSON = %s, %v", b, err)
	}
}

// Each host reads a hook command's answer its own way: what is printed
// where, and the exit status.
func TestHostAnswers(t *testing.T) {
	deny := Decision{SchemaVersion: 1, Action: Deny, Reason: "no"}
	allow := Decision{SchemaVersion: 1, Action: Allow}
	failed := &Failure{Kind: FailExitNonzero, Message: "exit 1"}
	unreadable := &Failure{Kind: FailInvalidEvent, Message: "bad"}
	for _, tc := range []struct {
		name    string
		d       Dialect
		point   string
		dec     Decision
		failure *Failure
		stdout  bool
		stderr  string
		exit    int
	}{
		{"holaryn allow", Holaryn, "tool.before", allow, nil, true, "", 0},
		{"holaryn deny", Holaryn, "tool.before", deny, nil, true, "", ExitBlock},
		{"arcturn deny", Arcturn, "", deny, nil, true, "no", ExitBlock},
		{"arcturn allow", Arcturn, "", allow, nil, true, "", 0},
		{"claude deny at an event", Claude, "PreToolUse", deny, nil, true, "", 0},
		{"claude deny at no event", Claude, "", deny, unreadable, false, "no", ExitBlock},
		{"bernstein deny", Bernstein, "preToolUse", deny, nil, true, "", 0},
		{"bernstein failed", Bernstein, "preToolUse", deny, failed, false, "", ExitHookFailed},
		{"bernstein unreadable", Bernstein, "preToolUse", deny, unreadable, false, "", ExitBlock},
		{"unknown dialect", Dialect("nope"), "", allow, nil, false, "", ExitBlock},
	} {
		a, err := tc.d.Host().Answer(tc.point, tc.dec, tc.failure)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if (a.Stdout != nil) != tc.stdout || a.Stderr != tc.stderr || a.Exit != tc.exit {
			t.Errorf("%s: stdout %q stderr %q exit %d; want stdout %v, stderr %q, exit %d", tc.name, a.Stdout, a.Stderr, a.Exit, tc.stdout, tc.stderr, tc.exit)
		}
	}
}

// toyHost is a host of a test's own, answering as Holaryn does.
type toyHost struct{ holarynHost }

func (toyHost) Name() Dialect { return "toy" }
func (toyHost) Sandbox() Sandbox {
	return Sandbox{VarPrefix: "TOY_", PluginRootVar: pluginRootVar, EnvFileVar: envFileVar}
}

// A host is a registration: one line (the map entry) makes a toy host one
// that ParseDialect takes, the dialect lists (messages, --help) name and
// whose variables no hook may declare. Not parallel: it changes the table.
func TestToyHostIsOneRegistration(t *testing.T) {
	hosts["toy"] = toyHost{}
	defer delete(hosts, "toy")
	if d, err := ParseDialect("toy"); err != nil || d.Host().Name() != "toy" {
		t.Errorf("ParseDialect(toy): %v, %v", d, err)
	}
	if !slices.Contains(Dialects(), "toy") {
		t.Errorf("Dialects() = %q, without the toy", Dialects())
	}
	if _, err := ParseDialect("nope"); err == nil || !strings.Contains(err.Error(), "toy") {
		t.Errorf("the unknown dialect's message does not name the toy: %v", err)
	}
	if !slices.Contains(VarPrefixes(), "TOY_") {
		t.Errorf("VarPrefixes() = %q, without TOY_", VarPrefixes())
	}
}
