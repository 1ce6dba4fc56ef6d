package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSeedPluginScriptNeverInTheWorkspace (issue 50, A6). Seed 000: "script
// handlers must name a regular .py or .sh file ... inside the plugin's own
// installed directory, never in the session workspace." A plugin-scope
// script in the workspace it would see is refused before any sandbox
// exists; the same script from a directory of its own runs.
func TestSeedPluginScriptNeverInTheWorkspace(t *testing.T) {
	t.Parallel()
	engine(t)
	ws := t.TempDir()
	body := []byte("#!/bin/sh\necho '{\"schema_version\":1,\"action\":\"allow\"}'\n")
	sum := sha256.Sum256(body)
	inside := filepath.Join(ws, "x.sh")
	os.WriteFile(inside, body, 0o644)
	plugin := filepath.Join(t.TempDir(), "x.sh")
	os.WriteFile(plugin, body, 0o644)
	event := `{"schema_version":1,"event_id":"e1","timestamp":0,"point":"tool.before","session_id":"s","depth":0,"data":{}}`
	env := []string{"HOOKEXEC_BACKEND=docker"}
	r := hookExec(t, []byte(event), env, "run", "--scope", "plugin", "--script", inside, "--sha256", hex.EncodeToString(sum[:]), "--workspace", ws, "--trace", "-")
	r.wantCode(t, 2)
	if !strings.Contains(r.stderr, `"kind":"refused_rule"`) || !strings.Contains(r.stderr, "in the session's workspace") {
		t.Errorf("a plugin script in the workspace: stdout %q stderr %q", r.stdout, r.stderr)
	}
	r = hookExec(t, []byte(event), env, "run", "--scope", "plugin", "--script", plugin, "--sha256", hex.EncodeToString(sum[:]), "--workspace", ws)
	r.wantCode(t, 0)
}

// TestSeedArcturnSessionLog (P11). Seed 002's own sessionStart example:
// `{ "command": "echo session started >> .arcturn/session.log" }`. The
// project is read-only in the sandbox; the one-liner's own write is given
// to it, as a script installed for another host gets the writes it names,
// and lands in the project as on the host.
func TestSeedArcturnSessionLog(t *testing.T) {
	t.Parallel()
	engine(t)
	home, project := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(project, ".arcturn"), 0o755)
	os.WriteFile(filepath.Join(project, ".arcturn", "config.json"), []byte(`{"hooks": {"sessionStart": [{ "command": "echo session started >> .arcturn/session.log" }]}}`), 0o644)
	payload := []byte(`{"event":"sessionStart","cwd":"` + project + `"}`)
	args := []string{"arcturn", "hooks", "run", "--home", home, "--project", project, "--state-dir", t.TempDir()}
	for range 2 {
		r := hookExec(t, payload, nil, args...)
		r.wantCode(t, 0)
		if strings.Contains(r.stderr, "Read-only") || strings.Contains(r.stderr, "read-only") {
			t.Errorf("the hook could not write: %s", r.stderr)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(project, ".arcturn", "session.log")); string(b) != "session started\nsession started\n" {
		t.Errorf("session.log %q, want two lines", b)
	}
}

// TestSeedArcturnShellAndGuard (P10). Seed 002: "The runner spawns the
// command via $SHELL -c "<command>" (falling back to /bin/sh if $SHELL is
// unset)", and its own guard-bash.sh (bash that parses the payload with
// node) denies a recursive rm. A bash one-liner runs under bash when
// Arcturn's $SHELL is bash; the seed's guard runs as written (bash and
// node in one image).
func TestSeedArcturnShellAndGuard(t *testing.T) {
	t.Parallel()
	engine(t)
	home, project := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(project, ".arcturn", "hooks"), 0o755)
	os.WriteFile(filepath.Join(project, ".arcturn", "hooks", "guard-bash.sh"), []byte(`#!/usr/bin/env bash
# .arcturn/hooks/guard-bash.sh — deny any bash call whose command contains "rm -rf"
payload="$(cat)"
command=$(printf '%s' "$payload" | node -e '
  let d = "";
  process.stdin.on("data", c => d += c);
  process.stdin.on("end", () => {
    const p = JSON.parse(d);
    process.stdout.write(String(p.input?.command ?? ""));
  });
')
 
if [[ "$command" == *"rm -rf"* ]]; then
  echo "refusing to run a recursive rm" >&2
  exit 2
fi
exit 0
`), 0o755)
	os.WriteFile(filepath.Join(project, ".arcturn", "config.json"), []byte(`{"hooks": {"preToolUse": [
  { "command": "./.arcturn/hooks/guard-bash.sh", "matcher": "bash" },
  { "command": "p=$(cat); [[ $p == *forbidden* ]] && { echo 'bash one-liner: no' >&2; exit 2; }; exit 0" }
]}}`), 0o644)
	payload := func(cmd string) []byte {
		return []byte(`{"event":"preToolUse","toolName":"bash","input":{"command":"` + cmd + `"},"cwd":"` + project + `"}`)
	}
	args := []string{"arcturn", "hooks", "run", "--home", home, "--project", project, "--state-dir", t.TempDir()}
	env := []string{"SHELL=/bin/bash"}
	for _, c := range []struct {
		cmd, stdout string
		code        int
	}{
		{"rm -rf build", `{"decision":"deny","reason":"refusing to run a recursive rm"}`, 2},
		{"cat forbidden.txt", `{"decision":"deny","reason":"bash one-liner: no"}`, 2},
		{"ls -la", `{"decision":"allow"}`, 0},
	} {
		r := hookExec(t, payload(c.cmd), env, args...)
		if r.code != c.code || strings.TrimSpace(r.stdout) != c.stdout {
			t.Errorf("%q: exit %d stdout %q stderr %q, want %d %s", c.cmd, r.code, r.stdout, r.stderr, c.code, c.stdout)
		}
	}
}

// TestSeedArcturnCircuitAcrossCalls (R1). Seed 000: "After three
// consecutive failures, the per-session circuit opens." Each `arcturn
// hooks run` is a process of its own: the circuit is kept in the state
// directory, so the fourth call does not run the hook that failed three
// times in a row, and says why (Arcturn lets a failed hook through).
func TestSeedArcturnCircuitAcrossCalls(t *testing.T) {
	t.Parallel()
	engine(t)
	home, project, state := t.TempDir(), t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(project, ".arcturn"), 0o755)
	os.WriteFile(filepath.Join(project, ".arcturn", "config.json"), []byte(`{"hooks": {"postToolUse": [{ "command": "echo ran >> .arcturn/ran.log; exit 3" }]}}`), 0o644)
	payload := []byte(`{"event":"postToolUse","toolName":"bash","input":{"command":"ls"},"resultText":"README.md","isError":false,"cwd":"` + project + `","sessionId":"s-1"}`)
	args := []string{"arcturn", "hooks", "run", "--home", home, "--project", project, "--state-dir", state}
	for i := 1; i <= 4; i++ {
		r := hookExec(t, payload, nil, args...)
		r.wantCode(t, 0)
		if open := strings.Contains(r.stderr, "its circuit is open"); open != (i == 4) {
			t.Fatalf("call %d: stderr %q; want the circuit open at the fourth call only", i, r.stderr)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(project, ".arcturn", "ran.log")); string(b) != "ran\nran\nran\n" {
		t.Errorf("ran.log %q: want three runs, none once the circuit opened", b)
	}
}
