package engine

import (
	"context"
	"errors"
	"fmt"
	"os"

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

// GC removes the sandboxes of dead hook-exec processes, or, with all,
// every hook-exec sandbox, on the engine o names; with no backend named
// (neither o.Backend nor HOOKEXEC_BACKEND), on both container engines:
// each that answers is swept, and only when neither answers is that an
// error. It returns how many it removed, also when the error says some
// could not be.
func GC(ctx context.Context, o Options, all bool) (int, error) {
	if o.Backend != "" || os.Getenv("HOOKEXEC_BACKEND") != "" {
		return gcOne(ctx, o, all)
	}
	total, answered := 0, 0
	var errs []error
	for _, name := range []string{"docker", "containerd"} {
		o.Backend = name
		n, err := gcOne(ctx, o, all)
		total += n
		if errors.Is(err, backend.ErrEngine) && n == 0 {
			errs = append(errs, err)
			continue
		}
		answered++
		if err != nil {
			return total, err
		}
	}
	if answered == 0 {
		return 0, errors.Join(errs...)
	}
	return total, nil
}

func gcOne(ctx context.Context, o Options, all bool) (int, error) {
	o.Ping, o.Sweep = true, false // the sweep is this call's own, in the foreground
	e, err := Open(ctx, o)
	if err != nil {
		return 0, err
	}
	defer e.Close()
	return e.Sweep(ctx, all)
}
