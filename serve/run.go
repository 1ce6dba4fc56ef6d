package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/backend/engine"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/internal/hookrun"
	"github.com/hookexec/hook-exec/internal/session"
	"github.com/hookexec/hook-exec/internal/tracestore"
)

// Options are one server's, as `hook-exec serve` runs it.
type Options struct {
	// Socket is the unix socket's path (see [Listen]).
	Socket string
	// Engine opens the backend; the engine's answer is checked at once and
	// orphans are swept in the background.
	Engine engine.Options
	// Pool is how many sandboxes per shape are started ahead (0: none).
	Pool int
	// Reuse: a sandbox may serve further runs of the same hook
	// (executor.Options.Reuse).
	Reuse bool
	// DrainTimeout bounds the drain of runs in flight, then the executor's
	// shutdown. Default DefaultDrainTimeout.
	DrainTimeout time.Duration
	// StateDir holds the registry that dispatch requests read ("": the
	// default state directory).
	StateDir string
	// Log gets the executor's warnings and the server's own lines (nil:
	// discarded).
	Log io.Writer
	// IdleExit stops the server after this long with no connection open
	// (0: never).
	IdleExit time.Duration
	// Commands makes the runner of the command lines clients hand over
	// (see package hostcall) from what the server lends them (nil: every
	// one is declined).
	Commands func(*hookrun.Shared) CommandRunner
}

// Run listens on o.Socket, opens the engine and answers requests until ctx
// is done; then it drains the runs in flight (bounded), shuts the executor
// and its pool down (bounded) and removes the socket.
func Run(ctx context.Context, o Options) error {
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.DrainTimeout <= 0 {
		o.DrainTimeout = DefaultDrainTimeout
	}
	if o.StateDir == "" {
		d, err := tracestore.DefaultDir()
		if err != nil {
			return err
		}
		o.StateDir = d
	}
	ln, err := Listen(o.Socket, o.Log)
	if err != nil {
		return err
	}
	defer ln.Close()
	xo := executor.Options{Pool: o.Pool, Reuse: o.Reuse, Via: "server"}
	s, err := session.Open(ctx, session.Options{Engine: o.Engine, Strict: true, StateDir: o.StateDir, Log: o.Log, Traces: true,
		Executor: executor.Options{Pool: o.Pool, Reuse: o.Reuse, StateDir: o.StateDir, Via: "server"}})
	if err != nil {
		return err
	}
	srv := &Server{Executor: s.Executor, StateDir: o.StateDir, DrainTimeout: o.DrainTimeout, IdleExit: o.IdleExit,
		Status: Status{PID: os.Getpid(), Socket: o.Socket, Started: time.Now().UTC(), Backend: s.Engine.Backend().Name(),
			Runtime: backend.RuntimeOf(s.Engine.Backend()), StateDir: o.StateDir, Pool: o.Pool, Reuse: o.Reuse}}
	if o.IdleExit > 0 {
		srv.Status.IdleExit = o.IdleExit.String()
	}
	if o.Commands != nil {
		sh, err := hookrun.Share(s, o.StateDir, xo)
		if err != nil {
			s.Close(o.DrainTimeout)
			return err
		}
		srv.Commands = o.Commands(sh)
	}
	fmt.Fprintf(o.Log, "hook-exec: serving on %s\n", o.Socket)
	serveErr := srv.Serve(ctx, ln)
	if err := s.Close(o.DrainTimeout); err != nil {
		serveErr = errors.Join(serveErr, fmt.Errorf("shut down: %w", err))
	}
	return serveErr
}
