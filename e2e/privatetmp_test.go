package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookexec/hook-exec/hook"
)

// TestClientWithAPrivateTmp: a client whose /tmp the engine does not see
// (an engine in a VM, Docker Desktop or colima; snap's Docker with a /tmp
// of its own), played by a mount namespace with a tmpfs on /tmp: hooks
// get their own decisions through the engine's attach, where every call
// was an engine error, a deny. On both engines, in a process of its own
// and through the server it starts.
func TestClientWithAPrivateTmp(t *testing.T) {
	t.Parallel()
	bin := outsideTmp(t)
	for _, backend := range []string{"docker", "containerd"} {
		for _, server := range []string{"off", "auto"} {
			t.Run(backend+"/server-"+server, func(t *testing.T) {
				t.Parallel()
				timeout := hookTimeout(t, engineFor(t, backend))
				dir, state := hostDir(t), hostDir(t)
				guard := filepath.Join(dir, "guard.sh")
				os.WriteFile(guard, []byte("#!/bin/sh\ncase $(cat) in *'rm -rf'*) echo 'guard: no rm -rf' >&2; exit 2;; esac\n"), 0o755)
				// A socket of the test's own, which the first call starts
				// a server on (the user's is for the user's own state).
				sock := map[string]string{"off": "off", "auto": filepath.Join(state, "srv", "s.sock")}[server]
				env := append(os.Environ(), "HOOKEXEC_BACKEND="+backend, "HOOKEXEC_STATE_DIR="+state, "HOOKEXEC_SERVER="+sock, "TMPDIR=", "XDG_RUNTIME_DIR=")
				if server == "auto" {
					// The server it starts lives in the namespace too; stopped
					// at the end, it leaves no sandbox.
					t.Cleanup(func() {
						r := hookExec(t, nil, []string{"HOOKEXEC_STATE_DIR=" + state, "HOOKEXEC_SERVER=" + sock}, "server", "stop")
						if r.code != 0 {
							t.Errorf("server stop: %d %s", r.code, r.stderr)
						}
					})
				}
				for _, command := range []string{"rm -rf build", "ls"} {
					payload := fmt.Appendf(nil, `{"session_id":"s1","transcript_path":"","cwd":%q,"permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":%q},"tool_use_id":"t1"}`, dir, command)
					cmd := exec.Command("unshare", "-m", "sh", "-c", `mount -t tmpfs tmpfs /tmp && exec "$0" "$@"`,
						filepath.Join(bin, "hook-exec"), "run", "--dialect", "claude", "--script", guard, "--workspace", dir, "--timeout", timeout.String())
					cmd.Env, cmd.Stdin = env, bytes.NewReader(payload)
					var so, se bytes.Buffer
					cmd.Stdout, cmd.Stderr = &so, &se
					if err := cmd.Run(); err != nil {
						t.Fatalf("%q: %v, stderr %q", command, err, se.String())
					}
					e, err := hook.ParseEnvelope(hook.Claude, payload)
					if err != nil {
						t.Fatal(err)
					}
					d, err := hook.Interpret(e, 0, so.Bytes(), nil)
					if err != nil {
						t.Fatalf("%q: the answer %q: %v", command, so.String(), err)
					}
					want := hook.Allow
					if command != "ls" {
						want = hook.Deny
					}
					if d.Action != want || (want == hook.Deny && !strings.Contains(d.Reason, "guard: no rm -rf")) {
						t.Errorf("%q: %s %q, want the guard's %s (stderr %q)", command, d.Action, d.Reason, want, se.String())
					}
				}
			})
		}
	}
}

// TestWorkspaceTheEngineDoesNotSee: a workspace the engine cannot see (in
// the client's private /tmp, as a project outside Docker Desktop's shared
// directories is) is refused before anything runs, naming the directory and
// the setting that shares it, not an engine error: on both engines.
func TestWorkspaceTheEngineDoesNotSee(t *testing.T) {
	t.Parallel()
	bin := outsideTmp(t)
	for _, backend := range []string{"docker", "containerd"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			dir, state := hostDir(t), hostDir(t)
			guard := filepath.Join(dir, "guard.sh")
			os.WriteFile(guard, []byte("#!/bin/sh\ncat >/dev/null\n"), 0o755)
			payload := []byte(`{"session_id":"s1","transcript_path":"","cwd":"/tmp/project","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"t1"}`)
			cmd := exec.Command("unshare", "-m", "sh", "-c", `mount -t tmpfs tmpfs /tmp && mkdir /tmp/project && exec "$0" "$@"`,
				filepath.Join(bin, "hook-exec"), "run", "--dialect", "claude", "--script", guard, "--workspace", "/tmp/project", "--trace", "-")
			cmd.Env = append(os.Environ(), "HOOKEXEC_BACKEND="+backend, "HOOKEXEC_STATE_DIR="+state, "HOOKEXEC_SERVER=off", "TMPDIR=")
			cmd.Stdin = bytes.NewReader(payload)
			var so, se bytes.Buffer
			cmd.Stdout, cmd.Stderr = &so, &se
			cmd.Run()
			e, err := hook.ParseEnvelope(hook.Claude, payload)
			if err != nil {
				t.Fatal(err)
			}
			d, err := hook.Interpret(e, 0, so.Bytes(), nil)
			if err != nil || d.Action != hook.Deny {
				t.Fatalf("answer %q (%v): want a deny; stderr %q", so.String(), err, se.String())
			}
			for _, want := range []string{`"kind":"refused_rule"`, "/tmp/project (mounted at /tmp/project) is here, but the engine does not see it", "File sharing"} {
				if !strings.Contains(se.String(), want) {
					t.Errorf("stderr %q lacks %q", se.String(), want)
				}
			}
		})
	}
}

// outsideTmp skips a test that cannot make a mount namespace, and returns
// a directory outside /tmp (which the namespace hides) holding hook-exec.
func outsideTmp(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("unshare"); err != nil || os.Geteuid() != 0 {
		t.Skip("needs unshare and root for a mount namespace")
	}
	bin := hostDir(t)
	for _, name := range []string{"hook-exec", "hook-exec-core"} {
		copyFile(t, filepath.Join(filepath.Dir(cli(t)), name), filepath.Join(bin, name), 0o755)
	}
	return bin
}
