package main

import (
	"bufio"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/go-json-experiment/json"
	"github.com/spf13/cobra"

	"github.com/hookexec/hook-exec/host/plugin"
)

func newPluginCmd(g *globals, io stdio) *cobra.Command {
	c := &cobra.Command{
		Use:   "plugin COMMAND",
		Short: "Install plugins and consent to their hooks",
		Long: `A plugin ships hooks.json beside its holaryn-plugin.toml. Its hooks are inert
until you consent to exactly their content: the hooks digest covers hooks.json
and every script it names. Any change pauses them (state changed) until you
approve the new digest; consent is read again at every boundary.`,
	}
	g.stateFlag(c)
	c.AddCommand(newPluginInstallCmd(g, io), newPluginInspectCmd(g, io), newPluginEnableCmd(g, io), newPluginDisableCmd(g, io), newPluginListCmd(g, io))
	return c
}

// newPluginInstallCmd copies a plugin into the state directory.
func newPluginInstallCmd(g *globals, io stdio) *cobra.Command {
	install := &cobra.Command{
		Use: "install DIR", Aliases: []string{"update"}, Short: "Copy a plugin into the state directory (update: the same, consent kept)",
		Example: `  hook-exec plugin install ./acme-guards`,
		Args:    exactArgs(1, "DIR"), Annotations: stateAnnot,
		RunE: withState(g, func(dir string, args []string) error {
			_, info, err := plugin.Install(dir, args[0])
			if err != nil {
				return failure(err)
			}
			printInfo(io, info)
			return nil
		}),
	}
	return install
}

// newPluginInspectCmd prints a plugin's hooks and digest.
func newPluginInspectCmd(g *globals, io stdio) *cobra.Command {
	inspect := &cobra.Command{
		Use: "inspect NAME", Short: "Print a plugin's hooks and their digest",
		Args: exactArgs(1, "NAME"), Annotations: stateAnnot,
		RunE: withState(g, func(dir string, args []string) error {
			info, err := plugin.Inspect(dir, args[0])
			if err != nil {
				return failure(err)
			}
			printInfo(io, info)
			return nil
		}),
	}
	return inspect
}

// newPluginEnableCmd records consent to a plugin's hooks as they are now.
func newPluginEnableCmd(g *globals, io stdio) *cobra.Command {
	var yes bool
	var digest string
	enable := &cobra.Command{
		Use: "enable NAME [--yes --hooks-digest D]", Short: "Consent to a plugin's hooks as they are now",
		Long: `Show every hook and the hooks digest and ask for consent; with --yes, the
digest you reviewed (from 'plugin inspect') must be given with --hooks-digest,
and enable is refused (exit 1, "changed since shown") when the content no
longer has it. Run enable again to approve changed hooks.`,
		Example: `  hook-exec plugin enable acme
  hook-exec plugin enable acme --yes --hooks-digest 3f9c...`,
		Args: exactArgs(1, "NAME"), Annotations: stateAnnot,
		RunE: withState(g, func(dir string, args []string) error {
			if yes && digest == "" {
				return usageError("--yes needs --hooks-digest: the digest you reviewed")
			}
			if !yes {
				if !isTerminal(io.in) {
					return usageError("no terminal to ask for consent: pass --yes --hooks-digest D")
				}
				info, err := plugin.Inspect(dir, args[0])
				if err != nil {
					return failure(err)
				}
				printInfo(io, info)
				if info.State == plugin.NotLoaded {
					return failure(info.Problem)
				}
				fmt.Fprintf(io.err, "Run these hooks of %s in isolated sessions? [y/N] ", esc(info.Name))
				line, _ := bufio.NewReader(io.in).ReadString('\n')
				if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
					return failure(errors.New("not enabled: consent not given"))
				}
				digest = info.Digest
			}
			info, err := plugin.Enable(dir, args[0], digest)
			if err != nil {
				return failure(err)
			}
			fmt.Fprintf(io.out, "%s %s %s\n", esc(info.Name), info.State, info.Digest)
			return nil
		}),
	}
	enable.Flags().BoolVar(&yes, "yes", false, "consent without asking (needs --hooks-digest)")
	enable.Flags().StringVar(&digest, "hooks-digest", "", "the hooks `DIGEST` you reviewed")
	return enable
}

// newPluginDisableCmd turns a plugin's hooks off.
func newPluginDisableCmd(g *globals, io stdio) *cobra.Command {
	disable := &cobra.Command{
		Use: "disable NAME", Short: "Turn a plugin's hooks off (consent kept)",
		Args: exactArgs(1, "NAME"), Annotations: stateAnnot,
		RunE: withState(g, func(dir string, args []string) error {
			return failureOrNil(plugin.Disable(dir, args[0]))
		}),
	}
	return disable
}

// newPluginListCmd prints the installed plugins.
func newPluginListCmd(g *globals, io stdio) *cobra.Command {
	list := &cobra.Command{
		Use: "list", Short: "Print installed plugins and their consent state",
		Args: noArgs, Annotations: stateAnnot,
		RunE: withState(g, func(dir string, _ []string) error {
			all, err := plugin.List(dir)
			if err != nil {
				return failure(err)
			}
			return printPlugins(io, all, false)
		}),
	}
	return list
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// printInfo shows a plugin the way consent needs it: every hook, then the
// full digest. Every string from the plugin's files is escaped: a carriage
// return or an escape sequence must not make a blocking hook that rewrites
// tool calls look like a harmless observer.
func printInfo(io stdio, info *plugin.Info) {
	fmt.Fprintf(io.out, "plugin %s (%s)\nstate: %s\n", esc(info.Name), esc(info.Dir), info.State)
	if info.Problem != nil {
		fmt.Fprintf(io.out, "not loaded: %s\n", esc(info.Problem.Error()))
		return
	}
	tw := tabwriter.NewWriter(io.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPOINT\tMODE\tHANDLER\tSCRIPT SHA-256")
	for _, h := range info.Hooks {
		fmt.Fprintf(tw, "plugin:%s/%s\t%s\t%s\t%s\t%s\n", esc(info.Name), esc(h.ID), esc(h.Point), esc(string(h.Mode)),
			hookText(h, esc), orDash(info.Scripts[h.Handler.Script]))
	}
	tw.Flush()
	fmt.Fprintf(io.out, "hooks digest: %s\n", info.Digest)
	if info.ApprovedDigest != "" && info.ApprovedDigest != info.Digest {
		fmt.Fprintf(io.out, "approved digest: %s (changed since)\n", esc(info.ApprovedDigest))
	}
}

// pluginView is a plugin as `plugin list` and `hook list --json` print it.
type pluginView struct {
	Name    string `json:"name"`
	State   string `json:"state"`
	Hooks   int    `json:"hooks"`
	Digest  string `json:"digest"`
	Problem string `json:"problem,omitempty"`
	// Entries are its hooks, each with the plugin's consent state (seed
	// 000: "a plugins group per installed plugin with its hooks and
	// consent state"), whether it runs or not.
	Entries []pluginHookView `json:"entries"`
}

type pluginHookView struct {
	ID      string `json:"id"`
	Point   string `json:"point"`
	Mode    string `json:"mode"`
	Handler string `json:"handler"`
	State   string `json:"state"`
}

func printPlugins(io stdio, all []*plugin.Info, asJSON bool) error {
	if asJSON {
		views := []pluginView{}
		for _, info := range all {
			v := pluginView{Name: info.Name, State: string(info.State), Hooks: len(info.Hooks), Digest: info.Digest, Entries: []pluginHookView{}}
			if info.Problem != nil {
				v.Problem = info.Problem.Error()
			}
			for _, d := range info.Hooks {
				v.Entries = append(v.Entries, pluginHookView{ID: d.ID, Point: d.Point, Mode: string(d.Mode), Handler: hookText(d, asIs), State: string(info.State)})
			}
			views = append(views, v)
		}
		b, err := json.Marshal(map[string]any{"plugins": views}, json.Deterministic(true))
		if err != nil {
			return failure(err)
		}
		return writeJSON(io.out, b)
	}
	tw := tabwriter.NewWriter(io.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PLUGIN\tSTATE\tHOOKS\tDIGEST")
	for _, info := range all {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", esc(info.Name), info.State, len(info.Hooks), orDash(info.Digest))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	n := 0
	for _, info := range all {
		n += len(info.Hooks)
	}
	if n == 0 {
		return nil
	}
	fmt.Fprintln(io.out)
	fmt.Fprintln(tw, "PLUGIN\tHOOK\tPOINT\tMODE\tHANDLER\tSTATE")
	for _, info := range all {
		for _, d := range info.Hooks {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", esc(info.Name), esc(d.ID), esc(d.Point), esc(string(d.Mode)), hookText(d, esc), info.State)
		}
	}
	return tw.Flush()
}
