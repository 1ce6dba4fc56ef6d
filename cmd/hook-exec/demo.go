package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hookexec/hook-exec/examples"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/scriptpin"
)

// cmdDemo pins the example guard, then runs it on an "rm -rf" event and an
// "ls" event in a real sandbox, printing each decision and trace.
func cmdDemo(ctx context.Context, args []string, io stdio) int {
	fs := newFlagSet("demo", io.err)
	backendFlag := fs.String("backend", "", "engine: docker (default; env HOOKEXEC_BACKEND)")
	if _, err := parseFlags(fs, args); err != nil {
		return flagErr(err)
	}
	dir, err := os.MkdirTemp("", "hookexec-demo-")
	if err != nil {
		fmt.Fprintf(io.err, "hook-exec: demo: %v\n", err)
		return exitFail
	}
	defer os.RemoveAll(dir)
	guard, _ := examples.FS.ReadFile("guard.sh")
	if err := os.WriteFile(filepath.Join(dir, "guard.sh"), guard, 0o644); err != nil {
		fmt.Fprintf(io.err, "hook-exec: demo: %v\n", err)
		return exitFail
	}
	pin, err := scriptpin.Read(dir, "guard.sh")
	if err != nil {
		fmt.Fprintf(io.err, "hook-exec: demo: %v\n", err)
		return exitFail
	}
	eng, err := openEngine(backendName(*backendFlag))
	if err != nil {
		return usageErr(io.err, "demo: %v", err)
	}
	defer eng.Close()
	ex, err := executor.New(executor.Options{Backend: eng.Backend, DefaultImage: eng.defaultImage, Admission: eng.admission(io, "")})
	if err != nil {
		fmt.Fprintf(io.err, "hook-exec: demo: %v\n", err)
		return exitFail
	}
	h := hook.Hook{ID: "demo-guard", PluginDir: dir, Script: "guard.sh", SHA256: pin.SHA256.String(), Timeout: 10 * time.Second}
	fmt.Fprintf(io.out, "guard.sh pinned at sha256 %s\n", pin.SHA256)
	failed := false
	for _, name := range []string{"rm-rf.json", "ls.json"} {
		event, _ := examples.FS.ReadFile("events/" + name)
		res, err := ex.Run(ctx, h, event)
		if err != nil {
			fmt.Fprintf(io.err, "hook-exec: demo: %v\n", err)
			return exitFail
		}
		var ev hook.Event
		json.Unmarshal(event, &ev)
		var data struct {
			Args struct{ Command string } `json:"args"`
		}
		json.Unmarshal(ev.Data, &data)
		d, _ := json.Marshal(res.Decision)
		fmt.Fprintf(io.out, "\n$ %s\n  decision: %s\n  image %s, %d ms, exit %v\n", data.Args.Command, d, res.Trace.Image, res.Trace.DurationMS, deref(res.Trace.ExitCode))
		if res.Trace.Failure != nil {
			fmt.Fprintf(io.out, "  failure: %s: %s\n", res.Trace.Failure.Kind, res.Trace.Failure.Message)
			failed = true
		}
	}
	if failed {
		return exitFail
	}
	return exitOK
}

func deref(p *int) any {
	if p == nil {
		return "none"
	}
	return *p
}
