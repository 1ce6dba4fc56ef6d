package backend

import (
	"context"
	"errors"
	"io"
	"sync"
	"testing"
	"time"
)

// fakeStarted is a sandbox that an engine would run: it writes out on
// Stream and exits with code, or never reports an exit when silent.
type fakeStarted struct {
	out    []byte
	code   int
	silent bool          // the engine never reports the exit, even after a kill
	cut    bool          // the output streams do not end after the exit
	stuck  chan struct{} // when set, Kill blocks until it closes

	mu       sync.Mutex
	exitC    chan Exit
	kills    int
	released int
	removed  int
}

func newFake() *fakeStarted { return &fakeStarted{exitC: make(chan Exit, 1)} }

func (f *fakeStarted) Stream(_ []byte, stdout, _ io.Writer) {
	stdout.Write(f.out)
	if !f.silent && f.code >= 0 {
		f.exitC <- Exit{Code: f.code}
	}
}
func (f *fakeStarted) Duplex(io.Writer, io.Writer) io.WriteCloser { panic("not an agent") }
func (f *fakeStarted) Exited() <-chan Exit                        { return f.exitC }
func (f *fakeStarted) Kill(context.Context) {
	if f.stuck != nil {
		<-f.stuck
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.kills++
	if !f.silent {
		f.exitC <- Exit{Code: 137}
	}
}
func (f *fakeStarted) Drain(time.Duration) bool                  { return !f.cut }
func (f *fakeStarted) OOMKilled(context.Context, int, bool) bool { return false }
func (f *fakeStarted) OOMKills(context.Context) (uint64, bool)   { return 0, false }
func (f *fakeStarted) Release()                                  { f.mu.Lock(); f.released++; f.mu.Unlock() }
func (f *fakeStarted) Remove(context.Context) error {
	f.mu.Lock()
	f.removed++
	f.mu.Unlock()
	return nil
}
func (f *fakeStarted) counts() (kills, released, removed int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.kills, f.released, f.removed
}

func TestPreparedIncompleteOutputIsAnEngineError(t *testing.T) {
	t.Parallel()
	f := newFake()
	f.out, f.code, f.cut = []byte("part"), 0, true
	var c Cleanups
	out, err := NewPrepared(f, 0, 0, &c).Run(context.Background(), nil, 1024)
	if !errors.Is(err, ErrEngine) || !errors.Is(err, ErrOutputIncomplete) {
		t.Fatalf("Run = %+v, %v; want ErrEngine and ErrOutputIncomplete, never a short stdout", out, err)
	}
	if _, released, removed := f.counts(); released != 1 || removed != 1 {
		t.Errorf("released %d, removed %d: want the sandbox gone", released, removed)
	}
}

func TestPreparedRunsOnce(t *testing.T) {
	t.Parallel()
	f := newFake()
	f.out, f.code = []byte("ok"), 0
	var c Cleanups
	p := NewPrepared(f, time.Millisecond, time.Millisecond, &c)
	out, err := p.Run(context.Background(), nil, 1024)
	if err != nil {
		t.Fatal(err)
	}
	if string(out.Stdout) != "ok" {
		t.Errorf("stdout = %q, want %q", out.Stdout, "ok")
	}
	if out.ExitCode != 0 {
		t.Errorf("exit code = %d, want 0", out.ExitCode)
	}
	if out.TimedOut {
		t.Error("timed out = true, want false")
	}
	if out.Phases.Create != time.Millisecond {
		t.Errorf("create phase %v, want the 1ms it was prepared with", out.Phases.Create)
	}
	if _, err := p.Run(context.Background(), nil, 1024); !errors.Is(err, ErrUsed) {
		t.Fatalf("second Run = %v, want ErrUsed", err)
	}
	p.Discard() // a no-op after Run
	if err := c.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, released, removed := f.counts(); released != 1 || removed != 1 {
		t.Fatalf("released %d, removed %d times, want once each", released, removed)
	}
}

func TestPreparedKillsAtTheCap(t *testing.T) {
	t.Parallel()
	f := newFake()
	f.out, f.code = make([]byte, 100), -1 // floods, never exits by itself
	var c Cleanups
	out, err := NewPrepared(f, 0, 0, &c).Run(context.Background(), nil, 10)
	if err != nil {
		t.Fatal(err)
	}
	if !out.Truncated {
		t.Error("truncated = false, want true")
	}
	if out.Signal != "SIGKILL" {
		t.Errorf("signal = %q, want %q", out.Signal, "SIGKILL")
	}
	if out.ExitCode != 137 {
		t.Errorf("exit code = %d, want 137", out.ExitCode)
	}
	if kills, _, _ := f.counts(); kills != 1 {
		t.Fatalf("%d kills, want 1", kills)
	}
}

// A kill whose exit the engine never reports is still the kill: a
// timeout, answered once the grace is over, the sandbox removed after.
func TestPreparedKillWithoutReportedExit(t *testing.T) {
	t.Parallel()
	f := newFake()
	f.silent = true
	var c Cleanups
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	out, err := NewPrepared(f, 0, 0, &c).Run(ctx, nil, 10)
	if err != nil {
		t.Fatalf("Run = %v, want the timeout as an outcome", err)
	}
	if !out.TimedOut {
		t.Error("timed out = false, want true")
	}
	if out.ExitCode != KilledExitCode {
		t.Errorf("exit code = %d, want %d", out.ExitCode, KilledExitCode)
	}
	if out.Signal != "SIGKILL" {
		t.Errorf("signal = %q, want %q", out.Signal, "SIGKILL")
	}
	if err := c.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	kills, released, removed := f.counts()
	if kills != 1 {
		t.Errorf("kills = %d, want 1", kills)
	}
	if released != 1 {
		t.Errorf("released %d times, want 1", released)
	}
	if removed != 1 {
		t.Errorf("removed %d times, want 1", removed)
	}
}

func TestPreparedDiscard(t *testing.T) {
	t.Parallel()
	f := newFake()
	var c Cleanups
	p := NewPrepared(f, 0, 0, &c)
	p.Discard()
	p.Discard()
	if _, err := p.Run(context.Background(), nil, 10); !errors.Is(err, ErrUsed) {
		t.Fatalf("Run after Discard = %v, want ErrUsed", err)
	}
	if err := c.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, released, removed := f.counts(); released != 1 || removed != 1 {
		t.Fatalf("released %d, removed %d, want 1 each", released, removed)
	}
}

// A kill request the engine is slow to take does not hold the answer: the
// run is answered (unconfirmed) while the request still waits, and the
// request is a tracked cleanup.
func TestPreparedAnswersBeforeASlowKill(t *testing.T) {
	t.Parallel()
	f := newFake()
	f.code, f.silent, f.stuck = -1, true, make(chan struct{})
	var c Cleanups
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out, err := NewPrepared(f, 0, 0, &c).Run(ctx, nil, 1024)
	if err != nil {
		t.Fatal(err)
	}
	if !out.TimedOut || !out.Unconfirmed || out.ExitCode != KilledExitCode {
		t.Errorf("outcome timed out %v, unconfirmed %v, exit %d; want true, true, %d", out.TimedOut, out.Unconfirmed, out.ExitCode, KilledExitCode)
	}
	if kills, _, _ := f.counts(); kills != 0 {
		t.Fatalf("kills = %d before the request was let through, want 0", kills)
	}
	close(f.stuck)
	if err := c.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if kills, released, removed := f.counts(); kills != 1 || released != 1 || removed != 1 {
		t.Errorf("kills %d, released %d, removed %d; want 1 each", kills, released, removed)
	}
}

func TestAwaitExit(t *testing.T) {
	t.Parallel()
	t.Run("exit", func(t *testing.T) {
		exitC := make(chan Exit, 1)
		exitC <- Exit{Code: 3}
		exit, killed, timedOut, err := awaitExit(context.Background(), exitC, nil, func() { t.Fatal("killed") }, time.Second)
		if err != nil {
			t.Fatalf("awaitExit error = %v, want nil", err)
		}
		if exit.Code != 3 {
			t.Errorf("exit code = %d, want 3", exit.Code)
		}
		if killed {
			t.Error("killed = true, want false")
		}
		if timedOut {
			t.Error("timed out = true, want false")
		}
	})
	t.Run("deadline kills once", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		defer cancel()
		exitC := make(chan Exit, 1)
		kills := 0
		limitC := make(chan struct{})
		close(limitC) // the cap too: still one kill
		exit, killed, _, err := awaitExit(ctx, exitC, limitC, func() { kills++; exitC <- Exit{Code: 137} }, time.Second)
		if err != nil {
			t.Fatalf("awaitExit error = %v, want nil", err)
		}
		if exit.Code != 137 {
			t.Errorf("exit code = %d, want 137", exit.Code)
		}
		if !killed {
			t.Error("killed = false, want true")
		}
		if kills != 1 {
			t.Errorf("kills = %d, want 1", kills)
		}
	})
	t.Run("no exit after the kill", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, killed, timedOut, err := awaitExit(ctx, make(chan Exit), nil, func() {}, 20*time.Millisecond)
		if !killed {
			t.Error("killed = false, want true")
		}
		if !timedOut {
			t.Error("timed out = false, want true")
		}
		if !errors.Is(err, ErrNoExit) {
			t.Errorf("awaitExit error = %v, want ErrNoExit", err)
		}
	})
}

// A wait the engine failed is the run's error, and the sandbox is removed
// before the answer.
func TestPreparedFailedWait(t *testing.T) {
	t.Parallel()
	f := newFake()
	f.code = -1
	gone := errors.New("engine gone")
	f.exitC <- Exit{Err: gone}
	var c Cleanups
	if _, err := NewPrepared(f, 0, 0, &c).Run(context.Background(), nil, 10); !errors.Is(err, gone) {
		t.Fatalf("Run = %v, want the engine's wait error", err)
	}
	if _, released, removed := f.counts(); released != 1 || removed != 1 {
		t.Fatalf("released %d, removed %d, want 1 each", released, removed)
	}
}
