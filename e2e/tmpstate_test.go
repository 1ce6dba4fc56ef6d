package e2e

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookexec/hook-exec/hook"
)

// limitScript is a rate limiter in the manner of public hooks that count
// calls in /tmp (mattpollak/context-flow's context-monitor.sh, MIT; OmniNode's
// delegation counter): a counter per session in ${TMPDIR:-/tmp}, the third
// Bash call of a turn denied. An inline UserPromptSubmit line of the same
// project resets it, as OmniNode's does.
const limitScript = `#!/usr/bin/env bash
set -euo pipefail
INPUT=$(cat)
SESSION_ID=$(echo "$INPUT" | jq -r '.session_id // empty')
COUNTER_FILE="${TMPDIR:-/tmp}/limit-${SESSION_ID}.count"
COUNT=0
if [ -f "$COUNTER_FILE" ]; then
  COUNT=$(cat "$COUNTER_FILE")
fi
COUNT=$((COUNT + 1))
echo "$COUNT" > "$COUNTER_FILE"
if [ "$COUNT" -ge 3 ]; then
  jq -n --arg n "$COUNT" '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: ("limit: call " + $n + " of this turn")}}'
fi
`

// TestInstallTmpState: hooks that keep state in /tmp between calls (a
// counter, and the line that resets it) give the host's outcome through
// install: their /tmp is kept for the project in hook-exec's state, where
// the plan says, shared by the project's hooks, never the host's /tmp. On
// both engines.
func TestInstallTmpState(t *testing.T) {
	t.Parallel()
	engine(t)
	for _, backend := range []string{"docker", "containerd"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			timeout := int64((hookTimeout(t, engineFor(t, backend)) + 2e9).Seconds())
			dir := hostDir(t) // a project below /tmp would be a mount point in its kept /tmp
			hooks := filepath.Join(dir, ".claude/hooks")
			os.MkdirAll(hooks, 0o755)
			os.WriteFile(filepath.Join(hooks, "limit.sh"), []byte(limitScript), 0o755)
			config := filepath.Join(dir, ".claude/settings.json")
			os.WriteFile(config, fmt.Appendf(nil, `{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/limit.sh", "timeout": %d}]}],
  "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo 0 > \"/tmp/limit-$(jq -r .session_id).count\"", "timeout": %d}]}]
}}
`, timeout, timeout), 0o644)
			state := t.TempDir()
			// TMPDIR /tmp: the host's run writes where the line that resets
			// it and the checks below look, whatever the machine sets.
			env := []string{"HOOKEXEC_BACKEND=" + backend, "CLAUDE_PROJECT_DIR=" + dir, "HOME=" + hostDir(t), "HOOKEXEC_STATE_DIR=" + state, "TMPDIR=/tmp"}
			before := hookCommands(t, installHosts[0], config)
			r := hookExec(t, nil, env, "install", "claude", "--project", dir, "--yes")
			r.wantCode(t, 0)
			kept := hook.TmpDataDir(state, dir, false) // the project's, as the run reckons it
			if !strings.Contains(r.stdout, "it keeps state in /tmp between its runs") || !strings.Contains(r.stdout, kept) {
				t.Errorf("the plan does not show the kept /tmp in %s:\n%s", kept, r.stdout)
			}
			after := hookCommands(t, installHosts[0], config)
			for _, c := range after {
				if !strings.Contains(c, " --tmp-data ") {
					t.Fatalf("installed without its kept /tmp: %s", c)
				}
			}
			// before and after: [PreToolUse limit.sh, UserPromptSubmit line].
			sequence := func(commands []string, session string) []string {
				pre := fmt.Appendf(nil, `{"session_id":%q,"transcript_path":"%s/t.jsonl","cwd":%q,"permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"t1"}`, session, dir, dir)
				prompt := fmt.Appendf(nil, `{"session_id":%q,"transcript_path":"%s/t.jsonl","cwd":%q,"permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":"go on"}`, session, dir, dir)
				var out []string
				for _, step := range []int{0, 0, 0, 1, 0} {
					payload := pre
					if step == 1 {
						payload = prompt
					}
					got := hostRun(t, dir, env, commands[step], payload)
					d, err := hook.Interpret(mustEnvelope(t, installHosts[0], payload), got.code, []byte(got.stdout), []byte(got.stderr))
					if err != nil {
						t.Fatalf("%s: %v (stdout %q, stderr %q)", commands[step], err, got.stdout, got.stderr)
					}
					out = append(out, string(d.Action)+" "+strings.ReplaceAll(d.Reason, session, "S"))
				}
				return out
			}
			id := func() string {
				b := make([]byte, 8)
				rand.Read(b)
				return "tmpstate-" + hex.EncodeToString(b)
			}
			hostSession, boxSession := id(), id()
			t.Cleanup(func() { os.Remove("/tmp/limit-" + hostSession + ".count") })
			want := sequence(before, hostSession)
			if want[2] != "deny limit: call 3 of this turn" {
				t.Fatalf("on the host the third call gave %q: the test's hook is wrong", want[2])
			}
			got := sequence(after, boxSession)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("sandboxed %q, on the host %q", got, want)
			}
			if _, err := os.Lstat("/tmp/limit-" + boxSession + ".count"); err == nil {
				t.Errorf("the sandboxed hooks wrote the host's /tmp")
			}
			found, _ := filepath.Glob(filepath.Join(kept, "limit-"+boxSession+".count"))
			if len(found) != 1 {
				t.Fatalf("the counter is not kept in %s: %v", kept, found)
			}
			if b, _ := os.ReadFile(found[0]); strings.TrimSpace(string(b)) != "1" {
				t.Errorf("the kept counter holds %q, want 1 (reset, then one call)", b)
			}
			// Nothing of the launcher's is left beside it; the home's
			// .claude, which the launcher makes (HOME is /tmp), stays.
			left, _ := os.ReadDir(kept)
			for _, e := range left {
				if e.Name() != ".claude" && e.Name() != filepath.Base(found[0]) {
					t.Errorf("the kept /tmp holds %s: %v", e.Name(), left)
				}
			}
		})
	}
}

// TestTmpDataBounds: a kept /tmp loses nothing of the launcher's to a run
// that was ended (its private directory is removed, the hook's own file
// stays), and one the hook fills past the bound ends the run as an output
// limit, emptied for its next run. On both engines.
func TestTmpDataBounds(t *testing.T) {
	t.Parallel()
	engine(t)
	for _, backend := range []string{"docker", "containerd"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			timeout := hookTimeout(t, engineFor(t, backend))
			state := t.TempDir()
			env := []string{"HOOKEXEC_BACKEND=" + backend, "HOOKEXEC_STATE_DIR=" + state}
			payload := []byte(`{"session_id":"s1","transcript_path":"/t","cwd":"/","permission_mode":"default","hook_event_name":"Stop","stop_hook_active":false}`)
			// Ended by its timeout, after it left a mark.
			slow := scriptFile(t, "slow.sh", "#!/bin/sh\necho 1 > /tmp/mark\nsleep 600\n")
			r := hookExec(t, payload, env, "run", "--dialect", "claude", "--script", slow, "--tmp-data", "--timeout", timeout.String(), "--trace", "-")
			wantIn(t, "trace", r.stdout+r.stderr, `"timeout"`)
			marks, _ := filepath.Glob(filepath.Join(state, "tmp", "*", "mark"))
			if len(marks) != 1 {
				t.Fatalf("the hook's mark is not kept: %v (stdout %q, stderr %q)", marks, r.stdout, r.stderr)
			}
			kept := filepath.Dir(marks[0])
			left, _ := filepath.Glob(filepath.Join(kept, "hook-exec.*"))
			if len(left) != 0 {
				t.Errorf("the launcher's directory is left in the kept /tmp: %v", left)
			}
			// Past the bound (64 MiB, each file under the 16 MiB a file
			// may have): ended, and emptied.
			big := filepath.Join(filepath.Dir(slow), "big.sh") // of the same tree: the same /tmp
			os.WriteFile(big, []byte("#!/bin/sh\nfor i in 1 2 3 4 5 6; do dd if=/dev/zero of=/tmp/fill$i bs=1048576 count=15 2>/dev/null; done\nsleep 600\n"), 0o644)
			r = hookExec(t, payload, env, "run", "--dialect", "claude", "--script", big, "--tmp-data", "--timeout", (4 * timeout).String(), "--trace", "-")
			wantIn(t, "trace", r.stdout+r.stderr, "grew it by more than")
			wantIn(t, "trace", r.stdout+r.stderr, "the kept /tmp was emptied after the run")
			wantIn(t, "trace", r.stdout+r.stderr, `"output_limit"`)
			if entries, _ := os.ReadDir(kept); len(entries) != 0 {
				t.Errorf("the kept /tmp was not emptied: %v", entries)
			}
			// A project below /tmp would be the engine's mount point in
			// the kept /tmp: refused, naming it, before any sandbox.
			below, err := os.MkdirTemp("/tmp", "hookexec-below-") // t.TempDir follows $TMPDIR
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(below) })
			r = hookExec(t, payload, env, "run", "--dialect", "claude", "--script", slow, "--tmp-data", "--workspace", below, "--timeout", timeout.String(), "--trace", "-")
			wantIn(t, "trace", r.stdout+r.stderr, below+" is mounted below /tmp")
			wantIn(t, "trace", r.stdout+r.stderr, `"refused_rule"`)
		})
	}
}
