package executor

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
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
	got := hazards(dir, since, false)
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
	got := hazards(dir, since, true)
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
