package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/hookexec/hook-exec/cmd/internal/server"
	"github.com/hookexec/hook-exec/serve"
)

// enterNowhere makes this process's working directory an empty one it
// then removes; a variable for the tests that run serve in their process.
var enterNowhere = func() error {
	d, err := os.MkdirTemp("", "hook-exec-serve-")
	if err != nil {
		return err
	}
	if err := os.Chdir(d); err != nil {
		os.Remove(d)
		return err
	}
	return os.Remove(d)
}

func newServeCmd(g *globals, io stdio) *cobra.Command {
	var o server.Options
	var logLevel string
	c := &cobra.Command{
		Use:   "serve --socket PATH [--pool N]",
		Short: "Answer hook runs over a local socket, with sandboxes started ahead",
		Long: `Listen on a unix socket and answer one JSON request per line
({"script": "/abs/guard.sh", "sha256": ..., "dialect": ..., "event": {...}})
with one JSON line ({"decision": ..., "trace": ...}), keeping --pool
sandboxes per shape started ahead. A request with "point" (and "workspace",
"profile", "session_hooks", "session_dir") instead of "script" dispatches
every hook registered at that point, as 'hook-exec dispatch' does, and is
answered with {"dispatch": {"decision", "event", "traces"}}; circuits and
hooks disabled by their failure policy live in the server's memory. A socket left by a dead server is
replaced; a path that is not a socket is never removed.

Only the server's own user may connect. The socket goes in a private
directory: serve creates a missing one (mode 0700; its parent must exist); an
existing one must be a directory, not a link, owned by the server's uid, with
no group or other permissions, or serve refuses to start and says what is
wrong. serve never makes a subdirectory of its own nor changes your modes:
give --socket a path in a directory of its own, such as
$XDG_RUNTIME_DIR/hook-exec.sock or ./hook-exec/serve.sock, never one right in
/tmp (/tmp/hook-exec-UID/server.sock, the user's default, is in one).
The socket is 0600. Every connection's peer uid (SO_PEERCRED) must be the
server's (root is not excepted): another one gets one {"error": ...} line and
is closed before a byte of it is read, and a line on stderr names its uid and
pid.

Its log (stderr) has the time on every line, as text or JSON
(--log-format): at --log-level info a line for each hook run (hook, dialect,
point, action, failure kind, duration, execution id; never the event or the
hook's output), at debug one for each request too. {"control": "ping"} is
answered {"pong": true}. With --metrics-addr, an HTTP listener there serves
/metrics (Prometheus: runs by dialect, point, backend and action; failures
by kind; run and phase durations; pools, reused sandboxes, admission),
/healthz (the process answers) and /readyz (the engine answers and every
pool has been warm once: one that refills after its runs stays ready). Give it a loopback address unless the network
around it is yours: it has no authentication.

SIGINT or SIGTERM stops accepting, lets the runs in flight finish within
--drain-timeout, then exits; a second signal exits at once.`,
		Example: `  hook-exec serve --socket /run/user/1000/hook-exec.sock
  hook-exec serve --socket ./hook-exec/serve.sock --backend containerd --pool 4
  hook-exec serve --socket ./hook-exec/serve.sock --metrics-addr 127.0.0.1:9464 --log-format json`,
		Args:        noArgs,
		Annotations: map[string]string{annotEnv: envEngine + "\n" + envState, annotExit: exitCommand + "\n  130  a second signal cut the drain short"},
		RunE: func(c *cobra.Command, _ []string) error {
			if o.Socket == "" {
				return usageError("--socket is required")
			}
			if o.Pool < 0 {
				return usageError("--pool %d: want 0 or more", o.Pool)
			}
			if o.LogFormat != "text" && o.LogFormat != "json" {
				return usageError("--log-format %q: want text or json", o.LogFormat)
			}
			if err := o.LogLevel.UnmarshalText([]byte(logLevel)); err != nil {
				return usageError("--log-level %q: want debug, info, warn or error", logLevel)
			}
			o.Engine, o.Log, o.StateDir = g.sandboxEngine(), io.err, g.stateDir
			o.Commands = callRunner(g)
			// The calls' relative paths start in their own working
			// directories (admitCall); one that slipped through would start
			// here, in a directory that is gone, and fail to open.
			if err := enterNowhere(); err != nil {
				return failure(err)
			}
			return engineCall(server.Run(c.Context(), o))
		},
	}
	g.engineFlags(c, "docker, containerd, kubernetes or local")
	g.runtimeFlag(c)
	g.stateFlag(c)
	c.Flags().StringVar(&o.Socket, "socket", "", "unix socket `PATH` to listen on, in a private directory (required)")
	c.Flags().IntVar(&o.Pool, "pool", 2, "sandboxes per shape started ahead (0: none)")
	c.Flags().BoolVar(&o.Reuse, "reuse", false, "let a sandbox serve further runs of the same pinned hook, reset and checked between runs (retired on any doubt)")
	c.Flags().DurationVar(&o.DrainTimeout, "drain-timeout", serve.DefaultDrainTimeout, "on a signal, how long runs in flight may finish before they are cancelled")
	c.Flags().DurationVar(&o.IdleExit, "idle-exit", 0, "stop after this long with no connection open (0: never)")
	c.Flags().StringVar(&o.LogFormat, "log-format", "text", "log lines as `FORMAT`: text or json")
	c.Flags().StringVar(&logLevel, "log-level", "info", "the least `LEVEL` logged: debug (each request too), info (each hook run), warn or error")
	c.Flags().StringVar(&o.MetricsAddr, "metrics-addr", "", "serve /metrics, /healthz and /readyz over HTTP on this TCP `ADDR` (host:port)")
	return c
}
