package docker

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/moby/moby/client"

	"github.com/hookexec/hook-exec/backend"
)

// DaemonConfig is where a Linux engine reads its runtimes from.
const DaemonConfig = "/etc/docker/daemon.json"

// SetRuntime makes every later sandbox of b run under the engine's OCI
// runtime name (HostConfig.Runtime); "" is the engine's default. It asks
// the engine first, so that a runtime it lacks fails here, before anything
// starts, with backend.ErrRuntime and what to add to daemon.json.
func (b *Backend) SetRuntime(ctx context.Context, name string) error {
	if name == "" {
		b.runtime, b.gvisor = "", false
		b.chans.SetRuntime("")
		return nil
	}
	if !backend.ValidRuntimeName(name) || strings.HasPrefix(name, "/") {
		return fmt.Errorf("%w: %q is not a runtime name (Docker takes the name daemon.json registers)", backend.ErrRuntime, name)
	}
	res, err := b.cli.Info(ctx, client.InfoOptions{})
	if err != nil {
		return b.engineErr("info", err)
	}
	rt, ok := res.Info.Runtimes[name]
	if !ok {
		return fmt.Errorf("%w: the Docker engine at %s has no runtime %q (it has %s): %s",
			backend.ErrRuntime, b.cli.DaemonHost(), name, strings.Join(slices.Sorted(maps.Keys(res.Info.Runtimes)), ", "), registerHint(name))
	}
	gvisor := backend.IsRunsc(rt.Path)
	if gvisor {
		for _, a := range backend.RunscArgs {
			if !slices.Contains(rt.Args, a) {
				return fmt.Errorf("%w: the Docker engine's runtime %q runs %s without %s, which a hook sandbox needs: %s",
					backend.ErrRuntime, name, rt.Path, a, registerHint(name))
			}
		}
	}
	b.runtime, b.gvisor = name, gvisor
	b.chans.SetRuntime(name)
	return nil
}

// Runtime is the runtime SetRuntime chose; "" is the engine's default.
func (b *Backend) Runtime() string { return b.runtime }

// registerHint says how to give the engine the runtime name.
func registerHint(name string) string {
	rt := `{"path": "/path/to/` + name + `"}`
	switch name {
	case backend.Runsc:
		rt = `{"path": "/usr/bin/runsc", "runtimeArgs": ["` + strings.Join(backend.RunscArgs, `", "`) + `"]}`
	case backend.Crun:
		rt = `{"path": "/usr/bin/crun"}`
	}
	return fmt.Sprintf(`add "runtimes": {%q: %s} to %s and reload the engine (kill -HUP $(cat /var/run/docker.pid)); `+
		"`hook-exec runtime setup runsc` (or crun), as root, does both for runsc and crun", name, rt, DaemonConfig)
}
