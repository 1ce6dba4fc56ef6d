package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A Bernstein project's hooks through `hook-exec bernstein hooks`, as its
// docs drive them: an annotate seen by the next hook, a bash+jq guard that
// denies on it, the DENIED line, exit 2 and the audit record; exit 0 when
// every hook allows; `check` naming what cannot run.
func TestBernsteinHooksCLI(t *testing.T) {
	t.Parallel()
	engine(t)
	project := t.TempDir()
	write := func(rel, body string, mode os.FileMode) {
		p := filepath.Join(project, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("bernstein.yaml", `hooks:
  preToolUse:
    - script: scripts/risk.py
      timeout: 20
    - scripts/guard.sh
`, 0o644)
	write("scripts/risk.py", `#!/usr/bin/env python3
import json, sys
payload = json.loads(sys.stdin.read())
cmd = payload["data"].get("args", {}).get("command", "")
print(json.dumps({"decision": "annotate", "data": {"risk": "high" if "rm -rf" in cmd else "low"}}))
`, 0o755)
	write("scripts/guard.sh", `#!/usr/bin/env bash
set -euo pipefail
payload="$(cat)"
risk="$(echo "$payload" | jq -r '.data.risk')"
if [[ "$risk" == "high" ]]; then
  echo "{\"decision\": \"deny\", \"reason\": \"risk $risk: $(echo "$payload" | jq -r '.data.args.command')\"}"
  exit 0
fi
echo '{"decision": "allow"}'
`, 0o755)
	state := t.TempDir()
	payload := func(cmd string) string {
		return scriptFile(t, "payload.json", `{"session_id":"s-1","tool":"shell.run","args":{"command":"`+cmd+`"}}`)
	}
	r := hookExec(t, nil, nil, "bernstein", "hooks", "dry-run", "preToolUse", "--project", project, "--state-dir", state, "--payload", payload("rm -rf /srv"))
	r.wantCode(t, 2)
	wantIn(t, "stdout", r.stdout, "DENIED: preToolUse blocked by script:scripts/guard.sh: risk high: rm -rf /srv")
	audit, err := os.ReadFile(filepath.Join(state, "bernstein-denials.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	// The audit record keeps the original data: without the annotation.
	wantIn(t, "audit", string(audit), `"event":"preToolUse","hook":"script:scripts/guard.sh","reason":"risk high: rm -rf /srv","data":{"args":{"command":"rm -rf /srv"},"session_id":"s-1","tool":"shell.run"}`)

	r = hookExec(t, nil, nil, "bernstein", "hooks", "dry-run", "preToolUse", "--project", project, "--state-dir", state, "--payload", payload("ls"))
	r.wantCode(t, 0)
	wantIn(t, "stdout", r.stdout, "ALLOWED: preToolUse (2 hook(s) ran)")
	wantIn(t, "stdout", r.stdout, `"risk":"low"`)

	// The documented sample payload, and a payload missing a required key.
	r = hookExec(t, nil, nil, "bernstein", "hooks", "dry-run", "preToolUse", "--project", project, "--state-dir", state)
	r.wantCode(t, 0)
	bad := scriptFile(t, "bad.json", `{"session_id":"s-1","args":{}}`)
	r = hookExec(t, nil, nil, "bernstein", "hooks", "dry-run", "preToolUse", "--project", project, "--state-dir", state, "--payload", bad)
	r.wantCode(t, 1)
	wantIn(t, "stderr", r.stderr, `missing the required key "tool"`)

	r = hookExec(t, nil, nil, "bernstein", "hooks", "check", "--project", project)
	r.wantCode(t, 0)
	write(".bernstein/hooks/sessionEnd.sh", "if [[ -n $x ]]; then :; fi\n", 0o755)
	write(".bernstein/hooks/idle.sh", "exit 0\n", 0o644)
	r = hookExec(t, nil, nil, "bernstein", "hooks", "check", "--project", project)
	r.wantCode(t, 1)
	wantIn(t, "stdout", r.stdout, "sessionEnd script:.bernstein/hooks/sessionEnd.sh: shell syntax: sh cannot run this script: line 1: [[ is a bash feature")
	wantIn(t, "stdout", r.stdout, "idle script:.bernstein/hooks/idle.sh: not executable")
	r = hookExec(t, nil, nil, "bernstein", "hooks", "list", "--project", project)
	r.wantCode(t, 0)
	if !strings.Contains(r.stdout, "preToolUse:\n  script:scripts/risk.py (timeout 20s)\n  script:scripts/guard.sh\n") {
		t.Errorf("list:\n%s", r.stdout)
	}
	// A guard that cannot run fails its chain (exit 1): skipped, it would
	// let through what it guards.
	write(".bernstein/hooks/preToolUse.sh", "exit 0\n", 0o644)
	r = hookExec(t, nil, nil, "bernstein", "hooks", "dry-run", "preToolUse", "--project", project, "--state-dir", state, "--payload", payload("ls"))
	r.wantCode(t, 1)
	wantIn(t, "stdout", r.stdout, "FAILED: preToolUse: script:.bernstein/hooks/preToolUse.sh: cannot run: not executable (chmod +x)")
}

// `image check --script` reads what a hook calls from the parsed script
// and names what the image lacks, before a guard meets it at run time.
func TestImageCheckScript(t *testing.T) {
	t.Parallel()
	_, refs := engine(t)
	guard := scriptFile(t, "guard.sh", `#!/usr/bin/env bash
set -euo pipefail
cmd=$(jq -r '.tool_input.command')
branch=$(git rev-parse --abbrev-ref HEAD 2>/dev/null || true)
[[ "$cmd" == *"rm -rf"* ]] && { echo "blocked on $branch" >&2; exit 2; }
exit 0
`)
	r := hookExec(t, nil, nil, "image", "check", refs["sh"], "--script", guard)
	r.wantCode(t, 1)
	wantIn(t, "stderr", r.stderr, "lacks what "+guard+" calls: bash, git, jq")
	for _, line := range []string{"  bash    missing", "  jq      missing", "  git     missing"} {
		wantIn(t, "stdout", r.stdout, line)
	}
	r = hookExec(t, nil, nil, "image", "check", refs["bash"], "--script", guard, "--json")
	r.wantCode(t, 0)
	wantIn(t, "stdout", r.stdout, `"script":{"file":"`+guard+`","shell":"bash","programs":["bash","git","jq"]}`)
}

// Bernstein's contract where it differs from a strict reading, through the
// built CLI with real sandboxes: an answer's other members are ignored; a
// verb Bernstein does not know is an allow whose record is kept (the
// chain's output, the wrapper's answer); a deny the hook wrote stands on
// any exit status (audited as a deny); `hooks run` fires Bernstein's empty
// context, unchecked; through the wrapper a crash is Bernstein's hook
// failure (exit 1, no answer) and a payload hook-exec cannot read its
// blocking error (exit 2, the reason on stderr).
func TestBernsteinContract(t *testing.T) {
	t.Parallel()
	engine(t)
	project := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(project, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("bernstein.yaml", "hooks:\n  preToolUse:\n    - scripts/note.sh\n    - scripts/escalate.sh\n    - scripts/guard.sh\n")
	write("scripts/note.sh", "cat >/dev/null\necho '{\"decision\":\"allow\",\"message\":\"ok\"}'\n")
	write("scripts/escalate.sh", "cat >/dev/null\necho '{\"decision\":\"escalate\",\"to\":\"oncall\"}'\n")
	write("scripts/guard.sh", "cat >/dev/null\necho '{\"decision\":\"deny\",\"reason\":\"no shell.run here\"}'\nexit 1\n")
	// What Bernstein's own `hooks run` gives a hook: data {}, task and session null.
	write(".bernstein/hooks/sessionEnd.sh", `case $(cat) in *'"task":null,"session_id":null'*'"data":{}'*) echo '{"decision":"allow"}';; *) echo 'not the empty context' >&2; exit 1;; esac
`)
	state := t.TempDir()

	r := hookExec(t, nil, nil, "bernstein", "hooks", "dry-run", "preToolUse", "--project", project, "--state-dir", state, "--json")
	r.wantCode(t, 2)
	wantIn(t, "dry-run stdout", r.stdout, `"records":[{"hook":"script:scripts/escalate.sh","raw":{"decision":"escalate","to":"oncall"}}]`)
	wantIn(t, "dry-run stdout", r.stdout, `"denied":{"event":"preToolUse","hook":"script:scripts/guard.sh","reason":"no shell.run here"`)
	audit, err := os.ReadFile(filepath.Join(state, "bernstein-denials.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	wantIn(t, "audit", string(audit), `"hook":"script:scripts/guard.sh","reason":"no shell.run here"`)

	r = hookExec(t, nil, nil, "bernstein", "hooks", "run", "sessionEnd", "--project", project, "--state-dir", state)
	r.wantCode(t, 0)
	wantIn(t, "run stdout", r.stdout, "ALLOWED: sessionEnd (1 hook(s) ran)")

	wrapper := func(body, event string) cliResult {
		t.Helper()
		return hookExec(t, []byte(event), []string{"HOOKEXEC_STATE_DIR=" + state}, "run", "--dialect", "bernstein", "--script", scriptFile(t, "preToolUse.sh", body))
	}
	r = wrapper("cat >/dev/null\necho '{\"decision\":\"escalate\",\"to\":\"oncall\"}'\n", bernPre)
	r.wantCode(t, 0)
	if got := strings.TrimSpace(r.stdout); got != `{"decision":"escalate","to":"oncall"}` {
		t.Errorf("wrapper, an unknown verb: stdout %q, want the record passed on", got)
	}
	r = wrapper("cat >/dev/null\necho '{\"decision\":\"allow\"}'\nexit 1\n", bernPre)
	r.wantCode(t, 1)
	if r.stdout != "" {
		t.Errorf("wrapper, a crash: stdout %q, want no answer (a deny there would be audited as the hook's)", r.stdout)
	}
	wantIn(t, "wrapper, a crash: stderr", r.stderr, "exit_nonzero")
	r = wrapper("exit 0\n", strings.Replace(bernPre, `"tool":"shell.run",`, "", 1))
	r.wantCode(t, 2)
	if r.stdout != "" {
		t.Errorf("wrapper, a payload missing a key: stdout %q, want no answer", r.stdout)
	}
	wantIn(t, "wrapper, a payload missing a key: stderr", r.stderr, `missing the required key "tool"`)
}
