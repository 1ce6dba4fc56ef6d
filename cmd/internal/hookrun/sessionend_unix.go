//go:build unix

package hookrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// drainProcesses waits for the observe processes pids until ctx ends, then
// stops those left: each one's group (startObservers gives each a session
// of its own) gets SIGTERM, on which its executor removes its sandboxes,
// and SIGKILL after a grace. It reports how many it stopped.
func drainProcesses(ctx context.Context, pids []int) (cut int) {
	var left []int
	for _, pid := range pids {
		if !isObserver(pid) {
			continue // gone, or a pid used again since: never signalled
		}
		if !waitGone(ctx, pid) {
			left = append(left, pid)
		}
	}
	for _, pid := range left {
		if isObserver(pid) { // still: it may have ended while waited for
			syscall.Kill(-pid, syscall.SIGTERM)
		}
	}
	grace, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for _, pid := range left {
		if !waitGone(grace, pid) && isObserver(pid) {
			syscall.Kill(-pid, syscall.SIGKILL)
		}
	}
	return len(left)
}

// isObserver reports whether pid is an `hook-exec observe` process, as
// Linux's /proc says: a pid file left by one that was killed may name
// another process by now. Elsewhere nothing says so, and no process is
// waited for or stopped.
func isObserver(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return err == nil && bytes.Contains(b, []byte("\x00observe\x00"))
}

// waitGone waits until process pid is gone, or ctx ends (false).
func waitGone(ctx context.Context, pid int) bool {
	for {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(20 * time.Millisecond):
		}
	}
}
