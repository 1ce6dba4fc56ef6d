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
