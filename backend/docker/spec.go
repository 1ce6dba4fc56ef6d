package docker

import (
	"context"
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

// config is Config for b's engine and runtime: Podman takes the seccomp
// profile as a file's path; under gVisor the host's pids limit counts its
// own tasks.
// drainStdin runs its arguments, then reads stdin to its end (cat, or
// sh's own read where the image has no cat) and exits with their status.
const drainStdin = `"$@"; s=$?; { cat || while IFS= read -r _; do :; done; } >/dev/null 2>&1; exit $s`

func (b *Backend) config(ctx context.Context, s *sandbox.Spec) (*container.Config, *container.HostConfig, error) {
	cfg, hc := Config(s)
	opt, err := b.seccompOpt(ctx)
	if err != nil {
		return nil, nil, err
	}
	hc.SecurityOpt[len(hc.SecurityOpt)-1] = opt
	if b.podman() {
		// Podman sets an nproc rlimit of its own when the request names
		// none (1048576), and runc fails to raise it where the engine lacks
		// CAP_SYS_RESOURCE ("error setting rlimit type 6"; -1, "the
		// engine's own", is infinity there, which fails the same). The pids
		// cgroup is the bound: nproc counts a uid's processes host-wide,
		// so it stays high, within what the engine can set.
		n := nprocLimit()
		hc.Ulimits = append(hc.Ulimits, &units.Ulimit{Name: "nproc", Soft: n, Hard: n})
		if !s.Resident && !backend.OverChannel(s) {
			// Podman 4.3's attach now and then loses what a program wrote
			// when it exits leaving stdin unread (measured: 7 of 60 `echo
			// out` runs at once with 1 MiB of stdin, 1 of 60 with 4 KiB;
			// none of 120 that read it first), and an exit 0 without the
			// hook's answer is an allow. So the program runs under sh,
			// which reads what it left before the container exits.
			cfg.Entrypoint = append([]string{"sh", "-c", drainStdin, "hook-exec-drain"}, s.Argv...)
		}
		if s.ReadOnlyRoot {
			// Under a read-only root Podman mounts writable, executable
			// tmpfs at /var/tmp and /run (its compat API's
			// ReadWriteTmpFS), where a hook could run what it wrote past a
			// noexec /tmp. Read-only ones of ours take their places: as
			// under Docker, the root's.
			for _, dir := range []string{"/var/tmp", "/run"} {
				if _, ok := hc.Tmpfs[dir]; !ok {
					hc.Tmpfs[dir] = "ro,nosuid,nodev,noexec,size=4096"
				}
			}
		}
	}
	hc.Runtime = b.runtime
	if b.gvisor {
		pids := backend.RunscHostPids(s.Pids)
		hc.PidsLimit = &pids
	}
	return cfg, hc, nil
}
