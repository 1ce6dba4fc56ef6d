package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/hookexec/hook-exec/engine"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/serve"
)

// serveOptions are the flags of `hook-exec serve`.
type serveOptions struct {
	socket string
	pool   int
	drain  time.Duration
}

func newServeCmd(g *globals, io stdio) *cobra.Command {
	var o serveOptions
	c := &cobra.Command{
		Use:   "serve --socket PATH [--pool N]",
		Short: "Answer hook runs over a local socket, with sandboxes started ahead",
		Long: `Listen on a unix socket and answer one JSON request per line
({"script": "/abs/guard.sh", "sha256": ..., "dialect": ..., "event": {...}})
with one JSON line ({"decision": ..., "trace": ...}), keeping --pool
sandboxes per shape started ahead. A socket left by a dead server is
replaced; a path that is not a socket is never removed.

SIGINT or SIGTERM stops accepting, lets the runs in flight finish within
--drain-timeout, then exits; a second signal exits at once.`,
		Example: `  hook-exec serve --socket /run/user/1000/hook-exec.sock
  hook-exec serve --socket ./hook-exec.sock --backend containerd --pool 4`,
		Args:        noArgs,
		Annotations: map[string]string{annotEnv: envEngine, annotExit: exitCommand + "\n  130  a second signal cut the drain short"},
		RunE: func(c *cobra.Command, _ []string) error {
			if o.socket == "" {
				return usageError("--socket is required")
			}
			if o.pool < 0 {
				return usageError("--pool %d: want 0 or more", o.pool)
			}
			return runServe(c.Context(), g, o, io)
		},
	}
	g.engineFlags(c, "docker, containerd or local")
	c.Flags().StringVar(&o.socket, "socket", "", "unix socket `PATH` to listen on (required)")
	c.Flags().IntVar(&o.pool, "pool", 2, "sandboxes per shape started ahead (0: none)")
	c.Flags().DurationVar(&o.drain, "drain-timeout", serve.DefaultDrainTimeout, "on a signal, how long runs in flight may finish before they are cancelled")
	return c
}

func runServe(ctx context.Context, g *globals, o serveOptions, io stdio) error {
	ln, err := serve.Listen(o.socket)
	if err != nil {
		return failure(err)
	}
	defer ln.Close()
	eo := g.engine()
	eo.Ping, eo.Sweep = true, true
	eng, err := engine.Open(ctx, eo)
	if err != nil {
		return engineCall(err)
	}
	defer eng.Close()
	ex, err := executor.New(executor.Options{
		Backend: eng.Backend(), DefaultImage: eng.DefaultImage, Pool: o.pool,
		Logf: func(format string, a ...any) { fmt.Fprintf(io.err, format+"\n", a...) },
	})
	if err != nil {
		return usageError("%v", err)
	}
	fmt.Fprintf(io.err, "hook-exec: serving on %s\n", o.socket)
	srv := &serve.Server{Executor: ex, DrainTimeout: o.drain}
	serveErr := srv.Serve(ctx, ln)
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), o.drain)
	defer cancel()
	if err := ex.Shutdown(sctx); err != nil {
		fmt.Fprintf(io.err, "hook-exec: serve: %v\n", err)
	}
	if serveErr != nil {
		return failure(serveErr)
	}
	return nil
}
