package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/hookexec/hook-exec/cmd/internal/hookrun"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/host/bernstein"
)

func newBernsteinCmd(g *globals, io stdio) *cobra.Command {
	c := &cobra.Command{
		Use:   "bernstein COMMAND",
		Short: "A Bernstein project's hooks, run in hook-exec's sandbox",
		RunE:  parent,
	}
	hooks := &cobra.Command{
		Use:   "hooks COMMAND",
		Short: "List, check and fire the hooks of bernstein.yaml and .bernstein/hooks/",
		Long: `Bernstein's hooks CLI, each hook run in hook-exec's sandbox: the hooks of
bernstein.yaml's hooks: key, in their order, then the scripts
.bernstein/hooks/<event>.{sh,py} it does not name. A chain is sequential;
annotate and mutate are seen by the hooks after; an answer with a verb
Bernstein does not know is an allow whose record is kept (printed, and in
--json's records); the first deny (written on any exit status) ends it,
prints "DENIED: <event> blocked by <hook>: <reason>" and appends the audit
record (event, hook, reason, the original data) to the state directory's
bernstein-denials.jsonl.`,
		RunE: parent,
	}
	var pr bernsteinProject
	hooks.PersistentFlags().StringVar(&pr.dir, "project", ".", "the Bernstein project's root `DIR`")
	g.engineFlags(hooks, "docker or containerd")
	g.stateFlag(hooks)
	markPaths(hooks, "project")
	hooks.AddCommand(newBernsteinListCmd(io, &pr), newBernsteinCheckCmd(io, &pr), newBernsteinDryRunCmd(g, io, &pr), newBernsteinRunCmd(g, io, &pr))
	c.AddCommand(hooks)
	return c
}

// bernsteinProject is the project `bernstein hooks` reads: its flag.
type bernsteinProject struct{ dir string }

func (pr *bernsteinProject) resolve() (string, error) {
	abs, err := filepath.Abs(pr.dir)
	if err != nil {
		return "", usageError("--project: %v", err)
	}
	return abs, nil
}

// discover is the project's root and its hooks, for list and check.
func (pr *bernsteinProject) discover() (string, map[string][]bernstein.Hook, error) {
	root, err := pr.resolve()
	if err != nil {
		return "", nil, err
	}
	all, err := bernstein.Discover(root)
	if err != nil {
		return "", nil, usageError("%v", err)
	}
	return root, all, nil
}

// bernsteinExits are the exit statuses of a fired chain.
const bernsteinExits = `  0    every hook allowed (or emitted no decision)
  1    a hook failed, or the payload failed its schema
  2    a hook denied the event
  64   usage error`

// newBernsteinListCmd prints every hook of every event.
func newBernsteinListCmd(io stdio, pr *bernsteinProject) *cobra.Command {
	list := &cobra.Command{
		Use:   "list [--json]",
		Short: "Print every hook of every event, convention scripts and plugin references included",
		Args:  noArgs, Annotations: map[string]string{annotEnv: envNone, annotExit: exitLocal},
		RunE: func(c *cobra.Command, _ []string) error {
			_, all, err := pr.discover()
			if err != nil {
				return err
			}
			asJSON, _ := c.Flags().GetBool("json")
			return printHooks(io, all, asJSON)
		},
	}
	list.Flags().Bool("json", false, "print the hooks as JSON")
	return list
}

// newBernsteinCheckCmd validates that every hook script can run.
func newBernsteinCheckCmd(io stdio, pr *bernsteinProject) *cobra.Command {
	check := &cobra.Command{
		Use:   "check",
		Short: "Validate that every hook script exists, is executable and parses",
		Args:  noArgs, Annotations: map[string]string{annotEnv: envNone, annotExit: exitLocal},
		RunE: func(c *cobra.Command, _ []string) error {
			root, all, err := pr.discover()
			if err != nil {
				return err
			}
			bad := 0
			for _, ev := range slices.Sorted(maps.Keys(all)) {
				for _, h := range all[ev] {
					if p := bernstein.Check(root, h); p != "" {
						fmt.Fprintf(io.out, "%s %s: %s\n", esc(ev), esc(h.Label), esc(p))
						bad++
					}
				}
			}
			if bad > 0 {
				return &exitError{exitFail, fmt.Errorf("%d hook(s) cannot run", bad)}
			}
			fmt.Fprintln(io.out, "every hook can run")
			return nil
		},
	}

	return check
}

// newBernsteinDryRunCmd fires an event with a sample or given payload.
func newBernsteinDryRunCmd(g *globals, io stdio, pr *bernsteinProject) *cobra.Command {
	var payload string
	var asJSON bool
	dryRun := &cobra.Command{
		Use:   "dry-run EVENT [--payload FILE] [--json]",
		Short: "Fire EVENT with the documented sample payload, or --payload's JSON object",
		Args:  exactArgs(1, "exactly one EVENT"), Annotations: map[string]string{annotEnv: envEngine + "\n" + envState, annotExit: bernsteinExits},
		RunE: func(c *cobra.Command, args []string) error {
			data := []byte(bernstein.Samples[args[0]])
			if payload != "" {
				b, err := os.ReadFile(payload)
				if err != nil {
					return usageError("--payload: %v", err)
				}
				data = b
			} else if len(data) == 0 {
				data = []byte(`{}`)
			}
			return fireBernstein(g, io, pr, args[0], data, asJSON, c)
		},
	}
	dryRun.Flags().StringVar(&payload, "payload", "", "the event's data: a JSON object in `FILE`")
	markPaths(dryRun, "payload")
	dryRun.Flags().BoolVar(&asJSON, "json", false, "print the chain's result as JSON")
	g.runtimeFlag(dryRun)
	return dryRun
}

// newBernsteinRunCmd fires an event with Bernstein's empty context.
func newBernsteinRunCmd(g *globals, io stdio, pr *bernsteinProject) *cobra.Command {
	run := &cobra.Command{
		Use:   "run EVENT",
		Short: "Fire EVENT with an empty context (kept as Bernstein keeps it; prefer dry-run)",
		Long: `Fire EVENT with Bernstein's empty context: data {}, task and session_id
null. As Bernstein's own run, it checks no schema (only a supplied payload is
checked): the hooks see what Bernstein's run would give them.`,
		Args: exactArgs(1, "exactly one EVENT"), Annotations: map[string]string{annotEnv: envEngine + "\n" + envState, annotExit: bernsteinExits},
		RunE: func(c *cobra.Command, args []string) error {
			return fireBernstein(g, io, pr, args[0], nil, false, c)
		},
	}
	g.runtimeFlag(run)
	g.serverFlags(run)
	return run
}

// fireBernstein runs event's chain in the sandbox and maps its end to
// Bernstein's exit statuses.
func fireBernstein(g *globals, io stdio, pr *bernsteinProject, event string, data []byte, asJSON bool, c *cobra.Command) error {
	root, err := pr.resolve()
	if err != nil {
		return err
	}
	g.startServer()
	res, err := hookrun.Bernstein(c.Context(), hookrun.BernsteinOptions{Project: root, Event: event, Data: data,
		Engine: g.sandboxEngine(), StateDir: g.stateDir, JSON: asJSON, Stdout: io.out, Stderr: io.err, Shared: g.shared})
	var ue *hookrun.UsageError
	switch {
	case errors.As(err, &ue) && errors.Is(err, hook.ErrInvalid):
		return &exitError{exitFail, ue.Err} // Bernstein: a payload that fails its schema is exit 1
	case errors.Is(err, hookrun.ErrHookFailed):
		return &exitError{code: exitFail}
	case err != nil:
		return decided(err, "", 0)
	case res.Denied != nil:
		return &exitError{code: exitDeny}
	}
	return nil
}

func printHooks(io stdio, all map[string][]bernstein.Hook, asJSON bool) error {
	if asJSON {
		b, err := json.Marshal(all)
		if err != nil {
			return failure(err)
		}
		return writeJSON(io.out, b)
	}
	for _, ev := range slices.Sorted(maps.Keys(all)) {
		fmt.Fprintf(io.out, "%s:\n", esc(ev))
		for _, h := range all[ev] {
			line := "  " + esc(h.Label)
			if h.Timeout > 0 {
				line += fmt.Sprintf(" (timeout %s)", h.Timeout.Round(time.Millisecond))
			}
			if h.Problem != "" {
				line += ": cannot run: " + esc(h.Problem)
			}
			fmt.Fprintln(io.out, line)
		}
	}
	return nil
}
