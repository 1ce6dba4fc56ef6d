package hookrun

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/hookexec/hook-exec/backend/engine"
	"github.com/hookexec/hook-exec/cmd/internal/stack"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/host/dispatch"
	"github.com/hookexec/hook-exec/host/registry"
	"github.com/hookexec/hook-exec/internal/tracestore"
)

// DispatchOptions are one boundary, the way `hook-exec dispatch` runs it.
type DispatchOptions struct {
	Point string
	Event []byte
	// Engine opens the backend; Sweep is implied.
	Engine engine.Options
	// StateDir holds the registry, trust, circuits and traces
	// ("": tracestore.DefaultDir).
	StateDir string
	// Workspace adds its project hooks when trusted, and is the root the
	// event's workspace may lie in to be mounted.
	Workspace string
	// SessionHooks is a session document's file ("": none).
	SessionHooks string
	Profile      string
	// DrainTimeout bounds the wait for observational hooks before exit
	// (0: the longest observer's timeout plus 10 s).
	DrainTimeout time.Duration
	// Observer is a hook-exec binary that runs the boundary's
	// observational hooks after the answer, in a process of its own that
	// outlives this one (`hook-exec observe`): the host has its answer at
	// once, as the seed's background observers give it. "": they run in
	// this process, which drains them (DrainTimeout) before it returns.
	Observer       string
	Stdout, Stderr io.Writer
	// Shared is the server running this call (nil: it opens a stack of
	// its own). Its observers go on in the server after the answer.
	Shared *Shared
}

// StateDir resolves "" to the default state directory.
func StateDir(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	return tracestore.DefaultDir()
}

// Sources are the registry sources of a CLI call (dispatch.Boundary's,
// with the session's hooks document read from its file).
func Sources(stateDir, workspace, sessionHooks, profile string) (registry.Sources, error) {
	b := dispatch.Boundary{StateDir: stateDir, Profile: profile, Workspace: workspace}
	if sessionHooks != "" {
		doc, err := os.ReadFile(sessionHooks)
		if err != nil {
			return registry.Sources{}, usage(fmt.Errorf("--session-hooks: %w", err))
		}
		abs, err := filepath.Abs(sessionHooks)
		if err != nil {
			return registry.Sources{}, usage(err)
		}
		b.Session, b.SessionDir = doc, filepath.Dir(abs)
	}
	src, err := b.Sources()
	if err != nil {
		// Nothing runs from plugins that cannot be read: a usage error,
		// which a boundary answers as a refusal.
		return src, usage(err)
	}
	return src, nil
}

// openStack opens the engine and an executor on it whose traces go to
// the trace store in stateDir; an engine that does not answer fails every
// run through its hook's policy. more adjusts the executor's options.
func openStack(ctx context.Context, eo engine.Options, stateDir string, stderr io.Writer, more executor.Options) (*stack.Stack, error) {
	more.Via = "process"
	s, err := stack.Open(ctx, stack.Options{Engine: eo, StateDir: stateDir, Traces: true, Log: stderr, Executor: more})
	if err != nil {
		return nil, usage(err)
	}
	return s, nil
}

// Dispatch takes the registry's snapshot, runs the boundary and writes
// {"decision", "event", "traces"} to Stdout. A registry that does not read
// is a usage error (nothing runs); every hook failure goes through its
// failure policy.
func Dispatch(ctx context.Context, o DispatchOptions) (*dispatch.Result, error) {
	stateDir, err := StateDir(o.StateDir)
	if err != nil {
		return nil, usage(err)
	}
	src, err := Sources(stateDir, o.Workspace, o.SessionHooks, o.Profile)
	if err != nil {
		return nil, err
	}
	snap, err := registry.Take(src)
	if err != nil {
		return nil, usage(err)
	}
	c, err := o.Shared.begin(callRegistry, func() (*stack.Stack, error) {
		return openStack(ctx, o.Engine, stateDir, o.Stderr, executor.Options{Ledger: dispatch.StateLedger(stateDir), StateDir: stateDir, SharedSlots: true})
	})
	if err != nil {
		return nil, err
	}
	d, err := dispatch.New(dispatch.Options{Executor: c.Executor, AllowRoots: dispatch.Boundary{Workspace: o.Workspace}.AllowRoots(), DeferObservers: o.Observer != "" && o.Shared == nil})
	if err != nil {
		c.end(stack.DefaultDrain)
		return nil, usage(err)
	}
	if o.Point == "session.end" {
		if ev, err := hook.ParseEvent(o.Event); err == nil {
			dctx, cancel := context.WithTimeout(ctx, SessionDrain)
			if cut := drainSession(dctx, c.Executor, stateDir, ev.SessionID); cut > 0 {
				fmt.Fprintf(o.Stderr, "hook-exec: warning: the session's end cut %d observer run(s) short after %v\n", cut, SessionDrain)
			}
			cancel()
		}
	}
	res, runErr := d.Dispatch(c.warnTo(ctx, o.Stderr), snap, o.Point, o.Event)
	// The observers started here (all of them, or with an Observer the
	// builtins) end before this process does.
	drain := o.DrainTimeout
	if drain <= 0 {
		drain = 10 * time.Second
		for _, e := range snap.At(o.Point) {
			if t := time.Duration(e.Def.TimeoutSeconds*float64(time.Second)) + 10*time.Second; e.Def.Mode == hook.Observational && t > drain {
				drain = t
			}
		}
	}
	if err := c.end(drain); err != nil {
		fmt.Fprintf(o.Stderr, "hook-exec: %v\n", err)
	}
	if runErr != nil {
		return nil, usage(runErr)
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(o.Stderr, "hook-exec: warning: %s\n", w)
	}
	for _, tr := range res.Traces {
		if f := tr.Failure; f != nil {
			fmt.Fprintf(o.Stderr, "hook-exec: %s: %s: %s (failure_policy %s)\n", tr.HookID, f.Kind, f.Message, tr.PolicyApplied)
		}
	}
	b, err := json.Marshal(res, json.Deterministic(true))
	if err == nil {
		_, err = o.Stdout.Write(append(b, '\n'))
	}
	if len(res.Deferred) > 0 {
		// The answer is out; the observers go on in a process of their own.
		if serr := startObservers(o.Observer, o.Engine, stateDir, res.Event, res.Deferred); serr != nil {
			fmt.Fprintf(o.Stderr, "hook-exec: warning: the observers run before this process exits: %v\n", serr)
			if serr := observe(ctx, o.Engine, stateDir, o.Stderr, res.Event, res.Deferred); serr != nil {
				fmt.Fprintf(o.Stderr, "hook-exec: %v\n", serr)
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("write result: %w", err)
	}
	return res, nil
}

// observed is what `hook-exec observe` reads on stdin: the observational
// hooks of a boundary and the final event they get.
type observed struct {
	Event jsontext.Value `json:"event"`
	Hooks []hook.Hook    `json:"hooks"`
}

// startObservers starts exe as `hook-exec observe` in a session of its own,
// with the engine's flags, no stdout or stderr (a host reading this
// process's output to its end must not wait for it) and the hooks and
// event on its stdin, and leaves it running.
func startObservers(exe string, eo engine.Options, stateDir string, event jsontext.Value, hooks []hook.Hook) error {
	in, err := json.Marshal(observed{Event: event, Hooks: hooks}, json.Deterministic(true), jsonv1.FormatDurationAsNano(true))
	if err != nil {
		return err
	}
	args := append([]string{"observe", "--state-dir", stateDir}, eo.Flags()...)
	if eo.Runtime != "" {
		args = append(args, "--runtime", eo.Runtime)
	}
	cmd := exec.Command(exe, args...)
	cmd.SysProcAttr = engine.Detached()
	// What it has to say (it cannot run, an engine that will not open)
	// goes to a log of its own; its runs go to the trace store.
	logFile, err := OpenLog(stateDir, "observe")
	if err != nil {
		return err
	}
	defer logFile.Close()
	cmd.Stderr = logFile
	w, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s observe: %w", exe, err)
	}
	noteObserver(stateDir, event, cmd.Process.Pid)
	go cmd.Wait() // collects it if it ends before this process
	// Written here, not by exec's copier: this process may exit as soon as
	// it returns, and the observers must have all of it.
	_, err = w.Write(in)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("hand the observers to %s observe: %w", exe, err)
	}
	return nil
}

// maxLog bounds a log of OpenLog's: it starts anew past it.
const maxLog = 1 << 20

// OpenLog opens NAME.log in the state directory for appending (the
// observers', a started server's: processes with no terminal of their
// own), emptied first when it has grown past 1 MiB.
func OpenLog(stateDir, name string) (*os.File, error) {
	p := filepath.Join(stateDir, name+".log")
	flags := os.O_CREATE | os.O_WRONLY | os.O_APPEND
	if fi, err := os.Stat(p); err == nil && fi.Size() > maxLog {
		flags |= os.O_TRUNC
	}
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return nil, err
	}
	return os.OpenFile(p, flags, 0o600)
}

// ObserveOptions are a boundary's observational hooks, run after its
// answer by a process of their own.
type ObserveOptions struct {
	Engine   engine.Options
	StateDir string
	// In holds what startObservers wrote.
	In     io.Reader
	Stderr io.Writer
}

// Observe runs the observational hooks In holds on their event, traced to
// the state directory's store, and waits for them (each within its own
// timeout).
func Observe(ctx context.Context, o ObserveOptions) error {
	b, err := io.ReadAll(io.LimitReader(o.In, 64<<20))
	if err != nil {
		return err
	}
	var in observed
	if err := json.Unmarshal(b, &in, jsonv1.FormatDurationAsNano(true)); err != nil {
		return usage(fmt.Errorf("observe: %w", err))
	}
	stateDir, err := StateDir(o.StateDir)
	if err != nil {
		return usage(err)
	}
	// The session's end found this process in the state directory
	// (noteObserver), and waits for it until it ends, however it ends.
	defer forgetObserver(stateDir, in.Event, os.Getpid())
	return observe(ctx, o.Engine, stateDir, o.Stderr, in.Event, in.Hooks)
}

// observe runs each observational hook on event in an executor of its
// own and waits for them all, bounded by the longest timeout plus a margin
// for the sandboxes' cleanup.
func observe(ctx context.Context, eo engine.Options, stateDir string, stderr io.Writer, event jsontext.Value, hooks []hook.Hook) error {
	drain := 10 * time.Second
	for _, h := range hooks {
		if h.Mode != hook.Observational {
			return usage(fmt.Errorf("observe: hook %s is not observational", h.ID))
		}
		drain = max(drain, h.Timeout+10*time.Second)
	}
	s, err := openStack(ctx, eo, stateDir, stderr, executor.Options{Ledger: dispatch.StateLedger(stateDir), StateDir: stateDir, SharedSlots: true})
	if err != nil {
		return err
	}
	for _, h := range hooks {
		s.Executor.Run(ctx, h, event) // a failure is in its trace
	}
	// A session's end that stops this process (SIGTERM) cuts the drain
	// short: the runs are cancelled, their processes and sandboxes killed.
	return s.CloseWithin(ctx, drain)
}
