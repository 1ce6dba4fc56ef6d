package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/internal/tracestore"
)

// followPoll is how often traces --follow looks for new runs.
const followPoll = 200 * time.Millisecond

func newTracesCmd(g *globals, io stdio) *cobra.Command {
	var q tracestore.Query
	var asJSON, follow bool
	c := &cobra.Command{
		Use:   "traces [--limit N] [--hook-id ID] [--point POINT] [--reason TEXT] [--follow] [--json]",
		Short: "Print stored traces, newest first",
		Long: `Print the traces that run stored in the local trace store (JSON lines under
--state-dir, rotated at 4 MiB), newest first: a line each, with the final
decision's reason (redacted, cut to its start). 'hook-exec traces show ID'
prints one run whole. --follow prints them as a log instead, oldest first,
then each run stored after them as it comes, until interrupted.`,
		Example: `  hook-exec traces --limit 20 --hook-id guard
  hook-exec traces --reason "rm -rf"
  hook-exec traces show hookexec_0b9c
  hook-exec traces --follow --json | jq .final_action`,
		Args:        noArgs,
		Annotations: map[string]string{annotEnv: envState, annotExit: exitLocal},
		RunE: func(c *cobra.Command, _ []string) error {
			return printTraces(c.Context(), g, io, q, asJSON, follow)
		},
	}
	g.stateFlag(c)
	c.Flags().IntVar(&q.Limit, "limit", 50, "print at most `N` traces (0: all)")
	c.Flags().StringVar(&q.HookID, "hook-id", "", "only this hook's traces")
	c.Flags().StringVar(&q.Point, "point", "", "only traces at this point (event)")
	c.Flags().StringVar(&q.Reason, "reason", "", "only traces whose decision's reason holds `TEXT` (in any case)")
	c.Flags().BoolVarP(&follow, "follow", "f", false, "then print each run stored from now on, until interrupted")
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON lines")
	c.AddCommand(newTracesShowCmd(g, io))
	return c
}

// printTraces prints the traces q selects (as JSON lines, or a table) and,
// following, each run stored after them as it comes.
func printTraces(ctx context.Context, g *globals, io stdio, q tracestore.Query, asJSON, follow bool) error {
	store, err := openTraces(g)
	if err != nil {
		return failure(err)
	}
	// Following starts before the query: no run stored between
	// the two is missed, and none is printed twice.
	var fl *tracestore.Follower
	if follow {
		if fl, err = store.Follow(q); err != nil {
			return failure(err)
		}
		defer fl.Close()
	}
	list, err := store.Query(q)
	if err != nil {
		return failure(err)
	}
	emit := func(tr hook.Trace) error {
		b, err := json.Marshal(tr)
		if err != nil {
			return err
		}
		return writeJSON(io.out, b)
	}
	// The table's rows are aligned together; following, each is
	// written as it comes, in columns as wide as the rows so far
	// needed (at least the usual width of each).
	flush := func() error { return nil }
	if !asJSON {
		if follow {
			widths := slices.Clone(traceColumnWidths)
			for _, tr := range list {
				for i, cell := range traceRow(tr) {
					widths[i] = max(widths[i], len(cell))
				}
			}
			fmt.Fprintln(io.out, padded(traceHeader, widths))
			emit = func(tr hook.Trace) error {
				_, err := fmt.Fprintln(io.out, padded(traceRow(tr), widths))
				return err
			}
		} else {
			tw := tabwriter.NewWriter(io.out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, strings.Join(traceHeader, "\t"))
			flush = tw.Flush
			emit = func(tr hook.Trace) error {
				_, err := fmt.Fprintln(tw, strings.Join(traceRow(tr), "\t"))
				return err
			}
		}
	}
	if !follow {
		for _, tr := range list {
			if err := emit(tr); err != nil {
				return err
			}
		}
		return flush()
	}
	printed := map[string]bool{}
	for i := len(list) - 1; i >= 0; i-- { // following: oldest first, as a log
		printed[list[i].ExecutionID] = true
		if err := emit(list[i]); err != nil {
			return err
		}
	}
	err = fl.Run(ctx, followPoll, func(tr hook.Trace) error {
		if printed[tr.ExecutionID] {
			return nil
		}
		return emit(tr)
	})
	if err != nil {
		return failure(err)
	}
	return nil
}

func newTracesShowCmd(g *globals, io stdio) *cobra.Command {
	c := &cobra.Command{
		Use:   "show ID",
		Short: "Print one stored run whole",
		Long: `Print one stored trace whole, as indented JSON: the run whose execution id is
ID, or the only one whose id begins with ID. Its reason says why it was denied,
asked about or failed (redacted); failure, phases_ms and stderr_excerpt say
what went wrong and where the time went.`,
		Example:     `  hook-exec traces show hookexec_0b9c`,
		Args:        exactArgs(1, "ID"),
		Annotations: map[string]string{annotEnv: envState, annotExit: exitLocal},
		RunE: func(_ *cobra.Command, args []string) error {
			store, err := openTraces(g)
			if err != nil {
				return failure(err)
			}
			tr, err := store.Find(args[0])
			if errors.Is(err, tracestore.ErrNoTrace) {
				return failure(fmt.Errorf("%w (hook-exec traces lists the runs stored)", err))
			}
			if err != nil {
				return failure(err)
			}
			b, err := json.MarshalIndent(tr, "", "  ")
			if err != nil {
				return failure(err)
			}
			_, err = fmt.Fprintf(io.out, "%s\n", b)
			return err
		},
	}
	g.stateFlag(c)
	return c
}

// openTraces opens the trace store of --state-dir.
func openTraces(g *globals) (*tracestore.Store, error) {
	dir := g.stateDir
	if dir == "" {
		d, err := tracestore.DefaultDir()
		if err != nil {
			return nil, err
		}
		dir = d
	}
	return tracestore.Open(dir, 0, 0)
}

// shortReason is a reason cut for a table's column: its first line, at
// most 60 characters; "-" for none.
func shortReason(r string) string {
	const most = 60
	if r == "" {
		return "-"
	}
	for i, c := range r {
		if c == '\n' || c == '\r' {
			r = r[:i] + "…"
			break
		}
	}
	if utf8.RuneCountInString(r) > most {
		n := 0
		for i := range r {
			if n == most-1 {
				return r[:i] + "…"
			}
			n++
		}
	}
	return r
}

// traceHeader names the columns of a trace's row.
var traceHeader = []string{"STARTED", "HOOK", "POINT", "FINAL", "FAILURE", "MS", "EXECUTION", "REASON"}

// traceColumnWidths are the widths --follow starts its columns at: a
// timestamp's, an execution id's, and room for the usual others.
var traceColumnWidths = []int{20, 24, 14, 8, 14, 5, 33, 0}

// traceRow is a trace's row, each cell escaped for the terminal.
func traceRow(tr hook.Trace) []string {
	failure := "-"
	if tr.Failure != nil {
		failure = string(tr.Failure.Kind)
	}
	return []string{tr.StartedAt.Format("2006-01-02T15:04:05Z"), esc(tr.HookID), esc(tr.Point), esc(string(tr.FinalAction)), esc(failure),
		fmt.Sprint(tr.DurationMS), esc(tr.ExecutionID), esc(shortReason(tr.Reason))}
}

// padded is cells in columns of widths, two spaces apart.
func padded(cells []string, widths []int) string {
	var b strings.Builder
	for i, c := range cells {
		if i == len(cells)-1 {
			b.WriteString(c)
			break
		}
		fmt.Fprintf(&b, "%-*s  ", widths[i], c)
	}
	return strings.TrimRight(b.String(), " ")
}
