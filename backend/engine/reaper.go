package engine

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/sandbox"
)

// A reaper is a second process that outlives this one only to clean up
// after it: the kill a run's deadline needs comes from its owner, so an
// owner killed with SIGKILL (a host that kills its hook's process group at
// a timeout, an OOM kill) would leave its sandboxes running until the next
// hook-exec command sweeps. The reaper holds the read end of a pipe; the
// owner says "done" on it when it ends on its own. An end of file without
// it means the owner died: the reaper removes the owner's sandboxes at once.

// reaperDone is what an owner that ends on its own writes to its reaper.
const reaperDone = "done\n"

// ReaperEnv turns the reaper off when set to 0.
const ReaperEnv = "HOOKEXEC_REAPER"

// reaperWait bounds the reaper's wait for its dead owner to leave the
// process table (a zombie counts as gone) and its sweep.
const reaperWait = 5 * time.Second

// startReaper starts exe (a hook-exec binary) as `exe reap ...` in a
// session of its own, with no stdout or stderr (a host reading this
// process's output to its end must not wait for the reaper).
func startReaper(exe string, o Options) (io.WriteCloser, error) {
	owner := backend.OwnerLabels()
	args := append([]string{"reap", "--owner-pid", owner[sandbox.LabelOwnerPID], "--owner-start", owner[sandbox.LabelOwnerStart]}, o.Flags()...)
	cmd := exec.Command(exe, args...)
	cmd.SysProcAttr = Detached()
	w, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start reaper: %w", err)
	}
	go cmd.Wait() // collects it if it ends before this process
	return w, nil
}

// ReapOptions are a reaper's: the engine, and the owner it watches.
type ReapOptions struct {
	Engine     Options
	OwnerPID   int
	OwnerStart string
}

// Reap is the reaper's side: it waits on r until its owner says done (nothing
// to do) or dies (end of file without done); then it waits for the owner to
// be gone and removes the sandboxes of dead owners on the engine. It
// returns how many it removed.
func Reap(ctx context.Context, r io.Reader, o ReapOptions) (int, error) {
	line, _ := bufio.NewReader(r).ReadString('\n')
	if line == reaperDone {
		return 0, nil
	}
	labels := map[string]string{sandbox.LabelManaged: "true", sandbox.LabelOwnerPID: strconv.Itoa(o.OwnerPID), sandbox.LabelOwnerStart: o.OwnerStart}
	labels[sandbox.LabelOwnerHost], _ = os.Hostname()
	ctx, cancel := context.WithTimeout(ctx, reaperWait+SweepTimeout)
	defer cancel()
	for deadline := time.Now().Add(reaperWait); !backend.OwnerGone(labels) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	o.Engine.Sweep, o.Engine.Reaper = false, ""
	e, err := Open(ctx, o.Engine)
	if err != nil {
		return 0, err
	}
	defer e.Close()
	return e.Sweep(ctx, false)
}
