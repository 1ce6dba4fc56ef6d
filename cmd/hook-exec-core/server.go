package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hookexec/hook-exec/backend/engine"
	"github.com/hookexec/hook-exec/cmd/internal/hookrun"
	"github.com/hookexec/hook-exec/internal/engineenv"
	"github.com/hookexec/hook-exec/internal/statedir"
	"github.com/hookexec/hook-exec/serve"
	"github.com/hookexec/hook-exec/serve/hostcall"
)

// frontEnv is how the hook-exec front tells this binary what became of
// the server it asked first: "none" (none answered: this call may start
// one), "declined" or "failed". Unset: this binary was run directly.
const frontEnv = "HOOKEXEC_FRONT"

// Defaults of a server started for the user.
const (
	defaultIdleExit = 15 * time.Minute
	idleEnv         = "HOOKEXEC_SERVER_IDLE"
	defaultPool     = 2
)

// serverFlags adds --server and --no-server to a host command.
func (g *globals) serverFlags(c *cobra.Command) {
	c.Flags().StringVar(&g.server, "server", "", "hand the call to the hook-exec server on socket `PATH` (default $HOOKEXEC_SERVER, then the user's: see 'hook-exec server --help')")
	c.Flags().BoolVar(&g.noServer, "no-server", false, "run the call in this process: never hand it to a server, nor start one")
}

// engineIdentity is what a call's engine, runtime and state come to: a
// server runs a call only where the call's is its own.
func (g *globals) engineIdentity() (string, error) {
	dir, err := hookrun.StateDir(g.stateDir)
	if err != nil {
		return "", err
	}
	eo := g.engine()
	return fmt.Sprintf("backend=%s runtime=%s containerd=%s k8s=%+v state=%s", engine.Name(eo.Backend), engine.RuntimeName(g.runtime),
		eo.ContainerdAddress, eo.Kubernetes, filepath.Clean(dir)), nil
}

// socket is the server socket of a call: --server, else hostcall.Socket.
func (g *globals) socket() (string, error) {
	if g.server != "" {
		if !filepath.IsAbs(g.server) {
			return "", usageError("--server %q: want an absolute path", g.server)
		}
		return g.server, nil
	}
	p, _, err := hostcall.Socket(os.Getenv)
	return p, err
}

// startServer asks for the user's server to be started when the front
// found none, so that the calls after this one are handed to it; this one
// runs here as it would have. It starts once the call has answered
// (executeOn): its own start does not compete with this call's run.
func (g *globals) startServer() {
	g.wantServer = g.shared == nil && !g.noServer && os.Getenv(frontEnv) == "none" && g.startsHere(os.Args[1:])
}

// startsHere says whether a call (argv) that found no server may start
// one: on a socket it names ($HOOKEXEC_SERVER, --server), the server asked
// for; on the user's socket, only the user's own, for a state directory
// that is theirs whatever a test suite or CI job sets: the default one
// ($XDG_STATE_HOME/hook-exec, else ~/.local/state/hook-exec with the home
// directory of the user's account), or, for an installed (sealed) command,
// which sees no $XDG_*, the one install pinned the user's engine in. A
// call for another state directory runs in its own process: a suite that
// makes a hundred of them leaves no server behind.
func (g *globals) startsHere(argv []string) bool {
	if g.server != "" || os.Getenv("HOOKEXEC_SERVER") != "" {
		return true
	}
	dir, err := hookrun.StateDir(g.stateDir)
	if err != nil {
		return false
	}
	if sealed, _, err := engineenv.Sealed(argv); err == nil && sealed {
		if pinned, err := engineenv.Read(dir); err == nil && pinned != nil {
			return true
		}
	}
	mine, err := usersStateDir()
	return err == nil && samePath(dir, mine)
}

// samePath reports whether a and b name one directory, links resolved
// where they exist.
func samePath(a, b string) bool {
	if ra, err := filepath.EvalSymlinks(a); err == nil {
		a = ra
	}
	if rb, err := filepath.EvalSymlinks(b); err == nil {
		b = rb
	}
	return filepath.Clean(a) == filepath.Clean(b)
}

// usersStateDir is the state directory the user's own server keeps.
func usersStateDir() (string, error) {
	return statedir.Default(func(k string) string {
		if k == "HOOKEXEC_STATE_DIR" {
			return ""
		}
		return os.Getenv(k)
	}, func() (string, error) {
		u, err := user.Current()
		if err != nil {
			return "", err
		}
		return u.HomeDir, nil
	})
}

// startWanted starts the server startServer asked for. Nothing it does
// changes the call: a server that cannot start says so in its log.
func (g *globals) startWanted(stderr io.Writer) {
	if !g.wantServer {
		return
	}
	if err := g.spawnServer(defaultPool, false, 0, ""); err != nil {
		fmt.Fprintf(stderr, "hook-exec: warning: no server started for the next calls: %v\n", err)
	}
}

// spawnServer starts `hook-exec serve` on the call's socket, detached,
// with the call's engine flags and state directory, pool sandboxes per
// shape, and leaves it running. idle 0 takes $HOOKEXEC_SERVER_IDLE, then
// the default. Its log, in the state directory, has its warnings only.
func (g *globals) spawnServer(pool int, reuse bool, idle time.Duration, metricsAddr string) error {
	sock, err := g.socket()
	if err != nil || sock == "" {
		return err
	}
	stateDir, err := hookrun.StateDir(g.stateDir)
	if err != nil {
		return err
	}
	if idle <= 0 {
		idle = defaultIdleExit
		if v := os.Getenv(idleEnv); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return fmt.Errorf("$%s %q: want a duration such as 10m", idleEnv, v)
			}
			idle = d
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	// The socket's directory is the user's alone (serve checks it too: one
	// another user made first in /tmp would have every call start a server
	// that cannot listen). Its parent (a named socket's) may be missing.
	if err := os.MkdirAll(filepath.Dir(filepath.Dir(sock)), 0o700); err != nil {
		return err
	}
	if err := serve.PrivateDir(filepath.Dir(sock)); err != nil {
		return err
	}
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return err
	}
	args := append([]string{"serve", "--socket", sock, "--state-dir", stateDir, "--pool", fmt.Sprint(pool),
		"--idle-exit", idle.String(), "--log-level", "warn"}, g.sandboxEngine().Flags()...)
	if metricsAddr != "" {
		args = append(args, "--metrics-addr", metricsAddr)
	}
	if rt := engine.RuntimeName(g.runtime); rt != "" {
		args = append(args, "--runtime", rt)
	}
	if reuse {
		args = append(args, "--reuse")
	}
	log, err := hookrun.OpenLog(stateDir, "server")
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := exec.Command(exe, args...)
	cmd.SysProcAttr = engine.Detached()
	cmd.Stdout, cmd.Stderr = log, log // never the host's pipes: it would wait for them to close
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, frontEnv+"=") })
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s serve: %w", exe, err)
	}
	go cmd.Wait() // collects it if it ends before this process
	return nil
}

func newServerCmd(g *globals, io stdio) *cobra.Command {
	c := &cobra.Command{
		Use:   "server COMMAND",
		Short: "Start, stop or ask after the user's hook-exec server",
		Long: `The host commands (run, dispatch, arcturn hooks run, bernstein hooks run)
hand their call to the user's hook-exec server when one answers, and print
its answer unchanged: the same stdout, stderr and exit status as the
command run in a process of its own, with sandboxes started ahead, and a
trace that says "via": "server". When none answers, the call runs in its own
process as before and starts one in the background for the calls after it;
it stops after $HOOKEXEC_SERVER_IDLE (default 15m) with nothing to do.

The server's socket is $HOOKEXEC_SERVER, else
$XDG_RUNTIME_DIR/hook-exec/server.sock, else
/tmp/hook-exec-UID/server.sock: one per user. A call starts a server
there only for the user's own state directory ($XDG_STATE_HOME/hook-exec,
else ~/.local/state/hook-exec; an installed command's, the one install
pinned); a call for another one (a test suite's) runs in its own process.
--server PATH names a socket for a call, --no-server (or
HOOKEXEC_SERVER=off) keeps every call in its own process. Only the socket's owner may connect (0600, in a 0700 directory,
and every peer's uid checked), and a server runs only the calls whose
engine, runtime, state directory and engine environment are its own: it
declines the others, which then run in their own process.`,
		Example: `  hook-exec server start --backend containerd
  hook-exec server status
  hook-exec server stop`,
		Args:        cobra.ArbitraryArgs,
		RunE:        parent,
		Annotations: map[string]string{annotEnv: envEngine + "\n" + envState + "\n" + envServer},
	}
	start, stop, status := newServerStartCmd(g, io), newServerStopCmd(g, io), newServerStatusCmd(g, io)
	for _, sub := range []*cobra.Command{stop, status} {
		sub.Flags().StringVar(&g.server, "server", "", "the socket `PATH` (default: the user's)")
	}
	c.AddCommand(start, stop, status)
	return c
}

// newServerStartCmd is `server start`.
func newServerStartCmd(g *globals, io stdio) *cobra.Command {
	var pool int
	var reuse bool
	var idle time.Duration
	var wait time.Duration
	var metricsAddr string
	start := &cobra.Command{
		Annotations: map[string]string{annotEnv: envEngine + "\n" + envState + "\n" + envServer},
		Use:         "start [--pool N] [--reuse] [--idle-exit D]",
		Short:       "Start the user's server in the background, if none answers",
		Args:        noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if pool < 0 {
				return usageError("--pool %d: want 0 or more", pool)
			}
			sock, err := g.socket()
			if err != nil {
				return usageError("%v", err)
			}
			if sock == "" {
				return usageError("$HOOKEXEC_SERVER is %s", hostcall.Off)
			}
			if st, err := serverStatus(c.Context(), sock); err == nil {
				fmt.Fprintf(io.out, "hook-exec: a server already answers on %s (pid %d)\n", sock, st.PID)
				return nil
			}
			if err := g.spawnServer(pool, reuse, idle, metricsAddr); err != nil {
				return failure(err)
			}
			deadline := time.Now().Add(wait)
			for {
				st, err := serverStatus(c.Context(), sock)
				if err == nil {
					fmt.Fprintf(io.out, "hook-exec: server pid %d on %s (%s, pool %d, idle exit %s)\n", st.PID, sock, st.Backend, st.Pool, st.IdleExit)
					return nil
				}
				if time.Now().After(deadline) {
					return failure(fmt.Errorf("no server answered on %s within %v: see %s", sock, wait, "server.log in the state directory"))
				}
				time.Sleep(20 * time.Millisecond)
			}
		},
	}
	g.engineFlags(start, "docker, containerd or kubernetes")
	g.runtimeFlag(start)
	g.stateFlag(start)
	start.Flags().StringVar(&g.server, "server", "", "the socket `PATH` (default: the user's)")
	start.Flags().IntVar(&pool, "pool", defaultPool, "sandboxes per shape started ahead")
	start.Flags().BoolVar(&reuse, "reuse", false, "let a sandbox serve further runs of the same pinned hook, reset and checked between runs")
	start.Flags().DurationVar(&idle, "idle-exit", 0, "stop after this long with nothing to do (default $HOOKEXEC_SERVER_IDLE, then 15m)")
	start.Flags().DurationVar(&wait, "wait", 30*time.Second, "how long to wait for it to answer")
	start.Flags().StringVar(&metricsAddr, "metrics-addr", "", "serve /metrics, /healthz and /readyz on this TCP `ADDR` (see 'hook-exec serve --help')")
	return start
}

// newServerStopCmd is `server stop`.
func newServerStopCmd(g *globals, io stdio) *cobra.Command {
	stop := &cobra.Command{
		Annotations: map[string]string{annotEnv: envSocket},
		Use:         "stop",
		Short:       "Stop the user's server: the calls in flight end first",
		Args:        noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			sock, err := g.socket()
			if err != nil || sock == "" {
				return usageError("no server socket: %v", err)
			}
			st, err := serverStatus(c.Context(), sock)
			if err != nil {
				fmt.Fprintf(io.out, "hook-exec: no server answers on %s\n", sock)
				return nil
			}
			cl, err := serve.Dial(c.Context(), sock)
			if err != nil {
				return failure(err)
			}
			defer cl.Close()
			if _, err := cl.Run(c.Context(), serve.Request{Control: "stop"}); err != nil {
				return failure(err)
			}
			// It exits when its runs in flight and its pool are done with.
			for {
				if _, err := os.Stat(sock); err != nil && !alive(st.PID) {
					fmt.Fprintf(io.out, "hook-exec: stopped the server pid %d on %s\n", st.PID, sock)
					return nil
				}
				select {
				case <-c.Context().Done():
					return failure(c.Context().Err())
				case <-time.After(20 * time.Millisecond):
				}
			}
		},
	}
	return stop
}

// newServerStatusCmd is `server status`.
func newServerStatusCmd(g *globals, io stdio) *cobra.Command {
	status := &cobra.Command{
		Use:   "status",
		Short: "Say whether the user's server answers, and what it runs",
		Args:  noArgs,
		Annotations: map[string]string{annotEnv: envSocket, annotExit: `  0    a server answers
  1    none does`},
		RunE: func(c *cobra.Command, _ []string) error {
			sock, err := g.socket()
			if err != nil || sock == "" {
				return usageError("no server socket: %v", err)
			}
			st, err := serverStatus(c.Context(), sock)
			if err != nil {
				return &exitError{exitFail, fmt.Errorf("no server answers on %s", sock)}
			}
			fmt.Fprintf(io.out, "socket     %s\npid        %d\nstarted    %s\nbackend    %s\nruntime    %s\nstate dir  %s\npool       %d\nreuse      %v\nidle exit  %s\ncalls      %d\nin flight  %d\n",
				st.Socket, st.PID, st.Started.Format(time.RFC3339), st.Backend, orDefault(st.Runtime), st.StateDir, st.Pool, st.Reuse, orNever(st.IdleExit), st.Calls, st.InFlight)
			if a := st.Admission; a != nil {
				fmt.Fprintf(io.out, "admission  limit %d, %d in flight, %d queued, %d shed\n", a.Limit, a.InFlight, a.Queued, a.Shed)
			}
			if st.Reuse {
				fmt.Fprintf(io.out, "reused     %d idle\n", st.ReusedIdle)
			}
			for _, p := range st.Pools {
				fmt.Fprintf(io.out, "warm       %s: %d of %d ready, %d runs found none\n", esc(p.Image), p.Ready, p.Target, p.Misses)
			}
			return nil
		},
	}
	return status
}

func orDefault(s string) string {
	if s == "" {
		return "the engine's default"
	}
	return s
}

func orNever(s string) string {
	if s == "" {
		return "never"
	}
	return s
}

// serverStatus asks the server on sock for its status, within a second.
func serverStatus(ctx context.Context, sock string) (*serve.Status, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	cl, err := serve.Dial(ctx, sock)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	resp, err := cl.Run(ctx, serve.Request{Control: "status"})
	if err != nil {
		return nil, err
	}
	if resp.Status == nil {
		return nil, fmt.Errorf("the server on %s gave no status", sock)
	}
	return resp.Status, nil
}
