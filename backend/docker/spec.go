package docker

import (
	"maps"
	"strconv"

	units "github.com/docker/go-units"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/sandbox"
)

// Config converts a sandbox description to Docker's container and host
// configuration.
func Config(s *sandbox.Spec) (*container.Config, *container.HostConfig) {
	tmp := "rw,nosuid,nodev,size=" + strconv.FormatInt(s.TmpfsBytes, 10) + ",mode=1777"
	if s.TmpNoExec {
		tmp += ",noexec"
	}
	cfg := &container.Config{
		Image:        s.Image,
		Hostname:     "hook",
		User:         s.User,
		AttachStdin:  true,
		AttachStdout: true,
		AttachStderr: true,
		OpenStdin:    true,
		StdinOnce:    true,
		Env:          s.Env,
		Entrypoint:   s.Argv, // with an entrypoint set, the image's Cmd is not appended
		WorkingDir:   s.WorkingDir,
		Labels:       maps.Clone(s.Labels),
	}
	swap := s.Memory
	hc := &container.HostConfig{
		LogConfig:      container.LogConfig{Type: "none"},
		NetworkMode:    "bridge",
		AutoRemove:     false,
		ReadonlyRootfs: s.ReadOnlyRoot,
		Tmpfs:          map[string]string{"/tmp": tmp},
		IpcMode:        "private",
		Resources: container.Resources{
			Memory:     s.Memory,
			MemorySwap: swap,
			NanoCPUs:   s.NanoCPUs,
			PidsLimit:  &s.Pids,
			Ulimits: []*units.Ulimit{
				{Name: "nofile", Soft: int64(s.NoFile), Hard: int64(s.NoFile)},
				{Name: "fsize", Soft: int64(s.FileSize), Hard: int64(s.FileSize)},
			},
		},
	}
	if s.TmpDir != "" {
		delete(hc.Tmpfs, "/tmp")
		hc.Mounts = append(hc.Mounts, mount.Mount{Type: mount.TypeBind, Source: s.TmpDir, Target: "/tmp",
			BindOptions: &mount.BindOptions{Propagation: mount.PropagationRPrivate}})
	}
	for _, m := range s.Mounts {
		mt := mount.Mount{Type: mount.TypeBind, Source: m.Source, Target: m.Target, ReadOnly: m.ReadOnly,
			BindOptions: &mount.BindOptions{Propagation: mount.PropagationRPrivate}}
		if m.Volume {
			mt.Type, mt.BindOptions = mount.TypeVolume, nil
		}
		hc.Mounts = append(hc.Mounts, mt)
	}
	if s.NoNetwork {
		hc.NetworkMode = "none"
		cfg.NetworkDisabled = true
	}
	if s.DropAllCaps {
		hc.CapDrop = []string{"ALL"}
	}
	if s.NoNewPrivileges {
		hc.SecurityOpt = []string{"no-new-privileges"}
	}
	hc.SecurityOpt = append(hc.SecurityOpt, "seccomp="+backend.SeccompProfile())
	return cfg, hc
}

// config is Config for b's runtime: under gVisor the host's pids limit
// counts its own tasks.
func (b *Backend) config(s *sandbox.Spec) (*container.Config, *container.HostConfig) {
	cfg, hc := Config(s)
	hc.Runtime = b.runtime
	if b.gvisor {
		pids := backend.RunscHostPids(s.Pids)
		hc.PidsLimit = &pids
	}
	return cfg, hc
}
