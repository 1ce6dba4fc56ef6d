//go:build linux

package docker

import (
	"os"
	"sync"
	"sync/atomic"

	"github.com/containerd/cgroups/v3"
	"github.com/containerd/cgroups/v3/cgroup1"
	"github.com/containerd/cgroups/v3/cgroup2"
	"golang.org/x/sys/unix"
)

// oomWatch listens to a running container's memory cgroup for OOM kills.
// The engine's own OOMKilled flag is missed now and then when many
// containers are OOM-killed at once (measured with plain `docker run`: 1 in
// 24); the kernel's counter, read while the cgroup exists, is not. The
// event source (an eventfd on cgroup v1, inotify on memory.events on v2)
// also fires when the cgroup goes away; the read then fails and the watch
// ends.
type oomWatch struct {
	events *os.File // non-blocking, so that Close wakes a Read
	// read reports an OOM kill, and false for exists once the cgroup is
	// gone; event says that the event source fired.
	read   func(event bool) (killed, exists bool)
	killed atomic.Bool
	done   chan struct{}
	once   sync.Once
}

// groups are where an engine on this host puts container id's cgroup:
// the cgroupfs driver, then the systemd driver.
func groups(id string) []string {
	return []string{"/docker/" + id, "/system.slice/docker-" + id + ".scope"}
}

// watchOOM starts a watch, or returns nil when the container's cgroup is
// not on this host (a remote engine, an engine in another cgroup namespace)
// or is already gone; the engine's flag answers then.
func watchOOM(id string) *oomWatch {
	for _, g := range groups(id) {
		var w *oomWatch
		if cgroups.Mode() == cgroups.Unified {
			w = watchV2(g)
		} else {
			w = watchV1(g)
		}
		if w != nil {
			return w
		}
	}
	return nil
}

func watchV1(group string) *oomWatch {
	cg, err := cgroup1.Load(cgroup1.StaticPath(group), cgroup1.WithHierarchy(cgroup1.SingleSubsystem(cgroup1.Default, cgroup1.Memory)))
	if err != nil {
		return nil
	}
	efd, err := cg.OOMEventFD()
	if err != nil {
		return nil
	}
	// The kernel signals the eventfd when the cgroup goes OOM, before its
	// OOM killer picks a victim and counts the kill; the counter read at
	// the event still says 0, and by the next event (the removal) the
	// cgroup is gone. So an event while the cgroup exists is the OOM.
	return start(int(efd), func(event bool) (bool, bool) {
		m, err := cg.Stat()
		if err != nil {
			return false, false
		}
		return event || m.GetMemoryOomControl().GetOomKill() > 0, true
	})
}

func watchV2(group string) *oomWatch {
	m, err := cgroup2.Load(group)
	if err != nil {
		return nil
	}
	fd, _, err := m.MemoryEventFD()
	if err != nil {
		return nil
	}
	// memory.events changes (and inotify fires) when the kill is counted;
	// it changes for other events too, so the counter decides.
	return start(fd, func(bool) (bool, bool) {
		s, err := m.StatFiltered(cgroup2.StatMemoryEvents)
		if err != nil {
			return false, false
		}
		return s.GetMemoryEvents().GetOomKill() > 0, true
	})
}

// start reads fd's events until the cgroup is gone or the watch stops.
func start(fd int, read func(event bool) (killed, exists bool)) *oomWatch {
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil
	}
	w := &oomWatch{events: os.NewFile(uintptr(fd), "oom-events"), read: read, done: make(chan struct{})}
	w.check(false) // an OOM kill before the registration raised no event
	go func() {
		defer close(w.done)
		buf := make([]byte, 4096)
		for {
			if _, err := w.events.Read(buf); err != nil || !w.check(true) {
				return
			}
		}
	}()
	return w
}

// check records a kill; false when the cgroup is gone.
func (w *oomWatch) check(event bool) bool {
	killed, exists := w.read(event)
	if killed {
		w.killed.Store(true)
	}
	return exists
}

// stop ends the watch (once; later calls only report) and reports whether
// an OOM kill was seen.
func (w *oomWatch) stop() bool {
	if w == nil {
		return false
	}
	w.once.Do(func() {
		w.check(false) // a kill whose event has not been read yet
		w.events.Close()
		<-w.done
	})
	return w.killed.Load()
}
