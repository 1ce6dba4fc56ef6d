package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// Claude Code hooks, written the way the public ones are (the bash command
// validator of Claude Code's own examples, .env guards answering in JSON, a
// SessionStart context hook), each run as Claude Code runs its hook
// command: `hook-exec run --dialect claude ...` with Claude's event on
// stdin, the answer read from stdout on exit 0.

const claudeBashValidator = `#!/usr/bin/env python3
import json
import re
import sys

# Define validation rules as a list of (regex pattern, message) tuples
_VALIDATION_RULES = [
    (r"\bgrep\b(?!.*\|)", "Use 'rg' (ripgrep) instead of 'grep' for better performance and features"),
    (r"\bfind\s+\S+\s+-name\b", "Use 'rg --files | rg pattern' or 'rg --files -g pattern' instead of 'find -name' for better performance"),
    (r"\brm\s+-rf\s+/", "Refusing to remove from the root"),
]


def _validate_command(command: str) -> list[str]:
    issues = []
    for pattern, message in _VALIDATION_RULES:
        if re.search(pattern, command):
            issues.append(message)
    return issues


def main():
    try:
        input_data = json.load(sys.stdin)
    except json.JSONDecodeError as e:
        print(f"Error: Invalid JSON input: {e}", file=sys.stderr)
        sys.exit(1)

    tool_name = input_data.get("tool_name", "")
    if tool_name != "Bash":
        sys.exit(0)

    tool_input = input_data.get("tool_input", {})
    command = tool_input.get("command", "")

    if not command:
        sys.exit(0)

    issues = _validate_command(command)
    if issues:
        for message in issues:
            print(f"• {message}", file=sys.stderr)
        # Exit code 2 blocks tool call and shows stderr to Claude
        sys.exit(2)


if __name__ == "__main__":
    main()
`

const claudeEnvGuard = `import json
import sys

data = json.load(sys.stdin)
path = data.get("tool_input", {}).get("file_path", "")
if path.endswith(".env") or "/.env" in path:
    print(json.dumps({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": f"Access to {path} is blocked: .env files hold secrets",
        }
    }))
    sys.exit(0)
if path.endswith(".lock"):
    print(json.dumps({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "ask",
            "permissionDecisionReason": "lock files are generated: edit anyway?",
        }
    }))
sys.exit(0)
`

// A shell guard as the hook collections write it with plain POSIX tools.
const claudeRmGuard = `input=$(cat)
cmd=$(printf '%s' "$input" | sed -n 's/.*"command":"\([^"]*\)".*/\1/p')
case $cmd in
*"rm -rf"*|*"rm -fr"*)
	echo "BLOCKED: recursive delete ($cmd)" >&2
	exit 2
	;;
esac
exit 0
`

const claudeSessionContext = `import json, sys
data = json.load(sys.stdin)
print("Session " + data["source"] + ": remember to run the tests before you stop.")
`

func claudeEvent(event, tool string, input map[string]any, extra string) []byte {
	in, _ := json.Marshal(input)
	s := fmt.Sprintf(`{"session_id":"9f2c","transcript_path":"/home/dev/.claude/projects/p/9f2c.jsonl","cwd":"/work/p",`+
		`"permission_mode":"default","hook_event_name":%q`, event)
	if tool != "" {
		s += fmt.Sprintf(`,"tool_name":%q,"tool_input":%s,"tool_use_id":"toolu_01"`, tool, in)
	}
	return []byte(s + extra + "}")
}

func TestClaudeHooks(t *testing.T) {
	t.Parallel()
	engine(t)
	validator := scriptFile(t, "bash_command_validator_example.py", claudeBashValidator)
	envGuard := scriptFile(t, "protect_env.py", claudeEnvGuard)
	rmGuard := scriptFile(t, "block_rm.sh", claudeRmGuard)
	context := scriptFile(t, "session_context.py", claudeSessionContext)
	tests := []struct {
		name    string
		script  string
		matcher string
		event   []byte
		want    string // the JSON answer on stdout, exactly
	}{
		{"validator blocks rm -rf / with its messages", validator, "Bash",
			claudeEvent("PreToolUse", "Bash", map[string]any{"command": "rm -rf /"}, ""),
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"• Refusing to remove from the root"}}`},
		{"validator lets ls through, leaving Claude's own prompt", validator, "Bash",
			claudeEvent("PreToolUse", "Bash", map[string]any{"command": "ls -la"}, ""), `{}`},
		{"the matcher keeps the validator off Write", validator, "Bash",
			claudeEvent("PreToolUse", "Write", map[string]any{"file_path": "/work/p/a.go", "content": "x"}, ""), `{}`},
		{".env guard denies in JSON", envGuard, "Edit|Write|Read",
			claudeEvent("PreToolUse", "Read", map[string]any{"file_path": "/work/p/.env"}, ""),
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"Access to /work/p/.env is blocked: .env files hold secrets"}}`},
		{".env guard asks for a lock file", envGuard, "Edit|Write|Read",
			claudeEvent("PreToolUse", "Edit", map[string]any{"file_path": "/work/p/go.lock", "old_string": "a", "new_string": "b"}, ""),
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"lock files are generated: edit anyway?"}}`},
		{"shell guard blocks rm -rf with exit 2", rmGuard, "Bash",
			claudeEvent("PreToolUse", "Bash", map[string]any{"command": "rm -rf build"}, ""),
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"BLOCKED: recursive delete (rm -rf build)"}}`},
		{"SessionStart's stdout is context for the model", context, "startup",
			claudeEvent("SessionStart", "", nil, `,"source":"startup"`),
			`{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"Session startup: remember to run the tests before you stop."}}`},
		{"PostToolUse exit 2 blocks (fed back to Claude)", rmGuard, "Bash",
			claudeEvent("PostToolUse", "Bash", map[string]any{"command": "rm -rf x"}, `,"tool_response":{"stdout":"","stderr":""}`),
			`{"decision":"block","reason":"BLOCKED: recursive delete (rm -rf x)"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := hookExec(t, tc.event, nil, "run", "--dialect", "claude", "--matcher", tc.matcher, "--script", tc.script)
			r.wantCode(t, 0)
			if got := strings.TrimSpace(r.stdout); got != tc.want {
				t.Errorf("answer\n got  %s\n want %s\nstderr %q", got, tc.want, r.stderr)
			}
		})
	}
}

// A guard whose program is missing (jq in an image without it) fails
// closed in the claude dialect, saying why, where Claude Code's own runner
// would read exit 127 as a non-blocking error and let the call through.
func TestClaudeMissingProgramFailsClosed(t *testing.T) {
	t.Parallel()
	engine(t)
	guard := scriptFile(t, "jq_guard.sh", `cmd=$(jq -r '.tool_input.command')
case $cmd in *"rm -rf"*) echo "blocked" >&2; exit 2;; esac
`)
	r := hookExec(t, claudeEvent("PreToolUse", "Bash", map[string]any{"command": "rm -rf /"}, ""), nil,
		"run", "--dialect", "claude", "--script", guard)
	r.wantCode(t, 0)
	var out struct {
		Specific struct {
			Decision string `json:"permissionDecision"`
			Reason   string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("answer %q: %v", r.stdout, err)
	}
	if out.Specific.Decision != "deny" || !strings.Contains(out.Specific.Reason, "status 127") {
		t.Errorf("answer %s, want a deny naming status 127", r.stdout)
	}
	wantIn(t, "stderr", r.stderr, "jq")
}
