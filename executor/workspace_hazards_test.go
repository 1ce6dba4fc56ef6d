//go:build linux

package executor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/sandbox"
)

func TestHazards(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	old := filepath.Join(dir, "old-link")
	if err := os.Symlink("/etc/passwd", old); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-time.Hour)
	tv := []unix.Timeval{unix.NsecToTimeval(past.UnixNano()), unix.NsecToTimeval(past.UnixNano())}
	if err := unix.Lutimes(old, tv); err != nil {
		t.Fatal(err)
	}
	// It was there before the run: its ctime is more than the scan's one
	// second of slack before the run began.
	time.Sleep(1100 * time.Millisecond)
	since := time.Now()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink("/etc/passwd", filepath.Join(dir, "out")))
	must(os.Symlink("../../x", filepath.Join(dir, "up")))
	must(os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	must(os.Symlink("../plain", filepath.Join(dir, "sub", "in")))
	must(syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "suid"), nil, 0o755))
	must(os.Chmod(filepath.Join(dir, "suid"), 0o755|fs.ModeSetuid))
	must(os.WriteFile(filepath.Join(dir, "plain"), []byte("x"), 0o644))
	// A hook that sets a new link's times back is still seen (ctime).
	must(os.Symlink("/etc/shadow", filepath.Join(dir, "backdated")))
	must(unix.Lutimes(filepath.Join(dir, "backdated"), tv))
	got, err := hazards(dir, since, false, time.Now().Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, h := range got {
		names = append(names, strings.SplitN(h, ":", 2)[0])
	}
	slices.Sort(names)
	want := []string{"backdated", "fifo", "out", "suid", "up"}
	if !slices.Equal(names, want) {
		t.Errorf("hazards %q, want those of %v (not the link inside, the plain file or the directory)", got, want)
	}
}

// After a run as root, a setuid file it left would be root's on the host:
// its bits are cleared, and the trace says so.
func TestHazardsAsRootClearSetuid(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	since := time.Now()
	p := filepath.Join(dir, "sub", "rootshell")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o755|fs.ModeSetuid|fs.ModeSetgid); err != nil {
		t.Fatal(err)
	}
	got, err := hazards(dir, since, true, time.Now().Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !strings.Contains(got[0], "sub/rootshell: a setuid or setgid file left by a run as root: its bits were cleared") {
		t.Errorf("hazards %q", got)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&(fs.ModeSetuid|fs.ModeSetgid) != 0 || fi.Mode().Perm() != 0o755 {
		t.Errorf("mode after the scan %v, want -rwxr-xr-x", fi.Mode())
	}
}

// Issue 30: a run as root hid a setuid copy of a program deeper than
// PATH_MAX (22 directories of 200-character names), where a walk by full
// paths fails with ENAMETOOLONG and skipped it; a FIFO there hid the same
// way. The walk by descriptors clears and lists both.
func TestHazardsBeyondPathMax(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	since := time.Now()
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.Repeat("d", 200)
	for i := 0; i < 22; i++ {
		if err := unix.Mkdirat(fd, name, 0o755); err != nil {
			t.Fatal(err)
		}
		next, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		unix.Close(fd)
		if err != nil {
			t.Fatal(err)
		}
		fd = next
	}
	defer unix.Close(fd)
	f, err := unix.Openat(fd, "python", unix.O_WRONLY|unix.O_CREAT, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Fchmod(f, 0o4755); err != nil {
		t.Fatal(err)
	}
	unix.Close(f)
	if err := unix.Mkfifoat(fd, "pipe", 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := hazards(dir, since, true, time.Now().Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	var cleared, fifo bool
	for _, h := range got {
		cleared = cleared || strings.HasSuffix(h, "/python: a setuid or setgid file left by a run as root: its bits were cleared")
		fifo = fifo || strings.HasSuffix(h, "/pipe: a FIFO")
	}
	if !cleared || !fifo {
		t.Errorf("hazards %q, want the deep setuid file cleared and the FIFO listed", got)
	}
	var st unix.Stat_t
	if err := unix.Fstatat(fd, "python", &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		t.Fatal(err)
	}
	if st.Mode&(unix.S_ISUID|unix.S_ISGID) != 0 || st.Mode&0o777 != 0o755 {
		t.Errorf("mode %o after the scan, want 755 with no setuid bit", st.Mode&0o7777)
	}
}

// What keeps the scan after a run as root from the whole tree fails it
// (ErrScan); after any other run it is listed.
func TestHazardsUnfinishedScan(t *testing.T) {
	t.Parallel()
	gone := filepath.Join(t.TempDir(), "gone")
	if _, err := hazards(gone, time.Now(), true, time.Now().Add(time.Minute)); !errors.Is(err, ErrScan) {
		t.Errorf("as root: err %v, want ErrScan", err)
	}
	got, err := hazards(gone, time.Now(), false, time.Now().Add(time.Minute))
	if err != nil || len(got) != 1 || !strings.HasPrefix(got[0], "scan incomplete: ") {
		t.Errorf("not as root: %q, %v; want one scan incomplete", got, err)
	}
}

// Attack round 2: a chain of links whose every target reads as inside the
// workspace, which the kernel resolves to /etc/shadow.
func TestHazardsLinkChain(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	since := time.Now()
	for _, l := range [][2]string{{".", "s"}, {"s/..", "t"}, {"t/..", "u"}, {"u/..", "v"}, {"v/etc/shadow", "evil"}} {
		if err := os.Symlink(l[0], filepath.Join(dir, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	real, err := filepath.EvalSymlinks(filepath.Join(dir, "evil"))
	if err != nil || real != "/etc/shadow" {
		t.Skipf("the chain does not lead to /etc/shadow here (%q, %v)", real, err)
	}
	got, err := hazards(dir, since, false, time.Now().Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(got, func(h string) bool {
		return strings.HasPrefix(h, "evil: a link to v/etc/shadow, which leads to /etc/shadow")
	}) {
		t.Errorf("hazards %q, want evil named with where it leads", got)
	}
}

// Attack round 2: with a session container's volumes, a run as root on a
// root-owned workspace had them writable, and the sweep after it walks
// host directories only. Such a run gets the volumes read-only; a
// read-write workspace keeps its .git read-only.
func TestRootRunMounts(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	if os.Getuid() != 0 {
		t.Skip("needs a root-owned workspace: run as root")
	}
	if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	h := hook.Hook{Workspace: ws, WorkspaceRW: true, AllowRootOwned: true,
		Mounts: []hook.Mount{{Source: "sessvol", Target: "/data", Volume: true}}}
	opts, _, err := mountOptions(&h, &hook.Envelope{})
	if err != nil {
		t.Fatal(err)
	}
	spec, err := sandbox.New("img", []string{"true"}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	ro := map[string]bool{}
	for _, m := range spec.Mounts {
		ro[m.Target] = m.ReadOnly
	}
	if ro[ws] || !ro[filepath.Join(ws, ".git")] || !ro["/data"] {
		t.Errorf("read-only by target %v: want the workspace writable, its .git and the volume read-only", ro)
	}
}

// Second reader: the scan after a run as root had no bound. Past its
// deadline it fails such a run (ErrScan), and is incomplete after another.
func TestHazardsScanIsBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i := range 600 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	past := time.Now().Add(-time.Second)
	if _, err := hazards(dir, time.Now(), true, past); !errors.Is(err, ErrScan) {
		t.Errorf("as root, past its deadline: %v, want ErrScan", err)
	}
	got, err := hazards(dir, time.Now(), false, past)
	if err != nil || len(got) != 1 || !strings.Contains(got[0], "ran past its bound") {
		t.Errorf("not as root: %q, %v; want one incomplete scan", got, err)
	}
}
