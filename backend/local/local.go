// Package local runs owner hooks on the host, without isolation. It is for
// hooks the owner wrote; untrusted (plugin and project) hooks are refused
// by the executor before they reach it (not_isolated).
//
// A run gets a minimal environment (PATH with every entry naming its
// working directory removed, HOME, LANG, TMPDIR, plus the declared values;
// on Windows PATHEXT, SystemRoot, USERPROFILE, TEMP, TMP and
// NoDefaultCurrentDirectoryInExePath=1 instead of HOME, LANG and TMPDIR),
// its own process group, killed with SIGKILL at the deadline, at the output
// cap and after the program exits, so its children go too. A descendant
// that leaves the group (setsid) escapes that kill: only a container
// backend bounds a whole process tree.
package local

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"

	"github.com/hookexec/hook-exec/backend"
)

// waitDelay bounds how long output pipes held by a leftover descendant keep
// a finished run open.
const waitDelay = 200 * time.Millisecond

// Backend runs on the host.
type Backend struct{}

// New returns the local backend.
func New() *Backend { return &Backend{} }

func (*Backend) Name() string    { return "local" }
func (*Backend) Isolating() bool { return false }
func (*Backend) Close() error    { return nil }

// Run implements backend.Backend.
func (*Backend) Run(ctx context.Context, r *backend.Run) (*backend.Outcome, error) {
	begin := time.Now()
	workdir := r.Spec.WorkingDir
	if workdir == "" || workdir == "/" {
		workdir = os.TempDir()
	}
	// The PATH the hook receives, or the one it declares, loses every entry
	// that names its working directory (the hook contract's PATH rule), read as this
	// host's programs read PATH.
	env, path, removed := hostEnv(runtime.GOOS, os.Getenv, r.Spec.Env, workdir)
	prog, err := lookPath(r.Spec.Argv[0], path, workdir)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", backend.ErrStart, err)
	}
	// The run's context ends at the deadline or at the output cap; either
	// way Cancel kills the whole process group (bindir's way: CommandContext,
	// Cancel, WaitDelay), and WaitDelay bounds how long pipes held by a
	// leftover descendant keep the run open.
	runCtx, cancelRun := context.WithCancel(ctx)
	defer cancelRun()
	cmd := exec.CommandContext(runCtx, prog, r.Spec.Argv[1:]...)
	cmd.Args[0] = r.Spec.Argv[0]
	cmd.Dir = workdir
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(r.Stdin) // exec writes it from its own goroutine
	cmd.SysProcAttr = ownGroup()
	cmd.Cancel = func() error { killProcessGroup(cmd.Process.Pid); return nil }
	cmd.WaitDelay = waitDelay
	capture := backend.NewCapture(r.MaxOutput, cancelRun)
	cmd.Stdout, cmd.Stderr = capture.Stdout(), capture.Stderr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%w: %w", backend.ErrStart, err)
	}
	pgid := cmd.Process.Pid
	defer killProcessGroup(pgid) // whatever the program left in its group goes with it

	waitErr := cmd.Wait()
	out := &backend.Outcome{TimedOut: ctx.Err() != nil}
	capture.Fill(out)
	out.Duration = time.Since(begin)
	if note := removalNote(removed); note != "" {
		out.Notes = append(out.Notes, note)
	}
	var ee *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &ee) && !errors.Is(waitErr, exec.ErrWaitDelay) && runCtx.Err() == nil {
		return nil, fmt.Errorf("wait for the hook: %w", waitErr)
	}
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	switch {
	case ws.Signaled():
		out.ExitCode = 128 + int(ws.Signal())
		out.Signal = backend.SignalName(out.ExitCode)
	default:
		out.ExitCode = ws.ExitStatus()
		out.Signal = backend.SignalName(out.ExitCode)
	}
	if out.TimedOut || out.Truncated {
		out.Signal = "SIGKILL"
	}
	return out, nil
}
