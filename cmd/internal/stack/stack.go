// Package stack opens what running hooks takes (the engine, an executor
// on it, the trace store) and closes it in one way for every command that
// runs hooks: the runs in flight drain (observers started in the background
// included), bounded, then the engine closes.
package stack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/backend/engine"
	"github.com/hookexec/hook-exec/cmd/internal/telemetry"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/internal/tracestore"
)

// DefaultDrain bounds Close's wait for the runs in flight when the caller
// knows no better bound (every run has a deadline of its own; this is the
// safety net for an engine that stops answering).
const DefaultDrain = 30 * time.Second

// Options say what a stack opens.
type Options struct {
	// Engine names the backend; the stack sweeps dead owners' sandboxes
	// in the background unless NoSweep.
	Engine engine.Options
	// NoSweep leaves the engine's sandboxes alone: for a diagnostic that
	// must measure the engine, not change it.
	NoSweep bool
	// Strict: an engine that does not answer is an error of Open. Without
	// it the engine opens as unavailable, and every run on it fails through
	// its hook's failure policy: a boundary answers, whatever the engine.
	Strict bool
	// StateDir holds the trace store and the engine's admission state,
	// which every hook-exec process on the machine shares ("":
	// tracestore.DefaultDir).
	StateDir string
	// Traces stores every trace in StateDir's store; a store that cannot
	// be opened or written is a warning on Log, never a change of decision.
	Traces bool
	// Log gets warnings and the executor's log (nil: discarded).
	Log io.Writer
	// Logger, when set, is the executor's log instead of Log's text
	// lines without time (a server's: JSON or text, with the time).
	Logger *slog.Logger
	// Executor holds the executor's options beyond those the stack fills
	// in (Backend, DefaultImage, Admission, Logger). Its OnTrace, if any,
	// is called after the trace is stored.
	Executor executor.Options

	store *tracestore.Store // opened by Open when Traces
	spans *telemetry.Spans  // opened by Open when the environment asks
}

// Stack is an open engine and an executor on it.
type Stack struct {
	Engine   *engine.Engine
	Executor *executor.Executor

	o      Options
	others []*executor.Executor // made by Also
}

// Open opens the engine, then the executor.
func Open(ctx context.Context, o Options) (*Stack, error) {
	if o.Log == nil {
		o.Log = io.Discard
	}
	eo := o.Engine
	eo.Sweep, eo.Ping = !o.NoSweep, eo.Ping || o.Strict
	eng, err := engine.Open(ctx, eo)
	switch {
	case !o.Strict && errors.Is(err, backend.ErrEngine):
		eng = engine.Unavailable(engine.Name(eo.Backend), err)
	case err != nil:
		return nil, err
	}
	s := &Stack{Engine: eng, o: o}
	if o.Traces {
		s.o.store = openStore(o.StateDir, o.Log)
	}
	// Spans where OTEL_EXPORTER_OTLP_* asks for them; one that cannot be
	// exported is a warning, never a change of decision.
	if sp, err := telemetry.NewSpans(ctx); err != nil {
		fmt.Fprintf(o.Log, "hook-exec: warning: no spans: %v\n", err)
	} else {
		s.o.spans = sp
	}
	ex, err := s.newExecutor(o.Executor)
	if err != nil {
		eng.Close()
		return nil, err
	}
	s.Executor = ex
	return s, nil
}

// Also opens a further executor on the stack's engine, with options of
// its own (a server's: one whose ledger forgets, one whose ledger is the
// state directory's) and the stack's admission and trace store. Close
// shuts it down with the first.
func (s *Stack) Also(xo executor.Options) (*executor.Executor, error) {
	ex, err := s.newExecutor(xo)
	if err != nil {
		return nil, err
	}
	s.others = append(s.others, ex)
	return ex, nil
}

func (s *Stack) newExecutor(xo executor.Options) (*executor.Executor, error) {
	xo.Backend, xo.DefaultImage = s.Engine.Backend(), s.Engine.DefaultImage
	xo.Admission = s.Engine.Admission(s.o.StateDir, s.o.Log)
	xo.Logger = s.o.Logger
	if xo.Logger == nil {
		xo.Logger = executor.TextLogger(s.o.Log)
	}
	if s.o.Traces {
		xo.OnTrace = storeTraces(s.o.store, s.o.Log, xo.OnTrace)
	}
	return executor.New(xo)
}

// Close waits at most drain for the runs in flight, then closes the engine.
func (s *Stack) Close(drain time.Duration) error {
	err := s.shutdown(context.Background(), drain)
	return errors.Join(err, s.Engine.Close())
}

// CloseWithin is Close with the drain cut short when ctx ends too (a
// session's end stopping its observers): the runs left are cancelled,
// their sandboxes and processes killed and removed.
func (s *Stack) CloseWithin(ctx context.Context, drain time.Duration) error {
	err := s.shutdown(ctx, drain)
	return errors.Join(err, s.Engine.Close())
}

// spansFlush bounds the export of the spans left at the end.
const spansFlush = 5 * time.Second

// Leave is Close for a process that exits next: the engine's removals in
// flight are left to its reaper (engine.Engine.Leave).
func (s *Stack) Leave(drain time.Duration) error {
	err := s.shutdown(context.Background(), drain)
	return errors.Join(err, s.Engine.Leave())
}

// shutdown shuts the executors down, waiting at most drain (and no
// longer than parent) for their observational runs.
func (s *Stack) shutdown(parent context.Context, drain time.Duration) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(parent), drain)
	defer cancel()
	stop := context.AfterFunc(parent, cancel)
	defer stop()
	errs := make(chan error, 1+len(s.others))
	for _, ex := range append([]*executor.Executor{s.Executor}, s.others...) {
		go func() { errs <- ex.Shutdown(ctx) }()
	}
	var err error
	for range 1 + len(s.others) {
		err = errors.Join(err, <-errs)
	}
	if s.o.spans != nil {
		fctx, cancel := context.WithTimeout(context.Background(), spansFlush)
		defer cancel()
		if ferr := s.o.spans.Shutdown(fctx); ferr != nil {
			fmt.Fprintf(s.o.Log, "hook-exec: warning: spans not sent: %v\n", ferr)
		}
	}
	return err
}

// storeTraces appends each trace to store (nil: none), then calls next.
func storeTraces(store *tracestore.Store, log io.Writer, next func(hook.Trace)) func(hook.Trace) {
	return func(tr hook.Trace) {
		if store != nil {
			if err := store.Append(tr); err != nil {
				fmt.Fprintf(log, "hook-exec: store trace: %v\n", err)
			}
		}
		if next != nil {
			next(tr)
		}
	}
}

// openStore opens the trace store, or returns nil with a warning.
func openStore(dir string, log io.Writer) *tracestore.Store {
	if dir == "" {
		d, err := tracestore.DefaultDir()
		if err != nil {
			fmt.Fprintf(log, "hook-exec: warning: no trace store: %v\n", err)
			return nil
		}
		dir = d
	}
	s, err := tracestore.Open(dir, 0, 0)
	if err != nil {
		fmt.Fprintf(log, "hook-exec: warning: no trace store: %v\n", err)
		return nil
	}
	return s
}
