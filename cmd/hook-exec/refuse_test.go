package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

const (
	claudePre  = `{"session_id":"s","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`
	claudeStop = `{"session_id":"s","cwd":"/tmp","hook_event_name":"Stop","stop_hook_active":false}`
	claudePerm = `{"session_id":"s","cwd":"/tmp","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`
	arcturnPre = `{"event":"preToolUse","toolName":"bash","input":{"command":"rm -rf /"},"cwd":"/tmp"}`
)

// A command a host runs per event that cannot run answers as a refusal in
// the host's words: never an exit status the host reads as "go on".
func TestHostCommandsRefuseWhenTheyCannotRun(t *testing.T) {
	t.Parallel()
	script := filepath.Join(t.TempDir(), "guard.sh")
	tests := []struct {
		name  string
		stdin string
		args  []string
		code  int
		// stdout holds this (a JSON answer); "" wants no answer on stdout.
		stdout string
	}{
		{"claude: a misspelt flag", claudePre, []string{"run", "--dialect", "claude", "--timout", "5s", "--script", script}, exitOK,
			`"permissionDecision":"deny"`},
		{"claude: a bad --memory", claudePre, []string{"run", "--dialect=claude", "--memory", "lots", "--script", script}, exitOK,
			`"permissionDecision":"deny"`},
		{"claude: one-dash flags", claudePre, []string{"run", "-dialect", "claude", "-timout", "5s", "-script", script}, exitOK,
			`"permissionDecision":"deny"`},
		{"claude: a secret-like --env", claudePre, []string{"run", "--dialect", "claude", "--env", "GITHUB_TOKEN=x", "--script", script}, exitOK,
			`"permissionDecision":"deny"`},
		{"claude: no --script", claudePre, []string{"run", "--dialect", "claude"}, exitOK, `"permissionDecision":"deny"`},
		{"claude: --help is no answer", claudePre, []string{"run", "--dialect", "claude", "--help", "--script", script}, exitOK,
			`"permissionDecision":"deny"`},
		{"claude: PermissionRequest", claudePerm, []string{"run", "--dialect", "claude", "--timout", "5s", "--script", script}, exitOK,
			`"behavior":"deny"`},
		{"claude: Stop is never held", claudeStop, []string{"run", "--dialect", "claude", "--timout", "5s", "--script", script}, exitOK,
			`"systemMessage":"hook-exec: the Stop hook failed (invalid_invocation`},
		{"claude: an unreadable event blocks by exit 2", `{`, []string{"run", "--dialect", "claude", "--timout", "5s", "--script", script}, exitDeny, ""},
		{"claude payload without --dialect", claudePre, []string{"run", "--timout", "5s", "--script", script}, exitOK,
			`"permissionDecision":"deny"`},
		{"an unknown --dialect", claudePre, []string{"run", "--dialect", "cluade", "--script", script}, exitOK, `"permissionDecision":"deny"`},
		{"an unknown --dialect, an unknown payload", `{}`, []string{"run", "--dialect", "cluade", "--script", script}, exitDeny, ""},
		{"holaryn named keeps its usage status", claudePre, []string{"run", "--dialect", "holaryn", "--timout", "5s", "--script", script}, exitUsage, ""},
		{"arcturn: a misspelt flag", arcturnPre, []string{"run", "--dialect", "arcturn", "--timout", "5s", "--script", script}, exitDeny, ""},
		{"arcturn payload without --dialect", arcturnPre, []string{"run", "--timout", "5s", "--script", script}, exitDeny, ""},
		{"arcturn hooks run", arcturnPre, []string{"arcturn", "hooks", "run", "--bogus"}, exitDeny, ""},
		{"bernstein: a misspelt flag", `{"event":"preToolUse","data":{}}`, []string{"run", "--dialect", "bernstein", "--timout", "5s", "--script", script}, exitOK,
			`{"decision":"deny"`},
		{"bernstein hooks run", ``, []string{"bernstein", "hooks", "run", "preToolUse", "--bogus"}, exitDeny, ""},
		{"dispatch at a blocking point", `{}`, []string{"dispatch", "tool.before", "--bogus"}, exitDeny, `"action":"deny"`},
		{"dispatch at session.end keeps its usage status", `{}`, []string{"dispatch", "session.end", "--bogus"}, exitUsage, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := hookExec(t, tc.stdin, tc.args...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d; stdout %q stderr %q", r.code, tc.code, r.stdout, r.stderr)
			}
			if tc.stdout == "" {
				if r.stdout != "" {
					t.Errorf("stdout %q, want nothing", r.stdout)
				}
				return
			}
			if !json.Valid([]byte(r.stdout)) || !strings.Contains(r.stdout, tc.stdout) {
				t.Errorf("stdout %q, want one JSON answer holding %s", r.stdout, tc.stdout)
			}
			if !strings.Contains(r.stderr, "hook-exec") {
				t.Errorf("stderr %q says nothing of why", r.stderr)
			}
		})
	}
}
