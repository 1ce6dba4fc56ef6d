package main

import (
	"github.com/spf13/cobra"

	"github.com/hookexec/hook-exec/backend/engine"
)

// newReapCmd is the hidden command a sandbox-starting command runs beside
// itself (engine.Options.Reaper): it removes that command's sandboxes if
// it dies without saying it is done.
func newReapCmd(g *globals, io stdio) *cobra.Command {
	var o engine.ReapOptions
	c := &cobra.Command{
		Use:    "reap --owner-pid PID --owner-start TICKS",
		Short:  "Remove a dead hook-exec's sandboxes as soon as it dies (started by hook-exec itself)",
		Hidden: true,
		Args:   noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			o.Engine = g.engine()
			_, err := engine.Reap(c.Context(), io.in, o)
			return engineCall(err)
		},
	}
	g.engineFlags(c, "docker, containerd or kubernetes")
	c.Flags().IntVar(&o.OwnerPID, "owner-pid", 0, "the owner's `PID`")
	c.Flags().StringVar(&o.OwnerStart, "owner-start", "", "the owner's start time (`TICKS` since boot)")
	return c
}
