package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookexec/hook-exec/launcher"
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
	// The usual guard: without set -e the missing jq is swallowed inside
	// $(...), cmd is empty and the script exits 0, an allow of anything.
	guards := map[string]string{
		"swallowed": "#!/bin/sh\ncmd=$(jq -r '.tool_input.command')\ncase $cmd in *\"rm -rf\"*) echo \"blocked\" >&2; exit 2;; esac\n",
		"set -eu":   "set -eu\ncmd=$(jq -r '.tool_input.command')\ncase $cmd in *\"rm -rf\"*) echo \"blocked\" >&2; exit 2;; esac\n",
	}
	for _, backend := range []string{"docker", "containerd"} {
		for name, body := range guards {
			t.Run(backend+"/"+name, func(t *testing.T) {
				t.Parallel()
				guard := scriptFile(t, "jq_guard.sh", body)
				// An image without jq, as a person names one: without --image
				// a sh script that calls jq runs on hook-bash, which has it.
				noJQ := engineFor(t, backend).refs[launcher.Shell]
				r := hookExec(t, claudeEvent("PreToolUse", "Bash", map[string]any{"command": "rm -rf /"}, ""), nil,
					"run", "--backend", backend, timeoutFlag(t, backend), "--dialect", "claude", "--image", noJQ, "--script", guard, "--trace", "-")
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
				if out.Specific.Decision != "deny" || !strings.Contains(out.Specific.Reason, `missing "jq"`) {
					t.Errorf("answer %s, want a deny naming the missing jq", r.stdout)
				}
				wantIn(t, "trace", traceLine(r.stderr), `"kind":"missing_program"`)

				// Without --image the same guard runs where jq is, and decides.
				r = hookExec(t, claudeEvent("PreToolUse", "Bash", map[string]any{"command": "rm -rf /"}, ""), nil,
					"run", "--backend", backend, timeoutFlag(t, backend), "--dialect", "claude", "--script", guard, "--trace", "-")
				r.wantCode(t, 0)
				wantIn(t, "answer", r.stdout, `"permissionDecision":"deny","permissionDecisionReason":"blocked"`)
				wantIn(t, "trace", traceLine(r.stderr), `hookexec/hook-bash:`)
			})
		}
	}
}

// The hooks people write in bash, with jq and [[ ]], run unchanged: their
// #! line picks bash, and with no --image the image that has bash and jq
// (hook-bash), both named in the trace.
func TestBashHooksRunUnchanged(t *testing.T) {
	t.Parallel()
	engine(t)
	// Claude Code: a .env and .git guard as the hook collections write it.
	claudeGuard := scriptFile(t, "protect-files.sh", `#!/usr/bin/env bash
set -euo pipefail
input=$(cat)
file_path=$(echo "$input" | jq -r '.tool_input.file_path // empty')
if [[ "$file_path" == *".env"* || "$file_path" == *"/.git/"* ]]; then
  echo "Blocked: $file_path is protected" >&2
  exit 2
fi
exit 0
`)
	// Bernstein's own example, from its hooks reference.
	bernstein := scriptFile(t, "preToolUse.sh", `#!/usr/bin/env bash
set -euo pipefail

payload="$(cat)"
tool="$(echo "$payload" | jq -r '.data.tool')"

if [[ "$tool" == "shell.run" ]]; then
  echo '{"decision": "deny", "reason": "shell.run blocked by site policy"}'
  exit 0
fi

echo '{"decision": "allow"}'
`)
	bernsteinEvent := func(tool string) []byte {
		return fmt.Appendf(nil, `{"event":"preToolUse","task":"T-1","session_id":"s-1","workdir":"/w","timestamp":1.0,"data":{"session_id":"s-1","tool":%q,"args":{"command":"ls"}}}`, tool)
	}
	tests := []struct {
		name, dialect, script string
		event                 []byte
		code                  int
		wantOut               string
	}{
		{"claude: .env write blocked", "claude", claudeGuard,
			claudeEvent("PreToolUse", "Write", map[string]any{"file_path": "/work/p/.env.local", "content": "A=1"}, ""), 0,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"Blocked: /work/p/.env.local is protected"}}`},
		{"claude: an ordinary file passes", "claude", claudeGuard,
			claudeEvent("PreToolUse", "Write", map[string]any{"file_path": "/work/p/main.go", "content": "x"}, ""), 0, `{}`},
		{"bernstein: shell.run denied (a structured refusal: exit 0)", "bernstein", bernstein, bernsteinEvent("shell.run"), 0,
			`{"decision":"deny","reason":"shell.run blocked by site policy"}`},
		{"bernstein: another tool allowed", "bernstein", bernstein, bernsteinEvent("fs.read"), 0, `{"decision":"allow"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := hookExec(t, tc.event, nil, "run", "--dialect", tc.dialect, "--script", tc.script, "--trace", "-")
			r.wantCode(t, tc.code)
			if got := strings.TrimSpace(r.stdout); got != tc.wantOut {
				t.Errorf("answer\n got  %s\n want %s\nstderr %q", got, tc.wantOut, r.stderr)
			}
			var tr struct {
				Image       string `json:"image"`
				Interpreter string `json:"interpreter"`
			}
			if err := json.Unmarshal([]byte(traceLine(r.stderr)), &tr); err != nil {
				t.Fatalf("trace: %v\n%s", err, r.stderr)
			}
			if tr.Interpreter != "bash" || !strings.Contains(tr.Image, "hookexec/hook-bash:") {
				t.Errorf("trace interpreter %q image %q, want bash on hook-bash", tr.Interpreter, tr.Image)
			}
		})
	}
}

// A script that will run under sh but is written for bash is refused
// before anything runs, naming the line: busybox would have run [[ without
// bash's pattern matching and let the write to /etc/passwd through.
func TestBashSyntaxUnderShIsRefused(t *testing.T) {
	t.Parallel()
	engine(t)
	guard := scriptFile(t, "guard.sh", `path=$(cat | sed -n 's/.*"file_path":"\([^"]*\)".*/\1/p')
if [[ "$path" == /etc/* ]]; then
  echo "no writes under /etc" >&2
  exit 2
fi
`)
	r := hookExec(t, claudeEvent("PreToolUse", "Write", map[string]any{"file_path": "/etc/passwd", "content": "x"}, ""), nil,
		"run", "--dialect", "claude", "--script", guard, "--trace", "-")
	r.wantCode(t, 0)
	wantIn(t, "stdout", r.stdout, `"permissionDecision":"deny"`)
	wantIn(t, "stderr", r.stderr, "refused_rule")
	wantIn(t, "stderr", r.stderr, "line 2: [[ is a bash feature")
	if strings.Contains(r.stderr, `"exit_code":0`) || strings.Contains(r.stderr, `"exit_code":2`) {
		t.Errorf("the script ran: %s", r.stderr)
	}
}

// Claude Code starts a hook in the event's cwd: a logger that appends to
// logs/ there and reads a project file by a relative path finds both when
// the project is the mounted, writable workspace.
func TestClaudeHookStartsInCwd(t *testing.T) {
	t.Parallel()
	engine(t)
	project := t.TempDir()
	os.MkdirAll(filepath.Join(project, "logs"), 0o755)
	os.WriteFile(filepath.Join(project, "policy.txt"), []byte("strict\n"), 0o644)
	os.Chown(project, 1234, 1234)
	os.Chown(filepath.Join(project, "logs"), 1234, 1234)
	logger := scriptFile(t, "log_tool_use.py", `import json, sys
data = json.load(sys.stdin)
with open("logs/tool_use.jsonl", "a") as f:
    f.write(json.dumps({"tool": data["tool_name"], "policy": open("policy.txt").read().strip()}) + "\n")
`)
	ev := []byte(strings.Replace(string(claudeEvent("PostToolUse", "Bash", map[string]any{"command": "ls"}, `,"tool_response":{"stdout":"a"}`)),
		`"cwd":"/work/p"`, `"cwd":"`+project+`"`, 1))
	r := hookExec(t, ev, nil, "run", "--dialect", "claude", "--script", logger, "--workspace", project, "--workspace-rw", "--trace", "-")
	r.wantCode(t, 0)
	b, err := os.ReadFile(filepath.Join(project, "logs", "tool_use.jsonl"))
	if err != nil || strings.TrimSpace(string(b)) != `{"tool": "Bash", "policy": "strict"}` {
		t.Fatalf("log %q (%v), want the hook's line; stderr %s", b, err, r.stderr)
	}
	wantIn(t, "trace", traceLine(r.stderr), `"cwd":"`+project+`"`)
}

// traceLine is the trace `--trace -` wrote among stderr's lines.
func traceLine(stderr string) string {
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, `{"schema_version"`) {
			return l
		}
	}
	return ""
}

// A multi-file plugin as Claude Code ships them: its hook imports a
// sibling module from $CLAUDE_PLUGIN_ROOT, takes an argument, reads the
// transcript. Each need is a named loosening, in the trace: --plugin-root
// (the tree read-only, its digest pinned), --arg, --mount SRC:DST:ro.
func TestClaudePluginLoosenings(t *testing.T) {
	t.Parallel()
	engine(t)
	plugin := t.TempDir()
	os.MkdirAll(filepath.Join(plugin, "hooks"), 0o755)
	os.WriteFile(filepath.Join(plugin, "hooks", "rules.py"), []byte(`def blocked(cmd):
    return "no force push" if "push --force" in cmd else ""
`), 0o644)
	guard := filepath.Join(plugin, "hooks", "guard.py")
	os.WriteFile(guard, []byte(`#!/usr/bin/env python3
import json, os, sys
sys.path.insert(0, os.path.join(os.environ["CLAUDE_PLUGIN_ROOT"], "hooks"))
from rules import blocked

data = json.load(sys.stdin)
last = json.loads(open(data["transcript_path"]).read().strip().splitlines()[-1])
mode = sys.argv[1] if len(sys.argv) > 1 else "no mode"
reason = blocked(data["tool_input"].get("command", ""))
if reason:
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
        "permissionDecisionReason": "%s (%s; last turn: %s)" % (reason, mode, last["type"])}}))
`), 0o644)
	transcripts := t.TempDir()
	transcript := filepath.Join(transcripts, "9f2c.jsonl")
	os.WriteFile(transcript, []byte(`{"type":"assistant"}`+"\n"+`{"type":"user"}`+"\n"), 0o644)
	os.Chmod(transcripts, 0o755)
	ev := []byte(strings.Replace(string(claudeEvent("PreToolUse", "Bash", map[string]any{"command": "git push --force"}, "")),
		`"transcript_path":"/home/dev/.claude/projects/p/9f2c.jsonl"`, `"transcript_path":"`+transcript+`"`, 1))
	args := []string{"run", "--dialect", "claude", "--script", guard, "--plugin-root", plugin, "--arg", "--strict",
		"--mount", transcripts + ":" + transcripts + ":ro", "--trace", "-"}
	r := hookExec(t, ev, nil, args...)
	r.wantCode(t, 0)
	wantIn(t, "stdout", r.stdout, `"permissionDecisionReason":"no force push (--strict; last turn: user)"`)
	tr := traceLine(r.stderr)
	for _, l := range []string{`--arg: 1 script argument(s)`, `--mount ` + transcripts + `:` + transcripts + `:ro`, `--plugin-root ` + plugin + ` (tree sha256 `} {
		wantIn(t, "trace loosenings", tr, l)
	}
	// The tree pinned: a sibling module changed is refused before it runs.
	i := strings.Index(tr, "(tree sha256 ")
	pin := tr[i+len("(tree sha256 ") : i+len("(tree sha256 ")+64]
	os.WriteFile(filepath.Join(plugin, "hooks", "rules.py"), []byte("def blocked(cmd):\n    return ''\n"), 0o644)
	r = hookExec(t, ev, nil, append(args, "--plugin-root-sha256", pin)...)
	r.wantCode(t, 0)
	wantIn(t, "stdout", r.stdout, `"permissionDecision":"deny"`)
	wantIn(t, "stderr", r.stderr, "refused_changed")
	wantIn(t, "stderr", r.stderr, plugin+" changed")
}

// A SessionStart hook hands its host environment through CLAUDE_ENV_FILE:
// with --env-file-out the plain assignments reach the host's file,
// re-quoted, and a command substitution never does.
func TestClaudeEnvFileOut(t *testing.T) {
	t.Parallel()
	engine(t)
	hookScript := scriptFile(t, "session_env.sh", `cat >/dev/null
echo 'export NODE_ENV=production' >> "$CLAUDE_ENV_FILE"
echo 'export PWNED="$(touch /tmp/pwned)"' >> "$CLAUDE_ENV_FILE"
`)
	out := filepath.Join(t.TempDir(), "claude-env")
	r := hookExec(t, claudeEvent("SessionStart", "", nil, `,"source":"startup"`), nil,
		"run", "--dialect", "claude", "--script", hookScript, "--env-file-out", out, "--env-file-allow", "NODE_ENV", "--env-file-allow", "PWNED", "--trace", "-")
	r.wantCode(t, 0)
	b, err := os.ReadFile(out)
	if err != nil || string(b) != "export NODE_ENV='production'\n" {
		t.Fatalf("host env file %q (%v); stderr %s", b, err, r.stderr)
	}
	wantIn(t, "trace", traceLine(r.stderr), "--env-file-out: 1 line(s) taken")
	wantIn(t, "trace", traceLine(r.stderr), "--env-file-out refused line 2: not NAME=VALUE without expansions")
}

// Extensionless executables, as hook collections ship them: the #! line
// gives the language, for hosts that run any file by it; Holaryn keeps its
// .sh/.py rule.
func TestExtensionlessHooks(t *testing.T) {
	t.Parallel()
	engine(t)
	bashGuard := scriptFile(t, "no-secrets", `#!/bin/bash
f=$(jq -r '.tool_input.file_path')
[[ $f == *id_rsa* ]] && { echo "private keys stay private" >&2; exit 2; }
exit 0
`)
	pyGuard := scriptFile(t, "no-sudo", `#!/usr/bin/env python3
import json, sys
if json.load(sys.stdin)["tool_input"].get("command", "").startswith("sudo "):
    print("no sudo", file=sys.stderr)
    sys.exit(2)
`)
	r := hookExec(t, claudeEvent("PreToolUse", "Read", map[string]any{"file_path": "/home/u/.ssh/id_rsa"}, ""), nil,
		"run", "--dialect", "claude", "--script", bashGuard)
	r.wantCode(t, 0)
	wantIn(t, "stdout", r.stdout, `"permissionDecisionReason":"private keys stay private"`)
	r = hookExec(t, claudeEvent("PreToolUse", "Bash", map[string]any{"command": "sudo rm x"}, ""), nil,
		"run", "--dialect", "claude", "--script", pyGuard)
	r.wantCode(t, 0)
	wantIn(t, "stdout", r.stdout, `"permissionDecisionReason":"no sudo"`)
	r = hookExec(t, toolEvent("ls"), nil, "run", "--script", pyGuard)
	r.wantCode(t, 2)
	wantIn(t, "stderr", r.stderr, "not a .py or .sh file")
}
