package e2e

import (
	"bufio"
	"encoding/json"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServe drives `hook-exec serve` as a long-lived host would: requests
// on a local socket, answers from pooled sandboxes, a clean stop on SIGTERM.
func TestServe(t *testing.T) {
	t.Parallel()
	engine(t)
	for _, backendName := range []string{"docker", "containerd"} {
		t.Run(backendName, func(t *testing.T) {
			t.Parallel()
			sock := filepath.Join(t.TempDir(), "hook-exec.sock")
			cmd := exec.Command(cli(t), "serve", "--socket", sock, "--backend", backendName, "--pool", "2")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			var c net.Conn
			var err error
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				if c, err = net.Dial("unix", sock); err == nil {
					break
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			guard := scriptFile(t, "guard.sh", "case $(cat) in *'rm -rf'*) printf '{\"schema_version\":1,\"action\":\"deny\",\"reason\":\"rm for %s\"}\\n' \"$HOLARYN_HOOK_ID\";; *) printf '{\"schema_version\":1,\"action\":\"allow\"}\\n';; esac\n")
			r := bufio.NewReader(c)
			ask := func(cmdline string) map[string]json.RawMessage {
				req, _ := json.Marshal(map[string]any{"script": guard, "hook_id": "g1", "event": json.RawMessage(toolEvent(cmdline))})
				c.Write(append(req, '\n'))
				line, err := r.ReadBytes('\n')
				if err != nil {
					t.Fatal(err)
				}
				var resp map[string]json.RawMessage
				json.Unmarshal(line, &resp)
				return resp
			}
			for i := range 4 {
				resp := ask("rm -rf /")
				if string(resp["decision"]) != `{"schema_version":1,"action":"deny","reason":"rm for g1"}` {
					t.Fatalf("request %d: %s", i, resp)
				}
				if resp := ask("ls"); !strings.Contains(string(resp["decision"]), `"allow"`) {
					t.Fatalf("request %d: %s", i, resp)
				}
			}
			bad := []byte("{not json}\n")
			c.Write(bad)
			line, _ := r.ReadBytes('\n')
			if !strings.Contains(string(line), "invalid request") {
				t.Fatalf("bad request answered %q", line)
			}
			c.Close()
			cmd.Process.Signal(syscall.SIGTERM)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("serve exited with %v", err)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("serve did not stop on SIGTERM")
			}
			if n := containersOf(t, engineFor(t, backendName), cmd.Process.Pid); n != 0 {
				t.Fatalf("%d sandboxes of the server survived it", n)
			}
		})
	}
}

func engineFor(t *testing.T, name string) engineUnderTest {
	for _, e := range engines(t) {
		if e.name == name {
			return e
		}
	}
	t.Fatalf("no engine %s", name)
	return engineUnderTest{}
}
