package backend

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// ErrRuntime: the engine has no OCI runtime of the name asked for, or has
// one that cannot hold a hook sandbox as configured. Nothing was started.
var ErrRuntime = errors.New("OCI runtime not available")

// Runtimed is a backend whose sandboxes run under a chosen OCI runtime.
type Runtimed interface {
	// Runtime is the runtime's name as asked for; "" is the engine's default.
	Runtime() string
}

// RuntimeOf is b's runtime, "" when b runs the engine's default.
func RuntimeOf(b Backend) string {
	if r, ok := b.(Runtimed); ok {
		return r.Runtime()
	}
	return ""
}

// Runsc is gVisor's runtime.
const Runsc = "runsc"

// Crun is crun, a runc-compatible runtime in C that starts containers
// with less work than runc.
const Crun = "crun"

// RunscArgs are the flags runsc must be given for a hook sandbox:
//   - --network=none: a hook has no network, and under runsc gVisor's
//     network stack is then not even set up (on kernels from 6.x the 2022
//     runsc Debian ships cannot tell a new network namespace from the
//     host's, and refuses to start without it);
//   - --oci-seccomp: the sandbox's seccomp profile is enforced by gVisor's
//     kernel too, so a call refused under runc is refused under runsc
//     (without it runsc ignores the profile: unshare succeeds).
var RunscArgs = []string{"--network=none", "--oci-seccomp"}

// IsRunsc reports whether the runtime binary at path is gVisor's.
func IsRunsc(path string) bool { return filepath.Base(path) == Runsc }

// RunscHostPids is the host pids limit of a runsc sandbox whose hook may
// have pids processes. The host's pids cgroup counts gVisor's own tasks
// too (its kernel and, on the ptrace platform, host threads for each
// process it runs): measured 44 for an idle sandbox and about 8.5 more per
// sleeping process, so the hook's limit, scaled, still bounds a fork bomb.
func RunscHostPids(pids int64) int64 { return runscBaseTasks + runscTasksPerProcess*pids }

const (
	runscBaseTasks       = 64
	runscTasksPerProcess = 10
)

// runtimeName is what an engine accepts as a runtime's name (Docker's
// daemon.json keys, containerd's runtime types) or a binary's path.
var runtimeName = regexp.MustCompile(`^(/[A-Za-z0-9._/-]+|[A-Za-z0-9][A-Za-z0-9._-]*)$`)

// ValidRuntimeName reports whether name can name a runtime or its binary.
func ValidRuntimeName(name string) bool { return len(name) <= 256 && runtimeName.MatchString(name) }

// CrunUnsupported says why crun cannot start a sandbox on this machine,
// nil when it can: crun refuses a hybrid cgroup hierarchy (cgroup v1 with
// the v2 one beside it at /sys/fs/cgroup/unified) whose v2 part holds a
// controller ("cgroups in hybrid mode not supported, drop all controllers
// from cgroupv2"), where runc runs on the v1 part. It reads this machine's
// mounts: an engine elsewhere has its own.
func CrunUnsupported() error {
	return crunUnsupported("/proc/self/mounts", "/sys/fs/cgroup/unified/cgroup.controllers")
}

func crunUnsupported(mounts, controllers string) error {
	b, err := os.ReadFile(mounts)
	if err != nil {
		return nil // not Linux, or no /proc: nothing known against it
	}
	types := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 3 {
			types[f[1]] = f[2]
		}
	}
	if types["/sys/fs/cgroup"] == "cgroup2" || types["/sys/fs/cgroup/unified"] != "cgroup2" {
		return nil
	}
	c, _ := os.ReadFile(controllers)
	if cs := strings.TrimSpace(string(c)); cs != "" {
		return fmt.Errorf("%w: crun refuses this machine's hybrid cgroup hierarchy (cgroup v1, and v2 at /sys/fs/cgroup/unified holding the controllers %s): "+
			"boot with systemd.unified_cgroup_hierarchy=1 (cgroup v2) to use it; runc runs here", ErrRuntime, cs)
	}
	return nil
}
