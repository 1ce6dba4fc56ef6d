//go:build linux

package executor

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// ErrScan: a workspace written by a run as root could not be scanned in
// full, so a setuid file it left may still be there.
var ErrScan = errors.New("the workspace scan after a run as root did not finish")

// hazards lists what a run with a writable mount left in dir that could
// bite the host later: links pointing outside dir, FIFOs, sockets, device
// nodes, setuid or setgid files, each changed (ctime, which a hook cannot
// set back) since since. The scan stops after maxHazardScan entries (and
// says so), except after a run as root: a setuid file it left would be
// root's, so every one is found and its setuid and setgid bits cleared,
// and anything that keeps the scan from the whole tree is an error
// (ErrScan) that fails the run.
//
// The walk goes from directory descriptor to directory descriptor
// (openat, fstatat, fchmod on what was opened), never by a path from the
// root: a tree deeper than PATH_MAX is walked like any other, and no link
// is followed. It holds one directory open at a time and climbs back by
// "..", checking that it came back where it was.
func hazards(dir string, since time.Time, asRoot bool, deadline time.Time) ([]string, error) {
	// Another process of the host that can write in the workspace may
	// move entries during the scan (out of a directory not read yet into
	// one read already): the whole scan is made again, a few times.
	var err error
	for range 3 {
		var out []string
		if out, err = scan(dir, since, asRoot, deadline); !errors.Is(err, errMoved) {
			return out, err
		}
	}
	return nil, err
}

// errMoved: an entry moved or went away while the scan read the tree.
var errMoved = errors.New("the tree changed under the scan")

func scan(dir string, since time.Time, asRoot bool, deadline time.Time) (out []string, _ error) {
	since = since.Add(-time.Second) // file times have a coarse clock on some filesystems
	incomplete := func(err error) ([]string, error) {
		if asRoot {
			return out, fmt.Errorf("%w: %w", ErrScan, err)
		}
		return append(out, fmt.Sprintf("scan incomplete: %v", err)), nil
	}
	type frame struct {
		rel      string
		names    []string
		dev, ino uint64
	}
	const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	cur, err := unix.Open(dir, dirFlags, 0)
	if err != nil {
		return incomplete(fmt.Errorf("open %s: %w", dir, err))
	}
	defer func() { unix.Close(cur) }()
	var st unix.Stat_t
	if err := unix.Fstat(cur, &st); err != nil {
		return incomplete(fmt.Errorf("stat %s: %w", dir, err))
	}
	names, err := readNames(cur)
	if err != nil {
		return incomplete(fmt.Errorf("read %s: %w", dir, err))
	}
	stack := []frame{{names: names, dev: st.Dev, ino: st.Ino}}
	n := 0
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if len(top.names) == 0 {
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				break
			}
			up, err := unix.Openat(cur, "..", dirFlags, 0)
			if err != nil {
				return incomplete(fmt.Errorf("climb out of %s: %w", hazardPath(top.rel), err))
			}
			unix.Close(cur)
			cur = up
			parent := stack[len(stack)-1]
			if err := unix.Fstat(cur, &st); err != nil || st.Dev != parent.dev || st.Ino != parent.ino {
				return incomplete(fmt.Errorf("%w at %s", errMoved, hazardPath(parent.rel)))
			}
			continue
		}
		name := top.names[0]
		top.names = top.names[1:]
		rel := path.Join(top.rel, name)
		if n++; n > maxHazardScan && !asRoot {
			return append(out, fmt.Sprintf("scan stopped after %d entries", maxHazardScan)), nil
		}
		if n%256 == 0 && time.Now().After(deadline) {
			return incomplete(fmt.Errorf("the scan ran past its bound after %d entries", n))
		}
		if err := unix.Fstatat(cur, name, &st, unix.AT_SYMLINK_NOFOLLOW); errors.Is(err, unix.ENOENT) {
			return incomplete(fmt.Errorf("%w: %s is gone", errMoved, hazardPath(rel)))
		} else if err != nil {
			return incomplete(fmt.Errorf("stat %s: %w", hazardPath(rel), err))
		}
		if time.Unix(st.Ctim.Sec, st.Ctim.Nsec).After(since) {
			h, err := hazard(cur, name, rel, dir, &st, asRoot)
			if err != nil {
				return incomplete(err)
			}
			if h != "" {
				out = append(out, h)
			}
		}
		if st.Mode&unix.S_IFMT != unix.S_IFDIR {
			continue
		}
		child, err := unix.Openat(cur, name, dirFlags, 0)
		if err != nil {
			return incomplete(fmt.Errorf("open %s: %w", hazardPath(rel), err))
		}
		dev, ino := st.Dev, st.Ino
		if err := unix.Fstat(child, &st); err != nil || st.Dev != dev || st.Ino != ino {
			unix.Close(child)
			return incomplete(fmt.Errorf("%w at %s", errMoved, hazardPath(rel)))
		}
		names, err := readNames(child)
		if err != nil {
			unix.Close(child)
			return incomplete(fmt.Errorf("read %s: %w", hazardPath(rel), err))
		}
		unix.Close(cur)
		cur = child
		stack = append(stack, frame{rel: rel, names: names, dev: dev, ino: ino})
	}
	return out, nil
}

// hazard judges one changed entry, name in the directory open as dirfd
// (rel from the workspace dir): "" when it is no hazard. A setuid or setgid
// file a run as root left has those bits cleared, through a descriptor of
// that very file.
func hazard(dirfd int, name, rel, dir string, st *unix.Stat_t, asRoot bool) (string, error) {
	shown := hazardPath(rel)
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		buf := make([]byte, unix.PathMax)
		n, err := unix.Readlinkat(dirfd, name, buf)
		if err != nil {
			return "", fmt.Errorf("read link %s: %w", shown, err)
		}
		target := string(buf[:n])
		abs := target
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(dir, path.Dir(rel), target)
		}
		if !insideAny(filepath.Clean(abs), []string{dir}) {
			return fmt.Sprintf("%s: a link to %s, outside the workspace", shown, target), nil
		}
		// The kernel resolves each link before a "..": a chain of links
		// inside (s -> ., t -> s/.., evil -> t/etc/shadow) can end outside
		// although each target reads as inside.
		if real, err := filepath.EvalSymlinks(filepath.Join(dir, rel)); err == nil && !insideAny(real, []string{dir}) {
			return fmt.Sprintf("%s: a link to %s, which leads to %s, outside the workspace", shown, target, real), nil
		}
	case unix.S_IFIFO:
		return shown + ": a FIFO", nil
	case unix.S_IFSOCK:
		return shown + ": a socket", nil
	case unix.S_IFCHR, unix.S_IFBLK:
		return shown + ": a device node", nil
	case unix.S_IFREG:
		if st.Mode&(unix.S_ISUID|unix.S_ISGID) == 0 {
			return "", nil
		}
		if !asRoot {
			return shown + ": a setuid or setgid file", nil
		}
		// The sandbox is gone: nothing races this. The descriptor is of
		// the file the stat saw, never of what a path leads to now.
		fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err != nil {
			return "", fmt.Errorf("open %s, a setuid or setgid file left by a run as root: %w", shown, err)
		}
		defer unix.Close(fd)
		var now unix.Stat_t
		if err := unix.Fstat(fd, &now); err != nil || now.Ino != st.Ino || now.Dev != st.Dev {
			return "", fmt.Errorf("%w at %s", errMoved, shown)
		}
		if err := unix.Fchmod(fd, now.Mode&^(unix.S_IFMT|unix.S_ISUID|unix.S_ISGID)); err != nil {
			return "", fmt.Errorf("clear the setuid and setgid bits of %s, left by a run as root: %w", shown, err)
		}
		return shown + ": a setuid or setgid file left by a run as root: its bits were cleared", nil
	}
	return "", nil
}

// readNames lists a directory's entries through a descriptor of its own,
// leaving dirfd as it was.
func readNames(dirfd int) ([]string, error) {
	d, err := unix.Dup(dirfd)
	if err != nil {
		return nil, err
	}
	unix.CloseOnExec(d)
	f := os.NewFile(uintptr(d), "dir")
	defer f.Close()
	return f.Readdirnames(-1)
}
