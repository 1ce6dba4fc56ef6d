package executor

import (
	"errors"
	"os"
	"path/filepath"
	"time"
)

// The private directories a run makes in the host's temporary directory,
// removed when it ends; a hook-exec killed meanwhile leaves them.
const (
	envOutPrefix     = "hookexec-envout-"
	transcriptPrefix = "hookexec-transcript-"
	writablePrefix   = "hookexec-writable-"
)

// SweepTemp removes the caller's run directories (CLAUDE_ENV_FILE's, a
// transcript's copy, --writable copies) older than age: no run lasts that
// long, so a hook-exec that was killed left them. It returns how many it
// removed.
func SweepTemp(age time.Duration) (int, error) {
	n := 0
	var errs []error
	for _, prefix := range []string{envOutPrefix, transcriptPrefix, writablePrefix} {
		dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), prefix+"*"))
		for _, d := range dirs {
			fi, err := os.Lstat(d)
			if err != nil || !fi.IsDir() || time.Since(fi.ModTime()) < age {
				continue
			}
			// Root's --writable copies are uid 65534's.
			if st, err := ownerOfInfo(fi); os.Getuid() != 0 && (err != nil || int(st.Uid) != os.Getuid()) {
				continue
			}
			if err := os.RemoveAll(d); err != nil {
				errs = append(errs, err)
				continue
			}
			n++
		}
	}
	return n, errors.Join(errs...)
}
