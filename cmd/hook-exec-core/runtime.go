package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/hookexec/hook-exec/backend/engine"
)

func newRuntimeCmd(io stdio) *cobra.Command {
	c := &cobra.Command{
		Use:   "runtime COMMAND",
		Short: "Set up the OCI runtimes sandboxes can run under (--runtime)",
		RunE:  parent,
	}
	c.AddCommand(newRuntimeSetupCmd(io))
	return c
}

func newRuntimeSetupCmd(io stdio) *cobra.Command {
	var o engine.RuntimeSetup
	c := &cobra.Command{
		Use:   "setup runsc|crun [--path PATH] [--daemon-config FILE|-] [--wrapper-dir DIR]",
		Short: "Make gVisor's runsc or crun usable by both engines (as root)",
		Long: `Make --runtime runsc (or crun) work on this machine, changing only what is
not so yet.

runsc:
  containerd  writes DIR/runsc-hookexec, runsc with --network=none
              --oci-seccomp, the program containerd's runc shim runs (it
              passes no arguments);
  docker      sets "runtimes": {"runsc": {"path": RUNSC, "runtimeArgs":
              ["--network=none", "--oci-seccomp"]}} in daemon.json, keeping
              every other setting, and reloads the engine (SIGHUP: running
              containers stay) when it changed.

crun:
  containerd  nothing: it runs crun by name under its runc shim;
  docker      sets "runtimes": {"crun": {"path": CRUN}} in daemon.json and
              reloads the engine, as for runsc.

A hook sandbox has no network: under runsc, --network=none, which also
leaves gVisor's network stack out of it. --oci-seccomp has gVisor enforce
the sandbox's seccomp profile too, so that a call refused under runc is
refused under runsc. Each runtime comes from your distribution (Debian:
apt-get install runsc, apt-get install crun).`,
		Example:     "  sudo hook-exec runtime setup runsc\n  sudo hook-exec runtime setup crun",
		Args:        exactArgs(1, "the runtime to set up: runsc or crun"),
		Annotations: map[string]string{annotEnv: envNone, annotExit: exitLocal},
		RunE: func(c *cobra.Command, args []string) error {
			setup := map[string]func(context.Context, engine.RuntimeSetup) error{"runsc": engine.SetupRunsc, "crun": engine.SetupCrun}[args[0]]
			if setup == nil {
				return usageError("runtime %q: runsc and crun are set up here; register others in the engine's own configuration", args[0])
			}
			o.Log = func(format string, a ...any) { fmt.Fprintf(io.out, format+"\n", a...) }
			if err := setup(c.Context(), o); err != nil {
				return failure(err)
			}
			return nil
		},
	}
	c.Flags().StringVar(&o.Path, "path", "", "`PATH` of the runtime's program (default: found on PATH)")
	c.Flags().StringVar(&o.Path, "runsc", "", "the same as --path (its name before crun)")
	c.Flags().MarkHidden("runsc")
	c.Flags().StringVar(&o.WrapperDir, "wrapper-dir", "", "`DIR` for containerd's runsc-hookexec (default /usr/local/sbin)")
	c.Flags().StringVar(&o.DaemonConfig, "daemon-config", "", "the Docker engine's `FILE` (default /etc/docker/daemon.json; - leaves Docker alone)")
	return c
}
