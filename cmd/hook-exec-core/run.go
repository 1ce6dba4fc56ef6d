package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	units "github.com/docker/go-units"
	"github.com/moby/term"
	"github.com/spf13/cobra"

	"github.com/hookexec/hook-exec/cmd/internal/hookrun"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/sandbox"
)

// runOptions are the flags of `hook-exec run`.
type runOptions struct {
	hook          hook.Hook
	traceFile     string
	session       string
	eventFile     string
	maxEventBytes int64
}

func newRunCmd(g *globals, io stdio) *cobra.Command {
	var o runOptions
	var rf runFlags
	o.hook.Memory, o.hook.Pids, o.hook.NanoCPUs = sandbox.DefaultMemory, sandbox.DefaultPids, sandbox.DefaultNanoCPUs
	c := &cobra.Command{
		Use:   "run --script FILE [flags] < event.json",
		Short: "Run one hook script in a sandbox and print its decision",
		Long: `Run one hook script (.sh, .py or .js) on one event in a hardened sandbox and
print the final decision on stdout, one JSON object in the hook's dialect.

The event is read from stdin, or from --event FILE. The script's bytes are
hashed just before launch: with --sha256 they must match the approved digest,
without it the bytes read now are the pin. Every failure (timeout, output
limit, OOM, changed script, invalid decision, unreachable engine) goes
through --failure-policy, so every valid invocation ends in a decision.`,
		Example: `  hook-exec run --script plugin/guard.sh --sha256 <approved digest> < event.json
  hook-exec run --script guard.py --event event.json --trace - --timeout 5s
  hook-exec run --dialect arcturn --script /plugins/acme/guard-bash.sh --timeout 8s
  hook-exec run --dialect claude --matcher Bash --script .claude/hooks/guard.py   # as a Claude Code hook command
  hook-exec --backend containerd run --script guard.sh --memory 128MiB --pids 32 < event.json`,
		Args:        noArgs,
		Annotations: map[string]string{annotEnv: envEngine + "\n" + envState + "\n" + envServer, annotExit: exitDecision},
		RunE: func(c *cobra.Command, _ []string) error {
			if err := rf.options(&o); err != nil {
				return err
			}
			return runHook(c.Context(), g, o, io)
		},
	}
	g.engineFlags(c, "docker, containerd, kubernetes or local (owner hooks only, no isolation)")
	g.runtimeFlag(c)
	g.stateFlag(c)
	o.flags(c, &rf)
	g.serverFlags(c)
	markPaths(c, "script", "event", "trace", "workspace", "allow-root", "plugin-root", "script-root", "plugin-data", "env-file-out")
	return c
}

// runFlags are run's flags that its options take converted.
type runFlags struct {
	script, mode, policy, dialect, scope string
	env, roots, mounts                   []string
}

// flags registers run's own flags on c, into o and rf.
func (o *runOptions) flags(c *cobra.Command, rf *runFlags) {
	f := c.Flags()
	f.SortFlags = false
	f.StringVar(&rf.script, "script", "", "the hook script `FILE` (.sh, .py or .js)")
	f.StringVar(&o.eventFile, "event", "", "read the event JSON from `FILE` (- or none: stdin)")
	f.StringVar(&o.hook.Image, "image", "", "the `IMAGE` to run in (default: the reference image for the script's language)")
	f.StringVar(&o.hook.SHA256, "sha256", "", "the script's approved SHA-256 (`HEX`); without it the bytes read now are the pin")
	sealedFlag(c)
	f.StringVar(&o.hook.ApproveWith, "approve-with", "", "the `COMMAND` that approves the script again, named when it changed (written by install)")
	f.StringVar(&o.hook.ID, "hook-id", "", "the hook's id in traces (default: the script's file name)")
	f.DurationVar(&o.hook.Timeout, "timeout", 10*time.Second, "bound of the whole run")
	f.Int64Var(&o.hook.MaxOutputBytes, "max-output-bytes", 65536, "cap of stdout and stderr together")
	f.Int64Var(&o.maxEventBytes, "max-event-bytes", executor.DefaultMaxEventBytes, "largest event accepted")
	f.Var(&bytesValue{n: &o.hook.Memory, s: units.BytesSize(sandbox.DefaultMemory)}, "memory", "memory limit, e.g. 256MiB or 1g (swap is held equal)")
	f.Var(&countValue{n: &o.hook.Pids}, "pids", "process limit")
	f.Var(&cpusValue{nano: &o.hook.NanoCPUs}, "cpus", "CPU limit, e.g. 1 or 0.5")
	f.StringArrayVar(&rf.env, "env", nil, "a declared value, `NAME=VALUE` (repeatable; secret-like names are refused)")
	f.StringVar(&rf.mode, "mode", "blocking", "blocking|observational")
	f.StringVar(&rf.policy, "failure-policy", "", "continue|warn|deny|disable (default deny; warn for arcturn and observational hooks); holaryn's, arcturn's and bernstein's hooks keep their circuit and a disable across calls, in the state directory, until `hook enable`")
	f.StringVar(&rf.dialect, "dialect", string(hook.DefaultDialect), strings.Join(hook.Dialects(), "|")+": the host's event and decision format (claude, codex, copilot, cursor, gemini: the decision in the host's JSON answer)")
	f.StringVar(&o.hook.Point, "point", "", "copilot: the `EVENT` the hook's configuration runs it at (preToolUse), which Copilot's camelCase payloads do not name")
	f.StringVar(&o.hook.Matcher, "matcher", "", "run only for this tool: arcturn's (exact, or a prefix ending in *), claude's (a regular expression over the whole name: Edit|Write), codex's, cursor's and gemini's (a regular expression)")
	f.StringVar(&rf.scope, "scope", "owner", "owner|project|plugin: who wrote the hook (only owner hooks may run on the local backend; a plugin hook needs --sha256 and declares no --env)")
	f.StringVar(&o.traceFile, "trace", "", "write the trace JSON to `FILE` (- for stderr)")
	f.StringVar(&o.hook.Workspace, "workspace", "", "the host `DIR` mounted read-only at the same path (default: the event's workspace, when inside an --allow-root)")
	f.BoolVar(&o.hook.WorkspaceRW, "workspace-rw", false, "loosening: mount the workspace read-write and run as its owner (formatters)")
	f.BoolVar(&o.hook.AllowRootOwned, "workspace-allow-root-owned", false, "loosening: allow a root-owned read-write workspace")
	f.StringArrayVar(&rf.roots, "allow-root", nil, "a `DIR` the workspace may lie in (repeatable; default: only --workspace itself)")
	f.BoolVar(&o.hook.Transcript, "transcript", false, "loosening: mount the event's transcript_path (claude, codex, cursor, gemini) read-only at its path, for a hook that reads the conversation; a regular file of yours in your home directory only, in a sandbox of its own")
	f.BoolVar(&o.hook.WritableEditedFile, "writable-edited-file", false, "loosening: the file an edit event names (a Write's or Edit's file_path), when it is in the workspace, is one more --writable file: a formatter rewrites it, and only it")
	f.StringArrayVar(&o.hook.Writable, "writable", nil, "loosening: `REL`, a file named relative to the workspace that the hook may rewrite or remove (its own state: .claude/ralph-loop.local.md; a log: gemini.log), or a directory with a trailing slash whose files it makes, rewrites and removes (.claude/hook-state/); a private copy is mounted over it, the named file (every file of the directory) alone goes back; the run is yours (repeatable)")
	f.StringArrayVar(&o.hook.Args, "arg", nil, "loosening: an argument for the script, as its host passes one (repeatable; never the script)")
	f.StringArrayVar(&rf.mounts, "mount", nil, "loosening: a further host directory, `SRC:DST:ro`, read-only (repeatable; a transcript's directory)")
	f.StringVar(&o.hook.ScriptRoot, "script-root", "", "the `DIR` the script lives in with the files it reads beside it (lib/, sibling modules): visible read-only at its path, the script run from there ($0, __file__ as on the host)")
	f.StringVar(&o.hook.ScriptRootSHA256, "script-root-sha256", "", "refuse the run when --script-root's tree digest is not `HEX` (a file beside the script changed)")
	f.StringArrayVar(&o.hook.ScriptRootOthers, "script-root-other", nil, "a `NAME` in --script-root's top level that is no part of its digest: the host's hooks file beside the script, which install rewrites (repeatable; written by install)")
	f.StringVar(&o.hook.PluginRoot, "plugin-root", "", "loosening: the plugin's tree `DIR`, mounted read-only at its path, its digest in the trace, $CLAUDE_PLUGIN_ROOT")
	f.BoolVar(&o.hook.TmpData, "tmp-data", false, "loosening: the hook's /tmp is kept between its runs, as the host's is (a counter, a warned-once marker): a directory of hook-exec's state, one for the hooks of a plugin, of a project or of a script's tree, mounted read-write at /tmp and bounded; the run is yours")
	f.StringVar(&o.hook.PluginData, "plugin-data", "", "loosening: a Claude Code plugin's data `DIR` ($CLAUDE_PLUGIN_DATA, in ~/.claude/plugins/data), mounted read-write at its path; the run is yours")
	f.StringVar(&o.hook.PluginRootSHA256, "plugin-root-sha256", "", "refuse the run when --plugin-root's tree digest is not `HEX`")
	f.StringVar(&o.hook.EnvFileOut, "env-file-out", "", "loosening: append what the hook writes to $CLAUDE_ENV_FILE to `FILE` (NAME=VALUE lines of the --env-file-allow names, re-quoted)")
	f.StringArrayVar(&o.hook.EnvFileAllow, "env-file-allow", nil, "a variable `NAME` the hook may hand its host through --env-file-out (repeatable; none: nothing is taken)")
	f.StringVar(&o.session, "session", "", "docker: run in a fresh sandbox of the session `CONTAINER`'s image, with its mounts")
}

// options converts rf into o's hook, checked.
func (rf *runFlags) options(o *runOptions) error {
	if rf.script == "" {
		return usageError("--script is required")
	}
	d, err := hook.ParseDialect(rf.dialect)
	if err != nil {
		return usageError("%v", err)
	}
	o.hook.Dialect, o.hook.Scope = d, hook.Scope(rf.scope)
	abs, err := filepath.Abs(rf.script)
	if err != nil {
		return usageError("--script: %v", err)
	}
	o.hook.PluginDir, o.hook.Script = filepath.Dir(abs), filepath.Base(abs)
	if o.hook.ScriptRoot != "" {
		if o.hook.ScriptRoot, err = filepath.Abs(o.hook.ScriptRoot); err != nil {
			return usageError("--script-root: %v", err)
		}
	}
	if o.hook.ID == "" {
		o.hook.ID = o.hook.Script
	}
	o.hook.Mode, o.hook.FailurePolicy = hook.Mode(rf.mode), hook.FailurePolicy(rf.policy)
	o.hook.Env = map[string]string{}
	for _, kv := range rf.env {
		k, v, ok := cutEnv(kv)
		if !ok {
			return usageError("--env %q: want NAME=VALUE", kv)
		}
		o.hook.Env[k] = v
	}
	o.hook.AllowRoots = rf.roots
	for _, m := range rf.mounts {
		parts := strings.Split(m, ":")
		if len(parts) != 3 || parts[2] != "ro" || !filepath.IsAbs(parts[0]) || !filepath.IsAbs(parts[1]) {
			return usageError("--mount %q: want SRC:DST:ro, both absolute (extra rf.mounts are read-only)", m)
		}
		o.hook.Mounts = append(o.hook.Mounts, hook.Mount{Source: parts[0], Target: parts[1], ReadOnly: true})
	}
	if err := o.hook.Validate(); err != nil {
		return usageError("%v", err)
	}
	return nil
}

func cutEnv(kv string) (string, string, bool) {
	for i := 0; i < len(kv); i++ {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], i > 0
		}
	}
	return "", "", false
}

// isTerminal reports whether r is a terminal (or, through a server, the
// client's stdin is one); a variable for tests.
var isTerminal = func(r io.Reader) bool {
	if t, ok := r.(interface{ IsTerminal() bool }); ok {
		return t.IsTerminal()
	}
	_, tty := term.GetFdInfo(r)
	return tty
}

// readEvent reads the event from --event FILE or stdin, refusing to wait
// on a terminal.
func readEvent(o runOptions, in io.Reader) ([]byte, error) {
	if o.eventFile != "" && o.eventFile != "-" {
		f, err := os.Open(o.eventFile)
		if err != nil {
			return nil, usageError("--event: %v", err)
		}
		defer f.Close()
		in = f
	} else if o.eventFile == "" && isTerminal(in) {
		return nil, usageError("no event: pipe the event JSON on stdin or give --event FILE")
	}
	b, err := readLimited(in, o.maxEventBytes)
	if err != nil {
		return nil, usageError("read event: %v", err)
	}
	return b, nil
}

func runHook(ctx context.Context, g *globals, o runOptions, io stdio) error {
	event, err := readEvent(o, io.in)
	if err != nil {
		return err
	}
	g.startServer()
	_, exit, err := hookrun.Run(ctx, hookrun.Options{Shared: g.shared,
		Hook: o.hook, Event: event, Engine: g.sandboxEngine(), Session: o.session,
		MaxEventBytes: o.maxEventBytes, StateDir: g.stateDir, TraceFile: o.traceFile,
		Stdout: io.out, Stderr: io.err,
	})
	if err != nil {
		return decided(err, "", 0)
	}
	if exit != 0 {
		return &exitError{code: exit} // the host's reading; what it says is on stdout or stderr
	}
	return nil
}

// readLimited reads all of r, but no more than max bytes plus one, so that
// an oversized event is seen as oversized without being held whole.
func readLimited(r io.Reader, max int64) ([]byte, error) {
	return io.ReadAll(io.LimitReader(r, max+1))
}
