// Package demo runs the example hook (package examples) in a real
// sandbox: `hook-exec demo`.
package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/backend/engine"
	"github.com/hookexec/hook-exec/cmd/internal/stack"
	"github.com/hookexec/hook-exec/examples"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/scriptpin"
)

// ErrDemo: a demo run ended in a failure (its trace is printed).
var ErrDemo = errors.New("demo run failed")

// Demo pins guard.sh, then runs it on the "rm -rf" event and on the "ls"
// event in a real sandbox of the engine o opens, printing each decision
// and trace summary to out. An engine failure wraps backend.ErrEngine.
func Demo(ctx context.Context, o engine.Options, out io.Writer) error {
	dir, err := os.MkdirTemp("", "hookexec-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	guard, _ := examples.FS.ReadFile("guard.sh")
	if err := os.WriteFile(filepath.Join(dir, "guard.sh"), guard, 0o644); err != nil {
		return err
	}
	pin, err := scriptpin.Read(dir, "guard.sh")
	if err != nil {
		return err
	}
	s, err := stack.Open(ctx, stack.Options{Engine: o, Strict: true})
	if err != nil {
		return err
	}
	defer s.Close(stack.DefaultDrain)
	ex := s.Executor
	h := hook.Hook{ID: "demo-guard", PluginDir: dir, Script: "guard.sh", SHA256: pin.SHA256.String(), Timeout: 10 * time.Second}
	fmt.Fprintf(out, "guard.sh pinned at sha256 %s\n", pin.SHA256)
	var failed error
	for _, name := range []string{"rm-rf.json", "ls.json"} {
		event, _ := examples.FS.ReadFile("events/" + name)
		res, err := ex.Run(ctx, h, event)
		if err != nil {
			return err
		}
		var ev hook.Event
		json.Unmarshal(event, &ev)
		var data struct {
			Args struct{ Command string } `json:"args"`
		}
		json.Unmarshal(ev.Data, &data)
		d, _ := json.Marshal(res.Decision)
		fmt.Fprintf(out, "\n$ %s\n  decision: %s\n  image %s, %d ms, exit %v\n", data.Args.Command, d, res.Trace.Image, res.Trace.DurationMS, deref(res.Trace.ExitCode))
		if f := res.Trace.Failure; f != nil {
			fmt.Fprintf(out, "  failure: %s: %s\n", f.Kind, f.Message)
			if failed == nil {
				failed = fmt.Errorf("%w: %s: %s", ErrDemo, f.Kind, f.Message)
				if f.Kind == hook.FailEngineError {
					failed = fmt.Errorf("%w: %w: %s", ErrDemo, backend.ErrEngine, f.Message)
				}
			}
		}
	}
	return failed
}

func deref(p *int) any {
	if p == nil {
		return "none"
	}
	return *p
}
