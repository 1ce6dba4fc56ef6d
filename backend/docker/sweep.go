package docker

import (
	"context"
	"errors"

	"github.com/moby/moby/client"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/sandbox"
)

// Sweep removes the managed containers whose owner process is gone (see
// backend.OwnerGone), or every managed container when all is true. It
// returns how many it removed.
func (b *Backend) Sweep(ctx context.Context, all bool) (int, error) {
	backend.SweepChannels() // the FIFO directories of processes gone
	list, err := b.cli.ContainerList(ctx, client.ContainerListOptions{
		All:     true,
		Filters: make(client.Filters).Add("label", sandbox.LabelManaged+"=true"),
	})
	if err != nil {
		return 0, b.engineErr("list containers", err)
	}
	n := 0
	var errs []error
	for _, c := range list.Items {
		if !all && !backend.OwnerGone(c.Labels) {
			continue
		}
		if err := b.remove(ctx, c.ID); err != nil {
			errs = append(errs, err)
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

// Managed returns the labels of every managed container that exists now.
func (b *Backend) Managed(ctx context.Context) ([]map[string]string, error) {
	list, err := b.cli.ContainerList(ctx, client.ContainerListOptions{
		All:     true,
		Filters: make(client.Filters).Add("label", sandbox.LabelManaged+"=true"),
	})
	if err != nil {
		return nil, b.engineErr("list containers", err)
	}
	out := make([]map[string]string, len(list.Items))
	for i, c := range list.Items {
		out[i] = c.Labels
	}
	return out, nil
}
