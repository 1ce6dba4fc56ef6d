package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

// codexEvent is a Codex payload as codex-rs/hooks writes it (its
// generated input schemas): Claude Code's members with turn_id and model.
func codexEvent(event, extra string) []byte {
	if extra != "" {
		extra = "," + extra
	}
	return []byte(`{"session_id":"0199a1b2","turn_id":"1","transcript_path":null,"cwd":"/work/repo","hook_event_name":"` + event +
		`","model":"gpt-5-codex","permission_mode":"default"` + extra + `}`)
}

func TestCodexParse(t *testing.T) {
	t.Parallel()
	b := codexEvent("PreToolUse", `"tool_name":"Bash","tool_use_id":"call_1","tool_input":{"command":"rm -rf build"}`)
	e, err := ParseEnvelope(Codex, b)
	if err != nil {
		t.Fatal(err)
	}
	if e.Dialect != Codex || e.Point != "PreToolUse" || e.ToolName != "Bash" || !e.CanBlock || e.Workspace != "/work/repo" || e.TranscriptPath != "" {
		t.Errorf("envelope %+v", e)
	}
	if d, point := Sniff(b); d != Codex || point != "PreToolUse" {
		t.Errorf("Sniff = %s %s, want codex PreToolUse", d, point)
	}
	// Given as Claude's, a Codex payload is refused in Claude's words: a
	// deny Codex cannot read would be let through.
	if _, err := ParseEnvelope(Claude, b); !errors.Is(err, ErrOtherHost) {
		t.Errorf("a codex payload as claude's: %v, want ErrOtherHost", err)
	}
	// Claude Code's own payload stays Claude's, and Codex's SessionStart
	// (no turn_id) reads as either.
	claude := []byte(`{"session_id":"s","transcript_path":"/t","cwd":"/p","hook_event_name":"PreToolUse","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"ls"}}`)
	if d, _ := Sniff(claude); d != Claude {
		t.Errorf("Sniff(claude's payload) = %s", d)
	}
	start := []byte(`{"session_id":"s","transcript_path":null,"cwd":"/p","hook_event_name":"SessionStart","model":"gpt-5-codex","permission_mode":"default","source":"startup"}`)
	if _, err := ParseEnvelope(Codex, start); err != nil {
		t.Errorf("codex SessionStart: %v", err)
	}
	for name, bad := range map[string][]byte{
		"no tool_input":          codexEvent("PreToolUse", `"tool_name":"Bash"`),
		"turn_id a number":       []byte(`{"cwd":"/p","hook_event_name":"Stop","turn_id":3}`),
		"Tool_Name in any case":  codexEvent("PreToolUse", `"tool_name":"Bash","tool_input":{},"Tool_Name":"Read"`),
		"no cwd":                 []byte(`{"hook_event_name":"Stop","turn_id":"1"}`),
		"transcript not a value": []byte(`{"cwd":"/p","hook_event_name":"Stop","turn_id":"1","transcript_path":7}`),
	} {
		if _, err := ParseEnvelope(Codex, bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
}

func TestCodexMatches(t *testing.T) {
	t.Parallel()
	on := func(tool string) *Envelope {
		e, err := ParseEnvelope(Codex, codexEvent("PreToolUse", `"tool_name":"`+tool+`","tool_input":{"command":"x"}`))
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	for _, c := range []struct {
		matcher, tool string
		want          bool
	}{
		{"", "Bash", true}, {"*", "Bash", true}, {"Bash", "Bash", true}, {"^Bash$", "Bash", true},
		{"Edit|Write", "apply_patch", true}, {"^Write$", "apply_patch", true}, {"Agent", "spawn_agent", true},
		{"mcp__.*", "mcp__fs__read_file", true}, {"Bash", "apply_patch", false}, {"^Edit$", "Bash", false},
		{"bash", "Bash", false}, {"[", "Bash", false},
		// Letters, digits, _ and | are exact names (common.rs).
		{"Bash", "BashOutput", false}, {"Bash|Read", "Read", true}, {"Bash.*", "BashOutput", true},
	} {
		if got := (codexHost{}).Matches(c.matcher, on(c.tool)); got != c.want {
			t.Errorf("matcher %q on %s = %v, want %v", c.matcher, c.tool, got, c.want)
		}
	}
	prompt, _ := ParseEnvelope(Codex, codexEvent("UserPromptSubmit", `"prompt":"hi"`))
	if !(codexHost{}).Matches("^Bash$", prompt) {
		t.Error("UserPromptSubmit does not ignore its matcher")
	}
	if err := (codexHost{}).CheckMatcher("["); !errors.Is(err, ErrInvalid) {
		t.Errorf("CheckMatcher([) = %v", err)
	}
}

func TestCodexInterpret(t *testing.T) {
	t.Parallel()
	e, _ := ParseEnvelope(Codex, codexEvent("PreToolUse", `"tool_name":"Bash","tool_input":{"command":"rm -rf /"}`))
	for _, c := range []struct {
		name           string
		exit           int
		stdout, stderr string
		action         Action
		reason         string
	}{
		{"exit 2 with stderr", 2, "", "no rm -rf\n", Deny, "no rm -rf"},
		// Codex counts this a failed hook and runs the tool: a guard that
		// exits 2 means to refuse.
		{"exit 2 without stderr", 2, "", "", Deny, "blocked by PreToolUse hook"},
		{"json deny", 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"destructive"}}`, "", Deny, "destructive"},
		{"json deny on exit 1", 1, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"destructive"}}`, "", Deny, "destructive"},
		{"ask", 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"sure?"}}`, "", RequestApproval, "sure?"},
		{"rewrite", 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"rm -ri /"}}}`, "", Modify, ""},
		{"silence", 0, "", "", Allow, ""},
		{"exit 1: Codex goes on", 1, "", "oops", Allow, ""},
	} {
		d, err := (codexHost{}).Interpret(e, c.exit, []byte(c.stdout), []byte(c.stderr))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if d.Action != c.action || d.Reason != c.reason {
			t.Errorf("%s: %s %q, want %s %q", c.name, d.Action, d.Reason, c.action, c.reason)
		}
	}
	if _, err := (codexHost{}).Interpret(e, 127, nil, []byte("jq: not found")); !errors.Is(err, ErrMissing) {
		t.Errorf("exit 127: %v, want ErrMissing", err)
	}
	start, _ := ParseEnvelope(Codex, codexEvent("SessionStart", `"source":"startup"`))
	if d, _ := (codexHost{}).Interpret(start, 0, []byte("branch main\n"), nil); ClaudeOf(*d).Context != "branch main" {
		t.Errorf("SessionStart text is not context: %+v", ClaudeOf(*d))
	}
}

// codexAccepts are the members Codex's answer schemas accept at each event
// (codex-rs/hooks/schema/generated/*.command.output.schema.json, all
// "additionalProperties": false): anything else is a failed hook, which
// Codex lets through.
var codexAccepts = map[string]struct{ top, specific []string }{
	"PreToolUse":        {specific: []string{"hookEventName", "additionalContext", "permissionDecision", "permissionDecisionReason", "updatedInput"}},
	"PermissionRequest": {specific: []string{"hookEventName", "decision"}},
	"PostToolUse":       {top: []string{"decision", "reason"}, specific: []string{"hookEventName", "additionalContext"}},
	"UserPromptSubmit":  {top: []string{"decision", "reason"}, specific: []string{"hookEventName", "additionalContext"}},
	"Stop":              {top: []string{"decision", "reason"}},
	"SubagentStop":      {top: []string{"decision", "reason"}},
	"SessionStart":      {specific: []string{"hookEventName", "additionalContext"}},
	"SubagentStart":     {specific: []string{"hookEventName", "additionalContext"}},
	"PreCompact":        {},
	"PostCompact":       {},
}

// TestCodexEncode: every answer hook-exec gives Codex is one Codex reads as
// meant. A refusal carries a reason (Codex fails a deny without one), and
// says only what Codex accepts at that event.
func TestCodexEncode(t *testing.T) {
	t.Parallel()
	rewrite, _ := json.Marshal(map[string]any{"tool_input": map[string]string{"command": "rm -ri /"}})
	decisions := map[string]Decision{
		"deny":              {SchemaVersion: 1, Action: Deny},
		"deny with reason":  {SchemaVersion: 1, Action: Deny, Reason: "no"},
		"ask":               {SchemaVersion: 1, Action: RequestApproval, Reason: "sure?"},
		"rewrite":           {SchemaVersion: 1, Action: Modify, Mutations: rewrite},
		"approved":          {SchemaVersion: 1, Action: Allow, Extension: &ClaudeAnswer{Approved: true}},
		"allow":             {SchemaVersion: 1, Action: Allow},
		"context":           {SchemaVersion: 1, Action: Allow, Extension: &ClaudeAnswer{Context: "c", SystemMessage: "m"}},
		"stop":              {SchemaVersion: 1, Action: Deny, Reason: "halt", Extension: &ClaudeAnswer{StopAgent: true, StopReason: "halt"}},
		"deny with message": {SchemaVersion: 1, Action: Deny, Reason: "r", Extension: &ClaudeAnswer{SystemMessage: "m"}},
	}
	for point, accepts := range codexAccepts {
		for name, dec := range decisions {
			b, err := encodeCodex(point, dec, nil)
			if err != nil {
				t.Fatal(err)
			}
			var out map[string]json.RawMessage
			if err := json.Unmarshal(b, &out); err != nil {
				t.Fatalf("%s %s: %s", point, name, b)
			}
			for k, v := range out {
				universal := slices.Contains([]string{"continue", "stopReason", "systemMessage"}, k)
				if (point == "PreToolUse" || point == "PermissionRequest") && (k == "continue" || k == "stopReason") {
					universal = false // Codex fails these there
				}
				switch {
				case universal, slices.Contains(accepts.top, k):
				case k == "hookSpecificOutput":
					var sp map[string]json.RawMessage
					json.Unmarshal(v, &sp)
					for sk := range sp {
						if !slices.Contains(accepts.specific, sk) {
							t.Errorf("%s %s: hookSpecificOutput.%s, which Codex fails: %s", point, name, sk, b)
						}
					}
				default:
					t.Errorf("%s %s: member %s, which Codex fails: %s", point, name, k, b)
				}
			}
			if strings.Contains(string(b), `"reason":""`) || strings.Contains(string(b), `"permissionDecisionReason":""`) {
				t.Errorf("%s %s: an empty reason: %s", point, name, b)
			}
		}
	}
	for _, c := range []struct {
		point, name, want string
	}{
		{"PreToolUse", "deny", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"blocked by PreToolUse hook"}}`},
		{"PreToolUse", "ask", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"sure?"}}`},
		{"PreToolUse", "rewrite", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"rm -ri /"}}}`},
		{"PreToolUse", "approved", `{}`},
		{"PreToolUse", "stop", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"halt"}}`},
		{"PermissionRequest", "deny with reason", `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"no"}}}`},
		{"PermissionRequest", "approved", `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`},
		{"PermissionRequest", "ask", `{}`},
		{"PermissionRequest", "rewrite", `{}`},
		{"UserPromptSubmit", "deny with reason", `{"decision":"block","reason":"no"}`},
		{"Stop", "deny with reason", `{"decision":"block","reason":"no"}`},
		{"PreCompact", "deny with reason", `{"continue":false,"stopReason":"no"}`},
		{"SessionStart", "context", `{"systemMessage":"m","hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"c"}}`},
	} {
		b, _ := encodeCodex(c.point, decisions[c.name], nil)
		if got := strings.TrimSpace(string(b)); got != c.want {
			t.Errorf("%s %s:\n got %s\nwant %s", c.point, c.name, got, c.want)
		}
	}
	// A failed Stop hook never keeps Codex working.
	b, _ := encodeCodex("Stop", Decision{SchemaVersion: 1, Action: Deny, Reason: "hook failed"}, &Failure{Kind: FailTimeout, Message: "timed out"})
	if strings.Contains(string(b), `"decision"`) {
		t.Errorf("a failed Stop hook blocks: %s", b)
	}
	// A refusal is exit 2 with its reason where exit 2 blocks, and at an
	// event Codex does not know: stdout a login shell's profile writes to
	// cannot turn it into text Codex ignores. A failed Stop hook goes on.
	for _, c := range []struct {
		point   string
		dec     Decision
		failure *Failure
		exit    int
	}{
		{"PreToolUse", Decision{SchemaVersion: 1, Action: Deny}, nil, ExitBlock},
		{"PreToolUse", Decision{SchemaVersion: 1, Action: RequestApproval, Reason: "sure?"}, nil, ExitBlock},
		{"PermissionRequest", Decision{SchemaVersion: 1, Action: Deny, Reason: "no"}, nil, ExitBlock},
		{"PermissionRequest", Decision{SchemaVersion: 1, Action: RequestApproval}, nil, 0},
		{"UserPromptSubmit", Decision{SchemaVersion: 1, Action: Deny, Reason: "no"}, nil, ExitBlock},
		{"Stop", Decision{SchemaVersion: 1, Action: Deny, Reason: "go on"}, nil, ExitBlock},
		{"Stop", Decision{SchemaVersion: 1, Action: Deny, Reason: "failed"}, &Failure{Kind: FailTimeout}, 0},
		{"SessionStart", Decision{SchemaVersion: 1, Action: Deny, Reason: "failed"}, &Failure{Kind: FailTimeout}, 0},
		{"NewEvent", Decision{SchemaVersion: 1, Action: Deny}, nil, ExitBlock},
		{"PreToolUse", Decision{SchemaVersion: 1, Action: Allow}, nil, 0},
	} {
		a, err := (codexHost{}).Answer(c.point, c.dec, c.failure)
		if err != nil || a.Exit != c.exit || (c.exit == ExitBlock && a.Stderr == "") || (c.exit == 0 && bytes.Contains(a.Stdout, []byte(`"continue":false`))) {
			t.Errorf("answer at %s to %s (failure %v): %+v %v, want exit %d", c.point, c.dec.Action, c.failure, a, err, c.exit)
		}
	}
}
