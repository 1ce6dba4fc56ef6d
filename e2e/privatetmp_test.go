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
	if _, err := exec.LookPath("unshare"); err != nil || os.Geteuid() != 0 {
		t.Skip("needs unshare and root for a mount namespace")
	}
	// hook-exec itself outside /tmp, which the namespace hides.
	bin := hostDir(t)
	for _, name := range []string{"hook-exec", "hook-exec-core"} {
		copyFile(t, filepath.Join(filepath.Dir(cli(t)), name), filepath.Join(bin, name), 0o755)
	}
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
