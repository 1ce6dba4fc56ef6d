//go:build linux

package docker

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// cgroupV1Memory is where a local engine with the cgroupfs driver puts a
// container's memory cgroup (cgroup v1).
const cgroupV1Memory = "/sys/fs/cgroup/memory/docker"

// oomWatch listens to a running container's memory cgroup for OOM kills.
// The engine's own OOMKilled flag is missed now and then when many
// containers are OOM-killed at once (measured with plain `docker run`: 1 in
// 24); the kernel's counter, read while the cgroup exists, is not. The
// eventfd also fires when the cgroup goes away; the counter read then
// fails and is ignored.
type oomWatch struct {
	efd      int
	killed   atomic.Bool
	stopping atomic.Bool
	done     chan struct{}
	once     sync.Once
}

// watchOOM starts a watch, or returns nil when the engine's cgroups are not
// local cgroup v1 files (a remote engine, cgroup v2, the systemd driver) or
// the container's cgroup is already gone.
func watchOOM(id string) *oomWatch {
	dir := filepath.Join(cgroupV1Memory, id)
	ctl, err := os.Open(filepath.Join(dir, "memory.oom_control"))
	if err != nil {
		return nil
	}
	defer ctl.Close()
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC)
	if err != nil {
		return nil
	}
	reg := fmt.Sprintf("%d %d", efd, ctl.Fd())
	if err := os.WriteFile(filepath.Join(dir, "cgroup.event_control"), []byte(reg), 0); err != nil {
		unix.Close(efd)
		return nil
	}
	w := &oomWatch{efd: efd, done: make(chan struct{})}
	check := func() bool {
		b, err := os.ReadFile(filepath.Join(dir, "memory.oom_control"))
		if err != nil {
			return false // the cgroup is gone
		}
		if oomKills(b) > 0 {
			w.killed.Store(true)
		}
		return true
	}
	check() // an OOM kill before the registration raised no event
	go func() {
		defer close(w.done)
		var buf [8]byte
		for {
			if _, err := unix.Read(efd, buf[:]); err != nil || !check() || w.stopping.Load() {
				return
			}
		}
	}()
	return w
}

// oomKills reads the oom_kill counter of a memory.oom_control file.
func oomKills(b []byte) int {
	for _, line := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("oom_kill ")); ok {
			n := 0
			fmt.Sscan(string(v), &n)
			return n
		}
	}
	return 0
}

// stop ends the watch (once; later calls only report) and reports whether
// an OOM kill was seen.
func (w *oomWatch) stop() bool {
	if w == nil {
		return false
	}
	w.once.Do(func() {
		w.stopping.Store(true)
		unix.Write(w.efd, []byte{1, 0, 0, 0, 0, 0, 0, 0}) // wakes the reader if it still waits
		<-w.done
		unix.Close(w.efd)
	})
	return w.killed.Load()
}
