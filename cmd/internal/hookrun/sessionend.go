package hookrun

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
)

// Seed 000: "Session shutdown performs a bounded drain of outstanding
// observers." A session's observers run in the background: in the server's
// executor, or in a `hook-exec observe` process each boundary starts. At
// session.end, dispatch waits for them, at most SessionDrain, and then cuts
// the rest short (their sandboxes killed and removed).

// SessionDrain bounds how long a session's end waits for its observers.
const SessionDrain = 10 * time.Second

// observersDir holds a pid file for each observe process of a session.
func observersDir(stateDir, session string) string {
	sum := sha256.Sum256([]byte(session))
	return filepath.Join(stateDir, "observers", hex.EncodeToString(sum[:8]))
}

// noteObserver notes observe process pid under its event's session, as
// soon as it is started (before it reads a byte: a session's end right
// after the boundary must find it); the process takes the note back as it
// ends (forgetObserver).
func noteObserver(stateDir string, event []byte, pid int) {
	if ev, err := hook.ParseEvent(event); err == nil {
		dir := observersDir(stateDir, ev.SessionID)
		if os.MkdirAll(dir, 0o700) == nil {
			os.WriteFile(filepath.Join(dir, strconv.Itoa(pid)), nil, 0o600)
		}
	}
}

func forgetObserver(stateDir string, event []byte, pid int) {
	if ev, err := hook.ParseEvent(event); err == nil {
		dir := observersDir(stateDir, ev.SessionID)
		os.Remove(filepath.Join(dir, strconv.Itoa(pid)))
		os.Remove(dir) // when it was the last
	}
}

// drainSession waits for session's observers (ex's and the observe
// processes'), at most until ctx ends, then stops those left. It reports
// how many it cut short.
func drainSession(ctx context.Context, ex *executor.Executor, stateDir, session string) (cut int) {
	_, cut = ex.DrainSession(ctx, session)
	dir := observersDir(stateDir, session)
	entries, _ := os.ReadDir(dir)
	var pids []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil && pid > 0 {
			pids = append(pids, pid)
		}
	}
	cut += drainProcesses(ctx, pids)
	for _, pid := range pids {
		os.Remove(filepath.Join(dir, strconv.Itoa(pid)))
	}
	os.Remove(dir)
	return cut
}
