package engine

import (
	"context"
	"errors"
	"os"

	"github.com/hookexec/hook-exec/backend"
)

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
