package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookexec/hook-exec/hook"
)

// Cline's hooks as a project has them: executable files named by their
// event. PreToolUse (bash and jq) loads a file beside itself through its
// own path, as kits do; UserPromptSubmit is node.
const (
	clinePreToolUse = `#!/bin/bash
. "$(dirname "$0")/policy.sh"
tool=$(jq -r '.preToolUse.toolName')
if is_blocked "$tool"; then
  echo "checking $tool..."
  printf '{"cancel": true, "errorMessage": "policy: %s is not allowed"}\n' "$tool"
else
  echo '{"cancel": false, "contextModification": "policy checked"}'
fi
`
	clinePolicy = "is_blocked() { [ \"$1\" = execute_command ]; }\n"
	clinePrompt = `#!/usr/bin/env node
let s = ''; process.stdin.on('data', d => s += d).on('end', () => {
  const p = JSON.parse(s).userPromptSubmit.prompt;
  process.stdout.write(JSON.stringify(p.includes('secret') ? {cancel: true, errorMessage: 'no secrets'} : {cancel: false}));
});
`
)

func clinePayload(dir, event, sub string) []byte {
	return fmt.Appendf(nil, `{"clineVersion":"4.1.13","hookName":%q,"timestamp":"1736654400000","taskId":"t1","workspaceRoots":[%q],"userId":"u1","model":{"provider":"openrouter","slug":"anthropic/claude-sonnet-4.5"},%s}`, event, dir, sub)
}

// TestInstallCline: `hook-exec install cline --yes` on a project whose
// hooks are files; each then run as Cline runs it (/bin/sh -c PATH, in
// the workspace's root, the payload on stdin) gives the original file's
// decision, from a sandbox, its $0 and the file beside it as they were; a
// changed file beside it is refused; a copy of the project at another
// path (a teammate's clone) answers the same; uninstall restores each
// file byte for byte, mode included, in both. On both engines.
func TestInstallCline(t *testing.T) {
	t.Parallel()
	engine(t)
	for _, backend := range []string{"docker", "containerd"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(hostDir(t), "app")
			hooks := filepath.Join(dir, ".clinerules/hooks")
			os.MkdirAll(hooks, 0o755)
			files := map[string]struct {
				body string
				mode os.FileMode
			}{
				"PreToolUse": {clinePreToolUse, 0o750}, "UserPromptSubmit": {clinePrompt, 0o755}, "policy.sh": {clinePolicy, 0o644},
				"TaskComplete": {"#!/bin/sh\necho '{\"cancel\":false}'\n", 0o644}, // not executable: Cline skips it
			}
			for name, f := range files {
				os.WriteFile(filepath.Join(hooks, name), []byte(f.body), f.mode)
				os.Chmod(filepath.Join(hooks, name), f.mode)
			}
			env := []string{"HOOKEXEC_BACKEND=" + backend, "HOME=" + t.TempDir(), "HOOKEXEC_STATE_DIR=" + t.TempDir()}
			calls := []struct {
				event, sub string
			}{
				{"PreToolUse", `"preToolUse":{"toolName":"execute_command","parameters":{"command":"rm -rf build"}}`},
				{"PreToolUse", `"preToolUse":{"toolName":"read_file","parameters":{"path":"README.md"}}`},
				{"UserPromptSubmit", `"userPromptSubmit":{"prompt":"print the secret","attachments":[]}`},
				{"UserPromptSubmit", `"userPromptSubmit":{"prompt":"add a test","attachments":[]}`},
			}
			// What the hooks answer as Cline runs them, before install.
			want := make([]*hook.Decision, len(calls))
			for i, c := range calls {
				payload := clinePayload(dir, c.event, c.sub)
				r := clineRun(t, dir, env, filepath.Join(hooks, c.event), payload)
				d, err := hook.Interpret(mustCline(t, payload), r.code, []byte(r.stdout), []byte(r.stderr))
				if err != nil {
					t.Fatalf("%s on the host: %v (stdout %q)", c.event, err, r.stdout)
				}
				want[i] = d
			}
			if want[0].Action != hook.Deny || want[1].Action != hook.Allow || want[2].Action != hook.Deny || want[3].Action != hook.Allow {
				t.Fatalf("the hooks on the host: %+v", want)
			}

			r := hookExec(t, nil, env, "install", "cline", "--project", dir, "--yes")
			r.wantCode(t, 0)
			wantIn(t, "install's stdout", r.stdout, "installed 3 hooks of cline") // TaskComplete too: Cline's CLI runs it
			answers := func(where, dir string) {
				t.Helper()
				hooks := filepath.Join(dir, ".clinerules/hooks")
				for i, c := range calls {
					payload := clinePayload(dir, c.event, c.sub)
					r := clineRun(t, dir, env, filepath.Join(hooks, c.event), payload)
					d, err := hook.Interpret(mustCline(t, payload), r.code, []byte(r.stdout), []byte(r.stderr))
					if err != nil || d.Action != want[i].Action || d.Reason != want[i].Reason || hook.ClaudeOf(*d).Context != hook.ClaudeOf(*want[i]).Context {
						t.Errorf("%s, %s call %d: %+v %v, on the host %+v (stdout %q stderr %q)", where, c.event, i, d, err, want[i], r.stdout, r.stderr)
					}
				}
			}
			answers("installed", dir)
			if fi, _ := os.Stat(filepath.Join(hooks, "PreToolUse")); fi.Mode().Perm() != 0o750 {
				t.Errorf("the wrapper's mode %v, want the hook's 0750", fi.Mode().Perm())
			}
			// A teammate's clone at another path (what git gives: the
			// wrappers, their copies and install's records, modes as git
			// keeps them) answers the same, and its check passes.
			clone := filepath.Join(hostDir(t), "clone")
			gitInit(t, dir)
			for _, args := range [][]string{{"-C", dir, "add", "-A"}, {"-C", dir, "-c", "user.name=a", "-c", "user.email=a@x", "commit", "-qm", "hooks"}, {"clone", "-q", dir, clone}} {
				if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v: %s", args, err, out)
				}
			}
			answers("in a clone", clone)
			r = hookExec(t, nil, env, "install", "cline", "--project", clone, "--check", "--ci")
			r.wantCode(t, 0)

			// The file beside the hook changed: refused, naming install.
			os.WriteFile(filepath.Join(hooks, "policy.sh"), []byte("is_blocked() { false; }\n"), 0o644)
			payload := clinePayload(dir, calls[0].event, calls[0].sub)
			changed := clineRun(t, dir, env, filepath.Join(hooks, "PreToolUse"), payload)
			d, err := hook.Interpret(mustCline(t, payload), changed.code, []byte(changed.stdout), []byte(changed.stderr))
			if err != nil || d.Action != hook.Deny || !strings.Contains(d.Reason, "hook-exec install cline") {
				t.Errorf("a changed file beside the hook: %+v %v (stdout %q)", d, err, changed.stdout)
			}
			r = hookExec(t, nil, env, "install", "cline", "--project", dir, "--check")
			r.wantCode(t, 1)
			os.WriteFile(filepath.Join(hooks, "policy.sh"), []byte(clinePolicy), 0o644)

			for _, root := range []string{dir, clone} {
				r = hookExec(t, nil, env, "uninstall", "cline", "--project", root)
				r.wantCode(t, 0)
				for name, f := range files {
					p := filepath.Join(root, ".clinerules/hooks", name)
					b, _ := os.ReadFile(p)
					fi, err := os.Stat(p)
					mode := f.mode
					if root == clone { // as git checks a mode out
						mode = map[bool]os.FileMode{true: 0o755, false: 0o644}[f.mode&0o100 != 0]
					}
					if err != nil || string(b) != f.body || fi.Mode().Perm() != mode {
						t.Errorf("%s: uninstall left %s as %v %v:\n%s", root, name, fi.Mode(), err, b)
					}
				}
				left, _ := filepath.Glob(filepath.Join(root, ".clinerules/hooks", ".*"))
				if _, err := os.Stat(filepath.Join(root, ".clinerules/hooks/hook-exec")); err == nil || len(left) > 0 {
					t.Errorf("%s: uninstall left its copies or records: %v", root, left)
				}
			}
		})
	}
}

// clineRun runs a hook file as Cline's extension does: /bin/sh -c with
// its path, in the workspace's root, the payload on stdin.
func clineRun(t *testing.T, dir string, env []string, path string, payload []byte) cliResult {
	t.Helper()
	return hostRunArgv(t, dir, env, payload, "/bin/sh", "-c", path)
}

func mustCline(t *testing.T, payload []byte) *hook.Envelope {
	t.Helper()
	e, err := hook.ParseEnvelope(hook.Cline, payload)
	if err != nil {
		t.Fatal(err)
	}
	return e
}
