package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/hookexec/hook-exec/cmd/internal/hookrun"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
)

// exitApproval: dispatch's final action is request_approval.
const exitApproval = 3

const exitDispatch = `  0    the final action is allow or modify
  2    the final action is deny; every hook failure ends in a decision
       through its failure_policy
  3    the final action is request_approval
  1    the result could not be written
  64   usage error at run.completed and session.end (an unknown point, an
       event that does not parse, a hook document that does not validate:
       nothing runs); at every other point the same is a deny (exit 2, a
       deny decision on stdout) so that a host never reads it as "go on"`

func newDispatchCmd(g *globals, io stdio) *cobra.Command {
	var o hookrun.DispatchOptions
	var eventFile string
	c := &cobra.Command{
		Use:   "dispatch POINT [--workspace DIR] [--session-hooks FILE] [--profile ID] < event.json",
		Short: "Run every hook registered at a boundary and print one answer",
		Long: `Run every hook at POINT for one event (a Holaryn event, schema_version 1, on
stdin or from --event FILE): the approved hooks of enabled plugins first, then
the owner's global, profile, trusted project and session hooks. Blocking hooks
run one after another, each matched against the event as the hooks before it
left it; a deny ends the chain (so does an owner's request_approval; a
plugin's ends only the plugins' chain, and stands only if the owner's hooks
allow), a modify is applied. The observational hooks then get the final
event in a process of their own, after the answer: the host does not wait
for them, and their traces reach the store when they are done.

stdout: {"decision": {...}, "event": <the final event>, "traces": [...]}

The registry is read once, at the start: a change, disable or removal takes
effect at the next boundary. Circuits per session and hooks disabled by their
failure policy are kept in --state-dir, as are the traces.`,
		Example: `  hook-exec dispatch tool.before --workspace . < event.json
  hook-exec dispatch file.before_write --session-hooks session.json --event event.json`,
		Args:        exactArgs(1, "POINT"),
		Annotations: map[string]string{annotEnv: envEngine + "\n" + envState, annotExit: exitDispatch},
		RunE: func(c *cobra.Command, args []string) error {
			if err := hook.CheckPoint(args[0]); err != nil {
				return usageError("%v", err)
			}
			event, err := readEvent(runOptions{eventFile: eventFile, maxEventBytes: executor.DefaultMaxEventBytes}, io.in)
			if err != nil {
				return err
			}
			o.Point, o.Event, o.Engine, o.StateDir = args[0], event, g.sandboxEngine(), g.stateDir
			o.Observer, _ = os.Executable()
			o.Stdout, o.Stderr, o.Shared = io.out, io.err, g.shared
			g.startServer()
			res, err := hookrun.Dispatch(c.Context(), o)
			if err != nil {
				return decided(err, "", 0)
			}
			return decided(nil, res.Decision.Action, exitApproval)
		},
	}
	g.engineFlags(c, "docker, containerd, kubernetes or local (owner hooks only, no isolation)")
	g.runtimeFlag(c)
	g.stateFlag(c)
	f := c.Flags()
	f.StringVar(&eventFile, "event", "", "read the event JSON from `FILE` (- or none: stdin)")
	f.StringVar(&o.Workspace, "workspace", "", "the workspace `DIR`: its trusted project hooks run, and hooks see it read-only")
	f.StringVar(&o.SessionHooks, "session-hooks", "", "a session hooks document `FILE` (scope session)")
	f.StringVar(&o.Profile, "profile", "", "the profile `ID` whose hooks apply")
	g.serverFlags(c)
	markPaths(c, "event", "workspace", "session-hooks")
	return c
}
