package executor

import (
	"errors"
	"io/fs"
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

// SweepTemp removes the caller's run directories (the env file's, a
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
			// Root's too: another user's directory could be swapped for a
			// link while root removes it.
			if st, err := ownerOfInfo(fi); err != nil || int(st.Uid) != os.Getuid() {
				continue
			}
			if err := removeTree(d); err != nil {
				errs = append(errs, err)
				continue
			}
			n++
		}
	}
	return n, errors.Join(errs...)
}

// removeTree removes dir, a directory of the caller's, and what is in it,
// whatever permissions a hook left on the directories it made (a
// directory it took the read bit from cannot be listed, nor emptied, as it
// is). Below dir, nothing is reached by a path that could leave it.
func removeTree(dir string) error {
	return removeIn(filepath.Dir(dir), filepath.Base(dir))
}

// removeIn removes names (entries of dir, whatever they hold) through a
// root at dir, which no link leads out of; what the script took its
// permissions away from is given them back first.
func removeIn(dir string, names ...string) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	var errs []error
	for _, n := range names {
		err := root.RemoveAll(n)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			root.Chmod(n, 0o700)
			if sub, serr := root.OpenRoot(n); serr == nil {
				openUp(sub, 0)
				sub.Close()
			}
			err = root.RemoveAll(n)
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// openUp gives the caller every permission on the directories below r,
// through their parents' descriptors (a tree nested past a path's length
// has no path to them).
func openUp(r *os.Root, depth int) {
	f, err := r.Open(".")
	if err != nil || depth > maxOpenUpDepth {
		return
	}
	entries, _ := f.ReadDir(-1)
	f.Close()
	for _, e := range entries {
		if !e.IsDir() || r.Chmod(e.Name(), 0o700) != nil {
			continue
		}
		if sub, err := r.OpenRoot(e.Name()); err == nil {
			openUp(sub, depth+1)
			sub.Close()
		}
	}
}

// maxOpenUpDepth bounds openUp's descriptors, one a level.
const maxOpenUpDepth = 4096
