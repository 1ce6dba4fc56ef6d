package main

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/go-json-experiment/json"
	"github.com/spf13/cobra"

	"github.com/hookexec/hook-exec/cmd/internal/hookrun"
	"github.com/hookexec/hook-exec/host/dispatch"
	"github.com/hookexec/hook-exec/host/plugin"
	"github.com/hookexec/hook-exec/host/registry"
)

func newHookCmd(g *globals, io stdio) *cobra.Command {
	c := &cobra.Command{
		Use:   "hook COMMAND",
		Short: "Manage the hook registry: definitions, order, trust",
		Long: `Manage hook definitions (schema_version 1): global and profile hooks live in
--state-dir, project hooks in a trusted workspace's .holaryn/hooks.json,
session hooks are given per dispatch. Changes take effect at the next boundary.`,
	}
	g.stateFlag(c)
	traces := newTracesCmd(g, io)
	traces.Use = "traces [--limit N] [--hook-id ID] [--point POINT] [--json]"
	c.AddCommand(newHookValidateCmd(g, io), newHookAddCmd(g, io), newHookListCmd(g, io), newHookDryRunCmd(g, io),
		newHookToggleCmd(g, io, "enable", "Turn a hook back on (also one disabled by its failure policy)", ""),
		newHookToggleCmd(g, io, "disable", "Turn a hook off from the next boundary", "disabled by hook disable"),
		newHookRemoveCmd(g, io), newHookInstallProjectCmd(g, io), newHookTrustCmd(g, io), newHookTrustStatusCmd(g, io),
		newHookRevokeTrustCmd(g, io), newHookExamplesCmd(g, io), traces)
	return c
}

// stateAnnot: commands that read and write only the state
// directory.
var stateAnnot = map[string]string{annotEnv: envState, annotExit: exitLocal}

// readHookDoc reads a hook document: unreadable is a usage error, invalid a failure.
func readHookDoc(file string) ([]*registry.Definition, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, usageError("%v", err)
	}
	defs, err := registry.Parse(b)
	if err != nil {
		return nil, &exitError{exitFail, fmt.Errorf("%s: %w", file, err)}
	}
	return defs, nil
}

// registryView is the part of the registry list and dry-run show.
type registryView struct {
	workspace, sessionHooks, profile string
	asJSON                           bool
}

func (v *registryView) flags(c *cobra.Command) {
	c.Flags().StringVar(&v.workspace, "workspace", "", "include the trusted project hooks of `DIR`")
	c.Flags().StringVar(&v.sessionHooks, "session-hooks", "", "include a session document `FILE`")
	c.Flags().StringVar(&v.profile, "profile", "", "include the profile `ID`'s hooks")
	c.Flags().BoolVar(&v.asJSON, "json", false, "print JSON")
}

// newHookValidateCmd checks a hook document.
func newHookValidateCmd(g *globals, io stdio) *cobra.Command {
	validate := &cobra.Command{
		Use: "validate FILE", Short: "Check a hook document (one definition or a list)",
		Example: `  hook-exec hook validate .holaryn/hooks.json`,
		Args:    exactArgs(1, "FILE"), Annotations: stateAnnot,
		RunE: func(_ *cobra.Command, args []string) error {
			defs, err := readHookDoc(args[0])
			if err != nil {
				return err
			}
			for _, d := range defs {
				v, err := d.Version()
				if err != nil {
					return &exitError{exitFail, fmt.Errorf("%s: %w", args[0], err)}
				}
				fmt.Fprintf(io.out, "%s\t%s\t%s\t%s\n", esc(d.ID), esc(string(d.Scope)), esc(d.Point), v)
			}
			return nil
		},
	}
	return validate
}

// newHookAddCmd stores a document's global or profile hooks.
func newHookAddCmd(g *globals, io stdio) *cobra.Command {
	var profile string
	add := &cobra.Command{
		Use: "add FILE [--profile ID]", Short: "Store a document's global (or profile) hooks",
		Long: `Store the document's hooks in --state-dir: scope global, or scope profile with
--profile (which sets scope_key). Script paths start at the file's directory.
A hook with an id already stored in its scope is replaced.`,
		Example: `  hook-exec hook add hook.json
  hook-exec hook add team.json --profile review`,
		Args: exactArgs(1, "FILE"), Annotations: stateAnnot,
		RunE: withState(g, func(dir string, args []string) error {
			defs, err := readHookDoc(args[0])
			if err != nil {
				return err
			}
			if profile != "" {
				for _, d := range defs {
					d.Scope, d.ScopeKey = registry.Profile, &profile
				}
			}
			abs, err := filepath.Abs(args[0])
			if err != nil {
				return failure(err)
			}
			changes, err := registry.Add(dir, defs, filepath.Dir(abs))
			if err != nil {
				return failure(err)
			}
			for _, ch := range changes {
				fmt.Fprintln(io.err, "hook-exec: registry:", ch)
			}
			return nil
		}),
	}
	add.Flags().StringVar(&profile, "profile", "", "store as the profile `ID`'s hooks")
	return add
}

// newHookListCmd prints the effective registry.
func newHookListCmd(g *globals, io stdio) *cobra.Command {
	var v registryView
	list := &cobra.Command{
		Use: "list [--workspace DIR] [--profile ID] [--json]", Short: "Print the effective registry in run order, and every plugin's consent state",
		Example: `  hook-exec hook list --workspace .`,
		Args:    noArgs, Annotations: stateAnnot,
		RunE: withState(g, func(dir string, _ []string) error {
			snap, err := snapshot(g, v.workspace, v.sessionHooks, v.profile)
			if err != nil {
				return err
			}
			for _, w := range snap.Warnings {
				fmt.Fprintf(io.err, "hook-exec: warning: %s\n", esc(w))
			}
			plugins, err := plugin.List(dir)
			if err != nil {
				return failure(err)
			}
			if err := printEntries(io, snap.All(), nil, v.asJSON); err != nil {
				return err
			}
			if err := printPlugins(io, plugins, v.asJSON); err != nil {
				return err
			}
			return printOneShotDisabled(io, dir, snap.All(), v.asJSON)
		}),
	}
	v.flags(list)
	return list
}

// newHookDryRunCmd shows which hooks an event would run.
func newHookDryRunCmd(g *globals, io stdio) *cobra.Command {
	var v registryView
	var dataJSON string
	dryRun := &cobra.Command{
		Use: "dry-run POINT --data-json JSON [--workspace DIR]", Short: "Show which hooks an event would run, without running them",
		Long: `Match the registry's hooks at POINT against an event whose data is --data-json,
in run order. Nothing runs, so a match that depends on an earlier hook's
rewrite cannot be shown: such hooks are marked after-rewrite.`,
		Example: `  hook-exec hook dry-run file.before_write --data-json '{"tool_name":"write_file","category":"fs.write","args":{"path":".env"}}'`,
		Args:    exactArgs(1, "POINT"), Annotations: stateAnnot,
		RunE: func(_ *cobra.Command, args []string) error {
			point := args[0]
			snap, err := snapshot(g, v.workspace, v.sessionHooks, v.profile)
			if err != nil {
				return err
			}
			for _, w := range snap.Warnings {
				fmt.Fprintf(io.err, "hook-exec: warning: %s\n", esc(w))
			}
			var data any
			if err := json.Unmarshal([]byte(dataJSON), &data); err != nil {
				return usageError("--data-json: %v", err)
			}
			ws, _ := filepath.Abs(v.workspace)
			event, err := json.Marshal(map[string]any{"schema_version": 1, "point": point, "session_id": "dry-run", "workspace": ws, "data": data})
			if err != nil {
				return usageError("--data-json: %v", err)
			}
			steps, err := dispatch.Plan(snap, point, event)
			if err != nil {
				return usageError("%v", err)
			}
			var entries []*registry.Entry
			for _, s := range steps {
				entries = append(entries, s.Entry)
			}
			// Every plugin hook at the point is listed, with its plugin's
			// consent state: one that does not run says why.
			dir, err := hookrun.StateDir(g.stateDir)
			if err != nil {
				return failure(err)
			}
			plugins, err := plugin.List(dir)
			if err != nil {
				return failure(err)
			}
			for _, info := range plugins {
				if info.State == plugin.Approved {
					continue
				}
				for _, d := range info.Hooks {
					id := "plugin:" + info.Name + "/" + d.ID
					if d.Point != point || slices.ContainsFunc(entries, func(e *registry.Entry) bool { return e.ID == id }) {
						continue
					}
					e := &registry.Entry{Def: d, ID: id, Origin: registry.Plugin, Plugin: info.Name, Source: info.Dir,
						Disabled: fmt.Sprintf("plugin %s: does not run", info.State)}
					entries, steps = append(entries, e), append(steps, dispatch.Step{Entry: e})
				}
			}
			return printEntries(io, entries, steps, v.asJSON)
		},
	}
	v.flags(dryRun)
	dryRun.Flags().StringVar(&dataJSON, "data-json", "{}", "the event's data, as `JSON`")
	return dryRun
}

// newHookToggleCmd is enable or disable: reason "" turns the hook back on.
func newHookToggleCmd(g *globals, io stdio, use, short, reason string) *cobra.Command {
	var workspace, profile, session string
	c := &cobra.Command{
		Use: use + " ID [--workspace DIR] [--profile ID] [--session-hooks FILE]", Short: short, Args: exactArgs(1, "ID"), Annotations: stateAnnot,
		Example: "  hook-exec hook " + use + " protect-sensitive-paths",
		RunE: withState(g, func(dir string, args []string) error {
			// The hook must be one the registry has (its global and
			// profile documents, the trusted project, a session document,
			// the plugins, approved or not): a typo disables nothing, and
			// must say so.
			find := func() ([]*registry.Entry, error) {
				snap, err := snapshot(g, workspace, session, profile)
				if err != nil {
					return nil, err
				}
				var found []*registry.Entry
				for _, e := range snap.All() {
					if e.ID == args[0] {
						found = append(found, e)
					}
				}
				plugins, err := plugin.List(dir)
				if err != nil {
					return nil, failure(err)
				}
				for _, info := range plugins {
					for _, d := range info.Hooks {
						id := "plugin:" + info.Name + "/" + d.ID
						if id == args[0] && !slices.ContainsFunc(found, func(e *registry.Entry) bool { return e.ID == id }) {
							found = append(found, &registry.Entry{Def: d, ID: id, Origin: registry.Plugin, Plugin: info.Name,
								Disabled: "plugin " + string(info.State)})
						}
					}
				}
				return found, nil
			}
			before, err := find()
			if err != nil {
				return err
			}
			if len(before) == 0 && reason == "" {
				// A one-shot call's hook its failure policy disabled is in no
				// registry: it is named by its ledger key (executor.LedgerKey),
				// as the warning that disabled it says.
				var s registry.Switches
				if err := registry.ReadSwitches(dir, &s); err != nil {
					return failure(err)
				}
				if was := s.Disabled[args[0]]; was != "" {
					if err := registry.SetDisabled(dir, args[0], ""); err != nil {
						return failure(err)
					}
					fmt.Fprintf(io.err, "hook-exec: hook %s (one-shot): %s -> enabled, from its next call\n", esc(args[0]), esc(was))
					return nil
				}
			}
			if len(before) == 0 {
				return failure(fmt.Errorf("%w: no hook %q in the registry (its global and profile documents, --workspace's project, --session-hooks, the installed plugins): nothing %sd", registry.ErrNoHook, args[0], use))
			}
			if err := registry.SetDisabled(dir, args[0], reason); err != nil {
				return failure(err)
			}
			after, err := find()
			if err != nil {
				return err
			}
			// Seed 000: "Registry changes also emit diagnostics with the
			// previous and current content-addressed versions."
			state := func(e *registry.Entry) string { return cmp.Or(e.Disabled, "enabled") }
			for i, e := range before {
				version, err := e.Version()
				if err != nil {
					return failure(err)
				}
				now := "enabled"
				if i < len(after) {
					now = state(after[i])
				}
				fmt.Fprintf(io.err, "hook-exec: registry: hook %s (%s): %s %s -> %s %s, from the next boundary\n",
					esc(e.ID), e.Origin, version, esc(state(e)), version, esc(now))
			}
			return nil
		}),
	}
	c.Flags().StringVar(&workspace, "workspace", "", "look for the hook in this `DIR`'s project hooks too")
	c.Flags().StringVar(&profile, "profile", "", "look for the hook in the profile `ID`'s hooks too")
	c.Flags().StringVar(&session, "session-hooks", "", "look for the hook in this session hooks document `FILE` too")
	markPaths(c, "workspace", "session-hooks")
	return c
}

// newHookRemoveCmd deletes a stored hook.
func newHookRemoveCmd(g *globals, io stdio) *cobra.Command {
	var profile string
	remove := &cobra.Command{
		Use: "remove ID [--profile ID]", Short: "Delete a stored global (or profile) hook",
		Example: "  hook-exec hook remove protect-sensitive-paths",
		Args:    exactArgs(1, "ID"), Annotations: stateAnnot,
		RunE: withState(g, func(dir string, args []string) error {
			ch, err := registry.Remove(dir, profile, args[0])
			if err != nil {
				return failure(err)
			}
			fmt.Fprintln(io.err, "hook-exec: registry:", ch)
			return nil
		}),
	}
	remove.Flags().StringVar(&profile, "profile", "", "remove from the profile `ID`")
	return remove
}

// newHookInstallProjectCmd writes a normalized, untrusted project document.
func newHookInstallProjectCmd(g *globals, io stdio) *cobra.Command {
	installProject := &cobra.Command{
		Use: "install-project WORKSPACE FILE", Short: "Write a normalized project document (not trusted)",
		Long: `Validate FILE and write its hooks, normalized, to WORKSPACE/.holaryn/hooks.json.
The file is deliberately not trusted: review it, then run 'hook-exec hook trust'.`,
		Args: exactArgs(2, "WORKSPACE FILE"), Annotations: stateAnnot,
		RunE: func(_ *cobra.Command, args []string) error {
			defs, err := readHookDoc(args[1])
			if err != nil {
				return err
			}
			for _, d := range defs {
				if d.Scope != registry.Project {
					return &exitError{exitFail, fmt.Errorf("%w: hook %s declares scope %s; a project document holds project hooks", registry.ErrDocument, d.ID, d.Scope)}
				}
			}
			b, err := registry.Normalize(defs)
			if err != nil {
				return failure(err)
			}
			file := filepath.Join(args[0], registry.ProjectFile)
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				return failure(err)
			}
			if err := os.WriteFile(file, b, 0o644); err != nil {
				return failure(err)
			}
			fmt.Fprintf(io.err, "hook-exec: wrote %s (%s); it is not trusted\n", file, registry.Digest(b))
			return nil
		},
	}
	return installProject
}

// newHookTrustCmd trusts a workspace's project hooks.
func newHookTrustCmd(g *globals, io stdio) *cobra.Command {
	trust := &cobra.Command{
		Use: "trust WORKSPACE", Short: "Trust the exact digest of a workspace's project hooks",
		Args: exactArgs(1, "WORKSPACE"), Annotations: stateAnnot,
		RunE: withState(g, func(dir string, args []string) error {
			_, _, previous, _ := registry.TrustStatus(dir, args[0])
			digest, defs, replaced, err := registry.TrustHooks(dir, args[0])
			if err != nil {
				return failure(err)
			}
			// What the digest binds, loosenings and replaced hooks included.
			tw := tabwriter.NewWriter(io.out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tPOINT\tMODE\tHANDLER")
			for _, d := range defs {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", esc(d.ID), esc(d.Point), esc(string(d.Mode)), hookText(d, esc))
			}
			tw.Flush()
			for _, d := range defs {
				if scope, ok := replaced[d.ID]; ok {
					fmt.Fprintf(io.out, "REPLACES your %s hook %s: it will not run while this project's hooks do\n", scope, esc(d.ID))
				}
			}
			fmt.Fprintf(io.out, "trusted %s (previously trusted: %s)\n", digest, orDash(previous))
			return nil
		}),
	}
	return trust
}

// newHookTrustStatusCmd prints a workspace's trust.
func newHookTrustStatusCmd(g *globals, io stdio) *cobra.Command {
	trustStatus := &cobra.Command{
		Use: "trust-status WORKSPACE", Short: "Print whether a workspace's project hooks are trusted",
		Args: exactArgs(1, "WORKSPACE"), Annotations: stateAnnot,
		RunE: withState(g, func(dir string, args []string) error {
			state, now, trusted, err := registry.TrustStatus(dir, args[0])
			if err != nil {
				return failure(err)
			}
			fmt.Fprintf(io.out, "%s %s (trusted: %s)\n", state, orDash(now), orDash(trusted))
			return nil
		}),
	}
	return trustStatus
}

// newHookRevokeTrustCmd ends a workspace's trust.
func newHookRevokeTrustCmd(g *globals, io stdio) *cobra.Command {
	revoke := &cobra.Command{
		Use: "revoke-trust WORKSPACE", Short: "End the trust of a workspace's project hooks",
		Args: exactArgs(1, "WORKSPACE"), Annotations: stateAnnot,
		RunE: withState(g, func(dir string, args []string) error {
			return failureOrNil(registry.RevokeTrust(dir, args[0]))
		}),
	}
	return revoke
}

// newHookExamplesCmd prints copyable hook definitions.
func newHookExamplesCmd(g *globals, io stdio) *cobra.Command {
	examples := &cobra.Command{
		Use: "examples [NAME]", Short: "Print complete, copyable hook definitions",
		Long: `Print complete definitions: forbidden paths, proposed-secret approval, a
formatter, tests on completion and notifications. Save one as hook.json, then
'hook-exec hook validate hook.json' and 'hook-exec hook add hook.json'.`,
		Example: `  hook-exec hook examples
  hook-exec hook examples forbidden-paths > hook.json`,
		Args: cobra.MaximumNArgs(1), Annotations: map[string]string{annotEnv: envNone, annotExit: exitLocal},
		RunE: func(_ *cobra.Command, args []string) error {
			for _, ex := range registry.Examples {
				switch {
				case len(args) == 1 && ex.Name == args[0]:
					fmt.Fprintln(io.out, ex.Document)
					return nil
				case len(args) == 0:
					fmt.Fprintf(io.out, "# %s: %s\n%s\n\n", ex.Name, ex.About, ex.Document)
				}
			}
			if len(args) == 1 {
				var names []string
				for _, ex := range registry.Examples {
					names = append(names, ex.Name)
				}
				return usageError("no example %q: use one of %v", args[0], names)
			}
			return nil
		},
	}
	return examples
}

// withState runs fn with the state directory (--state-dir, else the
// default) and the command's arguments.
func withState(g *globals, fn func(dir string, args []string) error) func(*cobra.Command, []string) error {
	return func(_ *cobra.Command, args []string) error {
		dir, err := hookrun.StateDir(g.stateDir)
		if err != nil {
			return failure(err)
		}
		return fn(dir, args)
	}
}

func failureOrNil(err error) error {
	if err != nil {
		return failure(err)
	}
	return nil
}

func snapshot(g *globals, workspace, sessionHooks, profile string) (*registry.Snapshot, error) {
	dir, err := hookrun.StateDir(g.stateDir)
	if err != nil {
		return nil, failure(err)
	}
	src, err := hookrun.Sources(dir, workspace, sessionHooks, profile)
	if err != nil {
		var ue *hookrun.UsageError
		if errors.As(err, &ue) {
			return nil, &exitError{exitUsage, ue.Err}
		}
		return nil, failure(err)
	}
	snap, err := registry.Take(src)
	if err != nil {
		return nil, failure(err)
	}
	return snap, nil
}

// sourceName is the file an entry came from, as list and errors name it.
func sourceName(e *registry.Entry) string {
	if e.Source == "" {
		return "(session document)"
	}
	return e.Source
}

// entryView is an entry as list and dry-run print it.
type entryView struct {
	ID           string `json:"id"`
	Point        string `json:"point"`
	Scope        string `json:"scope"`
	Order        int    `json:"order"`
	Mode         string `json:"mode"`
	Handler      string `json:"handler"`
	Source       string `json:"source"`
	Version      string `json:"version"`
	State        string `json:"state"`
	Matches      *bool  `json:"matches,omitempty"`
	AfterRewrite bool   `json:"after_rewrite,omitempty"`
}

// printEntries prints the entries as a table or, with asJSON, as JSON; in
// both, the strings of the documents and the state are escaped for a
// terminal (JSON keeping their values).
func printEntries(io stdio, entries []*registry.Entry, steps []dispatch.Step, asJSON bool) error {
	str := esc
	if asJSON {
		str = asIs // writeJSON escapes the whole text
	}
	var views []entryView
	for i, e := range entries {
		version, err := e.Version()
		if err != nil {
			return failure(fmt.Errorf("%s: %w", sourceName(e), err))
		}
		v := entryView{ID: e.ID, Point: e.Def.Point, Scope: string(e.Origin), Order: e.Def.Order, Mode: string(e.Def.Mode),
			Handler: hookText(e.Def, str), Source: sourceName(e), Version: version, State: "enabled"}
		if e.Disabled != "" {
			v.State = e.Disabled
		}
		if steps != nil {
			m := steps[i].Matches
			v.Matches, v.AfterRewrite = &m, steps[i].AfterRewrite
		}
		views = append(views, v)
	}
	if asJSON {
		b, err := json.Marshal(views, json.Deterministic(true))
		if err != nil {
			return failure(err)
		}
		return writeJSON(io.out, b)
	}
	tw := tabwriter.NewWriter(io.out, 0, 4, 2, ' ', 0)
	header := "POINT\tORDER\tSCOPE\tID\tMODE\tHANDLER\tSTATE\tSOURCE"
	if steps != nil {
		header += "\tMATCH"
	}
	fmt.Fprintln(tw, header)
	for _, v := range views {
		line := fmt.Sprintf("%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s", esc(v.Point), v.Order, esc(v.Scope), esc(v.ID), esc(v.Mode), v.Handler, esc(v.State), esc(v.Source))
		if v.Matches != nil {
			m := "no"
			if *v.Matches {
				m = "yes"
			}
			if v.AfterRewrite {
				m += " (after a rewrite: may differ)"
			}
			line += "\t" + m
		}
		fmt.Fprintln(tw, line)
	}
	return tw.Flush()
}

// printOneShotDisabled lists the hooks of one-shot calls (run, the Arcturn
// and Bernstein chains) that their failure policy disabled: they are in no
// registry, and stay off, by their ledger key, until `hook enable KEY`.
func printOneShotDisabled(io stdio, dir string, registered []*registry.Entry, asJSON bool) error {
	var sw registry.Switches
	if err := registry.ReadSwitches(dir, &sw); err != nil {
		return failure(err)
	}
	type oneShot struct {
		Key    string `json:"key"`
		Reason string `json:"reason"`
	}
	found := []oneShot{}
	for _, key := range slices.Sorted(maps.Keys(sw.Disabled)) {
		if !slices.ContainsFunc(registered, func(e *registry.Entry) bool { return e.ID == key }) && strings.Contains(key, "@") {
			found = append(found, oneShot{key, sw.Disabled[key]})
		}
	}
	if asJSON {
		b, err := json.Marshal(map[string]any{"one_shot_disabled": found}, json.Deterministic(true))
		if err != nil {
			return failure(err)
		}
		return writeJSON(io.out, b)
	}
	for _, o := range found {
		fmt.Fprintf(io.out, "one-shot hook %s: disabled (%s): hook-exec hook enable %s\n", esc(o.Key), esc(o.Reason), esc(o.Key))
	}
	return nil
}
