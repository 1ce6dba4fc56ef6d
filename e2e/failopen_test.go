package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// claudeAnswer is the part of Claude Code's hook answer a refusal is in.
type claudeAnswer struct {
	Decision string `json:"decision"`
	Specific struct {
		PermissionDecision string `json:"permissionDecision"`
		Reason             string `json:"permissionDecisionReason"`
	} `json:"hookSpecificOutput"`
}

// Issue 31, through the built CLI as Claude Code runs it, on both engines:
// the ordinary ways a guard's refusal turned into an allow. Each hook's
// answer must reach Claude as a deny (exit 0 and permissionDecision deny,
// or exit 2).
func TestClaudeRefusalsHold(t *testing.T) {
	t.Parallel()
	engine(t)
	rm := claudeEvent("PreToolUse", "Bash", map[string]any{"command": "rm -rf /"}, "")
	hooks := map[string]string{
		// set -e after the print, sys.exit(1), a killed child: the deny was
		// written, and the exit status dropped it.
		"deny then exit 1": "#!/bin/sh\ncat >/dev/null\n" +
			`echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no rm"}}'` + "\nexit 1\n",
		// bytes.TrimSpace keeps U+FEFF: the answer was read as plain text.
		"a byte-order mark before the deny": "#!/bin/sh\ncat >/dev/null\n" +
			`printf '\357\273\277{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no rm"}}\n'` + "\n",
		// PermissionRequest's member overrode the deny of PreToolUse.
		"another event's allow beside the deny": "#!/bin/sh\ncat >/dev/null\n" +
			`echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no rm","decision":{"behavior":"allow"}}}'` + "\n",
	}
	for _, backend := range []string{"docker", "containerd"} {
		for name, body := range hooks {
			t.Run(backend+"/"+name, func(t *testing.T) {
				t.Parallel()
				guard := scriptFile(t, "guard.sh", body)
				r := hookExec(t, rm, nil, "run", "--backend", backend, timeoutFlag(t, backend), "--dialect", "claude", "--script", guard)
				r.wantCode(t, 0)
				var a claudeAnswer
				if err := json.Unmarshal([]byte(r.stdout), &a); err != nil || a.Specific.PermissionDecision != "deny" || a.Specific.Reason != "no rm" {
					t.Errorf("answer %q (%v), want the hook's deny, \"no rm\"", r.stdout, err)
				}
			})
		}
	}
	// A misspelt flag never reached a sandbox, and Claude Code read its
	// exit 64 as "go on".
	for _, args := range [][]string{
		{"run", "--dialect", "claude", "--timout", "5s", "--script", "guard.sh"},
		{"run", "--dialect", "claude", "--memory", "lots", "--script", "guard.sh"},
		{"run", "--timout", "5s", "--script", "guard.sh"}, // no --dialect: the payload is Claude's
	} {
		r := hookExec(t, rm, nil, args...)
		r.wantCode(t, 0)
		var a claudeAnswer
		if err := json.Unmarshal([]byte(r.stdout), &a); err != nil || a.Specific.PermissionDecision != "deny" {
			t.Errorf("%q: answer %q (%v), want a deny", args, r.stdout, err)
		}
		if !strings.Contains(r.stderr, "unknown flag") && !strings.Contains(r.stderr, `"--memory"`) {
			t.Errorf("%q: stderr %q does not say what was wrong", args, r.stderr)
		}
	}
	// Arcturn's and Bernstein's block is exit 2.
	arcturn := []byte(`{"event":"preToolUse","toolName":"bash","input":{"command":"rm -rf /"},"cwd":"/tmp"}`)
	for _, args := range [][]string{
		{"run", "--dialect", "arcturn", "--timout", "5s", "--script", "guard.sh"},
		{"arcturn", "hooks", "run", "--bogus"},
	} {
		r := hookExec(t, arcturn, nil, args...)
		r.wantCode(t, 2)
		if !strings.Contains(r.stderr, "bogus") && !strings.Contains(r.stderr, "timout") {
			t.Errorf("%q: stderr %q does not say what was wrong", args, r.stderr)
		}
	}
}
