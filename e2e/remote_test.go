package e2e

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/backend/docker"
	"github.com/hookexec/hook-exec/sandbox"
)

// fakeSSH stands in for ssh: it ignores the host and relays its stdin and
// stdout to the local engine's socket, as `docker system dial-stdio` does
// on a remote host, and ends the stream to the engine when stdin closes.
const fakeSSH = `#!/usr/bin/env python3
import os, socket, sys, threading
s = socket.socket(socket.AF_UNIX)
s.connect("/var/run/docker.sock")
def up():
    while True:
        b = os.read(0, 65536)
        if not b:
            s.shutdown(socket.SHUT_WR)
            return
        s.sendall(b)
threading.Thread(target=up, daemon=True).start()
while True:
    b = s.recv(65536)
    if not b:
        break
    os.write(1, b)
`

// TestSSHEngine drives the engine through DOCKER_HOST=ssh://, whose
// connection half-closes by closing ssh's stdin: the script reads its whole
// event and sees EOF.
func TestSSHEngine(t *testing.T) {
	t.Parallel()
	engine(t)
	ssh := filepath.Join(t.TempDir(), "ssh")
	if err := os.WriteFile(ssh, []byte(fakeSSH), 0o755); err != nil {
		t.Fatal(err)
	}
	script := scriptFile(t, "guard.sh", "n=$(cat | wc -c)\nprintf '{\"schema_version\":1,\"action\":\"deny\",\"reason\":\"read %s\"}\\n' \"$n\"\n")
	ev := toolEvent("rm -rf /")
	env := []string{"DOCKER_HOST=ssh://hooks@remote.example:2222", "HOOKEXEC_SSH=" + ssh}
	r := hookExec(t, ev, env, "run", "--script", script, "--timeout", "20s")
	want := fmt.Sprintf("read %d", len(ev))
	r.wantCode(t, 2)
	wantIn(t, "stdout", r.stdout, want)
}

// noHalfClose hides CloseWrite, as some TLS terminators and proxies do.
type noHalfClose struct{ net.Conn }

// TestNoHalfCloseIsRefused: a connection that cannot half-close stdin is
// detected before the container starts, with a clear error, and nothing is
// left behind.
func TestNoHalfCloseIsRefused(t *testing.T) {
	t.Parallel()
	_, refs := engine(t)
	b, err := docker.New(client.WithHost("unix:///var/run/docker.sock"), client.WithDialContext(func(ctx context.Context, _, _ string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, "unix", "/var/run/docker.sock")
		if err != nil {
			return nil, err
		}
		return noHalfClose{c}, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	spec, _ := sandbox.New(refs["sh"], []string{"sh", "-c", "cat"}, sandbox.WithLabels(map[string]string{sandbox.LabelExecution: "no-half-close"}))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err = b.Run(ctx, &backend.Run{Spec: spec, Stdin: []byte("event"), MaxOutput: 1024})
	if !errors.Is(err, backend.ErrNoHalfClose) {
		t.Fatalf("Run over a connection without half-close = %v, want ErrNoHalfClose", err)
	}
	wantIn(t, "Run over a connection without half-close: error", err.Error(), "half-close")
	assertGone(t, "no-half-close")
}
