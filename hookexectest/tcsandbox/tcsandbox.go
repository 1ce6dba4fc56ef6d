// Package tcsandbox gives a testcontainers-go container hook-exec's
// hardened sandbox, for plugin authors' suites that start their own test
// containers. It is apart from hookexectest so that a suite that only runs
// hooks (hookexectest.RunHook) does not compile testcontainers-go.
package tcsandbox

import (
	"maps"
	"slices"

	"github.com/moby/moby/api/types/container"
	"github.com/testcontainers/testcontainers-go"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/backend/docker"
	"github.com/hookexec/hook-exec/sandbox"
)

// Customize applies hook-exec's hardened sandbox to a container request,
// as a hook's sandbox gets it on Docker: the host configuration is the Docker
// backend's own conversion (docker.Config) of the sandbox description (what
// the backend adds for Podman, which takes the profile as a file, is not), so
// non-root 65534:65534, read-only root, a nosuid,nodev,noexec /tmp tmpfs,
// no network, every capability dropped, no-new-privileges and hook-exec's
// seccomp profile, memory (swap equal), pids and CPU limits, the nofile and
// fsize limits, and the managed labels. Sandbox options (sandbox.WithLimits,
// a named loosening) change it the same way they change a hook's sandbox.
// The request keeps its image, command, entrypoint, stdin settings and
// mounts, and its log driver, so the test can read the logs; the sandbox's
// environment comes before the request's own.
func Customize(opts ...sandbox.Option) testcontainers.CustomizeRequestOption {
	return func(req *testcontainers.GenericContainerRequest) error {
		s, err := sandbox.New(req.Image, []string{"placeholder"}, opts...)
		if err != nil {
			return err
		}
		// The Docker backend and testcontainers-go share the Engine API's
		// types (github.com/moby/moby/api).
		cfg, hc := docker.Config(s)
		if req.Labels == nil {
			req.Labels = map[string]string{}
		}
		maps.Copy(req.Labels, cfg.Labels)
		maps.Copy(req.Labels, backend.OwnerLabels())
		req.ConfigModifier = chain(req.ConfigModifier, func(c *container.Config) {
			c.User, c.Hostname, c.NetworkDisabled = cfg.User, cfg.Hostname, cfg.NetworkDisabled
			c.Env = append(slices.Clone(cfg.Env), c.Env...)
		})
		req.HostConfigModifier = chainHost(req.HostConfigModifier, func(h *container.HostConfig) {
			hardened := *hc
			hardened.LogConfig = h.LogConfig
			hardened.Mounts = append(slices.Clone(hc.Mounts), h.Mounts...)
			hardened.Binds = h.Binds
			*h = hardened
		})
		return nil
	}
}

func chain(prev, next func(*container.Config)) func(*container.Config) {
	return func(c *container.Config) {
		if prev != nil {
			prev(c)
		}
		next(c)
	}
}

func chainHost(prev, next func(*container.HostConfig)) func(*container.HostConfig) {
	return func(hc *container.HostConfig) {
		if prev != nil {
			prev(hc)
		}
		next(hc)
	}
}
