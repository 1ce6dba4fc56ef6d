package e2e

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// Issue 30: a run as root on a root-owned read-write workspace made a
// setuid copy of a program 22 directories of 200-character names deep,
// beyond PATH_MAX: the sweep by full paths failed there with ENAMETOOLONG,
// skipped it, and host user nobody ran it as root. The sweep by directory
// descriptors clears it and lists it, on both engines.
func TestRootRunBeyondPathMaxIsSwept(t *testing.T) {
	t.Parallel()
	engine(t)
	// busybox's cd goes by the full path; python's chdir by the name.
	planter := scriptFile(t, "deep.py", `import json, os, shutil, stat, sys
os.chdir(json.load(sys.stdin)["workspace"])
for _ in range(22):
    os.mkdir("0" * 200)
    os.chdir("0" * 200)
shutil.copy(os.path.realpath(sys.executable), "python")
os.chmod("python", 0o4755)
os.mkfifo("pipe")
sys.stderr.write(stat.filemode(os.stat("python").st_mode) + "\n")
print(json.dumps({"schema_version": 1, "action": "allow"}))
`)
	for _, backend := range []string{"docker", "containerd"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			ws := t.TempDir()
			os.Chmod(ws, 0o755)
			if fi, err := os.Stat(ws); err != nil || fi.Sys().(*syscall.Stat_t).Uid != 0 {
				t.Skipf("the test's temporary directory is not root's (%v): run as root", err)
			}
			r := hookExec(t, workspaceEvent(ws), nil, "run", "--backend", backend, timeoutFlag(t, backend), "--script", planter,
				"--workspace", ws, "--workspace-rw", "--workspace-allow-root-owned", "--trace", "-")
			r.wantCode(t, 0)
			wantIn(t, "stderr (the hook set the bit inside)", r.stderr, "-rwsr-xr-x")
			trace := traceLine(r.stderr)
			wantIn(t, "trace", trace, "/python: a setuid or setgid file left by a run as root: its bits were cleared")
			wantIn(t, "trace", trace, "/pipe: a FIFO")
			// On the host, reached as the attacker would: relative to its directory.
			fd, err := unix.Open(ws, unix.O_RDONLY|unix.O_DIRECTORY, 0)
			if err != nil {
				t.Fatal(err)
			}
			name := strings.Repeat("0", 200)
			for range 22 {
				next, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
				unix.Close(fd)
				if err != nil {
					t.Fatal(err)
				}
				fd = next
			}
			defer unix.Close(fd)
			var st unix.Stat_t
			if err := unix.Fstatat(fd, "python", &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				t.Fatal(err)
			}
			if st.Mode&(unix.S_ISUID|unix.S_ISGID) != 0 {
				t.Errorf("the deep copy's mode on the host is %o: still setuid", st.Mode&0o7777)
			}
		})
	}
}

// Issue 30: a read-only mount does not stop a connect(2), so a unix socket
// under the workspace (a docker.sock, an agent's socket) was reachable from
// a sandbox with no network. A sandbox cannot make a unix socket at all
// now: the one the test listens on, mode 0777 in the mounted workspace,
// is never reached, on both engines.
func TestUnixSocketUnderAMountIsUnreachable(t *testing.T) {
	t.Parallel()
	engine(t)
	ws := t.TempDir()
	os.Chmod(ws, 0o755)
	sock := filepath.Join(ws, "daemon.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	os.Chmod(sock, 0o777)
	var reached atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			reached.Add(1)
			c.Close()
		}
	}()
	probe := scriptFile(t, "connect.py", `import json, socket, sys
ws = json.load(sys.stdin)["workspace"]
try:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(ws + "/daemon.sock")
    got = "connected"
except OSError as e:
    got = "refused errno %d" % e.errno
print(json.dumps({"schema_version": 1, "action": "allow", "reason": got}))
`)
	for _, backend := range []string{"docker", "containerd"} {
		t.Run(backend, func(t *testing.T) { // not parallel: the listener is checked after both
			r := hookExec(t, workspaceEvent(ws), nil, "run", "--backend", backend, timeoutFlag(t, backend), "--script", probe, "--workspace", ws)
			r.wantCode(t, 0)
			if d := decisionOf(t, r); d.Reason != "refused errno 1" {
				t.Errorf("the hook's connect: %q, want refused with EPERM", d.Reason)
			}
		})
	}
	if n := reached.Load(); n != 0 {
		t.Errorf("the socket under the mount was reached %d time(s)", n)
	}
}
