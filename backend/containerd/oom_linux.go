//go:build linux

package containerd

import (
	"os"
	"path/filepath"

	"github.com/containerd/cgroups/v3"
)

// hostOOMKills reads the OOM kill counter of container id's cgroup, the
// default spec's /<namespace>/<id> under the cgroupfs driver; false where
// this process does not see it there (another cgroup namespace, the
// systemd driver, a runtime that keeps its own).
func hostOOMKills(id string) (uint64, bool) {
	path := filepath.Join("/sys/fs/cgroup/memory", Namespace, id, "memory.oom_control")
	if cgroups.Mode() == cgroups.Unified {
		path = filepath.Join("/sys/fs/cgroup", Namespace, id, "memory.events")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	return oomKillLine(string(b))
}
