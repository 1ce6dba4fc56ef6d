package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/launcher"
	"github.com/hookexec/hook-exec/shellsyntax"
)

// CheckImage opens the engine o names (checking that it answers, sweeping
// orphans) and probes image, in the hardened sandbox hooks get, for the
// programs each language's launcher needs. The local backend has no
// images to check: backend.ErrNotIsolated.
//
// With a script (its file name and bytes), it also reports the programs the
// script calls (its shell, from its #! line, and every command it names)
// that the image lacks: "jq: missing" before a guard silently allows.
func CheckImage(ctx context.Context, o Options, image string, langs []launcher.Lang, script *executor.ScriptReport, body []byte) (*executor.ImageReport, error) {
	if script != nil && slices.Contains(langs, launcher.Node) {
		script.Shell, script.Programs = "node", []string{"node"} // what a js hook calls is not read here
	} else if script != nil {
		shell, _, err := launcher.Shebang(body)
		if err != nil {
			return nil, err
		}
		if shell == "" {
			shell = "sh"
		}
		progs, err := shellsyntax.Programs(body, shell)
		if err != nil {
			return nil, err
		}
		script.Shell, script.Programs = shell, append([]string{shell}, slices.DeleteFunc(progs, func(p string) bool { return p == shell })...)
	}
	o.Ping, o.Sweep = true, true
	e, err := Open(ctx, o)
	if err != nil {
		return nil, err
	}
	defer e.Close()
	if !e.backend.Isolating() {
		return nil, fmt.Errorf("image check needs a container backend, not %s: %w", e.backend.Name(), backend.ErrNotIsolated)
	}
	rep, err := executor.CheckImage(ctx, e.backend, image, langs)
	if err == nil && script != nil {
		script.Missing, err = executor.MissingPrograms(ctx, e.backend, image, script.Programs)
		rep.Script = script
	}
	return rep, err
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
