package docker

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/moby/moby/client"

	"github.com/hookexec/hook-exec/backend"
)

// SSH is the client options that reach the engine at host
// (ssh://[user@]host[:port]) through `prog -l user -p port -- host docker
// system dial-stdio`, as the docker CLI does: prog is the absolute path
// of an ssh program ($HOOKEXEC_SSH for New; "": ssh). Its sandboxes go
// through the engine's attach: the engine does not see this machine's
// files.
func SSH(host, prog string) ([]client.Opt, error) {
	dial, err := sshDialer(host, prog)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", backend.ErrEngine, err)
	}
	return []client.Opt{client.WithHost("http://docker.ssh"), client.WithDialContext(dial)}, nil
}

// sshDialer reaches an engine at DOCKER_HOST=ssh://[user@]host[:port] the
// way the docker CLI does: `ssh ... -- docker system dial-stdio` on the
// remote host, with the connection's bytes on the ssh process's stdin and
// stdout. Closing stdin is the half-close the attach stream needs. prog
// ("": ssh) must be an absolute path.
func sshDialer(host, prog string) (func(ctx context.Context, network, addr string) (net.Conn, error), error) {
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
	// The ssh program runs on the host: only an absolute path the user
	// chose, never one a relative name finds in a directory a project
	// may have put on PATH.
	if prog != "" && !filepath.IsAbs(prog) {
		return nil, fmt.Errorf("$HOOKEXEC_SSH %q: want the absolute path of an ssh program", prog)
	}
	if prog == "" {
		prog = "ssh"
	}
	return func(ctx context.Context, _, _ string) (net.Conn, error) {
		// The context bounds the dial only: the connection outlives it in the
		// client's pool, so the process is not tied to it.
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		cmd := exec.Command(prog, args...)
		in, err := cmd.StdinPipe()
		if err != nil {
			return nil, err
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			return nil, err
		}
		c := &cmdConn{cmd: cmd, prog: prog, in: in, out: out}
		cmd.Stderr = &c.stderr
		cmd.WaitDelay = sshWaitDelay
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("start %s: %w", prog, err)
		}
		return c, nil
	}, nil
}

// sshWaitDelay bounds how long a closed connection waits for ssh's pipes.
const sshWaitDelay = time.Second

// cmdConn is a net.Conn over a process's stdin and stdout; what the
// process says on stderr (ssh's own errors: a refused key, an unknown
// host) is kept, bounded, for the error of a connection that ends before
// the engine said anything.
type cmdConn struct {
	cmd    *exec.Cmd
	prog   string
	in     io.WriteCloser
	out    io.ReadCloser
	stderr tailBuffer
	read   bool // a byte came from the engine
	once   sync.Once
	waited sync.Once
}

// wait reaps the process once, whoever asks first.
func (c *cmdConn) wait() { c.waited.Do(func() { c.cmd.Wait() }) }

func (c *cmdConn) Read(p []byte) (int, error) {
	n, err := c.out.Read(p)
	if n > 0 {
		c.read = true
	}
	if err != nil && !c.read {
		c.wait() // stderr is complete once the process is gone
		if msg := c.stderr.String(); msg != "" {
			return n, fmt.Errorf("%s: %w: %s", c.prog, err, msg)
		}
	}
	return n, err
}

func (c *cmdConn) Write(p []byte) (int, error) { return c.in.Write(p) }

// CloseWrite ends the stream towards the engine: the process's stdin.
func (c *cmdConn) CloseWrite() error { return c.in.Close() }

func (c *cmdConn) Close() error {
	c.once.Do(func() {
		c.in.Close()
		c.cmd.Process.Kill()
		c.wait()
	})
	return nil
}

// tailBuffer keeps the last 2 KiB written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - 2048; over > 0 {
		t.buf = t.buf[over:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}

type cmdAddr struct{}

func (cmdAddr) Network() string { return "cmd" }
func (cmdAddr) String() string  { return "ssh" }

func (c *cmdConn) LocalAddr() net.Addr              { return cmdAddr{} }
func (c *cmdConn) RemoteAddr() net.Addr             { return cmdAddr{} }
func (c *cmdConn) SetDeadline(time.Time) error      { return nil }
func (c *cmdConn) SetReadDeadline(time.Time) error  { return nil }
func (c *cmdConn) SetWriteDeadline(time.Time) error { return nil }
