package docker

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"sync"
	"time"
)

// sshDialer reaches an engine at DOCKER_HOST=ssh://[user@]host[:port] the
// way the docker CLI does: `ssh ... -- docker system dial-stdio` on the
// remote host, with the connection's bytes on the ssh process's stdin and
// stdout. Closing stdin is the half-close the attach stream needs.
// HOOKEXEC_SSH names another ssh program.
func sshDialer(host string) (func(ctx context.Context, network, addr string) (net.Conn, error), error) {
	u, err := url.Parse(host)
	if err != nil || u.Scheme != "ssh" || u.Hostname() == "" {
		return nil, fmt.Errorf("DOCKER_HOST %q: want ssh://[user@]host[:port]", host)
	}
	var args []string
	if u.User != nil {
		args = append(args, "-l", u.User.Username())
	}
	if p := u.Port(); p != "" {
		args = append(args, "-p", p)
	}
	args = append(args, "--", u.Hostname(), "docker", "system", "dial-stdio")
	prog := os.Getenv("HOOKEXEC_SSH")
	if prog == "" {
		prog = "ssh"
	}
	return func(ctx context.Context, _, _ string) (net.Conn, error) {
		cmd := exec.Command(prog, args...)
		in, err := cmd.StdinPipe()
		if err != nil {
			return nil, err
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			return nil, err
		}
		cmd.Stderr = io.Discard
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("start %s: %w", prog, err)
		}
		return &cmdConn{cmd: cmd, in: in, out: out}, nil
	}, nil
}

// cmdConn is a net.Conn over a process's stdin and stdout.
type cmdConn struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  io.ReadCloser
	once sync.Once
}

func (c *cmdConn) Read(p []byte) (int, error)  { return c.out.Read(p) }
func (c *cmdConn) Write(p []byte) (int, error) { return c.in.Write(p) }

// CloseWrite ends the stream towards the engine: the process's stdin.
func (c *cmdConn) CloseWrite() error { return c.in.Close() }

func (c *cmdConn) Close() error {
	c.once.Do(func() {
		c.in.Close()
		c.cmd.Process.Kill()
		c.cmd.Wait()
	})
	return nil
}

type cmdAddr struct{}

func (cmdAddr) Network() string { return "cmd" }
func (cmdAddr) String() string  { return "ssh" }

func (c *cmdConn) LocalAddr() net.Addr              { return cmdAddr{} }
func (c *cmdConn) RemoteAddr() net.Addr             { return cmdAddr{} }
func (c *cmdConn) SetDeadline(time.Time) error      { return nil }
func (c *cmdConn) SetReadDeadline(time.Time) error  { return nil }
func (c *cmdConn) SetWriteDeadline(time.Time) error { return nil }
