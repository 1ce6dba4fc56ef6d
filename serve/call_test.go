package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookexec/hook-exec/serve/hostcall"
)

// callServer runs a Server whose command lines go to run.
func callServer(t *testing.T, run CommandRunner, idle time.Duration) (string, context.CancelFunc, <-chan error) {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "run", "s.sock")
	ln, err := Listen(sock, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	done := make(chan error, 1)
	go func() { done <- (&Server{Commands: run, IdleExit: idle, Status: Status{PID: 7}}).Serve(ctx, ln) }()
	return sock, cancel, done
}

func TestCallRunsTheCommandOnTheClientsStdin(t *testing.T) {
	t.Parallel()
	var gotArgv []string
	var gotTTY bool
	sock, _, _ := callServer(t, func(ctx context.Context, c hostcall.Command, in *Stdin, stdout, stderr io.Writer) (int, error) {
		gotArgv, gotTTY = c.Argv, in.IsTerminal()
		b, err := io.ReadAll(in)
		if err != nil {
			return 0, err
		}
		fmt.Fprintf(stdout, "read %q", b)
		fmt.Fprint(stderr, "a line on stderr")
		return 2, nil
	}, 0)
	event := strings.Repeat("x", 3*hostcall.MaxRead+5) // several reads
	var out, errb bytes.Buffer
	exit, err := hostcall.Call(sock, hostcall.Command{Argv: []string{"run", "--script", "g.sh"}, Cwd: "/"}, strings.NewReader(event), &out, &errb)
	if err != nil {
		t.Fatal(err)
	}
	if exit != 2 || out.String() != fmt.Sprintf("read %q", event) || errb.String() != "a line on stderr" {
		t.Errorf("exit %d, stdout %.40q, stderr %q: want 2, what was read, the line", exit, out.String(), errb.String())
	}
	if strings.Join(gotArgv, " ") != "run --script g.sh" || gotTTY {
		t.Errorf("argv %q, tty %v", gotArgv, gotTTY)
	}
}

func TestCallDeclinedBeforeStdinIsDeclined(t *testing.T) {
	t.Parallel()
	sock, _, _ := callServer(t, func(context.Context, hostcall.Command, *Stdin, io.Writer, io.Writer) (int, error) {
		return 0, &hostcall.DeclinedError{Reason: "another engine"}
	}, 0)
	var out bytes.Buffer
	_, err := hostcall.Call(sock, hostcall.Command{Cwd: "/"}, strings.NewReader("{}"), &out, &out)
	var de *hostcall.DeclinedError
	if !errors.As(err, &de) || de.Reason != "another engine" || out.Len() != 0 {
		t.Errorf("error %v, output %q: want the declined reason and nothing written", err, out.String())
	}
}

// A runner that declines after it read stdin cannot be declined any more:
// the client gets a failed call holding the bytes read, to run them again.
func TestCallDeclinedAfterStdinFailsWithWhatWasRead(t *testing.T) {
	t.Parallel()
	sock, _, _ := callServer(t, func(_ context.Context, _ hostcall.Command, in *Stdin, _, _ io.Writer) (int, error) {
		b := make([]byte, 4)
		io.ReadFull(in, b)
		return 0, &hostcall.DeclinedError{Reason: "too late"}
	}, 0)
	_, err := hostcall.Call(sock, hostcall.Command{Cwd: "/"}, strings.NewReader(`{"a":1}`), io.Discard, io.Discard)
	var ce *hostcall.CallError
	if !errors.As(err, &ce) || !strings.HasPrefix(`{"a":1}`, string(ce.Read)) || len(ce.Read) == 0 {
		t.Fatalf("error %v: want a CallError with the bytes read", err)
	}
}

// A read with a deadline on a stdin the client leaves open ends at the
// deadline, as a file's read would; what comes later is the next read's.
func TestCallStdinDeadline(t *testing.T) {
	t.Parallel()
	type got struct {
		first, second error
		late          string
		waited        time.Duration
	}
	ch := make(chan got, 1)
	sock, _, _ := callServer(t, func(_ context.Context, _ hostcall.Command, in *Stdin, _, _ io.Writer) (int, error) {
		var g got
		in.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		start := time.Now()
		_, g.first = in.Read(make([]byte, 10))
		g.waited = time.Since(start)
		in.SetReadDeadline(time.Time{})
		b := make([]byte, 10)
		n, err := in.Read(b)
		g.second, g.late = err, string(b[:n])
		ch <- g
		return 0, nil
	}, 0)
	r, w := io.Pipe()
	go func() {
		time.Sleep(300 * time.Millisecond)
		w.Write([]byte("late"))
		w.Close()
	}()
	if _, err := hostcall.Call(sock, hostcall.Command{Cwd: "/"}, r, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	g := <-ch
	if !errors.Is(g.first, ErrStdinDeadline) || !os.IsTimeout(g.first) || !errors.Is(g.first, os.ErrDeadlineExceeded) {
		t.Errorf("first read: %v, want ErrStdinDeadline, a timeout", g.first)
	}
	if g.waited < 100*time.Millisecond {
		t.Errorf("the first read ended after %v, before its deadline", g.waited)
	}
	if g.second != nil || g.late != "late" {
		t.Errorf("second read: %q, %v; want the late bytes", g.late, g.second)
	}
}

func TestCallWithoutARunnerIsDeclined(t *testing.T) {
	t.Parallel()
	sock, _, _ := callServer(t, nil, 0)
	_, err := hostcall.Call(sock, hostcall.Command{Cwd: "/"}, strings.NewReader(""), io.Discard, io.Discard)
	if !errors.Is(err, hostcall.ErrDeclined) {
		t.Errorf("error %v, want ErrDeclined", err)
	}
}

func TestControlStatusAndStop(t *testing.T) {
	t.Parallel()
	sock, _, done := callServer(t, nil, 0)
	c := dial(t, sock)
	resp, err := c.Run(context.Background(), Request{Control: "status"})
	if err != nil || resp.Status == nil || resp.Status.PID != 7 || resp.Status.InFlight != 0 {
		t.Fatalf("status: %+v, %v; want pid 7, nothing in flight", resp, err)
	}
	if _, err := c.Run(context.Background(), Request{Control: "reboot"}); !errors.Is(err, ErrServer) {
		t.Errorf("control reboot: %v, want ErrServer", err)
	}
	if _, err := c.Run(context.Background(), Request{Control: "stop"}); err != nil {
		t.Fatalf("stop: %v", err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve after stop: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the server did not stop")
	}
	if _, err := os.Lstat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the socket is still there after stop: %v", err)
	}
}

// An idle server stops by itself; one with a connection open does not.
func TestIdleExit(t *testing.T) {
	t.Parallel()
	const idle = 200 * time.Millisecond
	sock, _, done := callServer(t, nil, idle)
	c := dial(t, sock) // held open: the server is not idle
	select {
	case <-done:
		t.Fatal("the server stopped with a connection open")
	case <-time.After(3 * idle):
	}
	c.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the idle server did not stop")
	}
}

// Two servers started at once on one socket: the second finds the first's
// lock, whether or not the first is listening yet.
func TestListenLocksTheSocket(t *testing.T) {
	t.Parallel()
	sock := filepath.Join(t.TempDir(), "run", "s.sock")
	ln, err := Listen(sock, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Listen(sock, nil); !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), ".lock is held") {
		t.Errorf("second Listen: %v, want ErrInUse naming the lock", err)
	}
	ln.Close()
	ln2, err := Listen(sock, nil)
	if err != nil {
		t.Fatalf("Listen after the first closed: %v", err)
	}
	ln2.Close()
}

// chunks is a stdin that gives its pieces one Read each, then EOF.
type chunks struct{ pieces []string }

func (c *chunks) Read(p []byte) (int, error) {
	if len(c.pieces) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.pieces[0])
	c.pieces[0] = c.pieces[0][n:]
	if c.pieces[0] == "" {
		c.pieces = c.pieces[1:]
	}
	return n, nil
}

// The client reads ahead of the server (the end of stdin comes with its
// bytes): nothing read ahead is lost, whether the call answers or fails.
func TestCallReadAhead(t *testing.T) {
	t.Parallel()
	sock, _, _ := callServer(t, func(_ context.Context, _ hostcall.Command, in *Stdin, stdout, _ io.Writer) (int, error) {
		b, err := io.ReadAll(in)
		fmt.Fprintf(stdout, "%s", b)
		return 0, err
	}, 0)
	var out bytes.Buffer
	if _, err := hostcall.Call(sock, hostcall.Command{Cwd: "/"}, &chunks{[]string{"ab", "cd", "ef"}}, &out, io.Discard); err != nil || out.String() != "abcdef" {
		t.Errorf("read %q, %v; want abcdef", out.String(), err)
	}
	failing, _, _ := callServer(t, func(_ context.Context, _ hostcall.Command, in *Stdin, _, _ io.Writer) (int, error) {
		in.Read(make([]byte, 1))
		return 0, errors.New("the server failed")
	}, 0)
	_, err := hostcall.Call(failing, hostcall.Command{Cwd: "/"}, &chunks{[]string{"ab", "cd", "ef"}}, io.Discard, io.Discard)
	var ce *hostcall.CallError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v, want a CallError", err)
	}
	if ce.Rest == nil {
		t.Fatalf("read %q and no rest: the bytes read ahead are lost", ce.Read)
	}
	rest, _ := io.ReadAll(ce.Rest)
	if got := string(ce.Read) + string(rest); got != "abcdef" {
		t.Errorf("read %q then %q: want abcdef in all", ce.Read, rest)
	}
}
