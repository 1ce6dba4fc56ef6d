// Package hostcall hands a host command (hook-exec run, dispatch, the host
// chains) to the user's hook-exec server, which runs it as the command
// would run in a process of its own, and gives back what it wrote and its
// exit status. It is what the hook-exec front runs before anything heavy:
// it imports nothing of the engines, so a call that a server answers costs
// a process start and a socket round trip.
//
// A call is one connection: the client sends {"command": Command} on one
// line; the server answers with Reply lines, each either a Read (the
// command reads stdin: the client answers with one Chunk line) or the end
// (a Result, or Declined when the server does not run this command line the
// way the client's own process would, or an Error).
package hostcall

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// Commands are the host commands (after "hook-exec"): those a host runs
// once per event, which the front hands to the user's server first.
var Commands = []string{"run", "dispatch", "arcturn hooks run", "bernstein hooks run"}

// Env is the environment a host command's engine, runtime and state are
// decided by, and where its run's spans go: a server runs a call only
// where the client's values of these are its own (a call that asks for
// spans the server would not send runs in its own process, which sends
// them).
var Env = []string{
	"HOOKEXEC_BACKEND", "HOOKEXEC_RUNTIME", "HOOKEXEC_CONTAINERD_ADDRESS", "HOOKEXEC_CONTAINERD_SNAPSHOTTER",
	"HOOKEXEC_SSH", "HOOKEXEC_STATE_DIR", "HOOKEXEC_REAPER",
	"DOCKER_HOST", "DOCKER_TLS_VERIFY", "DOCKER_CERT_PATH", "DOCKER_API_VERSION", "DOCKER_CONTEXT", "DOCKER_CONFIG",
	"KUBECONFIG", "XDG_STATE_HOME", "HOME",
	"OTEL_SDK_DISABLED", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL",
	"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
}

// EnvOf is the values of Env that getenv has (unset ones are absent).
func EnvOf(lookup func(string) (string, bool)) map[string]string {
	m := map[string]string{}
	for _, k := range Env {
		if v, ok := lookup(k); ok {
			m[k] = v
		}
	}
	return m
}

// Command is a command line handed to a server.
type Command struct {
	// Argv is the command line after the program's name.
	Argv []string `json:"argv"`
	// Cwd is the client's working directory: relative paths start there.
	Cwd string `json:"cwd"`
	// Env is the client's EnvOf.
	Env map[string]string `json:"env"`
	// StdinTTY: the client's stdin is a terminal (the command reads no
	// event from it).
	StdinTTY bool `json:"stdin_tty,omitempty"`
}

// Reply is one line of the server's during a call: exactly one member set.
type Reply struct {
	Read     *Read   `json:"read,omitempty"`
	Result   *Result `json:"result,omitempty"`
	Declined string  `json:"declined,omitempty"`
	Error    string  `json:"error,omitempty"`
}

// Read asks for at most Max bytes of the client's stdin, waiting no longer
// than WaitMS for them (0: as long as it takes).
type Read struct {
	Max    int   `json:"max"`
	WaitMS int64 `json:"wait_ms,omitempty"`
}

// Chunk answers a Read: the bytes read (fewer than asked is no end), EOF
// once stdin has ended, TimedOut when the wait ran out first.
type Chunk struct {
	Data     []byte `json:"data"`
	EOF      bool   `json:"eof,omitempty"`
	TimedOut bool   `json:"timed_out,omitempty"`
}

// Result is what the command wrote and its exit status.
type Result struct {
	Stdout []byte `json:"stdout,omitempty"`
	Stderr []byte `json:"stderr,omitempty"`
	Exit   int    `json:"exit"`
}

// MaxRead bounds one Read.
const MaxRead = 1 << 20

// Off, as $HOOKEXEC_SERVER, keeps every command in its own process.
const Off = "off"

// Socket is the server's socket: $HOOKEXEC_SERVER when set, else the
// user's: hook-exec/server.sock in $XDG_RUNTIME_DIR, else
// /tmp/hook-exec-UID/server.sock (never $TMPDIR, which an installed,
// sealed command does not see: the user's shell and the hooks find one
// socket). One socket per user, whatever the state directory: a server
// started for a call is never one of many (a test suite's state
// directories each had their own, idle for 15 minutes after it). named
// says it was $HOOKEXEC_SERVER's; "" with no error: $HOOKEXEC_SERVER is
// off.
func Socket(getenv func(string) string) (path string, named bool, err error) {
	if p := getenv("HOOKEXEC_SERVER"); p != "" {
		if p == Off {
			return "", true, nil
		}
		if !filepath.IsAbs(p) {
			return "", true, fmt.Errorf("$HOOKEXEC_SERVER %q: want an absolute path, or %s", p, Off)
		}
		return p, true, nil
	}
	if d := getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(d) {
		return filepath.Join(d, "hook-exec", "server.sock"), false, nil
	}
	// Its directory is the user's alone (serve refuses one that is not);
	// one another user made first leaves the calls in their own processes.
	return filepath.Join("/tmp", fmt.Sprintf("hook-exec-%d", os.Getuid()), "server.sock"), false, nil
}

var (
	// ErrNoServer: no server answers on the socket (nothing was sent).
	ErrNoServer = errors.New("no server answers")
	// ErrDeclined: the server does not run this command line (see
	// [DeclinedError]); nothing of stdin was read.
	ErrDeclined = errors.New("the server declined the call")
	// ErrNotOwn: what answers on the socket is not a process of this user.
	ErrNotOwn = errors.New("the server is not this user's")
)

// DeclinedError says why a server declined a call.
type DeclinedError struct{ Reason string }

func (e *DeclinedError) Error() string        { return fmt.Sprintf("%v: %s", ErrDeclined, e.Reason) }
func (e *DeclinedError) Is(target error) bool { return target == ErrDeclined }

// CallError is a call that failed after it was sent; Read holds the bytes
// of stdin the server read before it failed (the command may be run again
// in a process of its own, on them and what is left of stdin), Rest what is
// left when Call read ahead of the server (nil: stdin itself).
type CallError struct {
	Err  error
	Read []byte
	Rest io.Reader
}

func (e *CallError) Error() string { return fmt.Sprintf("the server failed the call: %v", e.Err) }
func (e *CallError) Unwrap() error { return e.Err }

// Call hands c to the server on socket and writes its Result's output to
// stdout and stderr, returning its exit status. stdin is read only as the
// server asks. The error is ErrNoServer, a *DeclinedError, ErrNotOwn, or a
// *CallError; after one of these nothing was written to stdout or stderr.
func Call(socket string, c Command, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	conn, err := dial(socket)
	if err != nil {
		return 0, fmt.Errorf("%w on %s: %v", ErrNoServer, socket, err)
	}
	defer conn.Close()
	if err := checkOwn(conn); err != nil {
		return 0, fmt.Errorf("%w: %s: %v", ErrNotOwn, socket, err)
	}
	req, err := json.Marshal(struct {
		Command Command `json:"command"`
	}{c})
	if err != nil {
		return 0, &CallError{Err: err}
	}
	if _, err := conn.Write(append(req, '\n')); err != nil {
		return 0, &CallError{Err: err}
	}
	r := bufio.NewReaderSize(conn, 64<<10)
	var read []byte // what the server was given of stdin
	in := &stdinReader{r: stdin}
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return 0, &CallError{Err: fmt.Errorf("read reply: %w", err), Read: read, Rest: in.rest()}
		}
		var rep Reply
		if err := json.Unmarshal(line, &rep); err != nil {
			return 0, &CallError{Err: fmt.Errorf("decode reply: %w", err), Read: read, Rest: in.rest()}
		}
		switch {
		case rep.Read != nil:
			ch := in.read(*rep.Read)
			read = append(read, ch.Data...)
			b, err := json.Marshal(ch)
			if err == nil {
				_, err = conn.Write(append(b, '\n'))
			}
			if err != nil {
				return 0, &CallError{Err: fmt.Errorf("send stdin: %w", err), Read: read, Rest: in.rest()}
			}
		case rep.Result != nil:
			if _, err := stdout.Write(rep.Result.Stdout); err != nil {
				return 0, err
			}
			stderr.Write(rep.Result.Stderr)
			return rep.Result.Exit, nil
		case rep.Declined != "" && len(read) == 0 && !in.eof:
			return 0, &DeclinedError{rep.Declined}
		case rep.Error != "":
			return 0, &CallError{Err: errors.New(rep.Error), Read: read, Rest: in.rest()}
		default:
			return 0, &CallError{Err: fmt.Errorf("a reply of nothing known: %.200q", line), Read: read, Rest: in.rest()}
		}
	}
}

// stdinReader reads the client's stdin as the server asks: a read that
// must end within a wait is done in the background, and what it reads
// late is given with the next Read.
type stdinReader struct {
	r       io.Reader
	eof     bool
	pending chan readResult // a read still waiting, started by a bounded Read
	held    []byte          // read ahead, not yet sent
	eofHeld bool            // stdin ended after held
}

// rest is what is left of stdin after what was sent: bytes read ahead,
// then a read still in flight, then stdin; nil when nothing is ahead.
func (s *stdinReader) rest() io.Reader {
	if len(s.held) == 0 && s.pending == nil && !s.eof {
		return nil
	}
	return &restReader{s}
}

type restReader struct{ s *stdinReader }

func (r *restReader) Read(p []byte) (int, error) {
	s := r.s
	if len(s.held) > 0 {
		n := copy(p, s.held)
		s.held = s.held[n:]
		return n, nil
	}
	if s.pending != nil {
		res := <-s.pending
		s.pending = nil
		if res.err != nil {
			s.eof = true
		}
		s.held = res.b
		return r.Read(p)
	}
	if s.eof {
		return 0, io.EOF
	}
	return s.r.Read(p)
}

// start reads at most n bytes in the background.
func (s *stdinReader) start(n int) chan readResult {
	ch := make(chan readResult, 1)
	go func() {
		b := make([]byte, n)
		k, err := s.r.Read(b)
		ch <- readResult{b[:k], err}
	}()
	return ch
}

type readResult struct {
	b   []byte
	err error
}

func (s *stdinReader) read(rd Read) Chunk {
	if s.eof {
		return Chunk{EOF: true}
	}
	n := min(max(rd.Max, 1), MaxRead)
	if len(s.held) > 0 {
		k := min(n, len(s.held))
		b := s.held[:k]
		s.held = s.held[k:]
		s.eof = len(s.held) == 0 && s.eofHeld
		return Chunk{Data: b, EOF: s.eof}
	}
	if s.pending == nil {
		s.pending = s.start(n)
	}
	var res readResult
	if rd.WaitMS > 0 {
		t := time.NewTimer(time.Duration(rd.WaitMS) * time.Millisecond)
		defer t.Stop()
		select {
		case res = <-s.pending:
		case <-t.C:
			return Chunk{TimedOut: true}
		}
	} else {
		res = <-s.pending
	}
	s.pending = nil
	if res.err != nil {
		s.eof = true // an error reading stdin ends it, as for the command's own reads
	}
	if !s.eof && len(res.b) > 0 && len(res.b) < n {
		// A host writes its event and closes: the end is usually there
		// already, and sent with the bytes it saves the server a round trip
		// to ask for it. The next read goes on in the background either way.
		s.pending = s.start(n)
		t := time.NewTimer(eofGrace)
		defer t.Stop()
		select {
		case next := <-s.pending:
			s.pending = nil
			s.held = next.b // the next Read's
			if next.err != nil {
				s.eofHeld = true
				s.eof = len(next.b) == 0
			}
		case <-t.C:
		}
	}
	return Chunk{Data: res.b, EOF: s.eof}
}

// eofGrace is how long a read that got bytes waits for stdin's end.
var eofGrace = time.Millisecond
