package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hookexec/hook-exec/serve/hostcall"
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
		{"no --dialect, an event that cannot be read", "{\"hook_event_name\":\"PreToolUse\",\"tool_input\":{\"c\":\"\\udc00\"}", []string{"run", "--scrpit", script}, exitDeny, ""},
		{"no --dialect, no event", ``, []string{"run", "--scrpit", script}, exitUsage, ""},
		{"holaryn named keeps its usage status", claudePre, []string{"run", "--dialect", "holaryn", "--timout", "5s", "--script", script}, exitUsage, ""},
		{"arcturn: a misspelt flag", arcturnPre, []string{"run", "--dialect", "arcturn", "--timout", "5s", "--script", script}, exitDeny, ""},
		{"arcturn payload without --dialect", arcturnPre, []string{"run", "--timout", "5s", "--script", script}, exitDeny, ""},
		// Found by FuzzHostCommandNeverFailsOpen: a flag taken for the
		// value of the one before it, a matcher that matched no tool.
		{"arcturn: a flag where a value goes", arcturnPre, []string{"run", "--dialect", "arcturn", "--script", script, "--matcher", "--trace"}, exitDeny, ""},
		{"bernstein: -- where a value goes", `{"event":"preToolUse","data":{}}`, []string{"run", "--dialect", "bernstein", "--script", script, "--trace", "--", "-h"}, exitDeny, ""},
		{"two dialects, the host's first", arcturnPre, []string{"run", "--dialect", "arcturn", "--script", script, "--dialect", "bernstein"}, exitDeny, ""},
		{"claude: a flag where a value goes", claudePre, []string{"run", "--dialect", "claude", "--matcher", "-h", "--script", script}, exitOK, `"permissionDecision":"deny"`},
		{"arcturn hooks run", arcturnPre, []string{"arcturn", "hooks", "run", "--bogus"}, exitDeny, ""},
		{"bernstein: a misspelt flag", `{"event":"preToolUse","data":{}}`, []string{"run", "--dialect", "bernstein", "--timout", "5s", "--script", script}, exitDeny, ""},
		{"bernstein hooks run", ``, []string{"bernstein", "hooks", "run", "preToolUse", "--bogus"}, exitDeny, ""},
		{"dispatch at a blocking point", `{}`, []string{"dispatch", "tool.before", "--bogus"}, exitDeny, `"action":"deny"`},
		{"dispatch at session.end keeps its usage status", `{}`, []string{"dispatch", "session.end", "--bogus"}, exitUsage, ""},
		// Second reader: a flag before the point, a reason JSON must escape,
		// help with a host's event and no --dialect.
		{"dispatch, a flag before session.end", `{}`, []string{"dispatch", "--bogus", "session.end"}, exitUsage, ""},
		{"dispatch, a reason with control bytes", `{}`, []string{"dispatch", "tool.before", "--bogus\a\xff"}, exitDeny, `"action":"deny"`},
		{"help with a Claude event, no --dialect", claudePre, []string{"run", "--help", "--script", script}, exitOK, `"permissionDecision":"deny"`},
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

// fuzzVocabulary is what a person's command line is made of: flags the
// command has and near misses, good values and bad ones. It leaves out the
// loosenings whose allow is what was asked for (--failure-policy continue
// or warn, --mode observational, a matcher that does not match).
var fuzzVocabulary = []string{
	"--script", "--timeout", "5s", "1ns", "--timout", "--memory", "lots", "256MiB", "--pids", "0", "--cpus", "x",
	"--backend", "local", "docker", "containerd", "podman", "--image", "img:1", "--failure-policy", "deny", "bogus",
	"--env", "A=1", "GITHUB_TOKEN=x", "--help", "-h", "--", "extra", "--dialect", "claude", "cluade", "arcturn",
	"bernstein", "holaryn", "--sha256", "0000", "--scope", "plugin", "project", "owner", "--matcher", "Bash", "*",
	"--event", "/nonexistent/event.json", "--workspace", "/nonexistent", "--trace", "-", "--hook-id", "x",
	"--mode", "blocking", "--max-output-bytes", "-1", "--arg", "--mount", "/a:/b:rw", "--state-dir",
}

// FuzzHostCommandNeverFailsOpen feeds random command lines to `run` under
// each host's dialect, with a guard that always refuses and engines that
// cannot be reached: whatever the command line, the host never reads the
// answer as an allow.
func FuzzHostCommandNeverFailsOpen(f *testing.F) {
	dir := f.TempDir()
	f.Chdir(dir) // --trace FILE and --state-dir DIR are relative to it
	guard := filepath.Join(dir, "guard.sh")
	if err := os.WriteFile(guard, []byte("#!/bin/sh\ncat >/dev/null\necho 'no, never' >&2\nexit 2\n"), 0o755); err != nil {
		f.Fatal(err)
	}
	// Fuzz targets run after every test of the package: the environment
	// they set is theirs alone, and put back.
	for k, v := range map[string]string{
		"HOOKEXEC_STATE_DIR": filepath.Join(dir, "state"), "HOOKEXEC_REAPER": "0", "HOOKEXEC_BACKEND": "",
		"DOCKER_HOST":                 "unix://" + filepath.Join(dir, "no-docker.sock"),
		"HOOKEXEC_CONTAINERD_ADDRESS": filepath.Join(dir, "no-containerd.sock"), "KUBECONFIG": filepath.Join(dir, "no-kubeconfig"),
	} {
		old, had := os.LookupEnv(k)
		os.Setenv(k, v)
		f.Cleanup(func() {
			if had {
				os.Setenv(k, old)
			} else {
				os.Unsetenv(k)
			}
		})
	}
	payloads := map[string]string{
		"claude": claudePre, "arcturn": arcturnPre, "holaryn": `{"schema_version":1,"point":"tool.before","data":{"tool_name":"shell","args":{"command":"rm -rf /"}}}`,
		"bernstein": `{"event":"preToolUse","data":{"session_id":"s","tool":"shell","args":{"command":"rm -rf /"}}}`,
	}
	dialects := []string{"claude", "arcturn", "bernstein", "holaryn"}
	f.Add(uint8(0), []byte{})
	f.Add(uint8(0), []byte{4, 5})         // --timout 5s
	f.Add(uint8(1), []byte{6, 7, 10, 11}) // --memory lots --backend local
	f.Add(uint8(2), []byte{23, 24})       // --env GITHUB_TOKEN=x
	f.Add(uint8(0), []byte{26})           // --help
	f.Add(uint8(3), []byte{10, 11})       // --backend local
	f.Fuzz(func(t *testing.T, which uint8, picks []byte) {
		if len(picks) > 12 {
			return
		}
		d := dialects[int(which)%len(dialects)]
		args := []string{"run", "--dialect", d, "--script", guard}
		for _, p := range picks {
			tok := fuzzVocabulary[int(p)%len(fuzzVocabulary)]
			if tok == "--script" {
				tok = guard
			}
			args = append(args, tok)
		}
		var out, errb bytes.Buffer
		code := execute(context.Background(), args, stdio{strings.NewReader(payloads[d]), &out, &errb})
		if allowed(d, code, out.Bytes()) && !loosened(d, args) {
			t.Fatalf("%q under %s: exit %d and an allow\nstdout %q\nstderr %q", args, d, code, out.String(), errb.String())
		}
	})
}

// loosened reports whether args ask for an allow where a run fails or
// does not apply: the named loosenings, or a matcher that does not select
// the payload's tool (Bash for Claude Code, bash for Arcturn), given by a
// flag the parser takes.
func loosened(dialect string, args []string) bool {
	tool := map[string]string{"claude": "Bash", "arcturn": "bash"}[dialect]
	for i, a := range args[:len(args)-1] {
		if (a == "--failure-policy" && (args[i+1] == "continue" || args[i+1] == "warn")) ||
			(a == "--mode" && args[i+1] == "observational") ||
			(a == "--matcher" && tool != "" && args[i+1] != "*" && args[i+1] != tool) {
			return true
		}
	}
	return false
}

// allowed reports whether a host would read this end of its hook command
// as letting the action through.
func allowed(dialect string, code int, stdout []byte) bool {
	var ans map[string]any
	last := stdout
	if lines := bytes.Split(bytes.TrimSpace(stdout), []byte("\n")); len(lines) > 0 {
		last = lines[len(lines)-1]
	}
	parsed := json.Unmarshal(last, &ans) == nil
	switch dialect {
	case "claude":
		if code == 2 {
			return false
		}
		if code != 0 || !parsed {
			return true // a non-blocking error, or plain text
		}
		s := string(stdout)
		return !(strings.Contains(s, `"permissionDecision":"deny"`) || strings.Contains(s, `"permissionDecision":"ask"`) ||
			strings.Contains(s, `"decision":"block"`) || strings.Contains(s, `"behavior":"deny"`) || strings.Contains(s, `"continue":false`))
	case "arcturn":
		return code != 2
	case "bernstein":
		// Bernstein reads 2 as a blocking error and any other non-zero
		// status as a hook failure it raises (HookFailure): the pipeline
		// stops. Only exit 0 without a deny lets it go on.
		return code == 0 && !(parsed && ans["decision"] == "deny")
	}
	// holaryn: exit 0 with a decision that is not a deny.
	return code == 0 && parsed && ans["action"] != "deny"
}

// Second reader: a plugin directory without its manifest in the state
// directory made every dispatch exit 1 with nothing on stdout, which a
// host reads as "go on". Plugins that cannot be read refuse the boundary.
func TestDispatchWithUnreadablePluginsRefuses(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	if err := os.MkdirAll(filepath.Join(state, "plugins", "junk"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := hookExec(t, `{"schema_version":1,"point":"tool.before","session_id":"s","depth":0,"data":{}}`,
		"dispatch", "tool.before", "--state-dir", state, "--backend", "local")
	if r.code != exitDeny || !strings.Contains(r.stdout, `"action":"deny"`) {
		t.Errorf("exit %d stdout %q stderr %q, want a deny with exit 2", r.code, r.stdout, r.stderr)
	}
}

// The commands a host runs per event are the ones the front hands to the
// server (hostcall.Commands), and no others.
func TestHostCommandsAreTheFronts(t *testing.T) {
	var got []string
	for path := range hostCommands {
		got = append(got, strings.TrimPrefix(path, "hook-exec "))
	}
	if !sameSet(got, hostcall.Commands) {
		t.Errorf("host commands %q, the front's %q", got, hostcall.Commands)
	}
	root := newRoot(stdio{})
	for _, c := range hostcall.Commands {
		if cmd, _, err := root.Find(strings.Fields(c)); err != nil || cmd.CommandPath() != "hook-exec "+c {
			t.Errorf("%q is no command of the core: %v", c, err)
		}
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
