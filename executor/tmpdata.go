package executor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hookexec/hook-exec/hook"
)

// ErrTmpData: a hook's /tmp kept between its runs (--tmp-data) cannot be
// given to it.
var ErrTmpData = errors.New("--tmp-data")

// tmpData makes (or checks) h's kept /tmp in stateDir (ws: the run's
// workspace): a directory of the
// caller's state reached by no link, 0700, the runner's (runner: who a run
// of root's runs as; nil for any other caller). What a run left past the
// bound, or a link or another kind of file where the directory should be,
// is refused: the state is the caller's to look at (hook-exec gc removes
// it with the rest of the state).
func tmpData(stateDir string, h *hook.Hook, ws string, runner *owner) (string, error) {
	if stateDir == "" || !filepath.IsAbs(stateDir) {
		return "", fmt.Errorf("%w: no state directory to keep the hook's /tmp in", ErrTmpData)
	}
	dir := hook.TmpDataDir(stateDir, h.TmpDataTree(ws))
	if err := checkAncestors(dir, true); err != nil {
		return "", fmt.Errorf("%w %w", ErrTmpData, err)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return "", fmt.Errorf("%w: %w", ErrTmpData, err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("%w: %w", ErrTmpData, err)
	}
	clean, err := checkDir(dir)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrTmpData, err)
	}
	if err := checkAncestors(clean, false); err != nil {
		return "", fmt.Errorf("%w %w", ErrTmpData, err)
	}
	want := owner{uint32(os.Getuid()), uint32(os.Getgid())}
	if runner != nil {
		want = *runner
	}
	o, err := ownerOf(clean)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrTmpData, err)
	}
	if o.Uid != want.Uid {
		if os.Getuid() != 0 {
			return "", fmt.Errorf("%w %s: not a directory of uid %d", ErrTmpData, clean, want.Uid)
		}
		if err := os.Lchown(clean, int(want.Uid), int(want.Gid)); err != nil {
			return "", fmt.Errorf("%w: %w", ErrTmpData, err)
		}
	}
	if err := os.Chmod(clean, 0o700); err != nil {
		return "", fmt.Errorf("%w: %w", ErrTmpData, err)
	}
	if !withinBounds(clean) {
		return "", fmt.Errorf("%w %s: it holds more than %d bytes or %d entries (or one it cannot read): empty it", ErrTmpData, clean, maxWritableGrowBytes, maxWritableGrowEntries)
	}
	return clean, nil
}

// removePrivate removes the launcher's private directory (name, below
// /tmp) and its stand-ins' from the kept /tmp dir: a run that was ended
// leaves them there.
func removePrivate(dir, name string) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	var errs []error
	for _, n := range []string{name, name + ".missing"} {
		err := root.RemoveAll(n)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			// The script took its permissions away: given back through
			// the root, which no link leads out of.
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
