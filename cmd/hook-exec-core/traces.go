package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hookexec/hook-exec/internal/tracestore"
)

func newTracesCmd(g *globals, io stdio) *cobra.Command {
	var q tracestore.Query
	var asJSON bool
	c := &cobra.Command{
		Use:   "traces [--limit N] [--hook-id ID] [--point POINT] [--json]",
		Short: "Print stored traces, newest first",
		Long: `Print the traces that run stored in the local trace store (JSON lines under
--state-dir, rotated at 4 MiB), newest first.`,
		Example: `  hook-exec traces --limit 20 --hook-id guard
  hook-exec traces --point tool.before --json | jq .failure`,
		Args:        noArgs,
		Annotations: map[string]string{annotEnv: envState, annotExit: exitLocal},
		RunE: func(*cobra.Command, []string) error {
			dir := g.stateDir
			if dir == "" {
				d, err := tracestore.DefaultDir()
				if err != nil {
					return failure(err)
				}
				dir = d
			}
			store, err := tracestore.Open(dir, 0, 0)
			if err != nil {
				return failure(err)
			}
			list, err := store.Query(q)
			if err != nil {
				return failure(err)
			}
			if asJSON {
				for _, tr := range list {
					b, err := json.Marshal(tr)
					if err != nil {
						return failure(err)
					}
					if err := writeJSON(io.out, b); err != nil {
						return err
					}
				}
				return nil
			}
			tw := tabwriter.NewWriter(io.out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "STARTED\tHOOK\tPOINT\tFINAL\tFAILURE\tMS\tEXECUTION")
			for _, tr := range list {
				failure := "-"
				if tr.Failure != nil {
					failure = string(tr.Failure.Kind)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", tr.StartedAt.Format("2006-01-02T15:04:05Z"), esc(tr.HookID), esc(tr.Point), esc(string(tr.FinalAction)), esc(failure), tr.DurationMS, esc(tr.ExecutionID))
			}
			return tw.Flush()
		},
	}
	g.stateFlag(c)
	c.Flags().IntVar(&q.Limit, "limit", 50, "print at most `N` traces (0: all)")
	c.Flags().StringVar(&q.HookID, "hook-id", "", "only this hook's traces")
	c.Flags().StringVar(&q.Point, "point", "", "only traces at this point (event)")
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON lines")
	return c
}
