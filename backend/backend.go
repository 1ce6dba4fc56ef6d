// Package backend runs one sandbox to completion and reports what happened.
// It knows nothing of hooks, scripts or decisions: a run is a sandbox
// description, bytes for stdin and an output cap. The engines live in the
// sub-packages.
package backend

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/hookexec/hook-exec/sandbox"
)

// Errors of the backends, tested with errors.Is.
var (
	// ErrEngine: the engine could not be reached or failed.
	ErrEngine = errors.New("engine error")
	// ErrImageNotFound: the image is not in the engine's store.
	ErrImageNotFound = errors.New("image not found")
	// ErrStart: the engine could not start the container's program (for
	// example, it is not in the image).
	ErrStart = errors.New("start container")
	// ErrNotIsolated: the backend does not isolate and refuses the run.
	ErrNotIsolated = errors.New("backend does not isolate")
	// ErrNoHalfClose: the connection to the engine cannot close stdin alone,
	// so the script would never see the end of its event.
	ErrNoHalfClose = errors.New("engine connection cannot half-close stdin")
	// ErrUnshared: the engine refused a directory of this machine's that
	// the sandbox mounts (a workspace, a script's tree): it runs where the
	// directory is not shared. Nothing was started.
	ErrUnshared = errors.New("the engine does not see a directory of this machine's")
	// ErrNoLimits: the engine would discard a sandbox's memory or pids
	// limit (rootless Docker on cgroup v1). Nothing is started there.
	ErrNoLimits = errors.New("the engine cannot enforce a sandbox's limits")
)

// Run is one sandbox run.
type Run struct {
	Spec *sandbox.Spec
	// Stdin is written to the container's stdin, concurrently with reading
	// its output, then stdin is closed.
	Stdin []byte
	// MaxOutput caps stdout and stderr together; past it the container is
	// killed at once and the outcome is Truncated.
	MaxOutput int64
}

// Outcome is what a finished run produced. The context's deadline is the
// run's timeout: when it passes, the container is killed and the outcome is
// TimedOut, not an error.
type Outcome struct {
	ExitCode  int
	Signal    string // the signal that ended the program, when its exit code says so
	Stdout    []byte
	Stderr    []byte
	TimedOut  bool
	Truncated bool
	OOMKilled bool
	Duration  time.Duration
	// StdoutBytes and StderrBytes count everything the program wrote,
	// including what the cap discarded.
	StdoutBytes, StderrBytes int64
	// Notes are warnings about the run's setup (never secrets), for the log.
	Notes []string
	// Unconfirmed: the run was killed and the engine did not report the
	// exit in time; until the sandbox's removal (in the background, see
	// Cleaner) a process of it may still run.
	Unconfirmed bool
	// Phases is where the time went.
	Phases Phases
}

// Phases splits a run's time. Create and Start are zero for a sandbox
// prepared ahead (they were paid before the run).
type Phases struct {
	// Create: the container (and its task) made and attached.
	Create time.Duration
	// Start: the wait registered and the program started.
	Start time.Duration
	// Stream: from the start (or the take of a prepared sandbox) to the
	// program's exit: stdin written while the output is read.
	Stream time.Duration
	// Exit: from the exit to the outcome: the output drained, OOM read.
	Exit time.Duration
	// Cleanup: teardown before the answer (connections closed; the sandbox
	// removed when it did not exit by itself). An exited sandbox is removed
	// after the answer, off this path.
	Cleanup time.Duration
}

// Backend runs sandboxes on one engine.
type Backend interface {
	// Name is "docker", "containerd" or "local".
	Name() string
	// Isolating reports whether runs are isolated from the host (a
	// container); only an isolating backend may run untrusted hooks.
	Isolating() bool
	// Run creates, starts, feeds, waits for and removes one container. It
	// leaves nothing behind, whatever the program did. The error is for
	// failures of the engine or of the start; what the program did is in
	// the Outcome.
	Run(ctx context.Context, r *Run) (*Outcome, error)
	Close() error
}

// Warm is a sandbox created and started ahead of its run, its launcher
// waiting on stdin. It is used once: Run or Discard, never both, never twice.
type Warm interface {
	// Run streams stdin and runs to completion like Backend.Run; the
	// context's deadline is the run's timeout.
	Run(ctx context.Context, stdin []byte, maxOutput int64) (*Outcome, error)
	// Discard destroys an unused sandbox.
	Discard()
}

// Warmer is a backend that can prepare sandboxes ahead of their runs.
type Warmer interface {
	Warm(ctx context.Context, spec *sandbox.Spec) (Warm, error)
}

// NotReusable is a Warmer whose sandboxes must never serve a second run:
// executor.Options.Reuse passes it by, saying why.
type NotReusable interface {
	NotReusable() (why string)
}

// Cleaner is a backend that removes a sandbox in the background after its
// run's answer: WaitCleanup returns when every removal begun so far is
// done (or ctx ends), with the error of any that failed.
type Cleaner interface {
	WaitCleanup(ctx context.Context) error
}

// Sweeper is a backend whose sandboxes can outlive their owner (a
// hook-exec process killed): Sweep removes those of owners gone, or every
// one of hook-exec's when all is true, and says how many it removed.
type Sweeper interface {
	Sweep(ctx context.Context, all bool) (int, error)
}

// Pinger is a backend that can say whether its engine answers now
// (wrapping ErrEngine when it does not).
type Pinger interface {
	Ping(ctx context.Context) error
}

// ImageHolder is a backend whose engine holds the images its sandboxes
// run: Newest is the newest image of repo it holds ("" when none).
type ImageHolder interface {
	Newest(ctx context.Context, repo string) (string, error)
}

// Addressed is a backend that names the engine it talks to (a socket, a
// host, an API server): runs on the same engine share its admission.
type Addressed interface {
	Address() string
}

// WarmLifetimer is a Warmer whose sandboxes started ahead end on their own
// after a while (a pod's activeDeadlineSeconds): a pool must not hand one
// out older than WarmLifetime.
type WarmLifetimer interface {
	WarmLifetime() time.Duration
}

// SignalName names the signal behind a shell-style exit code (128+n), or
// returns "" when the code does not come from a signal.
func SignalName(exitCode int) string {
	names := map[int]string{1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 6: "SIGABRT", 7: "SIGBUS",
		8: "SIGFPE", 9: "SIGKILL", 11: "SIGSEGV", 13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM", 24: "SIGXCPU", 25: "SIGXFSZ"}
	return names[exitCode-128]
}

// Expired reports whether ctx is done or its deadline has passed: an RPC
// can fail with its own deadline error a moment before ctx says so.
func Expired(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	d, ok := ctx.Deadline()
	return ok && !time.Now().Before(d)
}

// ErrPrepareTimeout: the caller's deadline passed while a sandbox was
// being prepared (created, attached, started).
var ErrPrepareTimeout = errors.New("deadline passed while preparing the sandbox")

// Prepare makes a sandbox and starts its program, waiting on stdin, under
// ctx; the wait for its exit lives under life.
type Prepare func(ctx, life context.Context, spec *sandbox.Spec) (*Prepared, error)

// RunPrepared is a backend's Run: prepare under the run's deadline, then
// run. A deadline that passes while preparing is a timeout, not an error.
// With chans (nil: none) and a spec that may take one, the sandbox is
// streamed over a channel of its own.
func RunPrepared(ctx context.Context, r *Run, prepare Prepare, chans *Channels) (*Outcome, error) {
	begin := time.Now()
	w, err := prepareChanneled(ctx, ctx, r.Spec, prepare, chans)
	if errors.Is(err, ErrPrepareTimeout) {
		return &Outcome{ExitCode: -1, TimedOut: true, Duration: time.Since(begin)}, nil
	}
	if err != nil {
		return nil, err
	}
	out, err := w.Run(ctx, r.Stdin, r.MaxOutput)
	if out != nil {
		out.Duration = time.Since(begin)
	}
	return out, err
}

// WarmPrepared is a backend's Warm: ctx bounds only the preparation. A
// deadline that passes while preparing is an error that wraps
// ErrPrepareTimeout. With chans (nil: none) and a spec that may take one,
// the sandbox is streamed over a channel of its own.
func WarmPrepared(ctx context.Context, spec *sandbox.Spec, prepare Prepare, chans *Channels) (Warm, error) {
	w, err := prepareChanneled(ctx, context.Background(), spec, prepare, chans)
	if errors.Is(err, ErrPrepareTimeout) {
		return nil, fmt.Errorf("%w: %w", ErrPrepareTimeout, context.Cause(ctx))
	}
	if err != nil {
		return nil, err
	}
	return w, nil
}

// prepareChanneled prepares spec's sandbox, over a channel of chans when
// the spec may take one.
//
// Until the engine's verdict is known (Channels.decided, probed once per
// engine, runtime and boot), sandboxes take the attach. An engine that names the channel's
// directory in its refusal does not see this machine's files (an engine
// in a VM: Docker Desktop, colima; one with a /tmp of its own: snap's
// Docker): the sandbox is prepared again without a channel, and so is
// every later one of chans.
func prepareChanneled(ctx, life context.Context, spec *sandbox.Spec, prepare Prepare, chans *Channels) (*Prepared, error) {
	// decided first: a kept verdict of the attach sets Unseen.
	if chans == nil || !spec.Channel || !chans.decided(spec, prepare) || chans.Unseen() {
		w, err := prepare(ctx, life, spec)
		return w, unshared(spec, err)
	}
	ch, err := chans.make(spec.Resident)
	if err != nil {
		return nil, err
	}
	w, err := prepare(ctx, life, channelSpec(spec, ch))
	if err != nil {
		ch.remove()
		if chans.notSeen(ch, err) && ctx.Err() == nil {
			chans.remember(verdictAttach)
			w, err := prepare(ctx, life, spec)
			return w, unshared(spec, err)
		}
		return nil, unshared(spec, err)
	}
	w.s = newChanneled(w.s, ch)
	return w, nil
}

// unshared is err, or, when it is the engine's refusal of a mount whose
// source this machine has, ErrUnshared naming it and what shares it: an
// engine in a VM (Docker Desktop, colima, Podman machine, OrbStack) sees
// only the directories shared with the VM. Only the engines' own words
// for a refused mount source count (a program the hook runs from its
// workspace that is missing names the workspace too, and is not this).
func unshared(spec *sandbox.Spec, err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	for _, m := range spec.Mounts {
		if m.Volume || !refusedSource(msg, m.Source) {
			continue
		}
		if _, serr := os.Stat(m.Source); serr != nil {
			continue // missing here too: not a matter of sharing
		}
		return fmt.Errorf("%w: %s (mounted at %s) is here, but the engine does not see it: it runs elsewhere. "+
			"Share the directory with the engine (Docker Desktop: Settings, Resources, File sharing; colima: --mount or colima.yaml's mounts; "+
			"Podman machine: its volumes; a remote engine: the same path on its machine), or keep the project under one it shares (your home, by default): %w",
			ErrUnshared, m.Source, m.Target, err)
	}
	return err
}

// refusedSource reports whether msg is an engine's refusal of the mount
// source src, named whole: Docker's "bind source path does not exist: SRC"
// (colima, Lima), Docker Desktop's "The path SRC is not shared", runc's
// `error mounting "SRC" to rootfs` (containerd).
func refusedSource(msg, src string) bool {
	for _, form := range []struct{ before, after string }{
		{"bind source path does not exist: ", ""},
		{"path ", " is not shared"},
		{`error mounting "`, `"`},
	} {
		for rest := msg; ; {
			i := strings.Index(rest, form.before+src)
			if i < 0 {
				break
			}
			tail := rest[i+len(form.before)+len(src):]
			if form.after != "" && strings.HasPrefix(tail, form.after) || form.after == "" && (tail == "" || !strings.HasPrefix(tail, "/") && !isPathByte(tail[0])) {
				return true
			}
			rest = tail
		}
	}
	return false
}

// isPathByte reports whether b can go on a path (a longer name: SRC-2).
func isPathByte(b byte) bool {
	return b == '/' || b == '-' || b == '_' || b == '.' || b >= '0' && b <= '9' || b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z'
}
