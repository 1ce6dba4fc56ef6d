package admission

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"
)

// helperEnv makes the test binary a process that holds one slot of a
// shared directory until it is killed.
const helperEnv = "HOOKEXEC_ADMISSION_HOLD_DIR"

func TestMain(m *testing.M) {
	if dir := os.Getenv(helperEnv); dir != "" {
		l, err := New(Options{Initial: 1, Max: 1, Dir: dir})
		if err == nil {
			_, err = l.Acquire(context.Background())
		}
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("held")
		time.Sleep(time.Hour)
	}
	os.Exit(m.Run())
}

func newLimiter(t *testing.T, o Options) *Limiter {
	t.Helper()
	l, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// acquireAsync starts an Acquire and waits until it is queued.
func acquireAsync(t *testing.T, l *Limiter, ctx context.Context, background bool) <-chan error {
	t.Helper()
	l.mu.Lock()
	before := l.fg.Len() + l.bg.Len()
	l.mu.Unlock()
	ch := make(chan error, 1)
	go func() {
		tk, err := l.acquire(ctx, background)
		if err == nil {
			t.Cleanup(func() { tk.Done(true) })
		}
		ch <- err
	}()
	for {
		l.mu.Lock()
		n := l.fg.Len() + l.bg.Len()
		l.mu.Unlock()
		if n > before {
			return ch
		}
		select {
		case err := <-ch:
			ch2 := make(chan error, 1)
			ch2 <- err
			return ch2
		case <-time.After(time.Millisecond):
		}
	}
}

func TestServesInOrder(t *testing.T) {
	t.Parallel()
	l := newLimiter(t, Options{Initial: 1, Max: 1})
	first, err := l.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	order := make(chan int, 3)
	var tickets [3]chan *Ticket
	for i := range 3 {
		tickets[i] = make(chan *Ticket, 1)
		l.mu.Lock()
		before := l.fg.Len()
		l.mu.Unlock()
		go func() {
			tk, err := l.Acquire(context.Background())
			if err != nil {
				t.Error(err)
				return
			}
			order <- i
			tickets[i] <- tk
		}()
		for {
			l.mu.Lock()
			n := l.fg.Len()
			l.mu.Unlock()
			if n > before {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	first.Done(true)
	for want := range 3 {
		got := <-order
		if got != want {
			t.Fatalf("waiter %d was served in place %d", got, want)
		}
		(<-tickets[got]).Done(true)
	}
}

func TestForegroundBeforeBackground(t *testing.T) {
	t.Parallel()
	l := newLimiter(t, Options{Initial: 1, Max: 1})
	held, err := l.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	bg := acquireAsync(t, l, context.Background(), true)
	fg := acquireAsync(t, l, context.Background(), false)
	held.Done(true)
	select {
	case err := <-fg:
		if err != nil {
			t.Fatal(err)
		}
	case <-bg:
		t.Fatal("a background refill was served before a waiting run")
	}
}

func TestShedsAtOnceWhatCannotStart(t *testing.T) {
	t.Parallel()
	l := newLimiter(t, Options{Initial: 1, Max: 1})
	l.est = estimator{mean: time.Second, floor: time.Second}
	held, err := l.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer held.Done(true)
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	_, err = l.Acquire(ctx)
	if !errors.Is(err, ErrOverloaded) {
		t.Fatalf("Acquire = %v, want ErrOverloaded (one creation of ~1s ahead, then its own, in 1.5s)", err)
	}
	if ctx.Err() != nil {
		t.Fatal("the shed run waited for its deadline instead of ending at once")
	}
	if got := l.Stats().Shed; got != 1 {
		t.Fatalf("Shed = %d, want 1", got)
	}
}

func TestShedsAWaiterWhoseTimeRunsOut(t *testing.T) {
	t.Parallel()
	l := newLimiter(t, Options{Initial: 1, Max: 1})
	l.est = estimator{mean: 100 * time.Millisecond, floor: 100 * time.Millisecond}
	held, err := l.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer held.Done(true)
	// Admissible when queued (one round of 100ms, then 100ms of its own,
	// within 600ms); the slot never frees, so it is shed once even an
	// immediate admission would start past the deadline: ~100ms early.
	ctx, cancel := context.WithTimeout(context.Background(), 600*time.Millisecond)
	defer cancel()
	_, err = l.Acquire(ctx)
	if !errors.Is(err, ErrOverloaded) {
		t.Fatalf("Acquire = %v, want ErrOverloaded", err)
	}
	if ctx.Err() != nil {
		t.Fatal("shed only at the deadline, not when its creation could no longer fit")
	}
}

func TestSlowCreationInFlightCountsBeforeItEnds(t *testing.T) {
	t.Parallel()
	l := newLimiter(t, Options{Initial: 1, Max: 1})
	l.est = estimator{mean: 10 * time.Millisecond, floor: 10 * time.Millisecond}
	held, err := l.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer held.Done(true)
	time.Sleep(200 * time.Millisecond) // the engine slowed: this creation is 20 x the estimate
	// By the estimate it fits (10ms ahead, then 2 x ~10ms of its own, in
	// 400ms); by the creation in flight it does not (200ms+ ahead, then
	// 2 x 200ms): shed at once.
	ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = l.Acquire(ctx)
	if !errors.Is(err, ErrOverloaded) {
		t.Fatalf("Acquire = %v, want ErrOverloaded", err)
	}
	if waited := time.Since(start); waited > 200*time.Millisecond { // by the estimate alone: ~370ms
		t.Errorf("shed after %v, want at once: the creation in flight already said it could not fit", waited)
	}
}

func TestDeadlineWithoutEstimateIsOverloaded(t *testing.T) {
	t.Parallel()
	l := newLimiter(t, Options{Initial: 1, Max: 1})
	held, err := l.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer held.Done(true)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if _, err := l.Acquire(ctx); !errors.Is(err, ErrOverloaded) {
		t.Fatalf("Acquire = %v, want ErrOverloaded", err)
	}
	// A cancelled (not expired) wait is the caller's cancellation.
	cctx, ccancel := context.WithCancel(context.Background())
	ch := acquireAsync(t, l, cctx, false)
	ccancel()
	if err := <-ch; !errors.Is(err, context.Canceled) {
		t.Fatalf("Acquire = %v, want context.Canceled", err)
	}
}

func TestAIMD(t *testing.T) {
	t.Parallel()
	l := newLimiter(t, Options{Initial: 8, Max: 16})
	a, _ := l.Acquire(context.Background())
	b, _ := l.Acquire(context.Background())
	a.Done(false)
	if got := l.Limit(); got != 6 {
		t.Fatalf("limit after a failed creation = %d, want 6 (8 cut by a quarter)", got)
	}
	b.Done(false) // admitted before the cut: the same congestion, no second cut
	if got := l.Limit(); got != 6 {
		t.Fatalf("limit after a second failure of the same generation = %d, want 6", got)
	}
	// Fast creations while the limit is in use raise it by 1/limit each.
	l.mu.Lock()
	l.limit = 2
	l.est = estimator{mean: time.Second, floor: time.Second} // these creations are all fast
	l.mu.Unlock()
	for range 4 {
		x, _ := l.Acquire(context.Background())
		y, _ := l.Acquire(context.Background())
		x.Done(true)
		y.Done(true)
	}
	if got := l.Limit(); got < 3 {
		t.Fatalf("limit after saturated fast creations = %d, want it raised from 2 to at least 3", got)
	}
	// A creation far slower than the no-load latency cuts.
	l.mu.Lock()
	l.est = estimator{mean: time.Millisecond, floor: time.Millisecond}
	before := l.limit
	l.mu.Unlock()
	s, _ := l.Acquire(context.Background())
	time.Sleep(20 * time.Millisecond)
	s.Done(true)
	l.mu.Lock()
	after := l.limit
	l.mu.Unlock()
	if after >= before {
		t.Fatalf("limit %v after a creation 20x the no-load latency, want below %v", after, before)
	}
}

func TestSharedDirectoryBoundsProcessesTogether(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := newLimiter(t, Options{Initial: 1, Max: 1, Dir: dir})
	b := newLimiter(t, Options{Initial: 1, Max: 1, Dir: dir})
	ta, err := a.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := b.Acquire(ctx); !errors.Is(err, ErrOverloaded) {
		t.Fatalf("second limiter on the same directory: Acquire = %v, want ErrOverloaded while the one slot is held", err)
	}
	got := make(chan error, 1)
	go func() {
		tb, err := b.Acquire(context.Background())
		if err == nil {
			tb.Done(true)
		}
		got <- err
	}()
	ta.Done(true)
	if err := <-got; err != nil {
		t.Fatalf("Acquire after the other process released its slot: %v", err)
	}
	// The learned state seeds a new limiter.
	c := newLimiter(t, Options{Initial: 1, Max: 1, Dir: dir})
	if m, _ := c.Latency(); m == 0 {
		t.Fatal("a new limiter on the directory did not start from the saved latency")
	}
}

func TestDeadProcessReleasesItsSlot(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "held\n" {
		t.Fatalf("helper process said %q, want it to hold the slot", line)
	}
	l := newLimiter(t, Options{Initial: 1, Max: 1, Dir: dir})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := l.Acquire(ctx); !errors.Is(err, ErrOverloaded) {
		t.Fatalf("Acquire = %v while another process holds the slot, want ErrOverloaded", err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	tk, err := l.Acquire(context.Background())
	if err != nil {
		t.Fatalf("Acquire after the holder died: %v", err)
	}
	tk.Done(true)
}

func TestBackgroundLeavesASlotForRuns(t *testing.T) {
	t.Parallel()
	l := newLimiter(t, Options{Initial: 2, Max: 2})
	first, err := l.AcquireBackground(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	bg := acquireAsync(t, l, context.Background(), true)
	select {
	case <-bg:
		t.Fatal("a second refill took the last of two slots")
	case <-time.After(50 * time.Millisecond):
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	run, err := l.Acquire(ctx)
	if err != nil {
		t.Fatalf("a run found no slot beside one refill: %v", err)
	}
	run.Done(true)
	first.Done(true) // now nothing runs: the waiting refill goes
	if err := <-bg; err != nil {
		t.Fatal(err)
	}
}
