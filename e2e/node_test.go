package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// Claude Code hooks written in Node.js, the three ways public ones are: a
// CommonJS guard reading fs.readFileSync(0) and exiting 2, an ES module
// reading process.stdin with for await and answering in JSON, an
// extensionless #!/usr/bin/env node Stop check. Each runs unchanged: its
// extension or #! line picks node and, with no --image, hook-node, both
// named in the trace.
func TestNodeHooksRunUnchanged(t *testing.T) {
	t.Parallel()
	engine(t)
	guard := scriptFile(t, "block-dangerous.js", `#!/usr/bin/env node
const fs = require('fs');
const path = require('path');

const input = JSON.parse(fs.readFileSync(0, 'utf8'));
const command = (input.tool_input && input.tool_input.command) || '';
const patterns = [/\brm\s+-rf\s+[\/~]/, /\bgit\s+push\s+.*--force\b/, /\bchmod\s+777\b/];
for (const p of patterns) {
  if (p.test(command)) {
    console.error('Blocked by ' + path.basename(__filename) + ': ' + command);
    process.exit(2);
  }
}
process.exit(0);
`)
	protect := scriptFile(t, "protect-files.mjs", `import path from 'node:path';

let raw = '';
for await (const chunk of process.stdin) raw += chunk;
const { tool_input: input = {} } = JSON.parse(raw);
const file = input.file_path || '';
const protectedNames = ['.env', '.git/', 'package-lock.json'];
if (protectedNames.some((p) => file.includes(p))) {
  console.log(JSON.stringify({
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'deny',
      permissionDecisionReason: path.basename(file) + ' is protected',
    },
  }));
}
`)
	stop := scriptFile(t, "require-tests", `#!/usr/bin/env node
let data = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (c) => { data += c; });
process.stdin.on('end', () => {
  const input = JSON.parse(data);
  if (input.stop_hook_active) {
    process.exit(0); // already continued once: let Claude stop
  }
  console.log(JSON.stringify({ decision: 'block', reason: 'Run the test suite before stopping.' }));
});
`)
	tests := []struct {
		name, script string
		event        []byte
		want         string
	}{
		{"CommonJS guard blocks rm -rf ~ with exit 2", guard,
			claudeEvent("PreToolUse", "Bash", map[string]any{"command": "rm -rf ~/projects"}, ""),
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"Blocked by hook.js: rm -rf ~/projects"}}`},
		{"CommonJS guard lets npm test through", guard,
			claudeEvent("PreToolUse", "Bash", map[string]any{"command": "npm test"}, ""), `{}`},
		{"ES module denies a .env edit in JSON", protect,
			claudeEvent("PreToolUse", "Edit", map[string]any{"file_path": "/work/p/.env", "old_string": "a", "new_string": "b"}, ""),
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":".env is protected"}}`},
		{"ES module passes an ordinary file", protect,
			claudeEvent("PreToolUse", "Edit", map[string]any{"file_path": "/work/p/src/app.ts", "old_string": "a", "new_string": "b"}, ""), `{}`},
		{"Stop check keeps Claude working once", stop,
			claudeEvent("Stop", "", nil, `,"stop_hook_active":false`), `{"decision":"block","reason":"Run the test suite before stopping."}`},
		{"Stop check lets it stop the second time", stop,
			claudeEvent("Stop", "", nil, `,"stop_hook_active":true`), `{}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := hookExec(t, tc.event, nil, "run", "--dialect", "claude", "--script", tc.script, "--trace", "-")
			r.wantCode(t, 0)
			if got := strings.TrimSpace(r.stdout); got != tc.want {
				t.Errorf("answer\n got  %s\n want %s\nstderr %q", got, tc.want, r.stderr)
			}
			var tr struct {
				Image       string `json:"image"`
				Interpreter string `json:"interpreter"`
			}
			if err := json.Unmarshal([]byte(traceLine(r.stderr)), &tr); err != nil {
				t.Fatalf("trace: %v\n%s", err, r.stderr)
			}
			if tr.Interpreter != "node" || !strings.Contains(tr.Image, "hookexec/hook-node:") {
				t.Errorf("trace interpreter %q image %q, want node on hook-node", tr.Interpreter, tr.Image)
			}
		})
	}
}

// A Stop hook that fails (its program missing: exit 127) does not keep
// Claude working: the answer carries a systemMessage, never a block, or a
// hook that keeps failing would have Claude work forever. On PreToolUse
// the same failure still denies.
func TestClaudeStopFailureDoesNotBlock(t *testing.T) {
	t.Parallel()
	engine(t)
	broken := scriptFile(t, "broken.sh", "#!/bin/sh\nrun-the-linter-xyz --all\n")
	r := hookExec(t, claudeEvent("Stop", "", nil, `,"stop_hook_active":false`), nil, "run", "--dialect", "claude", "--script", broken)
	r.wantCode(t, 0)
	var out map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("answer %q: %v", r.stdout, err)
	}
	msg, _ := out["systemMessage"].(string)
	if _, blocked := out["decision"]; blocked || !strings.Contains(msg, "the Stop hook failed") || !strings.Contains(msg, "it does not keep Claude working") {
		t.Errorf("answer %s, want a systemMessage and no decision", r.stdout)
	}
	r = hookExec(t, claudeEvent("PreToolUse", "Bash", map[string]any{"command": "ls"}, ""), nil, "run", "--dialect", "claude", "--script", broken)
	r.wantCode(t, 0)
	wantIn(t, "stdout", r.stdout, `"permissionDecision":"deny"`)
}
