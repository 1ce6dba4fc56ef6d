package docker

import (
	"context"
	"fmt"

	"github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/client"

	"github.com/hookexec/hook-exec/sandbox"
)

// Session is what a hook borrows from a session container: its image and
// its mounts, never its environment, capabilities or network.
type Session struct {
	Image  string
	Mounts []sandbox.Mount
}

// SessionOf inspects a session container. Hooks run in a fresh sandbox of
// its image with its mounts, never by exec into it: Docker cannot kill the
// process tree of an exec'd process, so a hook could outlive its timeout.
func (b *Backend) SessionOf(ctx context.Context, name string) (*Session, error) {
	res, err := b.cli.ContainerInspect(ctx, name, client.ContainerInspectOptions{})
	info := res.Container
	if errdefs.IsNotFound(err) {
		return nil, fmt.Errorf("session container %q not found", name)
	}
	if err != nil {
		return nil, b.engineErr("inspect session container", err)
	}
	s := &Session{Image: info.Image}
	if info.Config != nil && info.Config.Image != "" {
		s.Image = info.Config.Image
	}
	for _, m := range info.Mounts {
		switch m.Type {
		case mount.TypeBind:
			s.Mounts = append(s.Mounts, sandbox.Mount{Source: m.Source, Target: m.Destination})
		case mount.TypeVolume:
			s.Mounts = append(s.Mounts, sandbox.Mount{Source: m.Name, Target: m.Destination, Volume: true})
		}
	}
	return s, nil
}
