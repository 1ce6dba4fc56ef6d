package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/hookexec/hook-exec/cmd/internal/doctor"
)

func newDoctorCmd(g *globals, io stdio) *cobra.Command {
	var asJSON bool
	var runs int
	c := &cobra.Command{
		Use:   "doctor [--json] [--runs N]",
		Short: "Report what each engine gives a hook sandbox and what it costs",
		Long: `Examine Docker and containerd: versions, storage driver, cgroups, seccomp,
AppArmor, user namespaces, the runtimes registered (and whether runsc
works), the reference images present, and the measured latency of a trivial
hook, cold and pooled, under runc and, where it works, runsc (a few runs:
seconds in all). Each fact comes with advice where one applies.`,
		Example: `  hook-exec doctor
  hook-exec doctor --json --runs 5`,
		Args: noArgs,
		Annotations: map[string]string{annotEnv: envEngine, annotExit: `  0    at least one engine runs a hook
  1    no engine can run a hook (each engine's reason is printed)
  64   usage error`},
		RunE: func(c *cobra.Command, _ []string) error {
			if runs < 1 || runs > 50 {
				return usageError("--runs %d: use 1 to 50", runs)
			}
			rep := doctor.Run(c.Context(), doctor.Options{Runs: runs, ContainerdAddress: g.containerdAddress})
			if asJSON {
				enc := json.NewEncoder(io.out)
				enc.SetIndent("", "  ")
				enc.Encode(rep)
			} else {
				printDoctor(io, rep)
			}
			if !rep.Usable() {
				return &exitError{code: exitFail}
			}
			return nil
		},
	}
	c.PersistentFlags().StringVar(&g.containerdAddress, "containerd-address", "", "`PATH` of the containerd socket (default $HOOKEXEC_CONTAINERD_ADDRESS, then the usual sockets)")
	c.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	c.Flags().IntVar(&runs, "runs", 3, "runs of the trivial hook per engine, runtime and mode")
	return c
}

func printDoctor(io stdio, rep *doctor.Report) {
	for i, e := range rep.Engines {
		if i > 0 {
			fmt.Fprintln(io.out)
		}
		state := "runs hooks"
		if !e.Usable {
			state = "cannot run hooks: " + e.Problem
		}
		fmt.Fprintf(io.out, "%s: %s\n", e.Name, state)
		for _, f := range e.Facts {
			fmt.Fprintf(io.out, "  %-17s %s\n", f.Topic, f.Value)
			if f.Advice != "" {
				fmt.Fprintf(io.out, "  %-17s -> %s\n", "", f.Advice)
			}
		}
		for _, l := range e.Latency {
			name := fmt.Sprintf("latency %s %s", l.Runtime, l.Mode)
			if l.Error != "" {
				fmt.Fprintf(io.out, "  %-17s failed: %s\n", name, l.Error)
				continue
			}
			fmt.Fprintf(io.out, "  %-17s %.0f ms (median of %d; through the %s; kernel inside %s)\n", name, l.MedianMS, l.Runs, l.Stream, l.Kernel)
		}
	}
	if !rep.Usable() {
		fmt.Fprintln(io.err, "hook-exec doctor: no engine here can run a hook")
	}
}
