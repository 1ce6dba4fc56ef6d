package containerd

import (
	"context"
	"fmt"
	"strconv"

	"github.com/containerd/containerd/v2/core/containers"
	"github.com/containerd/containerd/v2/pkg/namespaces"
	"github.com/containerd/containerd/v2/pkg/oci"
	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/sandbox"
)

// cpuPeriod is the CFS period the CPU quota is expressed against.
const cpuPeriod = 100000

// newSpec builds the OCI spec of container id: containerd's default Linux
// spec (Docker's masked and read-only paths, mounts, namespaces and its
// /hookexec/<id> cgroup) with the sandbox description applied over it, for
// the runtime rt (under gVisor the host's pids limit counts its own tasks).
func newSpec(ctx context.Context, id string, s *sandbox.Spec, imageEnv []string, rt runtime) (*oci.Spec, error) {
	opts, err := specOpts(s, imageEnv)
	if err != nil {
		return nil, err
	}
	if rt.gvisor {
		opts = append(opts, oci.WithPidsLimit(backend.RunscHostPids(s.Pids)))
	}
	ctx = namespaces.WithNamespace(ctx, Namespace)
	return oci.GenerateSpecWithPlatform(ctx, nil, "linux", &containers.Container{ID: id}, opts...)
}

// specOpts turns the sandbox description into SpecOpts: the image's Env
// beneath the sandbox's own, and last the seccomp profile every backend
// applies (backend.SeccompProfile: Docker's default without process
// tracing), whose conditions read the capabilities set before it.
func specOpts(s *sandbox.Spec, imageEnv []string) ([]oci.SpecOpts, error) {
	uid, gid, err := s.IDs()
	if err != nil {
		return nil, err
	}
	if !s.DropAllCaps {
		return nil, fmt.Errorf("%w: capabilities must be dropped", sandbox.ErrInvalid)
	}
	mounts, err := binds(s.Mounts)
	if err != nil {
		return nil, err
	}
	tmp := []string{"nosuid", "nodev", "mode=1777", "size=" + strconv.FormatInt(s.TmpfsBytes, 10)}
	if s.TmpNoExec {
		tmp = append(tmp, "noexec")
	}
	tmpMount := specs.Mount{Destination: "/tmp", Type: "tmpfs", Source: "tmpfs", Options: tmp}
	if s.TmpDir != "" {
		// The hook's own directory (sandbox.WithTmpDir), bounded by the
		// executor rather than by a size.
		opts := []string{"rbind", "rprivate", "rw", "nosuid", "nodev"}
		if s.TmpNoExec {
			opts = append(opts, "noexec")
		}
		tmpMount = specs.Mount{Destination: "/tmp", Type: "bind", Source: s.TmpDir, Options: opts}
	}
	opts := []oci.SpecOpts{
		oci.WithProcessArgs(s.Argv...),
		oci.WithEnv(imageEnv),
		oci.WithEnv(s.Env),
		oci.WithProcessCwd(s.WorkingDir),
		oci.WithUIDGID(uid, gid),
		oci.WithCapabilities(nil),
		oci.WithHostname("hook"),
		oci.WithAnnotations(s.Labels),
		// /run is a writable, executable tmpfs in the default spec: a hook
		// gets /tmp and nothing else to write to.
		oci.WithoutRunMount,
		oci.WithMounts(append([]specs.Mount{tmpMount}, mounts...)),
		oci.WithLinuxNamespace(specs.LinuxNamespace{Type: specs.CgroupNamespace}),
		oci.WithMemoryLimit(uint64(s.Memory)),
		oci.WithMemorySwap(s.Memory),
		oci.WithPidsLimit(s.Pids),
		oci.WithCPUCFS(s.NanoCPUs*cpuPeriod/1e9, cpuPeriod),
		oci.WithRlimit(&specs.POSIXRlimit{Type: "RLIMIT_NOFILE", Hard: s.NoFile, Soft: s.NoFile}),
		oci.WithRlimit(&specs.POSIXRlimit{Type: "RLIMIT_FSIZE", Hard: s.FileSize, Soft: s.FileSize}),
	}
	if s.ReadOnlyRoot {
		opts = append(opts, oci.WithRootFSReadonly())
	}
	if s.NoNewPrivileges {
		opts = append(opts, oci.WithNoNewPrivileges)
	} else {
		opts = append(opts, oci.WithNewPrivileges)
	}
	if !s.NoNetwork {
		// Without a network namespace of its own the sandbox uses the host's.
		opts = append(opts, oci.WithHostNamespace(specs.NetworkNamespace))
	}
	return append(opts, withSeccomp), nil
}

// binds converts the sandbox's host-directory mounts; engine volumes are
// Docker's alone.
func binds(ms []sandbox.Mount) ([]specs.Mount, error) {
	var out []specs.Mount
	for _, m := range ms {
		if m.Volume {
			return nil, fmt.Errorf("%w: volume %q: engine volumes need the docker backend", sandbox.ErrInvalid, m.Source)
		}
		mode := "rw"
		if m.ReadOnly {
			mode = "ro"
		}
		out = append(out, specs.Mount{Destination: m.Target, Type: "bind", Source: m.Source,
			Options: []string{"rbind", "rprivate", mode, "nosuid", "nodev"}})
	}
	return out, nil
}

func withSeccomp(_ context.Context, _ oci.Client, _ *containers.Container, s *oci.Spec) error {
	p, err := loadSeccomp(backend.SeccompProfile(), s)
	if err != nil {
		return fmt.Errorf("seccomp profile: %w", err)
	}
	s.Linux.Seccomp = p
	return nil
}
