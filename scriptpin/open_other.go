//go:build !linux

package scriptpin

import (
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// openInDir is the portable fallback: os.Root keeps the open inside dir, and
// each component is checked with Lstat first. Unlike the Linux version this
// leaves a window between the check and the open.
func openInDir(dir, rel string) (*os.File, error) {
	parts, err := splitRel(rel)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open plugin directory %q: %w", dir, err)
	}
	defer root.Close()
	for i := range parts {
		fi, err := root.Lstat(strings.Join(parts[:i+1], "/"))
		if err != nil {
			return nil, fmt.Errorf("open script %q: %w", rel, err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("%q: %w", rel, ErrLink)
		}
	}
	f, err := root.Open(strings.Join(parts, "/"))
	if err != nil {
		return nil, fmt.Errorf("open script %q: %w", rel, err)
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%q: %w", rel, ErrNotRegular)
	}
	return f, nil
}
