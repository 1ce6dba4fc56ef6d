package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/hookexec/hook-exec/serve/hostcall"
)

// CommandRunner runs a command line a client handed over (a
// hostcall.Command) as the client's own process would run it, and returns
// its exit status. It returns a *hostcall.DeclinedError, before it reads
// any of stdin, when this server would not run it that way (another
// engine, another state directory, a command it does not take): the client
// then runs it in its own process.
type CommandRunner func(ctx context.Context, c hostcall.Command, stdin *Stdin, stdout, stderr io.Writer) (int, error)

// maxCallOutput bounds what one call may write to stdout and stderr
// together: more is a failed call, which the client runs in its own
// process.
const maxCallOutput = 16 << 20

// call runs one hostcall.Command on the connection, then closes it. done
// is told the outcome (ok, declined or error) before the last reply goes,
// so that whoever counts the calls has counted this one when its client
// has the answer.
func (s *Server) call(ctx context.Context, c net.Conn, r *bufio.Reader, cmd hostcall.Command, done func(outcome string)) {
	w := &replies{c: c}
	finish := func(outcome string, rep hostcall.Reply) {
		done(outcome)
		w.send(rep)
	}
	if s.Commands == nil {
		finish("declined", hostcall.Reply{Declined: "this server takes no command lines"})
		return
	}
	in := &Stdin{r: r, w: w, tty: cmd.StdinTTY}
	var out output
	stdout, stderr := &capped{o: &out}, &capped{o: &out}
	exit, err := s.Commands(ctx, cmd, in, stdout, stderr)
	var declined *hostcall.DeclinedError
	switch {
	case errors.As(err, &declined) && !in.touched:
		finish("declined", hostcall.Reply{Declined: declined.Reason})
	case err != nil:
		finish("error", hostcall.Reply{Error: err.Error()})
	case out.over:
		finish("error", hostcall.Reply{Error: fmt.Sprintf("the command wrote more than %d bytes", maxCallOutput)})
	default:
		finish("ok", hostcall.Reply{Result: &hostcall.Result{Stdout: stdout.b.Bytes(), Stderr: stderr.b.Bytes(), Exit: exit}})
	}
}

// replies writes Reply lines to a call's connection.
type replies struct {
	mu  sync.Mutex
	c   net.Conn
	err error
}

func (w *replies) send(r hostcall.Reply) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	b, err := json.Marshal(r)
	if err == nil {
		_, err = w.c.Write(append(b, '\n'))
	}
	w.err = err
	return err
}

// Stdin is a call's stdin: the client's, read as the command reads it.
type Stdin struct {
	r        *bufio.Reader
	w        *replies
	tty      bool
	buf      []byte
	eof      bool
	err      error
	deadline time.Time
	touched  bool // a Read was sent: the call can no longer be declined
}

// IsTerminal reports whether the client's stdin is a terminal.
func (s *Stdin) IsTerminal() bool { return s.tty }

// SetReadDeadline bounds the reads that follow (zero: no bound); a read
// past it fails with os.ErrDeadlineExceeded, as a file's would.
func (s *Stdin) SetReadDeadline(t time.Time) error {
	s.deadline = t
	return nil
}

// ErrStdinDeadline: a read of a call's stdin ran past its deadline. It is
// a timeout, and os.ErrDeadlineExceeded, as a file's read would fail.
var ErrStdinDeadline error = deadlineError{}

type deadlineError struct{}

func (deadlineError) Error() string        { return "read stdin: i/o timeout" }
func (deadlineError) Timeout() bool        { return true }
func (deadlineError) Is(target error) bool { return target == os.ErrDeadlineExceeded }

func (s *Stdin) Read(p []byte) (int, error) {
	for len(s.buf) == 0 {
		if s.eof {
			return 0, io.EOF
		}
		if s.err != nil {
			return 0, s.err
		}
		if len(p) == 0 {
			return 0, nil
		}
		// Asked for 64 KiB at least: a host's event then comes in one
		// round trip, whatever the command's buffer (the rest waits here).
		rd := hostcall.Read{Max: min(max(len(p), 64<<10), hostcall.MaxRead)}
		if !s.deadline.IsZero() {
			wait := time.Until(s.deadline)
			if wait <= 0 {
				return 0, ErrStdinDeadline
			}
			rd.WaitMS = int64((wait + time.Millisecond - 1) / time.Millisecond) // not before the deadline
		}
		s.touched = true
		if err := s.w.send(hostcall.Reply{Read: &rd}); err != nil {
			s.err = fmt.Errorf("ask for stdin: %w", err)
			return 0, s.err
		}
		line, err := readLine(s.r)
		if err != nil {
			s.err = fmt.Errorf("read stdin: %w", err)
			return 0, s.err
		}
		var ch hostcall.Chunk
		if err := jsonv2.Unmarshal(line, &ch, jsonv2.RejectUnknownMembers(true)); err != nil {
			s.err = fmt.Errorf("read stdin: %w", err)
			return 0, s.err
		}
		if ch.TimedOut {
			return 0, ErrStdinDeadline
		}
		s.buf, s.eof = ch.Data, ch.EOF
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	return n, nil
}

// output counts what a call's stdout and stderr took together.
type output struct {
	n    int
	over bool
}

// capped is a buffer of a call's output, refusing writes past
// maxCallOutput for both together.
type capped struct {
	b bytes.Buffer
	o *output
}

func (c *capped) Write(p []byte) (int, error) {
	if c.o.n+len(p) > maxCallOutput {
		c.o.over = true
		return 0, errors.New("output over the call's bound")
	}
	c.o.n += len(p)
	return c.b.Write(p)
}
