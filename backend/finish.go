package backend

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// Bounds of the steps of a finish that run after the caller's deadline.
const (
	// KillGrace bounds a kill request, and what a run waits after its kill
	// for the exit and the output: a killed run is answered at most this
	// long after its deadline or its output cap, however slow the engine.
	KillGrace = 3 * time.Second
	// DrainGrace bounds the wait for the output streams to end after an
	// exit nobody asked for.
	DrainGrace = 2 * time.Second
)

// ErrNoExit: a killed program's exit was not reported within the grace.
// The kill stands: the sandbox is force-removed after the answer, which
// ends every process in it.
var ErrNoExit = errors.New("no exit reported after the kill")

// ErrOutputIncomplete: the program exited on its own, but its output
// streams did not end within DrainGrace; what was read may not be all.
var ErrOutputIncomplete = errors.New("output streams did not end after the exit: the output may be incomplete")

// KilledExitCode is the status reported for a program killed with SIGKILL
// whose own exit the engine did not report in time.
const KilledExitCode = 128 + 9

// awaitExit waits for the program's exit. When ctx ends (timedOut) or
// limitC closes (the output cap), it calls kill once and waits at most
// grace more.
func awaitExit(ctx context.Context, exitC <-chan Exit, limitC <-chan struct{}, kill func(), grace time.Duration) (exit Exit, killed, timedOut bool, err error) {
	var killTimer <-chan time.Time
	deadline := ctx.Done()
	doKill := func() {
		if !killed {
			killed = true
			kill()
			killTimer = time.After(grace)
		}
	}
	for {
		select {
		case <-deadline:
			deadline, timedOut = nil, true
			doKill()
		case <-limitC:
			limitC = nil
			doKill()
		case exit = <-exitC:
			return exit, killed, timedOut, nil
		case <-killTimer:
			return exit, killed, timedOut, fmt.Errorf("%w within %v", ErrNoExit, grace)
		}
	}
}

// Exit is a program's end as its engine reports it.
type Exit struct {
	Code int
	// Err: the engine could not say how the program ended (an ErrEngine).
	Err error
}

// Started is the engine's side of a sandbox whose program was started
// and waits on stdin: what [Prepared] drives to the end of its one run.
type Started interface {
	// Stream writes stdin to the program, then closes it, while its stdout
	// and stderr are copied into the writers; it returns at once.
	Stream(stdin []byte, stdout, stderr io.Writer)
	// Duplex copies stdout and stderr into the writers from now on and
	// returns the program's stdin, open until closed: for a program that
	// serves several runs (an [Agent]). A sandbox is streamed one way or
	// the other, once.
	Duplex(stdout, stderr io.Writer) io.WriteCloser
	// Exited delivers the program's exit, once.
	Exited() <-chan Exit
	// Kill kills every process of the sandbox; ctx bounds the request.
	Kill(ctx context.Context)
	// Drain waits at most grace for the output streams to end after the
	// exit, then cuts them; what came is kept. complete is false when they
	// had to be cut.
	Drain(grace time.Duration) (complete bool)
	// OOMKilled reports whether the kernel killed the program for memory;
	// killed: hook-exec killed it (timeout or output cap).
	OOMKilled(ctx context.Context, code int, killed bool) bool
	// OOMKills is the kernel's count of OOM kills in the sandbox so far,
	// read from the host; ok is false where the engine cannot say (a
	// reused sandbox's agent then counts from inside, where it can).
	OOMKills(ctx context.Context) (n uint64, ok bool)
	// Release ends the sandbox's goroutines and connections. Called once.
	Release()
	// Remove deletes the sandbox under a detached, bounded context.
	Remove(ctx context.Context) error
}

// Prepared is a started sandbox as a [Warm]: used once, by Run or Discard.
// Both container backends run through it, so a run's stages, bounds and
// cleanup are the same whatever the engine.
type Prepared struct {
	s        Started
	phases   Phases // Create and Start, paid when it was prepared
	cleanups *Cleanups
	once     sync.Once
}

// NewPrepared wraps a started sandbox; cleanups tracks its removal after
// the answer.
func NewPrepared(s Started, created, started time.Duration, cleanups *Cleanups) *Prepared {
	return &Prepared{s: s, phases: Phases{Create: created, Start: started}, cleanups: cleanups}
}

// ErrUsed: a prepared sandbox was asked to run a second time.
var ErrUsed = errors.New("sandbox already used")

// Discard removes an unused sandbox in the background.
func (p *Prepared) Discard() {
	p.once.Do(func() {
		p.s.Release()
		p.cleanups.Go(func() error { return p.s.Remove(context.Background()) })
	})
}

// Run streams stdin in while the output is read, waits for the exit (or
// kills at ctx's deadline or at the output cap) and reads the outcome.
// The sandbox is removed after the answer is handed back when the
// outcome is known, before it otherwise.
func (p *Prepared) Run(ctx context.Context, stdin []byte, maxOutput int64) (out *Outcome, err error) {
	ran := false
	p.once.Do(func() {
		ran = true
		out, err = p.finish(ctx, stdin, maxOutput)
	})
	if !ran {
		return nil, ErrUsed
	}
	return out, err
}

func (p *Prepared) finish(ctx context.Context, stdin []byte, maxOutput int64) (_ *Outcome, retErr error) {
	s := p.s
	begin := time.Now()
	out := &Outcome{ExitCode: -1, Phases: p.phases}
	// answered: the outcome is known (the program exited, or it was killed
	// and only the report of its exit is missing).
	answered := false
	var cleanupBegin time.Time
	defer func() {
		s.Release()
		if answered {
			p.cleanups.Go(func() error { return s.Remove(ctx) })
		} else if err := s.Remove(ctx); err != nil {
			retErr = errors.Join(retErr, err)
		}
		if answered {
			out.Phases.Cleanup = time.Since(cleanupBegin)
			out.Duration = time.Since(begin)
		}
	}()
	limitC := make(chan struct{})
	var limitOnce sync.Once
	capture := NewCapture(maxOutput, func() { limitOnce.Do(func() { close(limitC) }) })
	s.Stream(stdin, capture.Stdout(), capture.Stderr())
	// The kill runs beside the wait: an engine slow to take the request
	// (a fork bomb under gVisor took over 3 s) does not delay the answer,
	// and the removal after it ends whatever the kill did not.
	var killedAt time.Time
	kill := func() {
		killedAt = time.Now()
		p.cleanups.Go(func() error {
			kctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), KillGrace)
			defer cancel()
			s.Kill(kctx) // an exit that raced the kill is fine
			return nil
		})
	}
	streamBegin := time.Now()
	exit, killed, timedOut, err := awaitExit(ctx, s.Exited(), limitC, kill, KillGrace)
	exitBegin := time.Now()
	out.Phases.Stream = exitBegin.Sub(streamBegin)
	out.TimedOut = timedOut
	noExit := errors.Is(err, ErrNoExit)
	switch {
	case noExit:
		// Killed, and the engine is slow to say so: the kill stands, and the
		// removal after the answer kills and reaps whatever is left.
		exit.Code = KilledExitCode
		out.Unconfirmed = true
	case err != nil:
		return nil, err
	case exit.Err != nil:
		return nil, exit.Err
	}
	grace := DrainGrace
	if killed {
		grace = max(0, min(grace, KillGrace-time.Since(killedAt)))
	}
	if complete := s.Drain(grace); !complete && !killed && !noExit {
		// The program exited on its own and its output did not end: what
		// was read may not be all it wrote.
		return nil, fmt.Errorf("%w: %w", ErrEngine, ErrOutputIncomplete)
	}
	if !noExit {
		out.OOMKilled = s.OOMKilled(ctx, exit.Code, killed)
	}
	capture.Fill(out)
	out.ExitCode = exit.Code
	if killed {
		out.Signal = "SIGKILL"
	} else {
		out.Signal = SignalName(out.ExitCode)
	}
	out.Phases.Exit = time.Since(exitBegin)
	answered = true
	cleanupBegin = time.Now()
	return out, nil
}
