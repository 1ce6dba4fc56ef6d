package backend

import (
	"context"
	"encoding/json"
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
		c.Go(func() { time.Sleep(20 * time.Millisecond); done.Add(1) })
	}
	if err := c.Wait(context.Background()); err != nil || done.Load() != 3 {
		t.Fatalf("Wait returned with %d of 3 done (%v)", done.Load(), err)
	}
	c.Go(func() { time.Sleep(time.Hour) })
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
	if p.DefaultAction != "SCMP_ACT_ERRNO" || len(p.Syscalls) < 10 {
		t.Fatalf("not Docker's default profile: %s ...", SeccompProfile()[:200])
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
