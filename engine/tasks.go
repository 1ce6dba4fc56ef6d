package engine

import (
	"context"
	"fmt"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/launcher"
)

// CheckImage opens the engine o names (checking that it answers, sweeping
// orphans) and probes image, in the hardened sandbox hooks get, for the
// programs each language's launcher needs. The local backend has no
// images to check: backend.ErrNotIsolated.
func CheckImage(ctx context.Context, o Options, image string, langs []launcher.Lang) (*executor.ImageReport, error) {
	o.Ping, o.Sweep = true, true
	e, err := Open(ctx, o)
	if err != nil {
		return nil, err
	}
	defer e.Close()
	if !e.backend.Isolating() {
		return nil, fmt.Errorf("image check needs a container backend, not %s: %w", e.backend.Name(), backend.ErrNotIsolated)
	}
	return executor.CheckImage(ctx, e.backend, image, langs)
}

// GC opens the engine o names (checking that it answers) and removes the
// sandboxes of dead hook-exec processes, or, with all, every hook-exec
// sandbox. It returns how many it removed, also when the error says some
// could not be.
func GC(ctx context.Context, o Options, all bool) (int, error) {
	o.Ping, o.Sweep = true, false // the sweep is this call's own, in the foreground
	e, err := Open(ctx, o)
	if err != nil {
		return 0, err
	}
	defer e.Close()
	return e.Sweep(ctx, all)
}
