package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
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
			sock := filepath.Join(t.TempDir(), "serve", "hook-exec.sock")
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
			stopServe(t, cmd)
			if n := containersOf(t, engineFor(t, backendName), cmd.Process.Pid); n != 0 {
				t.Fatalf("%d sandboxes of the server survived it", n)
			}
		})
	}
}

// timeoutFlag is --timeout sized for a hook run on the backend named:
// hookTimeout, from the engine's measured latency.
func timeoutFlag(t *testing.T, backend string) string {
	t.Helper()
	return "--timeout=" + hookTimeout(t, engineFor(t, backend)).String()
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

// TestServeOnlyItsOwner: `hook-exec serve --backend local` as root runs an
// owner's script as root on the host, so a client of another user must not
// get one run. The private directory keeps it out; with the directories and
// the socket loosened, as an administrator sharing them might, the peer
// check still refuses it, before the request is read, and serve says so.
func TestServeOnlyItsOwner(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root: serve runs as root and the other client as uid 65534")
	}
	sock := filepath.Join(t.TempDir(), "serve", "hook-exec.sock")
	var stderr lockedBuffer
	cmd := exec.Command(cli(t), "serve", "--socket", sock, "--backend", "local", "--pool", "0")
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	marker := filepath.Join(t.TempDir(), "ran")
	touch := scriptFile(t, "touch.sh", "echo > "+marker+"\nprintf '{\"schema_version\":1,\"action\":\"allow\"}\\n'\n")
	req, _ := json.Marshal(map[string]any{"script": touch, "scope": "owner", "event": json.RawMessage(toolEvent("ls"))})
	var owner string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if owner = askServe(sock, req); !strings.HasPrefix(owner, "dial:") {
			break
		}
	}
	if !strings.Contains(owner, `"decision":{"schema_version":1,"action":"allow"}`) {
		t.Fatalf("the owner's request: %s (serve: %s)", owner, stderr.String())
	}
	if err := os.Remove(marker); err != nil {
		t.Fatalf("the owner's request did not run: %v", err)
	}
	for path, want := range map[string]fs.FileMode{filepath.Dir(sock): fs.ModeDir | 0o700, sock: fs.ModeSocket | 0o600} {
		if fi, err := os.Lstat(path); err != nil {
			t.Error(err)
		} else if fi.Mode() != want {
			t.Errorf("%s: mode %v, want %v", path, fi.Mode(), want)
		}
	}

	other := func() string {
		t.Helper()
		c := exec.Command("/proc/self/exe", "-test.run=^TestServeClientHelper$")
		c.Env = append(os.Environ(), "HOOKEXEC_E2E_SERVE_SOCKET="+sock, "HOOKEXEC_E2E_SERVE_REQUEST="+string(req))
		c.Dir = "/"
		c.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, err := c.Output()
		if err != nil {
			t.Fatalf("uid 65534's client: %v (%s)", err, out)
		}
		line, _, _ := strings.Cut(string(out), "\n")
		return line
	}
	if got := other(); !strings.Contains(got, "permission denied") {
		t.Errorf("uid 65534's client got %q, want the directory to deny it", got)
	}
	for d := filepath.Dir(sock); strings.HasPrefix(d, os.TempDir()+"/"); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o711); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(sock, 0o666); err != nil {
		t.Fatal(err)
	}
	if got, want := other(), `{"error":"connection refused: peer uid 65534 (pid `; !strings.HasPrefix(got, want) {
		t.Errorf("uid 65534's client got %q, want a line starting %q", got, want)
	}
	if _, err := os.Lstat(marker); err == nil {
		t.Errorf("uid 65534's request ran")
	}
	if got := askServe(sock, req); !strings.Contains(got, `"action":"allow"`) {
		t.Errorf("the owner's request after a refusal: %s", got)
	}

	stopServe(t, cmd)
	if got, want := stderr.String(), "hook-exec: connection refused: peer uid 65534 (pid "; !strings.Contains(got, want) {
		t.Errorf("serve's stderr %q does not say %q", got, want)
	}
}

// askServe sends one request line on a new connection and returns the
// line that answers it, or what went wrong ("dial: ..." when it could not
// connect). A refused connection may be closed before the request is
// written; its line is read all the same.
func askServe(sock string, req []byte) string {
	c, err := net.Dial("unix", sock)
	if err != nil {
		return fmt.Sprintf("dial: %v", err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	c.Write(append(req, '\n'))
	line, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil {
		return fmt.Sprintf("read: %v", err)
	}
	return strings.TrimSpace(string(line))
}

// TestServeClientHelper is not a test: TestServeOnlyItsOwner runs this
// binary again as another user to play its client, which prints one line.
func TestServeClientHelper(t *testing.T) {
	sock := os.Getenv("HOOKEXEC_E2E_SERVE_SOCKET")
	if sock == "" {
		return
	}
	fmt.Println(askServe(sock, []byte(os.Getenv("HOOKEXEC_E2E_SERVE_REQUEST"))))
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// stopServe ends a `hook-exec serve` with SIGTERM and waits for a clean
// exit, within its default drain bound (30 s).
func stopServe(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
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
}
