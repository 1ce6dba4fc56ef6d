package main

import (
	"github.com/spf13/cobra"

	"github.com/hookexec/hook-exec/cmd/internal/hookrun"
)

// newObserveCmd is the hidden command `dispatch` starts after its answer:
// it runs the boundary's observational hooks, which the host must not
// wait for, in a process of its own.
func newObserveCmd(g *globals, io stdio) *cobra.Command {
	c := &cobra.Command{
		Use:    "observe < observers.json",
		Short:  "Run a boundary's observational hooks after its answer (started by hook-exec dispatch)",
		Hidden: true,
		Args:   noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			err := hookrun.Observe(c.Context(), hookrun.ObserveOptions{Engine: g.sandboxEngine(), StateDir: g.stateDir, In: io.in, Stderr: io.err})
			return engineCall(err)
		},
	}
	g.engineFlags(c, "docker, containerd, kubernetes or local")
	g.runtimeFlag(c)
	g.stateFlag(c)
	return c
}
