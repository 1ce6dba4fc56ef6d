package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	units "github.com/docker/go-units"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/tracestore"
)

// runOptions are the flags of `hook-exec run`.
type runOptions struct {
	hook          hook.Hook
	backend       string
	traceFile     string
	stateDir      string
	session       string
	maxEventBytes int64
}

func cmdRun(ctx context.Context, args []string, io stdio) int {
	var o runOptions
	var script, memory, mode, policy, dialect, scope string
	var cpus float64
	var env, roots multiFlag
	var session string
	fs := newFlagSet("run", io.err)
	fs.StringVar(&script, "script", "", "the hook script (.sh or .py) `FILE`")
	fs.StringVar(&o.hook.Image, "image", "", "`IMAGE` to run in (default: the reference image for the script's language)")
	fs.StringVar(&o.hook.SHA256, "sha256", "", "approved SHA-256 of the script (`HEX`); without it the bytes read now are the pin")
	fs.StringVar(&o.hook.ID, "hook-id", "", "the hook's id in traces (default: the script's file name)")
	fs.StringVar(&o.backend, "backend", "", "engine: docker (default; env HOOKEXEC_BACKEND) or local (owner hooks only, no isolation)")
	fs.DurationVar(&o.hook.Timeout, "timeout", 10*time.Second, "bound of the whole run")
	fs.Int64Var(&o.hook.MaxOutputBytes, "max-output-bytes", 65536, "cap of stdout and stderr together")
	fs.Int64Var(&o.maxEventBytes, "max-event-bytes", executor.DefaultMaxEventBytes, "largest event accepted")
	fs.StringVar(&memory, "memory", "256MiB", "memory limit (swap is held equal)")
	fs.Int64Var(&o.hook.Pids, "pids", 64, "process limit")
	fs.Float64Var(&cpus, "cpus", 1, "CPU limit")
	fs.Var(&env, "env", "declared `NAME=VALUE` (repeatable; secret-like names are refused)")
	fs.StringVar(&mode, "mode", "blocking", "blocking|observational")
	fs.StringVar(&policy, "failure-policy", "", "continue|warn|deny|disable (default deny; warn for arcturn and observational hooks)")
	fs.StringVar(&dialect, "dialect", "holaryn", "holaryn|arcturn|bernstein: the host's event and decision format")
	fs.StringVar(&o.hook.Matcher, "matcher", "", "arcturn: run only for this tool (exact, or a prefix ending in *)")
	fs.StringVar(&scope, "scope", "plugin", "plugin|project|owner: who wrote the hook (only owner hooks may run on the local backend)")
	fs.StringVar(&o.traceFile, "trace", "", "write the trace JSON to `FILE` (- for stderr)")
	fs.StringVar(&o.hook.Workspace, "workspace", "", "host `DIR` mounted read-only at the same path (default: the event's workspace, when inside an --allow-root)")
	fs.BoolVar(&o.hook.WorkspaceRW, "workspace-rw", false, "loosening: mount the workspace read-write and run as its owner (formatters)")
	fs.BoolVar(&o.hook.AllowRootOwned, "workspace-allow-root-owned", false, "loosening: allow a root-owned read-write workspace")
	fs.Var(&roots, "allow-root", "a `DIR` the workspace may lie in (repeatable; default: only --workspace itself)")
	fs.StringVar(&session, "session", "", "docker: run in a fresh sandbox of this session `CONTAINER`'s image, with its mounts")
	fs.StringVar(&o.stateDir, "state-dir", "", "trace store directory (default $HOOKEXEC_STATE_DIR or ~/.local/state/hook-exec)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagErr(err)
	}
	if len(pos) > 0 {
		return usageErr(io.err, "run: unexpected argument %q", pos[0])
	}
	if script == "" {
		return usageErr(io.err, "run: --script is required")
	}
	d, err := hook.ParseDialect(dialect)
	if err != nil {
		return usageErr(io.err, "run: %v", err)
	}
	o.hook.Dialect, o.hook.Scope = d, hook.Scope(scope)
	abs, err := filepath.Abs(script)
	if err != nil {
		return usageErr(io.err, "run: --script: %v", err)
	}
	o.hook.PluginDir, o.hook.Script = filepath.Dir(abs), filepath.Base(abs)
	if o.hook.ID == "" {
		o.hook.ID = o.hook.Script
	}
	mem, err := units.RAMInBytes(memory)
	if err != nil {
		return usageErr(io.err, "run: --memory %q: %v", memory, err)
	}
	o.hook.Memory = mem
	o.hook.NanoCPUs = int64(cpus * 1e9)
	o.hook.Mode, o.hook.FailurePolicy = hook.Mode(mode), hook.FailurePolicy(policy)
	o.hook.Env = map[string]string{}
	for _, kv := range env {
		k, v, ok := cutEnv(kv)
		if !ok {
			return usageErr(io.err, "run: --env %q: want NAME=VALUE", kv)
		}
		o.hook.Env[k] = v
	}
	o.hook.AllowRoots = roots
	if err := o.hook.Validate(); err != nil {
		return usageErr(io.err, "run: %v", err)
	}
	o.session = session
	return runHook(ctx, o, io)
}

func cutEnv(kv string) (string, string, bool) {
	for i := 0; i < len(kv); i++ {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], i > 0
		}
	}
	return "", "", false
}

func runHook(ctx context.Context, o runOptions, io stdio) int {
	event, err := readLimited(io.in, o.maxEventBytes)
	if err != nil {
		return usageErr(io.err, "run: read event from stdin: %v", err)
	}
	eng, err := openEngine(backendName(o.backend))
	switch {
	case errors.Is(err, backend.ErrEngine):
		// An engine that does not answer is a failure of this run, which
		// ends in a decision through the failure policy like any other.
		eng = &engine{Backend: unavailable{name: backendName(o.backend), err: err}}
	case err != nil:
		return usageErr(io.err, "run: %v", err)
	}
	defer eng.Close()
	if o.session != "" {
		if eng.docker == nil {
			return usageErr(io.err, "run: --session needs the docker backend")
		}
		s, err := eng.docker.SessionOf(ctx, o.session)
		if err != nil {
			return usageErr(io.err, "run: --session: %v", err)
		}
		if o.hook.Image == "" {
			o.hook.Image = s.Image
		}
		o.hook.Mounts = append(o.hook.Mounts, s.Mounts...)
	}
	store := openStore(o.stateDir, io)
	var trace *hook.Trace
	ex, err := executor.New(executor.Options{
		Backend:       eng.Backend, // the concrete backend: its Warm must not be hidden
		Admission:     eng.admission(io, o.stateDir),
		DefaultImage:  eng.defaultImage,
		MaxEventBytes: o.maxEventBytes,
		Logf:          func(format string, a ...any) { fmt.Fprintf(io.err, format+"\n", a...) },
		OnTrace: func(tr hook.Trace) {
			trace = &tr
			if store != nil {
				if err := store.Append(tr); err != nil {
					fmt.Fprintf(io.err, "hook-exec: store trace: %v\n", err)
				}
			}
		},
	})
	if err != nil {
		return usageErr(io.err, "run: %v", err)
	}
	res, err := ex.Run(ctx, o.hook, event)
	if err != nil {
		return usageErr(io.err, "run: %v", err)
	}
	// An observational run goes on in the background: let it finish, bounded.
	sctx, cancel := context.WithTimeout(ctx, o.hook.Timeout+10*time.Second)
	defer cancel()
	if err := ex.Shutdown(sctx); err != nil {
		fmt.Fprintf(io.err, "hook-exec: %v\n", err)
	}
	if trace != nil {
		if f := trace.Failure; f != nil {
			fmt.Fprintf(io.err, "hook-exec: %s: %s (failure_policy %s)\n", f.Kind, f.Message, trace.PolicyApplied)
		}
		if err := writeTrace(o.traceFile, *trace, io); err != nil {
			fmt.Fprintf(io.err, "hook-exec: write trace: %v\n", err)
		}
	}
	out, err := hook.Encode(o.hook.Dialect, res.Decision)
	if err == nil {
		_, err = io.out.Write(out)
	}
	if err != nil {
		fmt.Fprintf(io.err, "hook-exec: write decision: %v\n", err)
		return exitFail
	}
	if res.Decision.Action == hook.DenyAction {
		if o.hook.Dialect != hook.Holaryn {
			// Arcturn and Bernstein hosts read a blocking exit's reason from stderr.
			fmt.Fprintln(io.err, res.Decision.Reason)
		}
		return exitDeny
	}
	return exitOK
}

// openStore opens the trace store, or returns nil with a warning: a store
// that cannot be written never changes a decision.
func openStore(dir string, io stdio) *tracestore.Store {
	if dir == "" {
		d, err := tracestore.DefaultDir()
		if err != nil {
			fmt.Fprintf(io.err, "hook-exec: warning: no trace store: %v\n", err)
			return nil
		}
		dir = d
	}
	s, err := tracestore.Open(dir, 0, 0)
	if err != nil {
		fmt.Fprintf(io.err, "hook-exec: warning: no trace store: %v\n", err)
		return nil
	}
	return s
}

// readLimited reads all of r, but no more than max bytes plus one, so that
// an oversized event is seen as oversized without being held whole.
func readLimited(r io.Reader, max int64) ([]byte, error) {
	return io.ReadAll(io.LimitReader(r, max+1))
}

func writeTrace(path string, tr hook.Trace, io stdio) error {
	if path == "" {
		return nil
	}
	b, err := json.Marshal(tr)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if path == "-" {
		_, err = io.err.Write(b)
		return err
	}
	return os.WriteFile(path, b, 0o600)
}
