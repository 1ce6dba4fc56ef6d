package main

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/hookexec/hook-exec/tracestore"
)

func cmdTraces(_ context.Context, args []string, io stdio) int {
	fs := newFlagSet("traces", io.err)
	var q tracestore.Query
	fs.IntVar(&q.Limit, "limit", 50, "print at most `N` traces (0: all)")
	fs.StringVar(&q.HookID, "hook-id", "", "only this hook's traces")
	fs.StringVar(&q.Point, "point", "", "only traces at this point (event)")
	asJSON := fs.Bool("json", false, "print JSON lines")
	stateDir := fs.String("state-dir", "", "trace store directory (default $HOOKEXEC_STATE_DIR or ~/.local/state/hook-exec)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagErr(err)
	}
	if len(pos) > 0 {
		return usageErr(io.err, "traces: unexpected argument %q", pos[0])
	}
	dir := *stateDir
	if dir == "" {
		if dir, err = tracestore.DefaultDir(); err != nil {
			fmt.Fprintf(io.err, "hook-exec: traces: %v\n", err)
			return exitFail
		}
	}
	store, err := tracestore.Open(dir, 0, 0)
	if err != nil {
		fmt.Fprintf(io.err, "hook-exec: traces: %v\n", err)
		return exitFail
	}
	list, err := store.Query(q)
	if err != nil {
		fmt.Fprintf(io.err, "hook-exec: traces: %v\n", err)
		return exitFail
	}
	if *asJSON {
		enc := json.NewEncoder(io.out)
		for _, tr := range list {
			enc.Encode(tr)
		}
		return exitOK
	}
	tw := tabwriter.NewWriter(io.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STARTED\tHOOK\tPOINT\tFINAL\tFAILURE\tMS\tEXECUTION")
	for _, tr := range list {
		failure := "-"
		if tr.Failure != nil {
			failure = string(tr.Failure.Kind)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", tr.StartedAt.Format("2006-01-02T15:04:05Z"), tr.HookID, tr.Point, tr.FinalAction, failure, tr.DurationMS, tr.ExecutionID)
	}
	tw.Flush()
	return exitOK
}
