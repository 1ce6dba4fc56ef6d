//go:build linux

package docker

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

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
// Docker's cgroupfs driver, then its systemd driver; then Podman's.
func groups(id string) []string {
	return []string{"/docker/" + id, "/system.slice/docker-" + id + ".scope",
		"/libpod_parent/libpod-" + id, "/machine.slice/libpod-" + id + ".scope"}
}

// watchOOM starts a watch, or returns nil when the container's cgroup is
// not on this host (a remote engine, an engine in another cgroup namespace)
// or is already gone; the engine's flag answers then. The cgroup's files
// are read directly (cgroup.event_control on v1, inotify on v2's
// memory.events): no cgroup library, so that what imports this backend
// (hookexectest) stays small.
func watchOOM(id string) *oomWatch {
	var st unix.Statfs_t
	unified := unix.Statfs(cgroupRoot, &st) == nil && st.Type == unix.CGROUP2_SUPER_MAGIC
	for _, g := range groups(id) {
		var w *oomWatch
		if unified {
			w = watchV2(filepath.Join(cgroupRoot, g))
		} else {
			w = watchV1(filepath.Join(cgroupRoot, "memory", g))
		}
		if w != nil {
			return w
		}
	}
	return nil
}

// cgroupRoot is where the host mounts its cgroups.
const cgroupRoot = "/sys/fs/cgroup"

// oomKills is the oom_kill counter of a cgroup file of "key value" lines
// (v1's memory.oom_control, v2's memory.events); ok false when it cannot
// be read (the cgroup is gone).
func oomKills(path string) (n uint64, ok bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, found := strings.CutPrefix(line, "oom_kill "); found {
			n, _ = strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		}
	}
	return n, true
}

func watchV1(dir string) *oomWatch {
	control := filepath.Join(dir, "memory.oom_control")
	f, err := os.Open(control)
	if err != nil {
		return nil
	}
	defer f.Close()
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC)
	if err != nil {
		return nil
	}
	if err := os.WriteFile(filepath.Join(dir, "cgroup.event_control"), fmt.Appendf(nil, "%d %d", efd, f.Fd()), 0o600); err != nil {
		unix.Close(efd)
		return nil
	}
	// The kernel signals the eventfd when the cgroup goes OOM, before its
	// OOM killer picks a victim and counts the kill; the counter read at
	// the event still says 0, and by the next event (the removal) the
	// cgroup is gone. So an event while the cgroup exists is the OOM.
	return start(efd, func(event bool) (bool, bool) {
		n, ok := oomKills(control)
		return ok && (event || n > 0), ok
	})
}

func watchV2(dir string) *oomWatch {
	events := filepath.Join(dir, "memory.events")
	if _, err := os.Stat(events); err != nil {
		return nil
	}
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	if _, err := unix.InotifyAddWatch(fd, events, unix.IN_MODIFY); err != nil {
		unix.Close(fd)
		return nil
	}
	// memory.events changes (and inotify fires) when the kill is counted;
	// it changes for other events too, so the counter decides.
	return start(fd, func(bool) (bool, bool) {
		n, ok := oomKills(events)
		return n > 0, ok
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
