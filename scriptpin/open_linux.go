//go:build linux

package scriptpin

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
)

// openInDir opens rel below dir, one component at a time relative to the
// previous one with O_NOFOLLOW, so no component can be a symlink and there is
// no window between checking a path and opening it. The plugin directory
// itself may be reached through links: it is the host's installation path.
func openInDir(dir, rel string) (*os.File, error) {
	parts, err := splitRel(rel)
	if err != nil {
		return nil, err
	}
	dfd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open plugin directory %q: %w", dir, err)
	}
	for i, p := range parts {
		last := i == len(parts)-1
		flags := syscall.O_RDONLY | syscall.O_NOFOLLOW | syscall.O_CLOEXEC
		if last {
			flags |= syscall.O_NONBLOCK // a FIFO must not block the open
		} else {
			flags |= syscall.O_DIRECTORY
		}
		fd, err := openat(dfd, p, flags)
		if err != nil {
			err = classify(dfd, p, rel, err)
			syscall.Close(dfd)
			return nil, err
		}
		syscall.Close(dfd)
		dfd = fd
	}
	f := os.NewFile(uintptr(dfd), strings.Join(parts, "/"))
	var st syscall.Stat_t
	if err := syscall.Fstat(dfd, &st); err != nil {
		f.Close()
		return nil, fmt.Errorf("stat %q: %w", rel, err)
	}
	switch {
	case st.Mode&syscall.S_IFMT != syscall.S_IFREG:
		f.Close()
		return nil, fmt.Errorf("%q: %w", rel, ErrNotRegular)
	case st.Nlink > 1:
		f.Close()
		return nil, fmt.Errorf("%q has %d hard links: %w", rel, st.Nlink, ErrLink)
	}
	return f, nil
}

func openat(dfd int, name string, flags int) (int, error) {
	for {
		fd, err := syscall.Openat(dfd, name, flags, 0)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}

// classify turns a failed openat into a rule error. A symlink fails an
// O_NOFOLLOW open with ELOOP, or with ENOTDIR when O_DIRECTORY is set; the
// second open only tells those apart for the message, the refusal stands.
func classify(dfd int, name, rel string, err error) error {
	if errors.Is(err, syscall.ENOTDIR) {
		if fd, lerr := openat(dfd, name, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC); lerr == nil {
			syscall.Close(fd)
		} else if errors.Is(lerr, syscall.ELOOP) {
			err = lerr
		}
	}
	switch {
	case errors.Is(err, syscall.ELOOP):
		return fmt.Errorf("%q: %w", rel, ErrLink)
	case errors.Is(err, syscall.ENOTDIR):
		return fmt.Errorf("%q: component %q is %w: %w", rel, name, errNotDir, ErrNotRegular)
	}
	return fmt.Errorf("open script %q: %w", rel, err)
}
