package e2e

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/launcher"
)

// installHost is one host's project as a person has it before install: a
// guard script and an inline command line, the payload its host sends.
type installHost struct {
	name, config, projectVar string
	// point is the event the configuration names, for a host whose payload
	// does not (Copilot's camelCase events); key the member a hook's
	// command is in ("command" when "").
	point, key string
	// env is what the host sets for a hook from its own "env" (Copilot's).
	env []string
	// doc is the configuration with the hooks' timeout (%d, in the host's
	// unit) left to fill, where the host reads one.
	doc  string
	unit int64 // milliseconds per unit of the host's timeout; 0: none

	guard   string
	payload func(dir, command string) []byte
}

// vars are the variables the host sets to the project directory dir in a
// hook's environment (and Claude Code's, which hooks of every host name).
func (h installHost) vars(dir string) []string {
	out := []string{"CLAUDE_PROJECT_DIR=" + dir}
	if h.projectVar != "" {
		out = append(out, h.projectVar+"="+dir)
	}
	return out
}

// gitInit makes dir a repository, as a project is. Without git on this
// machine the test cannot stand for a host that finds its project with
// git (Codex): it is skipped, saying so.
func gitInit(t testing.TB, dir string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the project is a repository, as Codex finds it with git")
	}
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
}

// document is h's configuration with its hooks' timeout of units.
func (h installHost) document(units int64) string {
	if h.unit == 0 {
		return h.doc
	}
	return fmt.Sprintf(h.doc, units, units)
}

var installHosts = []installHost{
	{
		name: "claude", config: ".claude/settings.json", projectVar: "CLAUDE_PROJECT_DIR", unit: 1000,
		doc: `{
  "permissions": { "allow": ["Bash(ls:*)"] },
  "hooks": {
    "PreToolUse": [
      { "matcher": "Bash",
        "hooks": [
          { "type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/guard.sh", "timeout": %d },
          { "type": "command", "command": "grep -q 'rm -rf' && { echo 'inline: no recursive rm' >&2; exit 2; } || exit 0", "timeout": %d }
        ] }
    ]
  }
}
`,
		guard: "#!/bin/sh\ncase $(cat) in *'rm -rf'*) echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"guard: no recursive rm\"}}';; *) exit 0;; esac\n",
		payload: func(dir, command string) []byte {
			return fmt.Appendf(nil, `{"session_id":"s1","transcript_path":"%s/t.jsonl","cwd":%q,"permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":%q},"tool_use_id":"t1"}`, dir, dir, command)
		},
	},
	{
		name: "cursor", config: ".cursor/hooks.json", projectVar: "CURSOR_PROJECT_DIR", unit: 1000,
		doc: `{
  "version": 1,
  "hooks": {
    "beforeShellExecution": [
      { "command": ".cursor/hooks/guard.sh", "timeout": %d },
      { "command": "grep -q 'rm -rf' && { echo 'inline: no recursive rm' >&2; exit 2; } || echo '{\"permission\":\"allow\"}'", "timeout": %d }
    ]
  }
}
`,
		guard: "#!/bin/sh\ncase $(cat) in *'rm -rf'*) echo '{\"permission\":\"deny\",\"user_message\":\"guard: no recursive rm\",\"agent_message\":\"guard: no recursive rm\"}';; *) echo '{\"permission\":\"allow\"}';; esac\n",
		payload: func(dir, command string) []byte {
			return fmt.Appendf(nil, `{"conversation_id":"c1","generation_id":"g1","model":"auto","hook_event_name":"beforeShellExecution","cursor_version":"2.1.0","workspace_roots":[%q],"user_email":null,"transcript_path":null,"command":%q,"cwd":%q,"sandbox":false}`, dir, command, dir)
		},
	},
	{
		// Codex sets no project variable: its reference finds the project
		// with git, so this project is a repository.
		name: "codex", config: ".codex/hooks.json", unit: 1000,
		doc: `{
  "hooks": {
    "PreToolUse": [
      { "matcher": "^Bash$",
        "hooks": [
          { "type": "command", "command": "\"$(git rev-parse --show-toplevel)/.codex/hooks/guard.sh\"", "timeout": %d, "statusMessage": "Checking Bash command" },
          { "type": "command", "command": "grep -q 'rm -rf' && { echo 'inline: no recursive rm' >&2; exit 2; } || exit 0", "timeout": %d }
        ] }
    ]
  }
}
`,
		guard: "#!/bin/sh\ncase $(cat) in *'rm -rf'*) echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"guard: no recursive rm\"}}';; *) exit 0;; esac\n",
		payload: func(dir, command string) []byte {
			return fmt.Appendf(nil, `{"session_id":"s1","turn_id":"1","transcript_path":null,"cwd":%q,"hook_event_name":"PreToolUse","model":"gpt-5-codex","permission_mode":"default","tool_name":"Bash","tool_use_id":"call_1","tool_input":{"command":%q}}`, dir, command)
		},
	},
	{
		// Cascade's hooks have no timeout and no matcher, and answer by
		// their exit status alone.
		name: "windsurf", config: ".windsurf/hooks.json",
		doc: `{
  "hooks": {
    "pre_run_command": [
      { "command": ".windsurf/hooks/guard.sh", "show_output": true },
      { "command": "grep -q 'rm -rf' && { echo 'inline: no recursive rm' >&2; exit 2; } || exit 0" }
    ]
  }
}
`,
		guard: "#!/bin/sh\ncase $(cat) in *'rm -rf'*) echo 'guard: no recursive rm' >&2; exit 2;; *) exit 0;; esac\n",
		payload: func(dir, command string) []byte {
			return fmt.Appendf(nil, `{"agent_action_name":"pre_run_command","trajectory_id":"t1","execution_id":"x1","timestamp":"2026-12-05T10:00:00Z","tool_info":{"command_line":%q,"cwd":%q}}`, command, dir)
		},
	},
	{
		// Copilot's camelCase payload names no event (the installed
		// command does), and a hook's Unix command is its "bash".
		name: "copilot", config: ".github/hooks/guard.json", point: "preToolUse", key: "bash", unit: 1000, env: []string{"GUARD_MODE=block"},
		doc: `{
  "version": 1,
  "hooks": {
    "preToolUse": [
      { "type": "command", "bash": ".github/hooks/hooks/guard.sh", "powershell": ".github/hooks/hooks/guard.ps1", "cwd": ".", "env": { "GUARD_MODE": "block" }, "timeoutSec": %d },
      { "type": "command", "matcher": "bash", "bash": "grep -q 'rm -rf' && { echo 'inline: no recursive rm' >&2; exit 2; } || exit 0", "timeoutSec": %d }
    ]
  }
}
`,
		guard: "#!/bin/sh\n[ \"$GUARD_MODE\" = block ] || exit 1\ncase $(cat) in *'rm -rf'*) echo '{\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"guard: no recursive rm\"}';; *) exit 0;; esac\n",
		payload: func(dir, command string) []byte {
			args, _ := json.Marshal(map[string]string{"command": command})
			return fmt.Appendf(nil, `{"sessionId":"s1","timestamp":1704614600000,"cwd":%q,"toolName":"bash","toolArgs":%q}`, dir, args)
		},
	},
	{
		name: "gemini", config: ".gemini/settings.json", projectVar: "GEMINI_PROJECT_DIR", unit: 1,
		doc: `{
  // the project's hooks
  "hooks": {
    "BeforeTool": [
      { "matcher": "run_shell_command", /* the shell tool */
        "hooks": [
          { "type": "command", "name": "guard", "command": "$GEMINI_PROJECT_DIR/.gemini/hooks/guard.sh", "timeout": %d },
          { "type": "command", "name": "inline", "command": "grep -q 'rm -rf' && { echo 'inline: no recursive rm' >&2; exit 2; } || exit 0", "timeout": %d }
        ] }
    ]
  }
}
`,
		guard: "#!/bin/sh\ncase $(cat) in *'rm -rf'*) echo '{\"decision\":\"deny\",\"reason\":\"guard: no recursive rm\"}';; *) exit 0;; esac\n",
		payload: func(dir, command string) []byte {
			return fmt.Appendf(nil, `{"session_id":"s1","transcript_path":"","cwd":%q,"hook_event_name":"BeforeTool","timestamp":"2026-12-05T10:00:00Z","tool_name":"run_shell_command","tool_input":{"command":%q}}`, dir, command)
		},
	},
}

// TestInstallHosts: `hook-exec install HOST --yes` on a project with a
// guard script and an inline command, then each hook called as its host
// calls it (its command line under a shell, the host's payload on stdin):
// the same decision as the original hook run on the host, now in a
// sandbox; the drift of a changed guard refused; uninstall restores the
// file byte for byte. On both engines.
func TestInstallHosts(t *testing.T) {
	t.Parallel()
	engine(t)
	for _, backend := range []string{"docker", "containerd"} {
		for _, h := range installHosts {
			t.Run(backend+"/"+h.name, func(t *testing.T) {
				t.Parallel()
				timeout := hookTimeout(t, engineFor(t, backend)) + 2e9 // install keeps 2 s below the host's
				units := timeout.Milliseconds() / max(h.unit, 1)
				dir := t.TempDir()
				gitInit(t, dir)
				config := filepath.Join(dir, h.config)
				guard := filepath.Join(filepath.Dir(config), "hooks", "guard.sh")
				os.MkdirAll(filepath.Dir(guard), 0o755)
				if err := os.WriteFile(guard, []byte(h.guard), 0o755); err != nil {
					t.Fatal(err)
				}
				original := h.document(units)
				os.WriteFile(config, []byte(original), 0o644)
				// A home of the test's own: install adds its SessionStart hook
				// to the user's settings there.
				home := t.TempDir()
				// And a state directory: install pins the engine (this test's
				// backend) there, which the installed commands then run on.
				env := append(append(h.vars(dir), h.env...), "HOOKEXEC_BACKEND="+backend, "HOME="+home, "HOOKEXEC_STATE_DIR="+t.TempDir())

				before := hookCommands(t, h, config)
				r := hookExec(t, nil, env, "install", h.name, "--project", dir, "--yes")
				r.wantCode(t, 0)
				wantIn(t, "install's stdout", r.stdout, "installed 2 hooks of "+h.name)
				after := hookCommands(t, h, config)
				if len(after) != 2 || after[0] == before[0] || after[1] == before[1] {
					t.Fatalf("commands after install: %q", after)
				}
				for _, command := range []string{"rm -rf build", "ls -la"} {
					payload := h.payload(dir, command)
					e := mustEnvelope(t, h, payload)
					for i := range before {
						host := hostRun(t, dir, env, before[i], payload)
						want, err := hook.Interpret(e, host.code, []byte(host.stdout), []byte(host.stderr))
						if err != nil {
							t.Fatalf("%s on the host: %v", before[i], err)
						}
						sandboxed := hostRun(t, dir, env, after[i], payload)
						// The exit status the host's answer has: 0 with the
						// answer on stdout, or Cascade's 2 for a refusal.
						if a, _ := e.Dialect.Host().Answer(e.Point, *want, nil); sandboxed.code != a.Exit {
							t.Fatalf("%s: exit %d, want %d; stderr %q", after[i], sandboxed.code, a.Exit, sandboxed.stderr)
						}
						got, err := hook.Interpret(e, sandboxed.code, []byte(sandboxed.stdout), []byte(sandboxed.stderr))
						if err != nil {
							t.Fatalf("the answer %q: %v", sandboxed.stdout, err)
						}
						if got.Action != want.Action || got.Reason != want.Reason {
							t.Errorf("hook %d on %q: sandboxed %s %q, on the host %s %q (answer %s)", i, command, got.Action, got.Reason, want.Action, want.Reason, sandboxed.stdout)
						}
					}
				}
				hostileEnvironment(t, h, dir, after[0])
				// Install's own SessionStart hook (Claude's) says nothing while
				// every hook runs sandboxed.
				var check func(string) string
				if h.name == "claude" {
					check = sessionStartCheck(t, dir, env, filepath.Join(home, ".claude/settings.json"), home)
					if m := check("after install"); m != "" {
						t.Errorf("after install: message %q, want none", m)
					}
				}
				if h.name == "copilot" {
					if m := copilotSessionStart(t, dir, env, home); m != "" {
						t.Errorf("copilot's session start after install: %q, want nothing", m)
					}
				}
				// A guard changed after approval is refused, saying how to approve it.
				os.WriteFile(guard, []byte(h.guard+"# changed\n"), 0o755)
				changed := hostRun(t, dir, env, after[0], h.payload(dir, "ls -la"))
				d, err := hook.Interpret(mustEnvelope(t, h, h.payload(dir, "ls -la")), changed.code, []byte(changed.stdout), []byte(changed.stderr))
				if err != nil || d.Action != hook.Deny || !strings.Contains(d.Reason, "hook-exec install "+h.name) {
					t.Errorf("a changed guard: %+v %v (stdout %q)", d, err, changed.stdout)
				}
				r = hookExec(t, nil, env, "install", h.name, "--project", dir, "--check")
				r.wantCode(t, 1)
				wantIn(t, "check's stdout", r.stdout, guard+" changed since approval")
				if h.name == "copilot" {
					// install's own sessionStart hook warns of it, as Copilot
					// shows a hook's warning: exit 2, the message on stderr.
					if m := copilotSessionStart(t, dir, env, home); !strings.Contains(m, "1 hook or file changed since approval") {
						t.Errorf("copilot's session start after the guard changed: %q", m)
					}
				}
				if h.name == "claude" {
					if m := check("the guard changed"); !strings.Contains(m, "1 hook or file changed since approval") || !strings.Contains(m, "--check names each") {
						t.Errorf("the guard changed: message %q", m)
					}
					installUserPlugin(t, home)
					if m := check("a plugin installed since"); !strings.Contains(m, "plugin fmt@m (version 1.0.0), installed for you, is not installed through hook-exec: its hooks run outside the sandbox: hook-exec install claude --user") {
						t.Errorf("a plugin installed since: message %q", m)
					}
					// A session in a directory of the project that has hooks of
					// its own (Claude reads its working directory's): named.
					sub := filepath.Join(dir, "pkg", "app")
					os.MkdirAll(filepath.Join(sub, ".claude"), 0o755)
					os.WriteFile(filepath.Join(sub, ".claude/settings.json"), []byte(`{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"curl x | sh"}]}]}}`), 0o644)
					if m := sessionStartCheck(t, sub, env, filepath.Join(home, ".claude/settings.json"), home)("a subdirectory's hooks"); !strings.Contains(m, `"curl x | sh" is not installed through hook-exec`) {
						t.Errorf("a subdirectory's hooks: message %q", m)
					}
					os.RemoveAll(filepath.Join(dir, "pkg"))
					// A pull replaces the project's file with its raw hooks:
					// the check, in the user's settings, still speaks.
					os.WriteFile(config, []byte(original), 0o644)
					if m := check("the project's file replaced"); !strings.Contains(m, "guard.sh\" is not installed through hook-exec: it runs outside the sandbox") {
						t.Errorf("the project's file replaced: message %q", m)
					}
				}

				r = hookExec(t, nil, env, "uninstall", h.name, "--project", dir)
				r.wantCode(t, 0)
				if got, _ := os.ReadFile(config); string(got) != original {
					t.Fatalf("uninstall did not restore %s byte for byte:\n%s", config, got)
				}
			})
		}
	}
}

// hostileEnvironment runs an installed command as its host would with a
// project's environment (Claude Code's settings "env", a Gemini hook's
// "env", a project's .env) set to steer hook-exec: an ssh engine whose
// "ssh" is bash, which would run the project's file named 127.0.0.1 on
// the host; another backend, state directory, server and kubeconfig.
// Through /bin/sh -c, as the hosts run a command. The installed command is
// sealed: the hook's answer is the one it gave without them, and nothing
// of the project's ran. (A project's env that sets PATH, which chooses the
// hook-exec a committed command runs, is refused at install: unit tests.)
func hostileEnvironment(t *testing.T, h installHost, dir, command string) {
	t.Helper()
	marker := filepath.Join(t.TempDir(), "ran-on-the-host")
	evil := "#!/bin/sh\ntouch " + marker + "\n"
	os.WriteFile(filepath.Join(dir, "127.0.0.1"), []byte(evil), 0o755)
	defer os.Remove(filepath.Join(dir, "127.0.0.1"))
	steer := []string{"DOCKER_HOST=ssh://127.0.0.1", "HOOKEXEC_SSH=bash", "HOOKEXEC_BACKEND=kubernetes", "KUBECONFIG=" + dir + "/kc",
		"HOOKEXEC_STATE_DIR=" + dir + "/state", "HOOKEXEC_SERVER=" + dir + "/sock",
		"XDG_STATE_HOME=" + dir, "XDG_RUNTIME_DIR=" + dir, "TMPDIR=" + dir, "HOOKEXEC_RUNTIME=runsc"}
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Dir = dir
	cmd.Env = append(append(append(os.Environ(), h.vars(dir)...), "PATH="+hostPath(t)), steer...)
	cmd.Stdin = bytes.NewReader(h.payload(dir, "rm -rf build"))
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	code := 0
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != hook.ExitBlock {
			t.Fatalf("steered: %v, stderr %q", err, se.String())
		}
		code = ee.ExitCode() // a host that reads a refusal from the exit status
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the project's file ran on the host: the environment steered hook-exec")
	}
	d, err := hook.Interpret(mustEnvelope(t, h, h.payload(dir, "rm -rf build")), code, so.Bytes(), se.Bytes())
	if err != nil || d.Action != hook.Deny || !strings.Contains(d.Reason, "guard: no recursive rm") {
		t.Errorf("steered: %+v %v, want the guard's deny (stdout %q, stderr %q)", d, err, so.String(), se.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "state")); err == nil {
		t.Error("the project's state directory was used")
	}
}

// sessionStartCheck is install's own SessionStart hook, run as Claude
// Code runs it (with a home of its own): its systemMessage, checked to be
// Claude's JSON on exit 0. The hook is in the user's settings (config).
func sessionStartCheck(t *testing.T, dir string, env []string, config, home string) func(what string) string {
	t.Helper()
	var doc struct {
		Hooks struct {
			SessionStart []struct {
				Hooks []struct{ Command string }
			}
		}
	}
	b, _ := os.ReadFile(config)
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Hooks.SessionStart) != 1 || len(doc.Hooks.SessionStart[0].Hooks) != 1 {
		t.Fatalf("install's own SessionStart hook: %v\n%s", err, b)
	}
	check := doc.Hooks.SessionStart[0].Hooks[0].Command
	env = append(slices.Clone(env), "HOME="+home)
	payload := []byte(`{"hook_event_name":"SessionStart","session_id":"s","transcript_path":"/dev/null","cwd":"` + dir + `","source":"startup"}`)
	return func(what string) string {
		t.Helper()
		r := hostRun(t, dir, env, check, payload)
		if r.code != 0 {
			t.Fatalf("%s: exit %d, stderr %q", what, r.code, r.stderr)
		}
		var out struct{ SystemMessage string }
		if r.stdout != "" && json.Unmarshal([]byte(r.stdout), &out) != nil {
			t.Fatalf("%s: stdout %q is not Claude's JSON", what, r.stdout)
		}
		return out.SystemMessage
	}
}

// copilotSessionStart runs install's own sessionStart hook as Copilot
// runs it (its file in ~/.copilot/hooks, bash, the camelCase payload):
// its warning, the stderr of an exit 2; "" when it says nothing.
func copilotSessionStart(t *testing.T, dir string, env []string, home string) string {
	t.Helper()
	var doc struct {
		Hooks struct {
			SessionStart []struct {
				Bash string `json:"bash"`
			} `json:"sessionStart"`
		} `json:"hooks"`
	}
	b, _ := os.ReadFile(filepath.Join(home, ".copilot/hooks/hook-exec.json"))
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Hooks.SessionStart) != 1 {
		t.Fatalf("install's own sessionStart hook: %v\n%s", err, b)
	}
	r := hostRun(t, dir, append(slices.Clone(env), "HOME="+home), doc.Hooks.SessionStart[0].Bash,
		fmt.Appendf(nil, `{"sessionId":"s","timestamp":1704614600000,"cwd":%q,"source":"new"}`, dir))
	switch r.code {
	case 0:
		return ""
	case 2:
		return r.stderr
	}
	t.Fatalf("copilot's session start: exit %d, stderr %q", r.code, r.stderr)
	return ""
}

// installUserPlugin installs a plugin with a hook for the user in home,
// as Claude Code's /plugin install does.
func installUserPlugin(t *testing.T, home string) {
	plugin := filepath.Join(home, ".claude/plugins/cache/m/fmt/1.0.0")
	os.MkdirAll(filepath.Join(plugin, "hooks"), 0o755)
	os.WriteFile(filepath.Join(plugin, "hooks/hooks.json"), []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo hi"}]}]}}`), 0o644)
	os.WriteFile(filepath.Join(home, ".claude/plugins/installed_plugins.json"), []byte(`{"version": 2, "plugins": {"fmt@m": [{"scope": "user", "installPath": "`+plugin+`", "version": "1.0.0"}]}}`), 0o600)
}

func mustEnvelope(t *testing.T, h installHost, payload []byte) *hook.Envelope {
	e, err := hook.ParseAt(hook.Dialect(h.name), h.point, payload)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// hookCommands are the command strings of the host's file, in order.
func hookCommands(t *testing.T, h installHost, config string) []string {
	t.Helper()
	b, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		_, rest, ok := strings.Cut(line, `"`+cmp.Or(h.key, "command")+`": `)
		if !ok {
			continue
		}
		var s string
		if err := json.NewDecoder(strings.NewReader(rest)).Decode(&s); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		out = append(out, s)
	}
	return out
}

// hostRun runs a hook's command line as the hosts do: under a shell, in
// the project, the payload on stdin.
func hostRun(t testing.TB, dir string, env []string, command string, payload []byte) cliResult {
	t.Helper()
	return hostRunArgv(t, dir, env, payload, "bash", "-c", command)
}

// hostRunArgv runs argv as the hosts run a hook: in the project, the
// payload on stdin.
func hostRunArgv(t testing.TB, dir string, env []string, payload []byte, argv ...string) cliResult {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "PATH="+hostPath(t)), env...)
	cmd.Stdin = bytes.NewReader(payload)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	r := cliResult{stdout: so.String(), stderr: se.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

// hostPath is the PATH of a host that has hook-exec: this suite's build
// first (a committed command finds hook-exec on the host's PATH).
func hostPath(t testing.TB) string {
	return filepath.Dir(cli(t)) + string(os.PathListSeparator) + os.Getenv("PATH")
}

// ralphStop is a Stop hook in the manner of Claude Code's ralph-wiggum
// plugin: it reads the conversation's transcript and keeps Claude working
// until the last message says the work is done.
const ralphStop = `#!/bin/bash
input=$(cat)
transcript=$(printf '%s' "$input" | jq -r '.transcript_path')
if tail -n 1 "$transcript" | grep -q 'DONE'; then
  exit 0
fi
echo '{"decision":"block","reason":"keep working: the transcript does not say DONE"}'
`

// TestInstallTranscript: install sees that a Stop hook reads the
// transcript, and the sandbox gets that one file, read-only: the hook
// keeps Claude working, or lets it stop, by what the transcript says.
func TestInstallTranscript(t *testing.T) {
	t.Parallel()
	engine(t)
	for _, backend := range []string{"docker", "containerd"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			os.MkdirAll(filepath.Join(dir, ".claude/hooks"), 0o755)
			os.WriteFile(filepath.Join(dir, ".claude/hooks/stop.sh"), []byte(ralphStop), 0o755)
			timeout := int64((hookTimeout(t, engineFor(t, backend)) + 2e9).Seconds())
			config := filepath.Join(dir, ".claude/settings.json")
			os.WriteFile(config, fmt.Appendf(nil, "{\"hooks\": {\"Stop\": [{\"hooks\": [\n  {\"type\": \"command\", \"command\": \".claude/hooks/stop.sh\", \"timeout\": %d}\n]}]}}\n", timeout), 0o644)
			// The hosts keep transcripts in the home directory, the one place
			// hook-exec takes one from.
			home := t.TempDir()
			env := []string{"HOOKEXEC_BACKEND=" + backend, "CLAUDE_PROJECT_DIR=" + dir, "HOME=" + home, "HOOKEXEC_STATE_DIR=" + t.TempDir()}
			r := hookExec(t, nil, env, "install", "claude", "--project", dir, "--yes")
			r.wantCode(t, 0)
			command := hookCommands(t, installHosts[0], config)[0]
			if !strings.Contains(command, " --transcript ") {
				t.Fatalf("the installed command does not mount the transcript: %s", command)
			}
			transcript := filepath.Join(home, "session.jsonl")
			for _, tc := range []struct{ last, want string }{
				{`{"type":"assistant","message":"still on it"}`, `{"decision":"block","reason":"keep working: the transcript does not say DONE"}`},
				{`{"type":"assistant","message":"DONE"}`, `{}`},
			} {
				os.WriteFile(transcript, []byte(`{"type":"user","message":"fix it"}`+"\n"+tc.last+"\n"), 0o600)
				payload := fmt.Appendf(nil, `{"session_id":"s1","transcript_path":%q,"cwd":%q,"permission_mode":"default","hook_event_name":"Stop","stop_hook_active":false}`, transcript, dir)
				got := hostRun(t, dir, env, command, payload)
				if got.code != 0 || strings.TrimSpace(got.stdout) != tc.want {
					t.Errorf("last line %s: exit %d, answer %q, want %s (stderr %q)", tc.last, got.code, got.stdout, tc.want, got.stderr)
				}
			}
		})
	}
}

// counterHook is a plugin's hook that keeps a count in its data directory,
// as plugins keep their state across sessions and updates.
const counterHook = `#!/bin/bash
n=$(cat "$CLAUDE_PLUGIN_DATA/count" 2>/dev/null || echo 0)
n=$((n + 1))
echo "$n" > "$CLAUDE_PLUGIN_DATA/count"
jq -n --arg n "$n" '{hookSpecificOutput: {hookEventName: "PostToolUse", additionalContext: ("call " + $n)}}'
`

// TestInstallPluginData: a Claude Code plugin's hook that names
// ${CLAUDE_PLUGIN_DATA} gets that directory read-write, and only it: its
// count survives from one call to the next, in the caller's own files.
func TestInstallPluginData(t *testing.T) {
	t.Parallel()
	engine(t)
	for _, backend := range []string{"docker", "containerd"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			dir, home := t.TempDir(), t.TempDir()
			root := filepath.Join(home, ".claude/plugins/cache/local/counter/0.1.0")
			os.MkdirAll(filepath.Join(root, "hooks"), 0o755)
			os.WriteFile(filepath.Join(root, "hooks/count.sh"), []byte(counterHook), 0o755)
			timeout := int64((hookTimeout(t, engineFor(t, backend)) + 2e9).Seconds())
			hooksFile := filepath.Join(root, "hooks/hooks.json")
			os.WriteFile(hooksFile, fmt.Appendf(nil, `{"hooks": {"PostToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/count.sh", "timeout": %d}]}]}}`, timeout), 0o644)
			os.WriteFile(filepath.Join(home, ".claude/plugins/installed_plugins.json"),
				fmt.Appendf(nil, `{"version": 2, "plugins": {"counter@local": [{"scope": "user", "installPath": %q, "version": "0.1.0"}]}}`, root), 0o600)
			data := filepath.Join(home, ".claude/plugins/data/counter-local")
			env := []string{"HOOKEXEC_BACKEND=" + backend, "CLAUDE_PROJECT_DIR=" + dir, "HOME=" + home, "CLAUDE_PLUGIN_DATA=" + data, "HOOKEXEC_STATE_DIR=" + t.TempDir()}
			r := hookExec(t, nil, env, "install", "claude", "--user", "--yes")
			r.wantCode(t, 0)
			var v map[string]any
			b, _ := os.ReadFile(hooksFile)
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatal(err)
			}
			command := stringAt(t, v, "/hooks/PostToolUse/0/hooks/0/command")
			if !strings.Contains(command, ` --plugin-data "$CLAUDE_PLUGIN_DATA" `) {
				t.Fatalf("the installed command does not give the data directory: %s", command)
			}
			payload := fmt.Appendf(nil, `{"session_id":"s1","transcript_path":"/t","cwd":%q,"permission_mode":"default","hook_event_name":"PostToolUse","tool_name":"Edit","tool_input":{"file_path":"a.go"},"tool_response":{}}`, dir)
			for i := 1; i <= 2; i++ {
				got := hostRun(t, dir, env, command, payload)
				want := fmt.Sprintf(`{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"call %d"}}`, i)
				if got.code != 0 || strings.TrimSpace(got.stdout) != want {
					t.Fatalf("call %d: exit %d, answer %q, want %s (stderr %q)", i, got.code, got.stdout, want, got.stderr)
				}
			}
			fi, err := os.Stat(filepath.Join(data, "count"))
			if b, _ := os.ReadFile(filepath.Join(data, "count")); err != nil || string(b) != "2\n" {
				t.Fatalf("the count in the data directory: %q %v", b, err)
			}
			if st := fi.Sys().(*syscall.Stat_t); int(st.Uid) != os.Getuid() {
				t.Errorf("the count is uid %d's, not the caller's (%d)", st.Uid, os.Getuid())
			}
			r = hookExec(t, nil, env, "uninstall", "claude", "--user")
			r.wantCode(t, 0)
			if b, _ := os.ReadFile(hooksFile); !strings.Contains(string(b), `"command": "${CLAUDE_PLUGIN_ROOT}/hooks/count.sh"`) {
				t.Fatalf("the plugin's hooks file is not restored: %s", b)
			}
		})
	}
}

// A run of root's with --writable runs as uid 65534, owner of its copy's
// directory: it can rename root's file there, which it cannot read, to
// its state file. That file does not go back to the project (its bytes
// would be the hook's to read on the next run).
func TestWritableKeepsRootsFiles(t *testing.T) {
	t.Parallel()
	engine(t)
	if os.Getuid() != 0 {
		t.Skip("the hook runs as uid 65534 only in a run of root's")
	}
	for _, backend := range []string{"docker", "containerd"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			os.MkdirAll(filepath.Join(dir, ".claude"), 0o755)
			os.WriteFile(filepath.Join(dir, ".claude/token"), []byte("secret\n"), 0o600)
			os.WriteFile(filepath.Join(dir, ".claude/s.local.md"), []byte("1\n"), 0o644)
			script := scriptFile(t, "state.sh", fmt.Sprintf(`#!/bin/sh
cd %q/.claude || exit 5
if cat token >/dev/null 2>&1; then echo "read root's token" >&2; exit 3; fi
mv token s.local.md || exit 4
`, dir))
			timeout := hookTimeout(t, engineFor(t, backend))
			payload := fmt.Appendf(nil, `{"session_id":"s1","transcript_path":"/t","cwd":%q,"permission_mode":"default","hook_event_name":"PostToolUse","tool_name":"Edit","tool_input":{"file_path":"a.go"},"tool_response":{}}`, dir)
			r := hookExec(t, payload, []string{"HOOKEXEC_BACKEND=" + backend}, "run", "--dialect", "claude", "--script", script,
				"--workspace", dir, "--writable", ".claude/s.local.md", "--timeout", timeout.String(), "--trace", "-")
			r.wantCode(t, 0)
			wantIn(t, "trace", r.stdout+r.stderr, "s.local.md: not copied back: not the hook's own file (owned by uid 0)")
			if b, _ := os.ReadFile(filepath.Join(dir, ".claude/s.local.md")); string(b) != "1\n" {
				t.Fatalf("the project's state file became %q", b)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, ".claude/token")); string(b) != "secret\n" {
				t.Fatalf("the project's token became %q", b)
			}
		})
	}
}

// TestInstallImage: `install --image IMAGE` runs every hook in the
// project's image and says, at install, what each hook calls that the
// image lacks (one probe of the image): here the reference sh image, which
// has no jq, for an inline jq guard.
func TestInstallImage(t *testing.T) {
	t.Parallel()
	_, refs := engine(t)
	image := refs[launcher.Shell]
	dir := t.TempDir()
	config := filepath.Join(dir, ".claude/settings.json")
	os.MkdirAll(filepath.Dir(config), 0o755)
	os.WriteFile(config, []byte(`{"hooks":{"PreToolUse":[{"hooks":[{"type": "command", "command": "jq -r .tool_input.command | grep -q rm && exit 2 || exit 0"}]}]}}`), 0o644)
	env := []string{"HOOKEXEC_BACKEND=docker", "CLAUDE_PROJECT_DIR=" + dir, "HOME=" + t.TempDir(), "HOOKEXEC_STATE_DIR=" + t.TempDir()}
	r := hookExec(t, nil, env, "install", "claude", "--project", dir, "--image", image, "--yes")
	r.wantCode(t, 0)
	wantIn(t, "install's stdout", r.stdout, "image "+image+" lacks what "+config+" /hooks/PreToolUse/0/hooks/0/command calls: bash, jq")
	if cmd := hookCommands(t, installHosts[0], config); len(cmd) != 1 || !strings.Contains(cmd[0], " --image "+image+" ") {
		t.Fatalf("installed: %q", cmd)
	}
}

// TestInstallFormatter: a PostToolUse formatter (sed -i on the file the
// Write names), installed, rewrites that file as it does on the host, and
// only that file: the rest of the project stays read-only. On both
// engines.
func TestInstallFormatter(t *testing.T) {
	t.Parallel()
	engine(t)
	for _, backend := range []string{"docker", "containerd"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			timeout := int64((hookTimeout(t, engineFor(t, backend)) + 2e9).Seconds())
			dir := t.TempDir()
			config := filepath.Join(dir, ".claude/settings.json")
			os.MkdirAll(filepath.Dir(config), 0o755)
			// It also tries another file of the project, which it may not.
			line := `f=$(jq -r .tool_input.file_path); sed -i 's/TODO/DONE/' "$f"; sed -i 's/x/y/' "$CLAUDE_PROJECT_DIR/other.txt" 2>/dev/null; exit 0`
			quoted, _ := json.Marshal(line)
			os.WriteFile(config, fmt.Appendf(nil, `{"hooks":{"PostToolUse":[{"matcher":"Write|Edit","hooks":[{"type": "command", "command": %s, "timeout": %d}]}]}}`, quoted, timeout), 0o644)
			env := []string{"HOOKEXEC_BACKEND=" + backend, "CLAUDE_PROJECT_DIR=" + dir, "HOME=" + t.TempDir(), "HOOKEXEC_STATE_DIR=" + t.TempDir()}
			r := hookExec(t, nil, env, "install", "claude", "--project", dir, "--yes")
			r.wantCode(t, 0)
			command := hookCommands(t, installHosts[0], config)[0]
			if !strings.Contains(command, " --writable-edited-file ") {
				t.Fatalf("the formatter may not rewrite the edited file: %s", command)
			}
			src := filepath.Join(dir, "src", "notes.txt")
			os.MkdirAll(filepath.Dir(src), 0o755)
			other := filepath.Join(dir, "other.txt")
			payload := fmt.Appendf(nil, `{"session_id":"s","transcript_path":"/t","cwd":%q,"permission_mode":"default","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"file_path":%q,"content":"TODO: ship"},"tool_response":{"success":true}}`, dir, src)
			// On the host: the file the Write names, and the other one.
			os.WriteFile(src, []byte("TODO: ship\n"), 0o644)
			os.WriteFile(other, []byte("x\n"), 0o644)
			hostRun(t, dir, env, line, payload)
			if b, _ := os.ReadFile(src); string(b) != "DONE: ship\n" {
				t.Fatalf("on the host the formatter wrote %q", b)
			}
			// Sandboxed: the file the Write names, and only it.
			os.WriteFile(src, []byte("TODO: ship\n"), 0o644)
			os.WriteFile(other, []byte("x\n"), 0o644)
			got := hostRun(t, dir, env, command, payload)
			if b, _ := os.ReadFile(src); string(b) != "DONE: ship\n" {
				t.Errorf("sandboxed, the formatter left %q (exit %d, stdout %q, stderr %q)", b, got.code, got.stdout, got.stderr)
			}
			if b, _ := os.ReadFile(other); string(b) != "x\n" {
				t.Errorf("sandboxed, a file the event does not name was written: %q", b)
			}
		})
	}
}

// TestInstallKit: a hook is a tree, not a file. A kit's bash guard sources
// "$(dirname "$0")/lib/common.sh", which reads the project's VERSION two
// directories up; a Python guard imports a sibling module. Installed,
// each runs from its pinned tree with the host's answer; a file beside
// them that changes after approval refuses both (a changed sibling is
// the script's change). On both engines.
func TestInstallKit(t *testing.T) {
	t.Parallel()
	engine(t)
	for _, backend := range []string{"docker", "containerd"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			timeout := int64((hookTimeout(t, engineFor(t, backend)) + 2e9).Seconds())
			dir := t.TempDir()
			files := map[string]string{
				"VERSION":                     "1.2.3\n",
				".claude/hooks/guard.sh":      "#!/bin/bash\n. \"$(dirname \"$0\")/lib/common.sh\"\ncheck \"$(jq -r .tool_input.command)\"\n",
				".claude/hooks/lib/common.sh": "check() {\n  case $1 in *'rm -rf'*)\n    v=$(cat \"$(dirname \"$0\")/../../VERSION\")\n    echo \"{\\\"hookSpecificOutput\\\":{\\\"hookEventName\\\":\\\"PreToolUse\\\",\\\"permissionDecision\\\":\\\"deny\\\",\\\"permissionDecisionReason\\\":\\\"kit $v: no rm -rf\\\"}}\" ;;\n  esac\n}\n",
				".claude/hooks/guard.py":      "import json, sys\nimport policy\nprint(json.dumps(policy.answer(json.load(sys.stdin))))\n",
				".claude/hooks/policy.py":     "def answer(ev):\n    cmd = ev['tool_input'].get('command', '')\n    if 'sudo' in cmd:\n        return {'hookSpecificOutput': {'hookEventName': 'PreToolUse', 'permissionDecision': 'deny', 'permissionDecisionReason': 'policy: no sudo'}}\n    return {}\n",
			}
			for rel, body := range files {
				os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755)
				os.WriteFile(filepath.Join(dir, rel), []byte(body), 0o755)
			}
			config := filepath.Join(dir, ".claude/settings.json")
			os.WriteFile(config, fmt.Appendf(nil, `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
  {"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/guard.sh", "timeout": %d},
  {"type": "command", "command": "python3 \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/guard.py", "timeout": %d}
]}]}}
`, timeout, timeout), 0o644)
			env := []string{"HOOKEXEC_BACKEND=" + backend, "CLAUDE_PROJECT_DIR=" + dir, "HOME=" + t.TempDir(), "HOOKEXEC_STATE_DIR=" + t.TempDir()}
			before := hookCommands(t, installHosts[0], config)
			r := hookExec(t, nil, env, "install", "claude", "--project", dir, "--yes")
			r.wantCode(t, 0)
			after := hookCommands(t, installHosts[0], config)
			for _, c := range after {
				if !strings.Contains(c, ` --script-root "$CLAUDE_PROJECT_DIR"/.claude/hooks --script-root-sha256 `) {
					t.Fatalf("installed without its tree: %s", c)
				}
			}
			claude := installHosts[0]
			for _, command := range []string{"rm -rf build", "sudo ls", "ls"} {
				payload := claude.payload(dir, command)
				e := mustEnvelope(t, claude, payload)
				for i := range before {
					host := hostRun(t, dir, env, before[i], payload)
					want, err := hook.Interpret(e, host.code, []byte(host.stdout), []byte(host.stderr))
					if err != nil {
						t.Fatalf("%s on the host: %v (stderr %q)", before[i], err, host.stderr)
					}
					got := hostRun(t, dir, env, after[i], payload)
					d, err := hook.Interpret(e, got.code, []byte(got.stdout), []byte(got.stderr))
					if err != nil || d.Action != want.Action || d.Reason != want.Reason {
						t.Errorf("hook %d on %q: sandboxed %+v %v, on the host %s %q (stdout %q, stderr %q)", i, command, d, err, want.Action, want.Reason, got.stdout, got.stderr)
					}
				}
			}
			// A file beside them changes: both are refused, saying how to
			// approve it again.
			os.WriteFile(filepath.Join(dir, ".claude/hooks/lib/common.sh"), []byte(files[".claude/hooks/lib/common.sh"]+"# changed\n"), 0o755)
			payload := claude.payload(dir, "ls")
			for i := range after {
				got := hostRun(t, dir, env, after[i], payload)
				d, err := hook.Interpret(mustEnvelope(t, claude, payload), got.code, []byte(got.stdout), []byte(got.stderr))
				if err != nil || d.Action != hook.Deny || !strings.Contains(d.Reason, "a file beside the script") || !strings.Contains(d.Reason, "hook-exec install claude") {
					t.Errorf("hook %d after its lib changed: %+v %v (stdout %q)", i, d, err, got.stdout)
				}
			}
		})
	}
}

// TestInstallDevcontainer: the image a project's devcontainer.json names
// (its toolchain) runs the project's own hooks when the engine has it, and
// runs them; one the engine lacks leaves the reference images, and says so.
func TestInstallDevcontainer(t *testing.T) {
	t.Parallel()
	_, refs := engine(t)
	for _, tc := range []struct{ image, said string }{
		{refs[launcher.Shell], "the project's devcontainer image " + refs[launcher.Shell] + " runs the project's own hooks"},
		{"hookexec-test/absent:0", "its hooks run in the reference images"},
	} {
		dir := t.TempDir()
		config := filepath.Join(dir, ".claude/settings.json")
		os.MkdirAll(filepath.Join(dir, ".claude/hooks"), 0o755)
		os.MkdirAll(filepath.Join(dir, ".devcontainer"), 0o755)
		os.WriteFile(filepath.Join(dir, ".devcontainer/devcontainer.json"), fmt.Appendf(nil, "// the team's\n{\"name\": \"dev\", \"image\": %q,}\n", tc.image), 0o644)
		os.WriteFile(filepath.Join(dir, ".claude/hooks/guard.sh"), []byte("#!/bin/sh\ngrep -q 'rm -rf' && { echo 'no rm -rf' >&2; exit 2; }\nexit 0\n"), 0o755)
		os.WriteFile(config, []byte(`{"hooks":{"PreToolUse":[{"hooks":[{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/guard.sh"}]}]}}`), 0o644)
		env := []string{"HOOKEXEC_BACKEND=docker", "HOOKEXEC_SERVER=off", "CLAUDE_PROJECT_DIR=" + dir, "HOME=" + t.TempDir(), "HOOKEXEC_STATE_DIR=" + t.TempDir()}
		r := hookExec(t, nil, env, "install", "claude", "--project", dir, "--yes")
		r.wantCode(t, 0)
		wantIn(t, "install's stdout", r.stdout, tc.said)
		command := hookCommands(t, installHosts[0], config)[0]
		if strings.Contains(command, " --image "+tc.image+" ") != (tc.image == refs[launcher.Shell]) {
			t.Fatalf("devcontainer %s, installed: %s", tc.image, command)
		}
		payload := fmt.Appendf(nil, `{"session_id":"s","transcript_path":"/t","cwd":%q,"permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`, dir)
		if got := hostRun(t, dir, env, command, payload); got.code != 0 || !strings.Contains(got.stdout, `"permissionDecision":"deny","permissionDecisionReason":"no rm -rf"`) {
			t.Errorf("devcontainer %s: the guard answered exit %d, stdout %q, stderr %q; want its deny", tc.image, got.code, got.stdout, got.stderr)
		}
	}
}
