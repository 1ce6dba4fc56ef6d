package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/hookexec/hook-exec/cmd/internal/hookrun"
	"github.com/hookexec/hook-exec/host/arcturn"
)

func newArcturnCmd(g *globals, io stdio) *cobra.Command {
	c := &cobra.Command{
		Use:   "arcturn COMMAND",
		Short: "The hooks of Arcturn's layered configs, run in hook-exec's sandbox",
		RunE:  parent,
	}
	hooks := &cobra.Command{
		Use:   "hooks COMMAND",
		Short: "List or fire the hooks of ~/.arcturn/config.json and <project>/.arcturn/config.json",
		Long: `Arcturn's hooks accumulate across config layers: the home directory's
config.json, then the project's; every one fires, in layer order, one at a
time; matcher selects the tool (exact, or a prefix ending in *); timeoutMs
bounds each (10 s by default); the first deny of a preToolUse ends the
chain. A command that names a .sh or .py script of the project runs as a
pinned script; any other runs as sh -c COMMAND in the project, mounted
read-only. Failures fail open, as Arcturn's do, each printed as a warning.
The payload's members hook-exec does not know are passed on to the hooks; a
payload or a config it cannot read is a deny.`,
		RunE: parent,
	}
	var d arcturnDirs
	hooks.PersistentFlags().StringVar(&d.project, "project", ".", "the project's root `DIR`")
	hooks.PersistentFlags().StringVar(&d.home, "home", "", "the `DIR` holding the user's .arcturn/ (default $HOME; - for none)")
	g.engineFlags(hooks, "docker or containerd")
	g.stateFlag(hooks)
	markPaths(hooks, "project", "home")
	hooks.AddCommand(newArcturnListCmd(io, &d), newArcturnRunCmd(g, io, &d))
	c.AddCommand(hooks)
	return c
}

// arcturnDirs are the directories `arcturn hooks` reads: its flags.
type arcturnDirs struct{ project, home string }

// resolve is the home directory ("" for none) and the project's root.
func (d *arcturnDirs) resolve() (string, string, error) {
	p, err := filepath.Abs(d.project)
	if err != nil {
		return "", "", usageError("--project: %v", err)
	}
	h := d.home
	switch h {
	case "":
		h, _ = os.UserHomeDir()
	case "-":
		h = ""
	}
	return h, p, nil
}

// newArcturnListCmd prints every layer's hooks.
func newArcturnListCmd(io stdio, d *arcturnDirs) *cobra.Command {
	list := &cobra.Command{
		Use:   "list [--json]",
		Short: "Print every layer's hooks in the order they fire",
		Args:  noArgs, Annotations: map[string]string{annotEnv: envNone, annotExit: exitLocal},
		RunE: func(c *cobra.Command, _ []string) error {
			h, p, err := d.resolve()
			if err != nil {
				return err
			}
			all, err := arcturn.Discover(h, p)
			if err != nil {
				return usageError("%v", err)
			}
			if asJSON, _ := c.Flags().GetBool("json"); asJSON {
				b, err := json.Marshal(all)
				if err != nil {
					return failure(err)
				}
				return writeJSON(io.out, b)
			}
			for _, hk := range all {
				m := hk.Matcher
				if m == "" {
					m = "(every tool)"
				}
				fmt.Fprintf(io.out, "%-12s %-14s %6s  %s   [%s]\n", esc(hk.Event), esc(m), hk.Timeout, esc(hk.Command), esc(hk.Layer))
			}
			return nil
		},
	}
	list.Flags().Bool("json", false, "print the hooks as JSON")
	return list
}

// newArcturnRunCmd fires a payload's event through every layer's hooks.
func newArcturnRunCmd(g *globals, io stdio, d *arcturnDirs) *cobra.Command {
	var eventFile string
	run := &cobra.Command{
		Use:   "run [--event FILE] < payload.json",
		Short: "Fire the payload's event through every layer's hooks; print Arcturn's decision",
		Args:  noArgs,
		Annotations: map[string]string{annotEnv: envEngine + "\n" + envState, annotExit: `  0    the chain allowed
  2    a preToolUse hook denied, or the payload, a config or the command
       line could not be read (the reason on stderr): a refusal, never a skip`},
		RunE: func(c *cobra.Command, _ []string) error {
			h, p, err := d.resolve()
			if err != nil {
				return err
			}
			payload, err := readEvent(runOptions{eventFile: eventFile, maxEventBytes: 16 << 20}, io.in)
			if err != nil {
				return err
			}
			g.startServer()
			res, err := hookrun.Arcturn(c.Context(), hookrun.ArcturnOptions{Home: h, Project: p, Payload: payload, Shell: os.Getenv("SHELL"),
				Engine: g.sandboxEngine(), StateDir: g.stateDir, Stdout: io.out, Stderr: io.err, Shared: g.shared})
			if err != nil {
				return decided(err, "", 0)
			}
			return decided(nil, res.Decision.Action, 0)
		},
	}
	run.Flags().StringVar(&eventFile, "event", "", "read the payload from `FILE` instead of stdin")
	g.runtimeFlag(run)
	g.serverFlags(run)
	markPaths(run, "event")
	return run
}
