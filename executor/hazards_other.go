//go:build !linux

package executor

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// hazards lists what a run with a writable mount left in dir (see the
// Linux build, which walks by descriptors and clears what a run as root
// left). Elsewhere a sandbox runs in a VM whose users are not the host's:
// it lists, bounded.
func hazards(dir string, since time.Time, _ bool, _ time.Time) ([]string, error) {
	var out []string
	n := 0
	since = since.Add(-time.Second)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if n++; n > maxHazardScan {
			out = append(out, fmt.Sprintf("scan stopped after %d entries", maxHazardScan))
			return filepath.SkipAll
		}
		fi, err := d.Info()
		if err != nil || changed(fi).Before(since) {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		m := fi.Mode()
		switch {
		case m&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			abs := target
			if !filepath.IsAbs(abs) {
				abs = filepath.Join(filepath.Dir(p), target)
			}
			if !insideAny(filepath.Clean(abs), []string{dir}) {
				out = append(out, fmt.Sprintf("%s: a link to %s, outside the workspace", hazardPath(rel), target))
			}
		case m&fs.ModeNamedPipe != 0:
			out = append(out, hazardPath(rel)+": a FIFO")
		case m&fs.ModeSocket != 0:
			out = append(out, hazardPath(rel)+": a socket")
		case m&fs.ModeDevice != 0:
			out = append(out, hazardPath(rel)+": a device node")
		case m&(fs.ModeSetuid|fs.ModeSetgid) != 0 && m.IsRegular():
			out = append(out, hazardPath(rel)+": a setuid or setgid file")
		}
		return nil
	})
	if err != nil {
		out = append(out, fmt.Sprintf("scan incomplete: %v", err))
	}
	return out, nil
}
