package docker

import (
	"context"
	"time"

	"github.com/moby/moby/client"

	"github.com/hookexec/hook-exec/backend"
)

// oomKilled reads the engine's OOM flag. The engine may record an OOM kill
// after it reports the exit, so a SIGKILL exit that hook-exec did not cause
// is asked again for a short while.
func (b *Backend) oomKilled(ctx context.Context, id string, unexplainedKill bool) bool {
	ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), backend.KillGrace)
	defer cancel()
	deadline := time.Now().Add(oomSettle)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	if min := time.Now().Add(oomSettleMin); deadline.Before(min) {
		deadline = min
	}
	for {
		res, err := b.cli.ContainerInspect(ictx, id, client.ContainerInspectOptions{})
		info := res.Container
		if err != nil || info.State == nil {
			return false
		}
		if info.State.OOMKilled || !unexplainedKill || time.Now().After(deadline) {
			return info.State.OOMKilled
		}
		time.Sleep(50 * time.Millisecond)
	}
}
