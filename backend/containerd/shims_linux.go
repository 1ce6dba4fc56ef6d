//go:build linux

package containerd

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/containerd/errdefs"
)

// sweepShims ends the shims of hook-exec's namespace on this containerd
// that serve nothing: no container of their id, their bundle directory
// gone (their working directory deleted), older than fifoGrace. containerd
// 1.6 can leave one when a task's creation fails past the shim's start;
// it holds a task's FIFOs and 13 MB until the machine restarts. It returns
// how many it ended. Best effort: a shim it cannot read is left.
func (b *Backend) sweepShims(ctx context.Context) int {
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	n := 0
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		id, ok := b.shimOf(pid)
		if !ok {
			continue
		}
		if cwd, err := os.Readlink(filepath.Join("/proc", p.Name(), "cwd")); err != nil || !strings.HasSuffix(cwd, " (deleted)") {
			continue // serving a bundle still there
		}
		if age, ok := processAge(pid); !ok || age < fifoGrace {
			continue
		}
		if _, err := b.cli.LoadContainer(ctx, id); !errdefs.IsNotFound(err) {
			continue
		}
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			n++
		}
	}
	return n
}

// shimGrace is how long a shim gets to leave on its own after its task's
// deletion before endShim ends it.
const shimGrace = time.Second

// endShim ends the shim that served id, a container this backend has just
// removed, if it is still there after shimGrace: an owner killed while it
// held the task's FIFOs leaves containerd 1.6's shim waiting on them.
func (b *Backend) endShim(id string) {
	for deadline := time.Now().Add(shimGrace); ; time.Sleep(50 * time.Millisecond) {
		pid := b.shimPID(id)
		if pid == 0 {
			return
		}
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			return
		}
	}
}

// shimPID is the pid of the shim serving id, 0 when there is none.
func (b *Backend) shimPID(id string) int {
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		if pid, err := strconv.Atoi(p.Name()); err == nil {
			if got, ok := b.shimOf(pid); ok && got == id {
				return pid
			}
		}
	}
	return 0
}

// shimOf reports whether pid is a runc shim of this backend's containerd
// and namespace, and the id it serves.
func (b *Backend) shimOf(pid int) (id string, ok bool) {
	raw, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil {
		return "", false
	}
	return shimID(raw, b.addr)
}

// shimID reads a process's command line (NUL-separated): a runc shim of
// the containerd at addr in hook-exec's namespace, serving a hook-exec id.
func shimID(cmdline []byte, addr string) (string, bool) {
	args := strings.Split(strings.TrimSuffix(string(cmdline), "\x00"), "\x00")
	if filepath.Base(args[0]) != "containerd-shim-runc-v2" {
		return "", false
	}
	flag := func(name string) string {
		for i := 1; i+1 < len(args); i++ {
			if args[i] == name {
				return args[i+1]
			}
		}
		return ""
	}
	if flag("-namespace") != Namespace || flag("-address") != addr || !strings.HasPrefix(flag("-id"), "hookexec-") {
		return "", false
	}
	return flag("-id"), true
}

// processAge is how long ago pid started: field 22 of /proc/PID/stat
// (clock ticks since boot, 100 a second on Linux) against /proc/uptime.
func processAge(pid int) (time.Duration, bool) {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, false
	}
	i := strings.LastIndexByte(string(stat), ')')
	f := strings.Fields(string(stat[i+1:]))
	if i < 0 || len(f) < 20 {
		return 0, false
	}
	ticks, err1 := strconv.ParseFloat(f[19], 64)
	up, err2 := os.ReadFile("/proc/uptime")
	upf := strings.Fields(string(up))
	if err1 != nil || err2 != nil || len(upf) == 0 {
		return 0, false
	}
	secs, err := strconv.ParseFloat(upf[0], 64)
	if err != nil {
		return 0, false
	}
	return time.Duration((secs - ticks/100) * float64(time.Second)), true
}
