// Package local runs owner hooks on the host, without isolation. It is for
// hooks the owner wrote; untrusted (plugin and project) hooks are refused
// by the executor before they reach it (not_isolated).
//
// A run gets a minimal environment (PATH with every entry naming its
// working directory removed, HOME, LANG, TMPDIR, plus the declared values),
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
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hookexec/hook-exec/backend"
)

// waitDelay bounds how long output pipes held by a leftover descendant keep
// a finished run open.
const waitDelay = 200 * time.Millisecond

// Backend runs on the host.
type Backend struct{}

// The local backend runs each program cold: a Backend, not a backend.Warmer.
var _ backend.Backend = (*Backend)(nil)

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
	path, removed := SanitizePATH(os.Getenv("PATH"), workdir)
	prog, err := lookPath(r.Spec.Argv[0], path, workdir)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", backend.ErrStart, err)
	}
	cmd := exec.Command(prog, r.Spec.Argv[1:]...)
	cmd.Args[0] = r.Spec.Argv[0]
	cmd.Dir = workdir
	cmd.Env = append([]string{
		"PATH=" + path, "HOME=" + os.Getenv("HOME"), "LANG=C.UTF-8", "TMPDIR=" + os.TempDir(),
	}, r.Spec.Env...)
	cmd.Stdin = bytes.NewReader(r.Stdin) // exec writes it from its own goroutine
	cmd.SysProcAttr = ownGroup()
	cmd.WaitDelay = waitDelay

	limitC := make(chan struct{})
	var once sync.Once
	capture := backend.NewCapture(r.MaxOutput, func() { once.Do(func() { close(limitC) }) })
	cmd.Stdout, cmd.Stderr = capture.Stdout(), capture.Stderr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%w: %w", backend.ErrStart, err)
	}
	pgid := cmd.Process.Pid
	killGroup := func() { killProcessGroup(pgid) }
	defer killGroup() // whatever the program left in its group goes with it

	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	out := &backend.Outcome{}
	var waitErr error
wait:
	for {
		select {
		case <-ctx.Done():
			out.TimedOut = true
			killGroup()
			ctx = context.Background() // fire once
		case <-limitC:
			limitC = nil
			killGroup()
		case waitErr = <-done:
			break wait
		}
	}
	capture.Fill(out)
	out.Duration = time.Since(begin)
	if note := removalNote(removed); note != "" {
		out.Notes = append(out.Notes, note)
	}
	var ee *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &ee) && !errors.Is(waitErr, exec.ErrWaitDelay) {
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

// lookPath resolves a program name against the sanitized PATH, not the
// process's own.
func lookPath(name, path, workdir string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(workdir, dir)
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("exec: %q: executable file not found in $PATH", name)
}
