package docker

import (
	"context"
	"strings"
	"time"

	"github.com/containerd/errdefs"
	"github.com/moby/moby/client"

	"github.com/hookexec/hook-exec/backend"
)

// connectRetry bounds the retries of a removal whose connection to a
// remote engine fails.
const connectRetry = 10 * time.Second

// remove deletes a container by name or id (forced: a running one is
// killed first) under a detached, bounded context; a container that does
// not exist is not an error. Failures are tried again until the bound: a
// conflict (a start or another removal still in flight on the engine, as
// when the process that asked for it was killed) or an engine too loaded
// to answer in time resolves later. A remote engine's connection that
// fails is tried again for connectRetry: over ssh, one ssh process of
// many can fail to connect while the engine is there. A local engine that
// cannot be reached, or a remote one for longer, is not waited for: the
// sweep of the next process removes what is left once this one is gone.
func (b *Backend) remove(ctx context.Context, ref string) error {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
	defer cancel()
	var unreachable time.Time // since the first failed connection
	err := backend.Retry(rctx, func(ctx context.Context) error {
		_, err := b.cli.ContainerRemove(ctx, ref, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
		if err == nil || errdefs.IsNotFound(err) {
			return nil
		}
		return err
	}, func(err error) bool {
		if !client.IsErrConnectionFailed(err) {
			return true
		}
		if strings.HasPrefix(b.cli.DaemonHost(), "unix://") {
			return false
		}
		if unreachable.IsZero() {
			unreachable = time.Now()
		}
		return time.Since(unreachable) < connectRetry
	})
	if err != nil {
		return b.engineErr("remove container "+ref, err)
	}
	return nil
}
