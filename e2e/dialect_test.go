package e2e

import (
	"strings"
	"testing"
)

const (
	arcturnPre = `{"event":"preToolUse","toolName":"bash","input":{"command":"rm -rf /tmp/scratch"},"cwd":"/Users/you/project"}`
	arcturnLs  = `{"event":"preToolUse","toolName":"bash","input":{"command":"ls"},"cwd":"/Users/you/project"}`
	bernPre    = `{"event":"preToolUse","task":"T-123","session_id":"s-abc","workdir":"/path/to/worktree","env":{"BERNSTEIN_FOO":"bar"},"timestamp":1736251200.0,"data":{"session_id":"s-abc","tool":"shell.run","args":{"command":"ls"},"blast_radius_score":0}}`
	bernPost   = `{"event":"postToolUse","task":"T-123","session_id":"s-abc","workdir":"/w","data":{"session_id":"s-abc","tool":"shell.run","args":{},"result":"ok","duration_ms":1500}}`
)

// TestDialectsEndToEnd plays each host: it spawns the built binary with the
// host's payload on stdin, and the hook runs in a real sandbox.
func TestDialectsEndToEnd(t *testing.T) {
	t.Parallel()
	engine(t)
	tests := []struct {
		name, dialect, file, script, event string
		extra                              []string
		code                               int
		stdout, stderr                     string
	}{
		{"arcturn allow", "arcturn", "guard.sh", "cat >/dev/null\nexit 0\n", arcturnLs, nil, 0, `{"decision":"allow"}`, ""},
		{"arcturn deny with stderr reason", "arcturn", "guard.sh",
			"case $(cat) in *'rm -rf'*) echo 'refusing to run a recursive rm' >&2; exit 2;; esac\nexit 0\n",
			arcturnPre, nil, 2, `{"decision":"deny","reason":"refusing to run a recursive rm"}`, "refusing to run a recursive rm"},
		{"arcturn python deny", "arcturn", "guard.py",
			"import json, sys\np = json.load(sys.stdin)\nif 'rm -rf' in p['input']['command']:\n    sys.stderr.write('no rm\\n')\n    sys.exit(2)\n",
			arcturnPre, nil, 2, `"decision":"deny"`, "no rm"},
		{"arcturn other exit fails open", "arcturn", "guard.sh", "exit 1\n", arcturnPre, nil, 0, `{"decision":"allow"}`, "exit_nonzero"},
		{"arcturn timeout fails open", "arcturn", "guard.sh", "sleep 100\n", arcturnPre, []string{"--timeout", "1s"}, 0, `{"decision":"allow"}`, "timeout"},
		{"arcturn matcher misses", "arcturn", "guard.sh", "exit 2\n", arcturnPre, []string{"--matcher", "mcp_*"}, 0, `{"decision":"allow"}`, ""},
		{"bernstein implicit allow", "bernstein", "preToolUse.sh", "cat >/dev/null\necho working\n", bernPre, nil, 0, `{"decision":"allow"}`, ""},
		{"bernstein deny", "bernstein", "preToolUse.sh",
			"payload=$(cat)\ncase $payload in *'\"tool\":\"shell.run\"'*) echo '{\"decision\": \"deny\", \"reason\": \"shell.run blocked by site policy\"}'; exit 0;; esac\necho '{\"decision\": \"allow\"}'\n",
			bernPre, nil, 0, `{"decision":"deny","reason":"shell.run blocked by site policy"}`, ""},
		{"bernstein annotate", "bernstein", "postToolUse.py",
			"import json, sys\npayload = json.loads(sys.stdin.read())\nd = payload['data'].get('duration_ms', 0)\nprint(json.dumps({'decision': 'annotate', 'data': {'billing_unit_cost': d * 0.0001}}))\n",
			bernPost, nil, 0, `{"decision":"annotate","data":{"billing_unit_cost":0.15}}`, ""},
		{"bernstein env vars", "bernstein", "preToolUse.sh",
			"cat >/dev/null\nprintf '{\"decision\":\"deny\",\"reason\":\"%s %s %s\"}\\n' \"$BERNSTEIN_EVENT\" \"$BERNSTEIN_TASK_ID\" \"$BERNSTEIN_FOO\"\n",
			bernPre, nil, 0, `"reason":"preToolUse T-123 bar"`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			script := scriptFile(t, tc.file, tc.script)
			args := append([]string{"run", "--dialect", tc.dialect, "--script", script, "--trace", "-"}, tc.extra...)
			r := hookExec(t, []byte(tc.event), []string{"HOOKEXEC_STATE_DIR=" + t.TempDir()}, args...)
			r.wantCode(t, tc.code)
			wantIn(t, "stdout", r.stdout, tc.stdout)
			wantIn(t, "stderr", r.stderr, tc.stderr)
		})
	}
}

func TestTracesCommand(t *testing.T) {
	t.Parallel()
	engine(t)
	state := []string{"HOOKEXEC_STATE_DIR=" + t.TempDir()}
	leaky := scriptFile(t, "leaky.sh", "echo 'token ghp_abcdefghijklmnopqrstuvwxyz0123456789 and password=hunter2hunter2' >&2\nexit 1\n")
	for _, id := range []string{"one", "two", "one"} {
		hookExec(t, toolEvent("ls"), state, "run", "--script", leaky, "--hook-id", id)
	}
	r := hookExec(t, nil, state, "traces", "--json", "--hook-id", "one", "--limit", "5")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	r.wantCode(t, 0)
	if len(lines) != 2 {
		t.Fatalf("%d trace lines, want 2: %q", len(lines), r.stdout)
	}
	wantIn(t, "first trace", lines[0], `"hook_id":"one"`)
	wantIn(t, "first trace", lines[0], `"kind":"exit_nonzero"`)
	for _, secret := range []string{"ghp_abcdef", "hunter2"} {
		if strings.Contains(r.stdout, secret) {
			t.Errorf("a secret (%s) reached the trace store: %s", secret, r.stdout)
		}
	}
	r = hookExec(t, nil, state, "traces", "--limit", "1")
	r.wantCode(t, 0)
	if n := strings.Count(strings.TrimSpace(r.stdout), "\n"); n != 1 {
		t.Errorf("table: %d newlines, want 1 (a header and one row): %q", n, r.stdout)
	}
	wantIn(t, "table", r.stdout, "exit_nonzero")
}
