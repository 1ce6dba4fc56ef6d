package containerd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/containerd/errdefs"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/sandbox"
)

// Managed returns the labels of every managed container in the namespace.
func (b *Backend) Managed(ctx context.Context) ([]map[string]string, error) {
	cs, err := b.cli.Containers(ctx, fmt.Sprintf("labels.%q==true", sandbox.LabelManaged))
	if err != nil {
		return nil, b.engineErr("list containers", err)
	}
	var out []map[string]string
	for _, c := range cs {
		l, err := c.Labels(ctx)
		if err != nil {
			continue
		}
		out = append(out, l)
	}
	return out, nil
}

// Sweep removes the managed containers (with tasks and snapshots) whose
// owner process is gone, or all of them when all is true, and ends the
// shims of the namespace that serve nothing (see sweepShims).
func (b *Backend) Sweep(ctx context.Context, all bool) (int, error) {
	backend.SweepChannels() // the FIFO directories of processes gone
	cs, err := b.cli.Containers(ctx, fmt.Sprintf("labels.%q==true", sandbox.LabelManaged))
	if err != nil {
		return 0, b.engineErr("list containers", err)
	}
	n := 0
	var errs []error
	for _, c := range cs {
		l, err := c.Labels(ctx)
		if err != nil || (!all && !backend.OwnerGone(l)) {
			continue
		}
		if err := b.remove(ctx, c.ID()); err != nil {
			errs = append(errs, err)
			continue
		}
		// The sandbox of an owner that died while it held the task's IO:
		// containerd 1.6 deletes the task and leaves its shim running.
		b.endShim(c.ID())
		n++
	}
	b.sweepFIFODirs(ctx)
	n += b.sweepShims(ctx)
	return n, errors.Join(errs...)
}

// fifoGrace is how old a FIFO directory must be before a sweep may take it
// for an orphan: a setup in flight makes its container before its FIFOs,
// so a directory without a container is never one being made, but the
// grace keeps a sweep clear of any ordering it does not know.
const fifoGrace = time.Minute

// sweepFIFODirs removes the FIFO directories of hook-exec tasks whose
// container no longer exists (a process killed while it held a task's IO:
// only the IO's creator removes its directory). Best effort.
func (b *Backend) sweepFIFODirs(ctx context.Context) {
	dirs, err := os.ReadDir(fifoRoot)
	if err != nil {
		return
	}
	for _, d := range dirs {
		dir := filepath.Join(fifoRoot, d.Name())
		info, err := d.Info()
		if err != nil || !d.IsDir() || time.Since(info.ModTime()) < fifoGrace {
			continue
		}
		fifos, _ := filepath.Glob(filepath.Join(dir, "hookexec-*-stdin"))
		if len(fifos) != 1 {
			continue // not one of hook-exec's
		}
		id := strings.TrimSuffix(filepath.Base(fifos[0]), "-stdin")
		if _, err := b.cli.LoadContainer(ctx, id); errdefs.IsNotFound(err) {
			os.RemoveAll(dir)
		}
	}
}
