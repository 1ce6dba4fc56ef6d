package containerd

import (
	"context"

	cgroup1stats "github.com/containerd/cgroups/v3/cgroup1/stats"
	cgroup2stats "github.com/containerd/cgroups/v3/cgroup2/stats"
	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/typeurl/v2"
)

// oomKills reads the task's cgroup metrics (v1 or v2) for its OOM kills.
func (b *Backend) oomKills(ctx context.Context, task client.Task) (uint64, bool) {
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
