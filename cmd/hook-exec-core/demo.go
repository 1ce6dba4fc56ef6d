package main

import (
	"github.com/spf13/cobra"

	"github.com/hookexec/hook-exec/cmd/internal/demo"
)

func newDemoCmd(g *globals, io stdio) *cobra.Command {
	c := &cobra.Command{
		Use:   "demo",
		Short: "Run the example guard hook on two events in a real sandbox",
		Long: `Pin examples/guard.sh, then run it in a real sandbox on an "rm -rf" event
(denied) and an "ls" event (allowed), printing each decision and trace.`,
		Example: `  hook-exec demo
  hook-exec demo --backend containerd`,
		Args:        noArgs,
		Annotations: map[string]string{annotEnv: envEngine, annotExit: exitCommand},
		RunE: func(c *cobra.Command, _ []string) error {
			o := g.sandboxEngine()
			o.Ping = true
			return engineCall(demo.Demo(c.Context(), o, io.out))
		},
	}
	g.engineFlags(c, "docker or containerd")
	g.runtimeFlag(c)
	return c
}
