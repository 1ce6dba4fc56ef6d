package containerd

import (
	"context"
	"strconv"
	"strings"

	cgroup1stats "github.com/containerd/cgroups/v3/cgroup1/stats"
	cgroup2stats "github.com/containerd/cgroups/v3/cgroup2/stats"
	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/typeurl/v2"
)

// oomKills reads the task's OOM kills: from its cgroup's file where this
// process sees the cgroup (one read, where asking containerd for the
// task's metrics costs two calls through containerd and the shim on every
// run), else from the metrics (v1 or v2).
func (b *Backend) oomKills(ctx context.Context, task client.Task) (uint64, bool) {
	if n, ok := hostOOMKills(task.ID()); ok {
		return n, true
	}
	m, err := task.Metrics(ctx)
	if err != nil || m == nil || m.Data == nil {
		return 0, false
	}
	v, err := typeurl.UnmarshalAny(m.Data)
	if err != nil {
		return 0, false
	}
	switch s := v.(type) {
	case *cgroup1stats.Metrics:
		return s.GetMemoryOomControl().GetOomKill(), true
	case *cgroup2stats.Metrics:
		return s.GetMemoryEvents().GetOomKill(), true
	}
	return 0, false
}

// oomKillLine finds the "oom_kill N" line of memory.oom_control (v1) or
// memory.events (v2).
func oomKillLine(s string) (uint64, bool) {
	for line := range strings.Lines(s) {
		if v, ok := strings.CutPrefix(line, "oom_kill "); ok {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}
