package hookrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookexec/hook-exec/backend/engine"
	"github.com/hookexec/hook-exec/hook"
)

const event = `{"schema_version":1,"event_id":"e","timestamp":0,"point":"tool.before","session_id":"s","depth":0,"data":{}}`

func ownerHook(t *testing.T, body string) hook.Hook {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "h.sh"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	h := hook.Hook{ID: "h", PluginDir: dir, Script: "h.sh", Scope: hook.ScopeOwner, Timeout: 10 * time.Second}
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	return h
}

func TestRunLocal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		dialect    hook.Dialect
		body       string
		action     hook.Action
		stdout     string
		stderrLast string
		exit       int
	}{
		{"allow", hook.Holaryn, `echo '{"schema_version":1,"action":"allow"}'`, hook.Allow, `{"schema_version":1,"action":"allow"}`, "", 0},
		{"holaryn deny exits 2", hook.Holaryn, `echo '{"schema_version":1,"action":"deny","reason":"no"}'`, hook.Deny, `{"schema_version":1,"action":"deny","reason":"no"}`, "", hook.ExitBlock},
		{"arcturn deny puts the reason on stderr", hook.Arcturn, "echo 'not here' >&2; exit 2", hook.Deny, "", "not here", hook.ExitBlock},
		{"claude deny is an answer on exit 0", hook.Claude, "echo 'no rm' >&2; exit 2", hook.Deny,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no rm"}}`, "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := ownerHook(t, tc.body+"\n")
			h.Dialect = tc.dialect
			var stdout, stderr bytes.Buffer
			state := t.TempDir()
			ev := []byte(event)
			switch tc.dialect {
			case hook.Arcturn:
				ev = []byte(`{"event":"preToolUse","toolName":"bash","input":{},"cwd":"/"}`)
			case hook.Claude:
				ev = []byte(`{"hook_event_name":"PreToolUse","session_id":"s1","cwd":"/","tool_name":"Bash","tool_input":{"command":"rm -rf x"}}`)
			}
			d, exit, err := Run(context.Background(), Options{
				Hook: h, Event: ev, Engine: engine.Options{Backend: "local"},
				StateDir: state, TraceFile: filepath.Join(state, "trace.json"), Stdout: &stdout, Stderr: &stderr,
			})
			if err != nil {
				t.Fatal(err)
			}
			if d.Action != tc.action {
				t.Errorf("action %q, want %q", d.Action, tc.action)
			}
			if exit != tc.exit {
				t.Errorf("exit %d, want %d", exit, tc.exit)
			}
			if tc.stdout != "" && strings.TrimSpace(stdout.String()) != tc.stdout {
				t.Errorf("stdout %q, want %q", stdout.String(), tc.stdout)
			}
			if tc.stderrLast != "" && !strings.HasSuffix(strings.TrimSpace(stderr.String()), tc.stderrLast) {
				t.Errorf("stderr %q does not end with %q", stderr.String(), tc.stderrLast)
			}
			var tr hook.Trace
			b, err := os.ReadFile(filepath.Join(state, "trace.json"))
			if err != nil {
				t.Fatalf("--trace file: %v", err)
			}
			if err := json.Unmarshal(b, &tr); err != nil {
				t.Fatalf("--trace file %q: %v", b, err)
			}
			if tr.FinalAction != tc.action {
				t.Errorf("trace final_action %q, want %q", tr.FinalAction, tc.action)
			}
		})
	}
}

func TestRunUnreachableEngineIsADecision(t *testing.T) {
	t.Parallel()
	h := ownerHook(t, "exit 0\n")
	h.Scope, h.Image = hook.ScopeProject, "x"
	var stdout, stderr bytes.Buffer
	sock := filepath.Join(t.TempDir(), "none.sock")
	d, _, err := Run(context.Background(), Options{
		Hook: h, Event: []byte(event), Engine: engine.Options{Backend: "containerd", ContainerdAddress: sock},
		StateDir: t.TempDir(), Stdout: &stdout, Stderr: &stderr,
	})
	if err != nil {
		t.Fatalf("an unreachable engine is a failure of the run, not of the call: %v", err)
	}
	if d.Action != hook.Deny {
		t.Errorf("action %q, want deny (failure_policy deny)", d.Action)
	}
	for _, want := range []string{string(hook.FailEngineError), sock} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr %q lacks %q", stderr.String(), want)
		}
	}
}

func TestRunUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		o    Options
	}{
		{"unknown backend", Options{Engine: engine.Options{Backend: "podman"}}},
		{"session on local", Options{Engine: engine.Options{Backend: "local"}, Session: "c1"}},
	}
	for _, tc := range tests {
		tc.o.Hook = ownerHook(t, "exit 0\n")
		tc.o.Event = []byte(event)
		tc.o.StateDir = t.TempDir()
		tc.o.Stdout, tc.o.Stderr = &bytes.Buffer{}, &bytes.Buffer{}
		var ue *UsageError
		if _, _, err := Run(context.Background(), tc.o); !errors.As(err, &ue) {
			t.Errorf("%s: error %v, want a UsageError", tc.name, err)
		}
	}
}

// An event hook-exec cannot read is refused at a blocking hook whatever
// its failure policy (arcturn's default, warn, would let it through and
// skip the hook); in the bernstein dialect the refusal is Bernstein's
// blocking error (exit 2), not an answer on stdout.
func TestRunUnreadableEventIsRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		dialect hook.Dialect
		event   string
	}{
		{hook.Arcturn, `{"event":"preToolUse","toolName":"bash","input":{},"cwd":"/","cwd":"/tmp"}`},
		{hook.Bernstein, `{"event":"preToolUse","Event":"idle","data":{"session_id":"s","tool":"t","args":{}}}`},
		// Second reader: no point to answer at, the answer was a top-level
		// block that PermissionRequest does not read.
		{hook.Claude, `{"hook_event_name":"PermissionRequest","cwd":"/tmp"`},
	} {
		h := ownerHook(t, "exit 0\n")
		h.Dialect, h.FailurePolicy = tc.dialect, hook.PolicyWarn
		var stdout, stderr bytes.Buffer
		d, exit, err := Run(context.Background(), Options{Hook: h, Event: []byte(tc.event), Engine: engine.Options{Backend: "local"},
			StateDir: t.TempDir(), Stdout: &stdout, Stderr: &stderr})
		switch tc.dialect {
		case hook.Arcturn:
			if err != nil || d.Action != hook.Deny || exit != hook.ExitBlock {
				t.Errorf("arcturn: decision %+v exit %d err %v, want deny, exit 2", d, exit, err)
			}
			if last := lastLine(stderr.String()); !strings.Contains(last, "invalid_event") {
				t.Errorf("arcturn: the reason (stderr's last line) %q lacks invalid_event", last)
			}
		case hook.Bernstein, hook.Claude:
			if err != nil || exit != hook.ExitBlock || stdout.Len() != 0 {
				t.Errorf("%s: exit %d err %v stdout %q, want exit 2 and no answer", tc.dialect, exit, err, stdout.String())
			}
		}
	}
}

// A bernstein hook's answer through the wrapper: a deny it wrote stands on
// any exit status; a failure (exit 1 after an allow) is Bernstein's hook
// failure (exit 1, no answer), unless a policy lets it through; a
// record Bernstein normalises to allow is passed on whole; other members
// of an answer are ignored.
func TestRunBernsteinAnswers(t *testing.T) {
	t.Parallel()
	const ev = `{"event":"preToolUse","task":null,"session_id":"s","data":{"session_id":"s","tool":"t","args":{}}}`
	tests := []struct {
		name, body string
		policy     hook.FailurePolicy
		stdout     string
		exit       int
	}{
		{"deny then exit 1", `echo '{"decision":"deny","reason":"no"}'; exit 1`, "", `{"decision":"deny","reason":"no"}`, 0},
		{"allow then exit 1", `echo '{"decision":"allow"}'; exit 1`, "", "", hook.ExitHookFailed},
		{"allow then exit 1, warn", `echo '{"decision":"allow"}'; exit 1`, hook.PolicyWarn, `{"decision":"allow"}`, 0},
		{"unknown verb", `echo '{"decision":"escalate","to":"oncall"}'`, "", `{"decision":"escalate","to":"oncall"}`, 0},
		{"another member", `echo '{"decision":"allow","message":"ok"}'`, "", `{"decision":"allow"}`, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := ownerHook(t, tc.body+"\n")
			h.Dialect = hook.Bernstein
			if tc.policy != "" {
				h.FailurePolicy = tc.policy
			}
			var stdout, stderr bytes.Buffer
			_, exit, err := Run(context.Background(), Options{Hook: h, Event: []byte(ev), Engine: engine.Options{Backend: "local"},
				StateDir: t.TempDir(), Stdout: &stdout, Stderr: &stderr})
			if err != nil || exit != tc.exit {
				t.Errorf("exit %d err %v, want exit %d (stderr %q)", exit, err, tc.exit, stderr.String())
			}
			if got := strings.TrimSpace(stdout.String()); got != tc.stdout {
				t.Errorf("stdout %q, want %q", got, tc.stdout)
			}
		})
	}
}

// `arcturn hooks run` answers a config or a payload it cannot read with a
// deny (exit 2 to Arcturn, the reason on stderr), never an error: Arcturn
// reads any other exit as "go ahead", which would skip every guard.
func TestArcturnRefusesWhatItCannotRead(t *testing.T) {
	t.Parallel()
	good := []byte(`{"event":"preToolUse","toolName":"bash","input":{},"cwd":"/"}`)
	for _, tc := range []struct {
		name, config string
		payload      []byte
		want         string
	}{
		{"config", `{"hooks": {"preToolUse": [{"command": "exit 0", "matchr": "bash"}]}}`, good, "matchr"},
		{"payload", `{"hooks": {"preToolUse": [{"command": "exit 0"}]}}`, []byte(`{"event":"preToolUse","toolName":"bash","input":{},"cwd":"/","CWD":"/tmp"}`), "CWD"},
	} {
		project := t.TempDir()
		os.MkdirAll(filepath.Join(project, ".arcturn"), 0o755)
		if err := os.WriteFile(filepath.Join(project, ".arcturn", "config.json"), []byte(tc.config), 0o644); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		res, err := Arcturn(context.Background(), ArcturnOptions{Project: project, Payload: tc.payload,
			Engine: engine.Options{Backend: "local"}, StateDir: t.TempDir(), Stdout: &stdout, Stderr: &stderr})
		if err != nil || res.Decision.Action != hook.Deny || res.Refused == nil {
			t.Errorf("%s: result %+v err %v, want a refusal", tc.name, res, err)
			continue
		}
		if !strings.HasPrefix(stdout.String(), `{"decision":"deny"`) || !strings.Contains(lastLine(stderr.String()), tc.want) {
			t.Errorf("%s: stdout %q stderr %q, want a deny naming %s", tc.name, stdout.String(), stderr.String(), tc.want)
		}
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// A payload of another host given in a host dialect (run --dialect cursor
// with Claude Code's event) is refused in the named host's words, whatever
// the failure policy: exit 2 with the reason on stderr (the block of all
// three hosts at an event they do not know), naming the host the payload
// looks like; never the named host's allow (issue 44, finding 5).
func TestRunAnotherHostsPayloadIsRefused(t *testing.T) {
	t.Parallel()
	const (
		claudeEvent = `{"session_id":"s1","transcript_path":"/tmp/t.jsonl","cwd":"/","permission_mode":"default",` +
			`"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf x"},"tool_use_id":"toolu_1"}`
		cursorEvent = `{"conversation_id":"c1","generation_id":"g1","hook_event_name":"beforeShellExecution","cursor_version":"2.1.0",` +
			`"workspace_roots":["/"],"command":"rm -rf x","cwd":"/"}`
		geminiEvent = `{"session_id":"s1","transcript_path":"/tmp/t.json","cwd":"/","hook_event_name":"BeforeTool",` +
			`"timestamp":"2026-08-21T10:00:00.000Z","tool_name":"run_shell_command","tool_input":{"command":"rm -rf x"}}`
		claudeDeny = `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no rm"}}'`
		cursorDeny = `echo '{"permission":"deny","user_message":"no rm","agent_message":"no rm"}'`
		geminiDeny = `echo '{"decision":"deny","reason":"no rm"}'`
	)
	for _, tc := range []struct {
		dialect     hook.Dialect
		event, body string
		looks       hook.Dialect
	}{
		{hook.Cursor, claudeEvent, claudeDeny, hook.Claude},
		{hook.Gemini, claudeEvent, claudeDeny, hook.Claude},
		{hook.Claude, cursorEvent, cursorDeny, hook.Cursor},
		{hook.Gemini, cursorEvent, cursorDeny, hook.Cursor},
		{hook.Claude, geminiEvent, geminiDeny, hook.Gemini},
		{hook.Cursor, geminiEvent, geminiDeny, hook.Gemini},
	} {
		t.Run(string(tc.looks)+" as "+string(tc.dialect), func(t *testing.T) {
			t.Parallel()
			h := ownerHook(t, tc.body+"\n")
			h.Dialect, h.FailurePolicy = tc.dialect, hook.PolicyContinue
			var stdout, stderr bytes.Buffer
			state := t.TempDir()
			d, exit, err := Run(context.Background(), Options{Hook: h, Event: []byte(tc.event), Engine: engine.Options{Backend: "local"},
				StateDir: state, TraceFile: filepath.Join(state, "trace.json"), Stdout: &stdout, Stderr: &stderr})
			if err != nil {
				t.Fatal(err)
			}
			if d.Action != hook.Deny || exit != hook.ExitBlock || stdout.Len() != 0 {
				t.Fatalf("decision %q exit %d stdout %q, want deny, exit 2 and no answer on stdout (stderr %q)", d.Action, exit, stdout.String(), stderr.String())
			}
			if last := lastLine(stderr.String()); !strings.Contains(last, "looks like a "+string(tc.looks)+" payload") {
				t.Errorf("the reason (stderr's last line) %q does not name %s", last, tc.looks)
			}
			b, err := os.ReadFile(filepath.Join(state, "trace.json"))
			if err != nil {
				t.Fatal(err)
			}
			var tr hook.Trace
			if err := json.Unmarshal(b, &tr); err != nil {
				t.Fatal(err)
			}
			if tr.Failure == nil || tr.Failure.Kind != hook.FailInvalidEvent || tr.HandlerAction != "" {
				t.Errorf("trace failure %+v handler %q, want invalid_event and no hook run", tr.Failure, tr.HandlerAction)
			}
		})
	}
}

// Through run --dialect cursor, a hook's user_message reaches the user and
// its agent_message the agent, each in its own field; a refusal the failure
// policy makes gives its reason in both (issue 44, finding 8).
func TestRunCursorMessages(t *testing.T) {
	t.Parallel()
	const ev = `{"conversation_id":"c1","generation_id":"g1","hook_event_name":"beforeShellExecution","cursor_version":"2.1.0",` +
		`"workspace_roots":["/"],"command":"rm -rf x","cwd":"/"}`
	for _, tc := range []struct {
		name, body string
		user       string
		agent      string
	}{
		{"the hook's deny", `echo '{"permission":"deny","user_message":"u","agent_message":"a"}'`, "u", "a"},
		{"the failure policy's deny", `echo '{"permission":"allow","user_message":"u","agent_message":"a"}'; exit 1`,
			"hook h failed (exit_nonzero): hook exited non-zero: status 1", "hook h failed (exit_nonzero): hook exited non-zero: status 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := ownerHook(t, tc.body+"\n")
			h.Dialect = hook.Cursor
			var stdout, stderr bytes.Buffer
			_, exit, err := Run(context.Background(), Options{Hook: h, Event: []byte(ev), Engine: engine.Options{Backend: "local"},
				StateDir: t.TempDir(), Stdout: &stdout, Stderr: &stderr})
			if err != nil || exit != 0 {
				t.Fatalf("exit %d err %v, want Cursor's answer on exit 0 (stderr %q)", exit, err, stderr.String())
			}
			var got map[string]string
			if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
				t.Fatalf("answer %q: %v", stdout.String(), err)
			}
			if got["permission"] != "deny" || got["user_message"] != tc.user || got["agent_message"] != tc.agent {
				t.Errorf("answer %v, want deny, user_message %q, agent_message %q", got, tc.user, tc.agent)
			}
		})
	}
}
