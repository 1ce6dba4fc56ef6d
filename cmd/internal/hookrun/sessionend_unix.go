//go:build unix

package hookrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
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
		// What it started in groups of their own (a local backend's
		// hooks) is still in its session: killed too.
		killSession(pid)
	}
	return len(left)
}

// killSession kills every process of session sid that Linux's /proc
// lists (an observe process is its session's leader: startObservers
// starts it with a session of its own).
func killSession(sid int) {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		if s, err := sessionOf(pid); err == nil && s == sid {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// sessionOf is the session id of pid, field 6 of /proc/PID/stat (after
// the command's name, which may hold spaces, in parentheses).
func sessionOf(pid int) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 4 {
		return 0, fmt.Errorf("/proc/%d/stat: too short", pid)
	}
	return strconv.Atoi(f[3]) // state, ppid, pgrp, session
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
