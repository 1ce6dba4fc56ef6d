package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/examples"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/scriptpin"
)

func newDemoCmd(g *globals, io stdio) *cobra.Command {
	c := &cobra.Command{
		Use:   "demo",
		Short: "Run the example guard hook on two events in a real sandbox",
		Long: `Pin examples/guard.sh, then run it in a real sandbox on an "rm -rf" event
(denied) and an "ls" event (allowed), printing each decision and trace.`,
		Example: `  hook-exec demo
  hook-exec demo --backend containerd`,
		Args:        noArgs,
		Annotations: map[string]string{annotEnv: envEngine, annotExit: exitCommand},
		RunE: func(c *cobra.Command, _ []string) error {
			return runDemo(c.Context(), g, io)
		},
	}
	g.engineFlags(c, "docker or containerd")
	return c
}

// runDemo pins the example guard, then runs it on an "rm -rf" event and an
// "ls" event in a real sandbox, printing each decision and trace.
func runDemo(ctx context.Context, g *globals, io stdio) error {
	dir, err := os.MkdirTemp("", "hookexec-demo-")
	if err != nil {
		return failure(err)
	}
	defer os.RemoveAll(dir)
	guard, _ := examples.FS.ReadFile("guard.sh")
	if err := os.WriteFile(filepath.Join(dir, "guard.sh"), guard, 0o644); err != nil {
		return failure(err)
	}
	pin, err := scriptpin.Read(dir, "guard.sh")
	if err != nil {
		return failure(err)
	}
	eng, err := openEngine(g, true)
	if err != nil {
		return usageError("%v", err)
	}
	defer eng.Close()
	ex, err := executor.New(executor.Options{Backend: eng, DefaultImage: eng.defaultImage})
	if err != nil {
		return failure(err)
	}
	h := hook.Hook{ID: "demo-guard", PluginDir: dir, Script: "guard.sh", SHA256: pin.SHA256.String(), Timeout: 10 * time.Second}
	fmt.Fprintf(io.out, "guard.sh pinned at sha256 %s\n", pin.SHA256)
	var failed error
	for _, name := range []string{"rm-rf.json", "ls.json"} {
		event, _ := examples.FS.ReadFile("events/" + name)
		res, err := ex.Run(ctx, h, event)
		if err != nil {
			return failure(err)
		}
		var ev hook.Event
		json.Unmarshal(event, &ev)
		var data struct {
			Args struct{ Command string } `json:"args"`
		}
		json.Unmarshal(ev.Data, &data)
		d, _ := json.Marshal(res.Decision)
		fmt.Fprintf(io.out, "\n$ %s\n  decision: %s\n  image %s, %d ms, exit %v\n", data.Args.Command, d, res.Trace.Image, res.Trace.DurationMS, deref(res.Trace.ExitCode))
		if f := res.Trace.Failure; f != nil {
			fmt.Fprintf(io.out, "  failure: %s: %s\n", f.Kind, f.Message)
			if failed == nil {
				failed = fmt.Errorf("%s: %s", f.Kind, f.Message)
				if f.Kind == hook.FailEngineError {
					failed = fmt.Errorf("%w: %s", backend.ErrEngine, f.Message)
				}
			}
		}
	}
	if failed != nil {
		return failure(failed)
	}
	return nil
}

func deref(p *int) any {
	if p == nil {
		return "none"
	}
	return *p
}
