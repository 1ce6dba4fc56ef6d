package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/hookexec/hook-exec/backend/engine"
)

func newGCCmd(g *globals, io stdio) *cobra.Command {
	var all, asJSON bool
	c := &cobra.Command{
		Use:   "gc [--all] [--json]",
		Short: "Remove sandboxes that a dead hook-exec left behind",
		Long: `Remove the sandboxes (containers, containerd tasks and snapshots) whose
owning hook-exec process is gone, on both Docker and containerd unless
--backend (or HOOKEXEC_BACKEND) names one; an engine that does not answer is
skipped, and only when neither answers is that a failure. Sandboxes of live
owners are kept unless --all is given.`,
		Example: `  hook-exec gc
  hook-exec gc --backend containerd --all --json`,
		Args:        noArgs,
		Annotations: map[string]string{annotEnv: envEngine, annotExit: exitCommand},
		RunE: func(c *cobra.Command, _ []string) error {
			n, err := engine.GC(c.Context(), g.engine(), all)
			var ee *exitError
			if errors.As(engineCall(err), &ee) && ee.code == exitUsage {
				return ee
			}
			if asJSON {
				out := struct {
					Removed int    `json:"removed"`
					Error   string `json:"error,omitempty"`
				}{Removed: n}
				if err != nil {
					out.Error = err.Error()
				}
				json.NewEncoder(io.out).Encode(out)
			} else if err == nil || n > 0 {
				fmt.Fprintf(io.out, "removed %d sandbox(es)\n", n)
			}
			return engineCall(err)
		},
	}
	g.engineFlags(c, "docker, containerd or kubernetes")
	c.Flags().BoolVar(&all, "all", false, "remove every hook-exec sandbox, also those of live owners")
	c.Flags().BoolVar(&asJSON, "json", false, `print {"removed": N} as JSON`)
	return c
}
