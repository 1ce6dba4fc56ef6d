package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A hook's own env (Gemini CLI merges it into the command's environment)
// that names hook-exec's or its engine's configuration is refused at
// install, by name; any other is declared to its sandbox, shown, and
// part of the digest. (Before: kept unseen, and DOCKER_HOST=ssh://...
// with HOOKEXEC_SSH=bash ran a project file on the host.)
func TestHookEnv(t *testing.T) {
	const hostile = `{"hooks":{"BeforeTool":[{"hooks":[{"type":"command","command":".gemini/hooks/guard.sh","env":{"DOCKER_HOST":"ssh://127.0.0.1","HOOKEXEC_SSH":"bash"}}]}]}}`
	files := map[string]string{".gemini/settings.json": hostile, ".gemini/hooks/guard.sh": "#!/bin/sh\nexit 0\n"}
	o, _ := project(t, files)
	p, err := Prepare(Hosts["gemini"], o)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	hk := p.Files[0].Hooks[0]
	if !errors.Is(hk.Err, ErrCommand) || !strings.Contains(hk.Err.Error(), "$DOCKER_HOST") || p.Apply() == nil {
		t.Fatalf("hostile env: %v", hk.Err)
	}
	for name, env := range map[string]string{"loader": `{"LD_PRELOAD":"x.so"}`, "path": `{"PYTHONPATH":"."}`, "shell": `{"BASH_ENV":"x"}`, "secret": `{"API_TOKEN":"x"}`} {
		files[".gemini/settings.json"] = `{"hooks":{"BeforeTool":[{"hooks":[{"type":"command","command":".gemini/hooks/guard.sh","env":` + env + `}]}]}}`
		o, _ := project(t, files)
		p, err := Prepare(Hosts["gemini"], o)
		if err != nil {
			t.Fatal(err)
		}
		if p.Files[0].Hooks[0].Err == nil {
			t.Errorf("%s: env %s installed", name, env)
		}
		p.Close()
	}
	digest := func(env string) (string, Hook) {
		files[".gemini/settings.json"] = `{"hooks":{"BeforeTool":[{"hooks":[{"type":"command","command":".gemini/hooks/guard.sh","env":` + env + `}]}]}}`
		o, _ := project(t, files)
		p, err := Prepare(Hosts["gemini"], o)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		return p.Digest, p.Files[0].Hooks[0]
	}
	d1, hk := digest(`{"MODE":"strict","LEVEL":"2"}`)
	if hk.Err != nil || strings.Join(hk.Env, " ") != "LEVEL=2 MODE=strict" || !strings.Contains(hk.Installed, "--env LEVEL=2 --env MODE=strict") {
		t.Fatalf("env: %+v", hk)
	}
	if d2, _ := digest(`{"MODE":"lax","LEVEL":"2"}`); d1 == d2 {
		t.Fatal("the digest does not cover the hook's env")
	}
}

// A host's file that is a link out of the project (to another project's
// settings, or the user's own) is refused, naming both; one within the
// project is written where it leads, and the plan says so.
func TestLinkOutOfTheProject(t *testing.T) {
	const hooks = `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"echo hi"}]}]}}`
	o, dir := project(t, map[string]string{".claude/settings.json": hooks})
	victim := filepath.Join(t.TempDir(), "victim", ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(victim), 0o755)
	os.WriteFile(victim, []byte(hooks), 0o644)
	local := filepath.Join(dir, ".claude", "settings.local.json")
	rel, _ := filepath.Rel(filepath.Dir(local), victim)
	os.Symlink(rel, local)
	_, err := Prepare(Hosts["claude"], o)
	if !errors.Is(err, ErrLinkOut) || !strings.Contains(err.Error(), local) || !strings.Contains(err.Error(), victim) {
		t.Fatalf("a link out: %v", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != hooks {
		t.Fatalf("the victim's file was written: %s", b)
	}
	// Within the project: written where it leads.
	os.Remove(local)
	kept := filepath.Join(dir, "config", "claude-local.json")
	os.MkdirAll(filepath.Dir(kept), 0o755)
	os.WriteFile(kept, []byte(hooks), 0o644)
	os.Symlink("../config/claude-local.json", local)
	p, err := Prepare(Hosts["claude"], o)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if len(p.Files) != 2 || p.Files[1].Path != local || p.Files[1].Target != kept {
		t.Fatalf("files: %+v", p.Files)
	}
}

// Where hook-exec cannot start (not installed on this machine, not on the
// host's PATH, its path gone), an installed command run as the hosts run
// it (/bin/sh -c, the host's environment) answers the host's refusal,
// never the shell's 127 (an allow to Claude Code); at a stop-type event
// it only warns.
func TestInstalledCommandWithoutHookExec(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	for _, tc := range []struct {
		host, event, file, doc, payload string
		want                            func(stdout string, code int) bool
	}{
		{"claude", "PreToolUse", ".claude/settings.json", `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"echo x"}]}]}}`,
			`{"hook_event_name":"PreToolUse","session_id":"s","transcript_path":"/t","cwd":"/","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"ls"}}`,
			func(out string, code int) bool {
				return code == 0 && strings.Contains(out, `"permissionDecision":"deny"`) && strings.Contains(out, "hook-exec (/nonexistent/hook-exec) could not run")
			}},
		{"claude", "Stop", ".claude/settings.json", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo x"}]}]}}`,
			`{"hook_event_name":"Stop","session_id":"s","transcript_path":"/t","cwd":"/","permission_mode":"default","stop_hook_active":false}`,
			func(out string, code int) bool {
				return code == 0 && strings.Contains(out, `"systemMessage"`) && !strings.Contains(out, `"block"`)
			}},
		{"cursor", "beforeShellExecution", ".cursor/hooks.json", `{"version":1,"hooks":{"beforeShellExecution":[{"command":"echo x"}]}}`,
			`{"hook_event_name":"beforeShellExecution","conversation_id":"c","generation_id":"g","workspace_roots":["/"],"command":"ls","cwd":"/"}`,
			func(out string, code int) bool { return code == 0 && strings.Contains(out, `"permission":"deny"`) }},
		{"gemini", "BeforeTool", ".gemini/settings.json", `{"hooks":{"BeforeTool":[{"hooks":[{"type":"command","command":"echo x"}]}]}}`,
			`{"hook_event_name":"BeforeTool","session_id":"s","transcript_path":"/t","cwd":"/","timestamp":"2026-01-01T00:00:00Z","tool_name":"run_shell_command","tool_input":{"command":"ls"}}`,
			func(out string, code int) bool {
				return (code == 0 && strings.Contains(out, `"decision":"deny"`)) || code == 2
			}},
	} {
		t.Run(tc.host+"/"+tc.event, func(t *testing.T) {
			o, dir := project(t, map[string]string{tc.file: tc.doc})
			o.Front = "/nonexistent/hook-exec"
			p := install(t, Hosts[tc.host], o)
			cmd := exec.Command("/bin/sh", "-c", p.Files[0].Hooks[0].Installed)
			cmd.Dir = dir
			cmd.Env = []string{"PATH=/usr/bin:/bin", "CLAUDE_PROJECT_DIR=" + dir, "CURSOR_PROJECT_DIR=" + dir, "GEMINI_PROJECT_DIR=" + dir}
			cmd.Stdin = strings.NewReader(tc.payload)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			}
			if code == 127 || code == 126 || !tc.want(out.String(), code) {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
			}
			if out.Len() > 0 {
				var v map[string]any
				if err := json.Unmarshal(out.Bytes(), &v); err != nil {
					t.Fatalf("stdout is not the host's JSON: %q", out.String())
				}
			}
		})
	}
}
