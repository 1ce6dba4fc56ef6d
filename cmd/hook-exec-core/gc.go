package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/hookexec/hook-exec/backend/engine"
	"github.com/hookexec/hook-exec/executor"
)

// staleTemp is the age of a run's private directory that no live run has.
const staleTemp = 24 * time.Hour

func newGCCmd(g *globals, io stdio) *cobra.Command {
	var all, asJSON bool
	c := &cobra.Command{
		Use:   "gc [--all] [--json]",
		Short: "Remove sandboxes that a dead hook-exec left behind",
		Long: `Remove the sandboxes (containers, containerd tasks and snapshots) whose
owning hook-exec process is gone, on both Docker and containerd unless
--backend (or HOOKEXEC_BACKEND) names one; an engine that does not answer is
skipped, and only when neither answers is that a failure. Sandboxes of live
owners are kept unless --all is given. The private directories of runs
(a transcript's copy, --writable copies, CLAUDE_ENV_FILE's) older than a
day, which only a killed hook-exec leaves, are removed too.`,
		Example: `  hook-exec gc
  hook-exec gc --backend containerd --all --json`,
		Args:        noArgs,
		Annotations: map[string]string{annotEnv: envEngine, annotExit: exitCommand},
		RunE: func(c *cobra.Command, _ []string) error {
			// A killed hook-exec leaves its runs' private directories too.
			swept, serr := executor.SweepTemp(staleTemp)
			if serr != nil {
				fmt.Fprintf(io.err, "hook-exec gc: %v\n", serr)
			}
			if swept > 0 && !asJSON {
				fmt.Fprintf(io.out, "removed %d run director(ies) older than %s\n", swept, staleTemp)
			}
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
