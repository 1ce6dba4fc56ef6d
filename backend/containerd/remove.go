package containerd

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/containerd/containerd/api/services/tasks/v1"
	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/pkg/cio"
	"github.com/containerd/errdefs"

	"github.com/hookexec/hook-exec/backend"
)

// remove deletes a container's task, the container and its snapshot under
// a detached, bounded context; what does not exist is not an error.
func (b *Backend) remove(ctx context.Context, id string) error {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
	defer cancel()
	// An engine under load fails a step now and then (a deadline, a task
	// still being reaped): the whole removal is tried again, each try
	// bounded so that one stuck call does not use up the bound.
	return backend.Retry(rctx, func(ctx context.Context) error {
		tctx, cancel := context.WithTimeout(ctx, removeTry)
		defer cancel()
		return b.removeOnce(tctx, id)
	}, func(err error) bool { return !errdefs.IsUnavailable(err) }) // unreachable: left to the sweep
}

// removeTry bounds one try of a removal.
const removeTry = 20 * time.Second

func (b *Backend) removeOnce(rctx context.Context, id string) error {
	c, err := b.cli.LoadContainer(rctx, id)
	if errdefs.IsNotFound(err) {
		return b.removeSnapshot(rctx, id)
	}
	if err != nil {
		return b.engineErr("load container "+id, err)
	}
	if t, err := c.Task(rctx, cio.Load); err == nil {
		if err := stopTask(rctx, t); err != nil {
			// runsc cannot signal a task it created and never started (a
			// refill cut short); the shim deletes one as it is, which the
			// client's Delete refuses to ask for.
			if st, serr := t.Status(rctx); serr != nil || st.Status != client.Created {
				return b.engineErr("stop task "+id, err)
			}
			if _, err := b.cli.TaskService().Delete(rctx, &tasks.DeleteTaskRequest{ContainerID: id}); err != nil && !errdefs.IsNotFound(err) {
				return b.engineErr("delete created task "+id, err)
			}
		} else if _, err := t.Delete(rctx); err != nil && !errdefs.IsNotFound(err) {
			// Another sweep may have deleted it first (two commands starting at once).
			if _, terr := c.Task(rctx, nil); !errdefs.IsNotFound(terr) {
				return b.engineErr("delete task "+id, err)
			}
		}
		removeFIFODir(t.IO())
	} else if !errdefs.IsNotFound(err) {
		return b.engineErr("load task "+id, err)
	}
	if err := c.Delete(rctx, client.WithSnapshotCleanup); err != nil && !errdefs.IsNotFound(err) {
		if _, lerr := b.cli.LoadContainer(rctx, id); !errdefs.IsNotFound(lerr) {
			return b.engineErr("delete container "+id, err)
		}
	}
	return nil
}

// fifoRoot is where cio makes a task's FIFO directories on this host.
const fifoRoot = "/run/containerd/fifo"

// removeFIFODir removes the FIFO directory of a task whose creator died
// before it could (a SIGKILLed hook-exec): only the creator's IO removes it.
func removeFIFODir(io cio.IO) {
	if io == nil {
		return
	}
	for _, p := range []string{io.Config().Stdin, io.Config().Stdout, io.Config().Stderr} {
		if dir := filepath.Dir(p); p != "" && filepath.Dir(dir) == fifoRoot {
			os.RemoveAll(dir)
			return
		}
	}
}

// stopTask kills every process of a task that is not stopped (running, or
// created and never started) and waits for its exit.
func stopTask(ctx context.Context, t client.Task) error {
	st, err := t.Status(ctx)
	if err != nil {
		return err
	}
	if st.Status == client.Stopped {
		return nil
	}
	exitC, err := t.Wait(ctx)
	if err != nil {
		return err
	}
	if err := t.Kill(ctx, syscall.SIGKILL, client.WithKillAll); err != nil && !errdefs.IsNotFound(err) {
		return err
	}
	select {
	case <-exitC:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// removeSnapshot deletes a snapshot left without its container (a create
// cut short after the snapshot was prepared).
func (b *Backend) removeSnapshot(ctx context.Context, id string) error {
	err := b.cli.SnapshotService(b.snapshotter).Remove(ctx, id)
	if err == nil || errdefs.IsNotFound(err) {
		return nil
	}
	return b.engineErr("remove snapshot "+id, err)
}
