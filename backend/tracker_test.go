package backend

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestCleanupsWait(t *testing.T) {
	t.Parallel()
	var c Cleanups
	if err := c.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	var done atomic.Int32
	for range 3 {
		c.Go(func() error { time.Sleep(20 * time.Millisecond); done.Add(1); return nil })
	}
	if err := c.Wait(context.Background()); err != nil {
		t.Fatalf("Wait: %v", err)
	}
	if n := done.Load(); n != 3 {
		t.Fatalf("Wait returned with %d of 3 done", n)
	}
	boom := errors.New("remove failed")
	c.Go(func() error { return boom })
	if err := c.Wait(context.Background()); !errors.Is(err, boom) {
		t.Fatalf("Wait = %v, want the failed cleanup's error", err)
	}
	if err := c.Wait(context.Background()); err != nil {
		t.Fatalf("Wait after the failure was reported = %v, want nil", err)
	}
	c.Go(func() error { time.Sleep(time.Hour); return nil })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if err := c.Wait(ctx); err == nil {
		t.Fatal("Wait ignored its context")
	}
}

func TestSeccompProfileDropsTracing(t *testing.T) {
	t.Parallel()
	var p struct {
		DefaultAction string
		Syscalls      []struct {
			Names    []string
			Includes *struct{ Caps []string }
		}
	}
	if err := json.Unmarshal([]byte(SeccompProfile()), &p); err != nil {
		t.Fatal(err)
	}
	if p.DefaultAction != "SCMP_ACT_ERRNO" {
		t.Fatalf("default action = %q, want SCMP_ACT_ERRNO: not Docker's default profile: %s ...", p.DefaultAction, SeccompProfile()[:200])
	}
	if len(p.Syscalls) < 10 {
		t.Fatalf("%d syscall rules, want at least 10: not Docker's default profile: %s ...", len(p.Syscalls), SeccompProfile()[:200])
	}
	for _, s := range p.Syscalls {
		if s.Includes != nil && len(s.Includes.Caps) > 0 {
			continue // only with a capability, which a hook never has
		}
		for _, n := range s.Names {
			if n == "ptrace" || strings.HasPrefix(n, "process_vm_") {
				t.Fatalf("%s allowed without a capability", n)
			}
		}
	}
}

func TestRetry(t *testing.T) {
	t.Parallel()
	busy, gone := errors.New("engine busy"), errors.New("engine unreachable")
	tries := 0
	err := Retry(context.Background(), func(context.Context) error {
		tries++
		if tries < 3 {
			return busy
		}
		return nil
	}, func(err error) bool { return errors.Is(err, busy) })
	if err != nil || tries != 3 {
		t.Fatalf("Retry = %v after %d tries, want success on the third", err, tries)
	}
	tries = 0
	err = Retry(context.Background(), func(context.Context) error { tries++; return gone },
		func(err error) bool { return errors.Is(err, busy) })
	if !errors.Is(err, gone) || tries != 1 {
		t.Fatalf("Retry = %v after %d tries, want the first error that is not retryable, at once", err, tries)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Millisecond)
	defer cancel()
	err = Retry(ctx, func(context.Context) error { return busy }, func(error) bool { return true })
	if !errors.Is(err, busy) {
		t.Fatalf("Retry past its context = %v, want the last error", err)
	}
}
