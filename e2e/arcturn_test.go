package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Arcturn's layered configs through `hook-exec arcturn hooks run`: the
// home layer's hook and then the project's all fire, in layer order;
// matchers select the tool; a broken hook fails open but is named on
// stderr; the guard's deny ends the chain with exit 2 and its reason.
func TestArcturnLayeredHooks(t *testing.T) {
	t.Parallel()
	engine(t)
	home, project := t.TempDir(), t.TempDir()
	write := func(path, body string, mode os.FileMode) {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	audit := filepath.Join(home, ".arcturn", "hooks", "audit.py")
	write(audit, `#!/usr/bin/env python3
import json, sys
p = json.load(sys.stdin)
print("audited", p["toolName"], file=sys.stderr)
`, 0o755)
	write(filepath.Join(home, ".arcturn", "config.json"), `{"model": "x", "hooks": {"preToolUse": [{"command": "`+audit+`", "timeoutMs": 20000}]}}`, 0o644)
	// The seed's guard, with sed where it used node (no node in hook-bash).
	write(filepath.Join(project, ".arcturn", "hooks", "guard-bash.sh"), `#!/usr/bin/env bash
# .arcturn/hooks/guard-bash.sh — deny any bash call whose command contains "rm -rf"
payload="$(cat)"
command=$(printf '%s' "$payload" | sed -n 's/.*"command":"\([^"]*\)".*/\1/p')

if [[ "$command" == *"rm -rf"* ]]; then
  echo "refusing to run a recursive rm" >&2
  exit 2
fi
exit 0
`, 0o755)
	write(filepath.Join(project, ".arcturn", "hooks", "broken.sh"), "echo 'half a hook' >&2\nexit 1\n", 0o755)
	write(filepath.Join(project, ".arcturn", "config.json"), `{"hooks": {
  "preToolUse": [
    { "command": "./.arcturn/hooks/broken.sh" },
    { "command": "./.arcturn/hooks/guard-bash.sh", "matcher": "bash" },
    { "command": "echo never >&2; exit 2", "matcher": "mcp_*" }
  ]}}`, 0o644)
	payload := func(tool, cmd string) []byte {
		return []byte(`{"event":"preToolUse","toolName":"` + tool + `","input":{"command":"` + cmd + `"},"cwd":"` + project + `"}`)
	}
	args := []string{"arcturn", "hooks", "run", "--home", home, "--project", project, "--state-dir", t.TempDir()}

	r := hookExec(t, payload("bash", "rm -rf /tmp/scratch"), nil, args...)
	r.wantCode(t, 2)
	if got := strings.TrimSpace(r.stdout); got != `{"decision":"deny","reason":"refusing to run a recursive rm"}` {
		t.Errorf("stdout %s", got)
	}
	wantIn(t, "stderr", r.stderr, "./.arcturn/hooks/broken.sh")
	wantIn(t, "stderr", r.stderr, "half a hook")
	if got := strings.TrimSpace(lastLine(r.stderr)); got != "refusing to run a recursive rm" {
		t.Errorf("last stderr line %q", got)
	}

	r = hookExec(t, payload("bash", "ls"), nil, args...)
	r.wantCode(t, 0)
	wantIn(t, "stdout", r.stdout, `{"decision":"allow"}`)

	// mcp_* selects an MCP tool, and only that: its one-liner denies.
	r = hookExec(t, payload("mcp_github", "x"), nil, args...)
	r.wantCode(t, 2)
	wantIn(t, "stdout", r.stdout, `"reason":"never"`)

	r = hookExec(t, nil, nil, "arcturn", "hooks", "list", "--home", home, "--project", project)
	r.wantCode(t, 0)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 4 || !strings.Contains(lines[0], audit) || !strings.Contains(lines[2], "guard-bash.sh") || !strings.Contains(lines[2], "bash") {
		t.Errorf("list, in layer order:\n%s", r.stdout)
	}
}

// A newer Arcturn adds members to its payload: the hooks still run (the
// guard gets the original bytes and denies). A payload hook-exec cannot
// read is refused (exit 2, the reason on stderr) both ways Arcturn runs
// hook-exec, never a skip: Arcturn lets any other exit status through.
func TestArcturnPayloadMembers(t *testing.T) {
	t.Parallel()
	timeout := hookTimeout(t, engines(t)[0])
	project := t.TempDir()
	guard := filepath.Join(project, ".arcturn", "hooks", "guard.sh")
	os.MkdirAll(filepath.Dir(guard), 0o755)
	if err := os.WriteFile(guard, []byte("case $(cat) in *'rm -rf'*) echo 'refusing to run a recursive rm' >&2; exit 2;; esac\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, ".arcturn", "config.json"), []byte(`{"hooks": {"preToolUse": [{"command": "./.arcturn/hooks/guard.sh"}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	newer := []byte(`{"event":"preToolUse","toolName":"bash","input":{"command":"rm -rf /tmp/scratch"},"cwd":"` + project + `","sessionId":"s-1","model":{"id":"m-2"}}`)
	unreadable := []byte(`{"event":"preToolUse","toolName":"bash","input":{"command":"ls"},"cwd":"` + project + `","cwd":"/"}`)

	chain := []string{"arcturn", "hooks", "run", "--home", "-", "--project", project, "--state-dir", t.TempDir()}
	r := hookExec(t, newer, nil, chain...)
	r.wantCode(t, 2)
	if got := lastLine(r.stderr); got != "refusing to run a recursive rm" {
		t.Errorf("chain, a newer payload: the reason (stderr's last line) %q", got)
	}
	r = hookExec(t, unreadable, nil, chain...)
	r.wantCode(t, 2)
	wantIn(t, "chain, a duplicate member: stdout", r.stdout, `{"decision":"deny"`)
	wantIn(t, "chain, a duplicate member: the reason", lastLine(r.stderr), "hook-exec refused the event")
	wantIn(t, "chain, a duplicate member: the reason", lastLine(r.stderr), `duplicate object member name "cwd"`)

	command := "hook-exec run --dialect arcturn --script " + guard + " --timeout " + timeout.String()
	code, _, stderr := hostSpawn(t, command, newer, 2*timeout)
	if code != 2 || lastLine(stderr) != "refusing to run a recursive rm" {
		t.Errorf("run, a newer payload: exit %d stderr %q, want 2 and the guard's reason", code, stderr)
	}
	code, _, stderr = hostSpawn(t, command, unreadable, 2*timeout)
	if code != 2 || !strings.Contains(lastLine(stderr), "invalid_event") {
		t.Errorf("run, a duplicate member: exit %d stderr %q, want 2 and the reason", code, stderr)
	}
}
