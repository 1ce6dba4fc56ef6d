package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"

	"github.com/hookexec/hook-exec/backend/engine"
	"github.com/hookexec/hook-exec/backend/kubernetes"
	"github.com/hookexec/hook-exec/cmd/internal/hookrun"
	"github.com/hookexec/hook-exec/internal/engineenv"
)

// Help sections: the environment a command reads and its exit statuses.
const (
	annotEnv  = "env"
	annotExit = "exit"
)

const (
	envEngine = `  HOOKEXEC_BACKEND                 engine when --backend is not given (default docker)
  HOOKEXEC_CONTAINERD_ADDRESS      containerd socket when --containerd-address is not given
  HOOKEXEC_CONTAINERD_SNAPSHOTTER  containerd snapshotter (default: containerd's own)
  HOOKEXEC_RUNTIME                 OCI runtime when --runtime is not given (runc, runsc)
  DOCKER_HOST, DOCKER_TLS_VERIFY, DOCKER_CERT_PATH
                                   the Docker engine, as the docker CLI reads them
  HOOKEXEC_SSH                     ssh program for DOCKER_HOST=ssh://... (default ssh)
  KUBECONFIG                       the cluster of --backend kubernetes, when --kubeconfig
                                   is not given (then ~/.kube/config, then in-cluster)`
	envState = `  HOOKEXEC_STATE_DIR               state directory (registry, trust, circuits, traces)
                                   when --state-dir is not given
                                   (default ~/.local/state/hook-exec)`
	envServer = envSocket + `
  HOOKEXEC_SERVER_IDLE             how long a server started for a call stays
                                   with nothing to do (default 15m)`
	envSocket = `  HOOKEXEC_SERVER                  the server's socket, or off (default
                                   $XDG_RUNTIME_DIR/hook-exec/server.sock, else
                                   /tmp/hook-exec-UID/server.sock)`
	envNone = `  none`

	exitDecision = `  0    the final action is not deny (allow, modify, request_approval); with
       --dialect claude, cline, codex, copilot, cursor, gemini or bernstein, any
       decision (the host reads the answer on stdout; copilot's deny at
       preToolUse and permissionRequest exits 2, its JSON on stdout)
  1    --dialect bernstein: the hook failed and --failure-policy refused
       (Bernstein's hook failure: no answer on stdout)
  2    the final action is deny; every failure, an unreachable engine included,
       ends in a decision through --failure-policy, and an event hook-exec
       cannot read is refused at a blocking hook whatever the policy (with
       --dialect bernstein: Bernstein's blocking error, no answer on stdout)
  64   usage error; under a host's dialect (--dialect claude, codex, cursor,
       gemini, cline, copilot, windsurf, arcturn or bernstein, or without --dialect an event
       that is one of theirs) a usage error, and --help, are that host's
       refusal instead: its deny answer on stdout (its stop-type events get a
       message and are not held), or exit 2 with the reason on stderr
       (arcturn, bernstein, windsurf)`
	exitCommand = `  0    success
  1    failure
  64   usage error
  125  the engine cannot be reached or refused the request`
	exitLocal = `  0    success
  1    failure
  64   usage error`
)

// The groups of the root's commands.
const (
	groupYours = "yours"
	groupHost  = "host"
	groupOps   = "ops"
)

const usageTemplate = `Usage:{{if .HasAvailableSubCommands}}
  {{.CommandPath}} COMMAND [flags]{{else if .Runnable}}
  {{.UseLine}}{{end}}{{if .HasExample}}

Examples:
{{.Example}}{{end}}{{if .HasAvailableSubCommands}}

{{if eq (len .Groups) 0}}Commands:{{range .Commands}}{{if (or .IsAvailableCommand (eq .Name "help"))}}
  {{rpad .Name .NamePadding }} {{.Short}}{{end}}{{end}}{{else}}{{$cmds := .Commands}}{{range $i, $g := .Groups}}{{if $i}}

{{end}}{{$g.Title}}{{range $cmds}}{{if (and (eq .GroupID $g.ID) (or .IsAvailableCommand (eq .Name "help")))}}
  {{rpad .Name .NamePadding }} {{.Short}}{{end}}{{end}}{{end}}{{end}}{{end}}{{if .HasAvailableLocalFlags}}

Flags:
{{.LocalFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}{{if .HasAvailableInheritedFlags}}

Global Flags:
{{.InheritedFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}{{with index .Annotations "env"}}

Environment:
{{.}}{{end}}{{with index .Annotations "exit"}}

Exit status:
{{.}}{{end}}{{if .HasAvailableSubCommands}}

Run '{{.CommandPath}} COMMAND --help' for more about a command.{{end}}
`

// globals are the flags several commands share. They are registered only
// on the commands where they mean something, as persistent flags, so they
// may come before or after the subcommand's name.
type globals struct {
	backend           string
	containerdAddress string
	runtime           string
	stateDir          string
	k8s               kubernetes.Options

	// server and noServer are the host commands' --server and --no-server.
	server   string
	noServer bool
	// shared is the server running this call (nil: this process runs it).
	shared *hookrun.Shared
	// wantServer: start the user's server once this call has answered.
	wantServer bool
}

// engine is the engine the flags name.
func (g *globals) engine() engine.Options {
	return engine.Options{Backend: g.backend, ContainerdAddress: g.containerdAddress, Kubernetes: g.k8s}
}

// sandboxEngine is engine() for a command that starts sandboxes: this
// binary is started beside it as its reaper (see engine.Reap).
func (g *globals) sandboxEngine() engine.Options {
	o := g.engine()
	o.Runtime = g.runtime
	o.Reaper, _ = os.Executable()
	return o
}

// runtimeFlag adds --runtime to a command that starts sandboxes.
func (g *globals) runtimeFlag(c *cobra.Command) {
	c.Flags().StringVar(&g.runtime, "runtime", "", "OCI `RUNTIME` of the sandboxes: runc, runsc (gVisor: a second kernel between hook and host), or another the engine knows (default $HOOKEXEC_RUNTIME, then the engine's own)")
}

// engineFlags adds --backend and --containerd-address to c and its subcommands.
func (g *globals) engineFlags(c *cobra.Command, backends string) {
	c.PersistentFlags().StringVar(&g.backend, "backend", "", "engine: "+backends+" (default $HOOKEXEC_BACKEND, then docker)")
	c.PersistentFlags().StringVar(&g.containerdAddress, "containerd-address", "", "`PATH` of the containerd socket (default $HOOKEXEC_CONTAINERD_ADDRESS, then the usual sockets)")
	g.k8sFlags(c)
	markPaths(c, "containerd-address", "kubeconfig")
}

// k8sFlags adds the flags of the kubernetes backend to c and its subcommands.
func (g *globals) k8sFlags(c *cobra.Command) {
	f := c.PersistentFlags()
	f.StringVar(&g.k8s.Kubeconfig, "kubeconfig", "", "kubernetes: kubeconfig `FILE` (default $KUBECONFIG, then ~/.kube/config, then in-cluster)")
	f.StringVar(&g.k8s.Context, "kube-context", "", "kubernetes: kubeconfig context `NAME` (default: its current one)")
	f.StringVar(&g.k8s.Namespace, "k8s-namespace", "", "kubernetes: `NAMESPACE` of the pods, made by `hook-exec k8s setup` (default "+kubernetes.DefaultNamespace+")")
	f.StringVar(&g.k8s.Seccomp, "k8s-seccomp", "", "kubernetes: Localhost seccomp `PROFILE` holding `hook-exec k8s seccomp-profile` (default: the runtime's)")
	f.Var((*pullPolicy)(&g.k8s.PullPolicy), "k8s-pull-policy", "kubernetes: image pull `POLICY`: Always, IfNotPresent or Never (default IfNotPresent)")
}

// pullPolicy is a flag that takes one of the pull policies, spelled exactly.
type pullPolicy corev1.PullPolicy

func (p *pullPolicy) String() string { return string(*p) }
func (p *pullPolicy) Type() string   { return "policy" }
func (p *pullPolicy) Set(v string) error {
	switch corev1.PullPolicy(v) {
	case corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever:
		*p = pullPolicy(v)
		return nil
	}
	return fmt.Errorf("%q is not Always, IfNotPresent or Never", v)
}

// stateFlag adds --state-dir to c.
func (g *globals) stateFlag(c *cobra.Command) {
	defer markPaths(c, "state-dir")
	c.PersistentFlags().StringVar(&g.stateDir, "state-dir", "", "`DIR` of hook-exec's state: registry, trust, circuits, traces (default $HOOKEXEC_STATE_DIR, then ~/.local/state/hook-exec)")
}

// sealedFlag adds --sealed, which main acts on before any command runs
// (engineenv.SealProcess): install writes it into every command it installs.
func sealedFlag(c *cobra.Command) {
	c.Flags().Bool("sealed", false, "take the engine, its endpoint, the runtime and the state directory from the user's pinned file (state dir's "+engineenv.FileName+", written by install), never from the environment the host hands the command")
}

func newRoot(io stdio) *cobra.Command { return newRootOf(io, &globals{}) }

// newRootOf is the command tree on g: a server's call gives the client's
// working directory and the executors it lends.
func newRootOf(io stdio, g *globals) *cobra.Command {
	root := &cobra.Command{
		Use:   "hook-exec COMMAND",
		Short: "Run agent lifecycle hooks in an isolating container sandbox",
		Long: `hook-exec runs agent lifecycle hooks (small scripts an agent host calls at
boundaries such as "before a tool call") in a hardened container sandbox and
prints one decision in the host's dialect, with a redacted trace.

--backend and --containerd-address (commands that use an engine) and
--state-dir (commands that read or write traces) may come before or after
the command's name.`,
		Example: `  hook-exec run --script plugin/guard.sh < event.json
  hook-exec images build --backend containerd
  hook-exec image check my/image:1 --lang py
  hook-exec version`,
		Version:       version(),
		SilenceErrors: true,
		SilenceUsage:  true,
		Annotations:   map[string]string{annotEnv: envEngine + "\n" + envState, annotExit: exitCommand + "\n  run exits 0 (not deny), 2 (deny) or 64: see 'hook-exec run --help'"},
		RunE: func(c *cobra.Command, args []string) error {
			c.SetOut(io.err)
			c.Usage()
			return &exitError{code: exitUsage}
		},
	}
	root.SetIn(io.in)
	root.SetOut(io.out)
	root.SetErr(io.err)
	root.SetVersionTemplate("{{.Version}}")
	root.SetUsageTemplate(usageTemplate)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &exitError{exitUsage, err}
	})
	root.CompletionOptions.HiddenDefaultCmd = false
	// The commands in three groups, as runsc's help has them: what a
	// person runs, what a host runs per event, what keeps engines going.
	root.AddGroup(&cobra.Group{ID: groupYours, Title: "Your hooks and your hosts':"},
		&cobra.Group{ID: groupHost, Title: "What a host runs, once per event:"},
		&cobra.Group{ID: groupOps, Title: "Engines and operations:"})
	for group, cmds := range map[string][]*cobra.Command{
		groupYours: {newInstallCmd(g, io), newUninstallCmd(g, io), newHookCmd(g, io), newPluginCmd(g, io), newTracesCmd(g, io), newImageCmd(g, io), newDemoCmd(g, io)},
		groupHost:  {newRunCmd(g, io), newDispatchCmd(g, io), newArcturnCmd(g, io), newBernsteinCmd(g, io), newObserveCmd(g, io), newReapCmd(g, io)},
		groupOps:   {newImagesCmd(g, io), newRuntimeCmd(io), newK8sCmd(g, io), newDoctorCmd(g, io), newGCCmd(g, io), newServeCmd(g, io), newServerCmd(g, io), newVersionCmd(io)},
	} {
		for _, c := range cmds {
			c.GroupID = group
			root.AddCommand(c)
		}
	}
	root.SetHelpCommandGroupID(groupOps)
	root.SetCompletionCommandGroupID(groupOps)
	root.InitDefaultCompletionCmd()
	root.InitDefaultHelpCmd()
	fillHelp(root)
	return root
}

// fillHelp gives the commands cobra adds (help, completion) the sections
// every command's help has.
func fillHelp(c *cobra.Command) {
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	if c.Annotations[annotEnv] == "" {
		c.Annotations[annotEnv] = envNone
	}
	if c.Annotations[annotExit] == "" {
		c.Annotations[annotExit] = exitLocal
	}
	if c.Example == "" && c.Name() != "hook-exec" {
		c.Example = "  " + c.CommandPath() + " --help"
		if strings.HasPrefix(c.CommandPath(), "hook-exec completion") && c.Name() != "completion" {
			c.Example = fmt.Sprintf("  source <(%s)", c.CommandPath())
		}
	}
	for _, sub := range c.Commands() {
		fillHelp(sub)
	}
}

// noArgs refuses positional arguments as a usage error.
func noArgs(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageError("unexpected argument %q", args[0])
	}
	return nil
}

// exactArgs wants n positional arguments, named what in the message.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) != n {
			return usageError("want %s, got %d argument(s)", what, len(args))
		}
		return nil
	}
}

// parent is the RunE of a command that only groups subcommands: without
// one, or with an unknown one, it is a usage error.
func parent(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return usageError("want a command: %s", strings.Join(subNames(c), ", "))
	}
	return usageError("unknown command %q: want %s", args[0], strings.Join(subNames(c), ", "))
}

func subNames(c *cobra.Command) []string {
	var names []string
	for _, s := range c.Commands() {
		if s.IsAvailableCommand() {
			names = append(names, s.Name())
		}
	}
	return names
}
