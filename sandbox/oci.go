package sandbox

import (
	"fmt"
	"strconv"
	"strings"

	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// cpuPeriod is the CFS period the CPU quota is expressed against.
const cpuPeriod = 100000

// Docker's default masked and read-only paths: kernel interfaces a
// container has no business reading or writing.
var (
	maskedPaths = []string{
		"/proc/asound", "/proc/acpi", "/proc/kcore", "/proc/keys", "/proc/latency_stats",
		"/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/proc/scsi",
		"/sys/firmware", "/sys/devices/virtual/powercap",
	}
	readonlyPaths = []string{
		"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger",
	}
)

// OCI converts the description to an OCI runtime spec whose root is
// rootfsPath. It adds no seccomp profile: the engine that runs the spec
// supplies its default one.
func (s *Spec) OCI(rootfsPath string) (*specs.Spec, error) {
	uid, gid, err := s.ids()
	if err != nil {
		return nil, err
	}
	tmpOpts := []string{"nosuid", "nodev", "mode=1777", "size=" + strconv.FormatInt(s.TmpfsBytes, 10)}
	if s.TmpNoExec {
		tmpOpts = append(tmpOpts, "noexec")
	}
	caps := &specs.LinuxCapabilities{} // all dropped
	if !s.DropAllCaps {
		return nil, fmt.Errorf("%w: capabilities must be dropped", ErrInvalid)
	}
	namespaces := []specs.LinuxNamespace{
		{Type: specs.PIDNamespace}, {Type: specs.IPCNamespace}, {Type: specs.UTSNamespace},
		{Type: specs.MountNamespace}, {Type: specs.CgroupNamespace},
	}
	if s.NoNetwork {
		// A new network namespace holds only a loopback: there is no route out.
		namespaces = append(namespaces, specs.LinuxNamespace{Type: specs.NetworkNamespace})
	}
	mounts := []specs.Mount{
		{Destination: "/proc", Type: "proc", Source: "proc", Options: []string{"nosuid", "noexec", "nodev"}},
		{Destination: "/dev", Type: "tmpfs", Source: "tmpfs", Options: []string{"nosuid", "strictatime", "mode=755", "size=65536k"}},
		{Destination: "/dev/pts", Type: "devpts", Source: "devpts", Options: []string{"nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"}},
		{Destination: "/dev/shm", Type: "tmpfs", Source: "shm", Options: []string{"nosuid", "noexec", "nodev", "mode=1777", "size=65536k"}},
		{Destination: "/dev/mqueue", Type: "mqueue", Source: "mqueue", Options: []string{"nosuid", "noexec", "nodev"}},
		{Destination: "/sys", Type: "sysfs", Source: "sysfs", Options: []string{"nosuid", "noexec", "nodev", "ro"}},
		{Destination: "/tmp", Type: "tmpfs", Source: "tmpfs", Options: tmpOpts},
	}
	for _, m := range s.Mounts {
		if m.Volume {
			return nil, fmt.Errorf("%w: volume %q: engine volumes need the docker backend", ErrInvalid, m.Source)
		}
		mode := "rw"
		if m.ReadOnly {
			mode = "ro"
		}
		mounts = append(mounts, specs.Mount{Destination: m.Target, Type: "bind", Source: m.Source,
			Options: []string{"rbind", "rprivate", mode, "nosuid", "nodev"}})
	}
	swap, quota := s.Memory, s.NanoCPUs*cpuPeriod/1e9
	period := uint64(cpuPeriod)
	return &specs.Spec{
		Version:  specs.Version,
		Hostname: "hook",
		Root:     &specs.Root{Path: rootfsPath, Readonly: s.ReadOnlyRoot},
		Process: &specs.Process{
			Args:            s.Argv,
			Env:             s.Env,
			Cwd:             s.WorkingDir,
			User:            specs.User{UID: uid, GID: gid},
			NoNewPrivileges: s.NoNewPrivileges,
			Capabilities:    caps,
			Rlimits: []specs.POSIXRlimit{
				{Type: "RLIMIT_NOFILE", Hard: s.NoFile, Soft: s.NoFile},
				{Type: "RLIMIT_FSIZE", Hard: s.FileSize, Soft: s.FileSize},
			},
		},
		Mounts: mounts,
		Linux: &specs.Linux{
			Namespaces: namespaces,
			Resources: &specs.LinuxResources{
				Memory: &specs.LinuxMemory{Limit: &s.Memory, Swap: &swap},
				Pids:   &specs.LinuxPids{Limit: &s.Pids},
				CPU:    &specs.LinuxCPU{Quota: &quota, Period: &period},
				Devices: []specs.LinuxDeviceCgroup{
					{Allow: false, Access: "rwm"},
				},
			},
			MaskedPaths:   maskedPaths,
			ReadonlyPaths: readonlyPaths,
		},
		Annotations: s.Labels,
	}, nil
}

func (s *Spec) ids() (uint32, uint32, error) {
	u, g, ok := strings.Cut(s.User, ":")
	uid, err1 := strconv.ParseUint(u, 10, 32)
	gid, err2 := strconv.ParseUint(g, 10, 32)
	if !ok || err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("%w: user %q is not numeric uid:gid", ErrInvalid, s.User)
	}
	return uint32(uid), uint32(gid), nil
}
