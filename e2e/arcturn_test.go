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
