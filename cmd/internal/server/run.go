// Package server is the server's main: `hook-exec serve` after its
// flags (package serve is the protocol, the Server and the Client).
package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/backend/engine"
	"github.com/hookexec/hook-exec/cmd/internal/hookrun"
	"github.com/hookexec/hook-exec/cmd/internal/stack"
	"github.com/hookexec/hook-exec/cmd/internal/telemetry"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/internal/tracestore"
	"github.com/hookexec/hook-exec/serve"
)

// Options are one server's, as `hook-exec serve` runs it.
type Options struct {
	// Socket is the unix socket's path (see [serve.Listen]).
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
	// shutdown. Default serve.DefaultDrainTimeout.
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
	Commands func(*hookrun.Shared) serve.CommandRunner
	// LogFormat is "text" (the default) or "json": Log's lines, each with
	// its time. LogLevel is the least level written: at info (the
	// default) a line for each hook run (its hook, action, failure kind,
	// duration; never its event or output), at debug one for each request
	// too.
	LogFormat string
	LogLevel  slog.Level
	// MetricsAddr, when set, is the TCP address of an HTTP listener with
	// /metrics (Prometheus), /healthz and /readyz.
	MetricsAddr string
}

// Logger is the logger of a server's lines: text or JSON, with the time.
func Logger(w io.Writer, format string, level slog.Level) (*slog.Logger, error) {
	o := &slog.HandlerOptions{Level: level}
	switch format {
	case "", "text":
		return slog.New(slog.NewTextHandler(w, o)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, o)), nil
	}
	return nil, fmt.Errorf("log format %q: want text or json", format)
}

// Run listens on o.Socket, opens the engine and answers requests until ctx
// is done; then it drains the runs in flight (bounded), shuts the executor
// and its pool down (bounded) and removes the socket.
func Run(ctx context.Context, o Options) error {
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.DrainTimeout <= 0 {
		o.DrainTimeout = serve.DefaultDrainTimeout
	}
	if o.StateDir == "" {
		d, err := tracestore.DefaultDir()
		if err != nil {
			return err
		}
		o.StateDir = d
	}
	logger, err := Logger(o.Log, o.LogFormat, o.LogLevel)
	if err != nil {
		return err
	}
	// What the server's parts write as text (the socket it serves on, a
	// warning) goes to the log in its own format: a JSON log has JSON
	// lines alone.
	text := o.Log
	if o.LogFormat == "json" {
		text = logLines{logger}
	}
	var metrics *telemetry.Metrics
	var executors []*executor.Executor // read by the metrics once set
	var backendName string
	if o.MetricsAddr != "" {
		metrics = telemetry.New(func() telemetry.Source { return telemetry.Source{Backend: backendName, Executors: executors} })
	}
	// Each run: a line (never its event or output), counted.
	ran := func(tr hook.Trace) {
		failure := ""
		if tr.Failure != nil {
			failure = string(tr.Failure.Kind)
		}
		logger.Info("run", "hook", tr.HookID, "dialect", tr.Dialect, "point", tr.Point, "action", tr.FinalAction, "failure", failure,
			"duration_ms", tr.DurationMS, "pooled", tr.Pooled, "reused", tr.Reused, "execution", tr.ExecutionID)
		if metrics != nil {
			metrics.Observe(tr)
		}
	}
	ln, err := serve.Listen(o.Socket, text)
	if err != nil {
		return err
	}
	defer ln.Close()
	xo := executor.Options{Pool: o.Pool, Reuse: o.Reuse, Via: "server", OnTrace: ran}
	s, err := stack.Open(ctx, stack.Options{Engine: o.Engine, Strict: true, StateDir: o.StateDir, Log: text, Logger: logger, Traces: true,
		Executor: executor.Options{Pool: o.Pool, Reuse: o.Reuse, StateDir: o.StateDir, Via: "server", OnTrace: ran}})
	if err != nil {
		return err
	}
	srv := &serve.Server{Executor: s.Executor, StateDir: o.StateDir, DrainTimeout: o.DrainTimeout, IdleExit: o.IdleExit,
		Status: serve.Status{PID: os.Getpid(), Socket: o.Socket, Started: time.Now().UTC(), Backend: s.Engine.Backend().Name(),
			Runtime: backend.RuntimeOf(s.Engine.Backend()), StateDir: o.StateDir, Pool: o.Pool, Reuse: o.Reuse}}
	if o.IdleExit > 0 {
		srv.Status.IdleExit = o.IdleExit.String()
	}
	all := []*executor.Executor{s.Executor}
	if o.Commands != nil {
		sh, err := hookrun.Share(s, o.StateDir, xo)
		if err != nil {
			s.Close(o.DrainTimeout)
			return err
		}
		srv.Commands = o.Commands(sh)
		all = append(all, sh.OneShot, sh.Kept, sh.Registry)
	}
	srv.Describe = func(st *serve.Status) { describe(st, all) }
	srv.Answered = func(kind, outcome string, took time.Duration) {
		logger.Debug("request", "kind", kind, "outcome", outcome, "duration_ms", took.Milliseconds())
		if metrics != nil {
			metrics.Request(kind, outcome)
		}
	}
	if metrics != nil {
		backendName, executors = srv.Status.Backend, all
		stop, err := serveMetrics(o.MetricsAddr, metrics, func(ctx context.Context) error { return ready(ctx, s.Engine, all) }, logger)
		if err != nil {
			s.Close(o.DrainTimeout)
			return err
		}
		defer stop()
	}
	fmt.Fprintf(text, "hook-exec: serving on %s\n", o.Socket)
	serveErr := srv.Serve(ctx, ln)
	if err := s.Close(o.DrainTimeout); err != nil {
		serveErr = errors.Join(serveErr, fmt.Errorf("shut down: %w", err))
	}
	return serveErr
}

// serveMetrics listens on addr with m's handler; stop closes it.
func serveMetrics(addr string, m *telemetry.Metrics, isReady func(context.Context) error, log *slog.Logger) (stop func(), _ error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics address: %w", err)
	}
	hs := &http.Server{Handler: m.Handler(isReady), ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	log.Info("metrics", "address", ln.Addr().String())
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(ctx)
	}, nil
}

// ready reports whether the server can answer at once: its engine answers
// and every pooled shape has a sandbox ready.
func ready(ctx context.Context, eng *engine.Engine, executors []*executor.Executor) error {
	if err := eng.Ping(ctx); err != nil {
		return err
	}
	for _, ex := range executors {
		if err := poolsReady(ex.Stats().Pools); err != nil {
			return err
		}
	}
	return nil
}

// poolsReady says which pool is not ready: one before its warm-up. One
// that refills after its sandboxes served runs stays ready (a run
// meanwhile goes cold), or a load balancer would flap with the traffic.
func poolsReady(pools []executor.PoolStats) error {
	for _, p := range pools {
		if p.Target > 0 && p.Ready == 0 && !p.Warmed {
			return fmt.Errorf("the pool of %s has had no sandbox ready yet", p.Image)
		}
	}
	return nil
}

// describe fills in a status from the server's executors.
func describe(st *serve.Status, executors []*executor.Executor) {
	sum := telemetry.Summarize(executors)
	for _, p := range sum.Pools {
		st.Pools = append(st.Pools, serve.PoolStatus{Image: p.Image, Ready: p.Ready, Target: p.Target, Misses: p.Misses})
	}
	st.ReusedIdle = sum.ReusedIdle
	if a := sum.Admission; a != nil {
		st.Admission = &serve.AdmissionStatus{Limit: a.Limit, InFlight: a.InFlight, Queued: a.Queued, Shed: a.Shed}
	}
}

// logLines is a writer each of whose lines ("hook-exec: warning: ...") is
// a record of log, at warning level for a warning.
type logLines struct{ log *slog.Logger }

func (w logLines) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		msg := strings.TrimPrefix(line, "hook-exec: ")
		if warning, ok := strings.CutPrefix(msg, "warning: "); ok {
			w.log.Warn(warning)
		} else if msg != "" {
			w.log.Info(msg)
		}
	}
	return len(p), nil
}
