package backend

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ErrAgent: a reused sandbox's agent cannot be trusted with a further run
// (it never said ready, answered out of turn, a run's bytes passed for its
// answer, or its reset left something). The sandbox is retired.
var ErrAgent = errors.New("reused sandbox refused")

// verdictTimeout bounds the agent's reset after it answered a run.
const verdictTimeout = 10 * time.Second

// Agent is a sandbox whose program is hook-exec's agent (launcher's
// agent.sh): it serves several runs of one hook, one at a time, each
// answered and then reset, or it is retired.
type Agent struct {
	p      *Prepared
	in     io.WriteCloser
	out    *bufio.Reader
	outW   *io.PipeWriter
	stderr *Capture
	dead   chan struct{} // closed at the program's exit
	exit   Exit
	once   sync.Once
	// ooms is the host's count of the sandbox's OOM kills after the last
	// run (oomsKnown): the next run's count starts there, one read fewer.
	ooms      uint64
	oomsKnown bool
	// next is the run the agent was told of ahead (over a channel): the
	// agent has its frame and waits in the launcher, prepared, for the
	// run's input on FIFOs the host holds open.
	next *nextRun
}

// nextRun is a run announced ahead: its nonce, and its FIFOs.
type nextRun struct {
	nonce  string
	stream func(stdin []byte, stdout, stderr io.Writer) <-chan struct{}
}

// Agent takes the prepared sandbox (once, as Run would) for an agent and
// waits, within ctx, for it to say it is ready.
func (p *Prepared) Agent(ctx context.Context) (*Agent, error) {
	var a *Agent
	p.once.Do(func() {
		outR, outW := io.Pipe()
		a = &Agent{p: p, out: bufio.NewReader(outR), outW: outW, stderr: NewCapture(4096, nil), dead: make(chan struct{})}
		a.in = p.s.Duplex(outW, a.stderr.Stderr())
		go func() {
			a.exit = <-p.s.Exited()
			close(a.dead)
			outW.CloseWithError(io.EOF)
		}()
	})
	if a == nil {
		return nil, ErrUsed
	}
	line, err := a.line(ctx)
	if err == nil && line != "ready" {
		err = fmt.Errorf("%w: the agent said %q", ErrAgent, line)
	}
	if err != nil {
		a.Close()
		return nil, err
	}
	a.ahead()
	return a, nil
}

// ahead tells an agent over a channel of its next run before it comes: its
// frame now, and that run's FIFOs opened, so that the agent starts the
// launcher, which does all it can before its input comes (the sandbox is
// idle, no run waits). The nonce sits in the agent's memory, not in a FIFO
// a run could read: the agent reads the frame before the run starts.
func (a *Agent) ahead() {
	rs, ok := a.p.s.(runStreams)
	if !ok {
		return
	}
	a.next = &nextRun{nonce: newNonce(), stream: rs.nextRun()}
	go a.in.Write(fmt.Appendf(nil, "%s 0 0\n", a.next.nonce)) // ends with an error once the sandbox is gone
}

func newNonce() string {
	var nb [16]byte
	rand.Read(nb[:])
	return hex.EncodeToString(nb[:])
}

// line reads one line of the agent's stdout within ctx.
func (a *Agent) line(ctx context.Context) (string, error) {
	type result struct {
		s   string
		err error
	}
	ch := make(chan result, 1)
	go func() {
		s, err := a.out.ReadString('\n')
		ch <- result{strings.TrimSuffix(s, "\n"), err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			return "", a.deadErr(r.err)
		}
		return r.s, nil
	case <-ctx.Done():
		a.Close()
		<-ch
		return "", ctx.Err()
	}
}

// full reads exactly n bytes within ctx.
func (a *Agent) full(ctx context.Context, n int64) ([]byte, error) {
	ch := make(chan error, 1)
	b := make([]byte, n)
	go func() {
		_, err := io.ReadFull(a.out, b)
		ch <- err
	}()
	select {
	case err := <-ch:
		if err != nil {
			return nil, a.deadErr(err)
		}
		return b, nil
	case <-ctx.Done():
		a.Close()
		<-ch
		return nil, ctx.Err()
	}
}

// Alive reports whether the agent still runs.
func (a *Agent) Alive() bool { return !a.died() }

func (a *Agent) died() bool {
	select {
	case <-a.dead:
		return true
	default:
		return false
	}
}

func (a *Agent) deadErr(err error) error {
	select {
	case <-a.dead:
		var out Outcome
		a.stderr.Fill(&out)
		return fmt.Errorf("%w: the agent ended (exit %d, %v): %s", ErrAgent, a.exit.Code, a.exit.Err, bytes.TrimSpace(out.Stderr))
	default:
		return fmt.Errorf("%w: %w", ErrAgent, err)
	}
}

// Run hands the agent one run's input (the pooled launcher's: header,
// environment, script, event) and reads its answer; ctx's deadline is the
// run's timeout. At the deadline, or on any error, the sandbox is retired
// (the outcome says TimedOut; an error wraps ErrAgent or ErrEngine). The
// reset that follows the answer is reported on verdict, once: nil when
// the sandbox may serve the hook again.
func (a *Agent) Run(ctx context.Context, input []byte, maxOutput int64) (_ *Outcome, verdict <-chan error, _ error) {
	begin := time.Now()
	// Over a channel the run was announced ahead and has FIFOs of its own:
	// its input goes there, and its output comes back there, counted and
	// capped here; a run past the cap is ended as a streamed one is.
	var capture *Capture
	var outputEnded <-chan struct{}
	next := a.next
	a.next = nil
	overChannel := next != nil
	if _, ok := a.p.s.(runStreams); ok && !overChannel {
		a.Close()
		return nil, nil, fmt.Errorf("%w: no run announced ahead", ErrAgent)
	}
	var nonce string
	var frame []byte
	if !overChannel {
		nonce = newNonce()
		frame = fmt.Appendf(nil, "%s %d %d\n", nonce, len(input), maxOutput)
	} else {
		nonce = next.nonce
		var cancel context.CancelCauseFunc
		ctx, cancel = context.WithCancelCause(ctx)
		defer cancel(nil)
		capture = NewCapture(maxOutput, func() { cancel(errOutputCapped) })
		outputEnded = next.stream(input, capture.Stdout(), capture.Stderr())
		input = nil
	}
	// Where the engine counts OOM kills on the host, the run's are what
	// the counter gained: the agent, inside, may see no cgroup at all.
	before, hostCounts := a.ooms, a.oomsKnown
	if !hostCounts {
		before, hostCounts = a.p.s.OOMKills(ctx)
	}
	hostOOM := func() bool {
		after, ok := a.p.s.OOMKills(ctx)
		a.ooms, a.oomsKnown = after, ok
		return hostCounts && ok && after > before
	}
	if frame != nil {
		go a.in.Write(append(frame, input...)) // ends with an error once the sandbox is gone
	}
	line, err := a.line(ctx)
	if errors.Is(context.Cause(ctx), errOutputCapped) {
		// Retired, as at a deadline (a.line did, unless the answer came
		// with the byte past the cap); what was read is the run's.
		a.Close()
		out := &Outcome{ExitCode: KilledExitCode, Signal: "SIGKILL", OOMKilled: hostOOM(), Duration: time.Since(begin)}
		capture.Fill(out)
		out.Phases.Stream = out.Duration
		return out, nil, nil
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		out := &Outcome{ExitCode: KilledExitCode, Signal: "SIGKILL", TimedOut: true, OOMKilled: hostOOM(), Duration: time.Since(begin)}
		out.Phases.Stream = out.Duration
		return out, nil, nil
	}
	if err != nil {
		if a.died() && a.p.s.OOMKilled(ctx, a.exit.Code, false) {
			// The kernel killed the agent itself for memory: the run's OOM.
			out := &Outcome{ExitCode: a.exit.Code, Signal: SignalName(a.exit.Code), OOMKilled: true, Duration: time.Since(begin)}
			out.Phases.Stream = out.Duration
			a.Close()
			return out, nil, nil
		}
		a.Close()
		return nil, nil, err
	}
	status, outLen, errLen, ooms, err := parseAnswer(line, nonce)
	if err != nil {
		a.Close()
		return nil, nil, err
	}
	streamed := time.Now()
	var out *Outcome
	if overChannel {
		// Every process of the run is gone: its output ends now, and its
		// input's write fails, or something the agent could not end holds
		// them.
		select {
		case <-outputEnded:
		case <-time.After(DrainGrace):
			err = fmt.Errorf("%w: the run's output did not end after its answer", ErrAgent)
		}
		out = &Outcome{}
		capture.Fill(out)
	} else {
		out, err = a.readOutput(ctx, outLen, errLen, maxOutput)
	}
	if err != nil {
		a.Close()
		return nil, nil, err
	}
	out.ExitCode, out.OOMKilled = int(status), ooms > 0 || hostOOM()
	out.Signal = SignalName(out.ExitCode)
	out.Phases.Stream = streamed.Sub(begin)
	out.Phases.Exit = time.Since(streamed)
	out.Duration = time.Since(begin)
	return out, a.verdict(nonce), nil
}

// readOutput reads the run's stdout and stderr after the answer line (of
// outLen and errLen bytes), keeping at most maxOutput of them together.
func (a *Agent) readOutput(ctx context.Context, outLen, errLen, maxOutput int64) (*Outcome, error) {
	stdout, err := a.full(ctx, min(outLen, maxOutput+1))
	var stderr []byte
	if err == nil {
		stderr, err = a.full(ctx, min(errLen, maxOutput+1))
	}
	if err != nil {
		return nil, err
	}
	out := &Outcome{StdoutBytes: outLen, StderrBytes: errLen}
	room := maxOutput
	out.Stdout = stdout[:min(int64(len(stdout)), room)]
	room -= int64(len(out.Stdout))
	out.Stderr = stderr[:min(int64(len(stderr)), room)]
	out.Truncated = outLen+errLen > maxOutput
	return out, nil
}

// parseAnswer reads the agent's answer line for the run of nonce: "NONCE
// STATUS STDOUT-BYTES STDERR-BYTES OOM-KILLS".
func parseAnswer(line, nonce string) (status, outLen, errLen, ooms int64, _ error) {
	f := strings.Fields(line)
	if len(f) != 5 || f[0] != nonce {
		return 0, 0, 0, 0, fmt.Errorf("%w: an answer not the agent's (%.40q): a run wrote into its stdout", ErrAgent, line)
	}
	var n [4]int64
	for i := range n {
		var err error
		if n[i], err = strconv.ParseInt(f[i+1], 10, 64); err != nil || n[i] < 0 {
			return 0, 0, 0, 0, fmt.Errorf("%w: answer %.60q", ErrAgent, line)
		}
	}
	return n[0], n[1], n[2], n[3], nil
}

// errOutputCapped ends a run over a channel whose output passed the cap.
var errOutputCapped = errors.New("output past the cap")

// runStreams is a sandbox whose resident program takes each run's stdin,
// stdout and stderr on FIFOs of their own (a channel's), opened ahead of
// the run by nextRun; the function it returns writes the input and closes
// it, and copies the output into the writers; the channel it returns is
// closed when both outputs have ended and the input is closed.
type runStreams interface {
	nextRun() func(stdin []byte, stdout, stderr io.Writer) <-chan struct{}
}

// verdict reads the reset's report that follows a run's answer, once.
func (a *Agent) verdict(nonce string) <-chan error {
	v := make(chan error, 1)
	go func() {
		vctx, cancel := context.WithTimeout(context.Background(), verdictTimeout)
		defer cancel()
		line, err := a.line(vctx)
		switch {
		case err != nil:
		case line == nonce+" clean":
			a.ahead()
		default:
			err = fmt.Errorf("%w: the reset after the run: %s", ErrAgent, strings.TrimPrefix(line, nonce+" "))
		}
		if err != nil {
			a.Close()
		}
		v <- err
	}()
	return v
}

// Close retires the sandbox: killed, released and removed (in the
// background, as after any run).
func (a *Agent) Close() {
	a.once.Do(func() {
		kctx, cancel := context.WithTimeout(context.Background(), KillGrace)
		a.p.s.Kill(kctx)
		cancel()
		a.in.Close()
		a.outW.CloseWithError(io.EOF)
		a.p.s.Release()
		a.p.cleanups.Go(func() error { return a.p.s.Remove(context.Background()) })
	})
}
