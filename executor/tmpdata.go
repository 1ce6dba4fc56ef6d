package executor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gofrs/flock"

	"github.com/hookexec/hook-exec/hook"
)

// ErrTmpData: a hook's /tmp kept between its runs (--tmp-data) cannot be
// given to it.
var ErrTmpData = errors.New("--tmp-data")

// keptTmp is a run's hold on its hook's kept /tmp. The runs of the hooks
// that share it overlap (a host runs the hooks an event matches at once,
// as they share the host's /tmp): each holds a shared lock on it while it
// runs; what is done to the directory as a whole (its launchers' leftovers
// removed, its content dropped past the bound) waits for a moment no run
// holds it, so a live run never loses its files.
type keptTmp struct {
	dir  string
	lock *flock.Flock
	// start is what it held at the run's start: the run's watch measures
	// what grew from there.
	start watched
	// private is the launcher's directory in it ("" for a command).
	private string
}

// openTmpData makes (or checks) h's kept /tmp in stateDir (ws: the run's
// workspace): a directory of the caller's state reached by no link, 0700,
// the runner's (runner: who a run of root's runs as; nil for any other
// caller; asRoot: a run of root's that stays root's, which keeps a /tmp of
// its own), and holds it for the run.
func openTmpData(stateDir string, h *hook.Hook, ws string, runner *owner, asRoot bool) (*keptTmp, error) {
	if stateDir == "" || !filepath.IsAbs(stateDir) {
		return nil, fmt.Errorf("%w: no state directory to keep the hook's /tmp in", ErrTmpData)
	}
	dir := hook.TmpDataDir(stateDir, h.TmpDataTree(ws), asRoot)
	if err := checkAncestors(dir, true); err != nil {
		return nil, fmt.Errorf("%w %w", ErrTmpData, err)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTmpData, err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("%w: %w", ErrTmpData, err)
	}
	clean, err := checkDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTmpData, err)
	}
	if err := checkAncestors(clean, false); err != nil {
		return nil, fmt.Errorf("%w %w", ErrTmpData, err)
	}
	want := owner{uint32(os.Getuid()), uint32(os.Getgid())}
	if runner != nil {
		want = *runner
	}
	o, err := ownerOf(clean)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTmpData, err)
	}
	if o.Uid != want.Uid {
		if os.Getuid() != 0 {
			return nil, fmt.Errorf("%w %s: not a directory of uid %d", ErrTmpData, clean, want.Uid)
		}
		if err := os.Lchown(clean, int(want.Uid), int(want.Gid)); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrTmpData, err)
		}
	}
	if err := os.Chmod(clean, 0o700); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTmpData, err)
	}
	k := &keptTmp{dir: clean, lock: flock.New(clean + ".lock")}
	entries, size, ok := usage(clean, maxWritableGrowEntries, maxWritableGrowBytes)
	if !ok && k.tidy(true) {
		// A run past the bound while others held it: dropped now that
		// none does.
		entries, size = 0, 0
	}
	if err := k.lock.RLock(); err != nil {
		return nil, fmt.Errorf("%w: lock %s: %w", ErrTmpData, k.lock.Path(), err)
	}
	k.start.dir, k.start.entries, k.start.size = clean, entries, size
	k.start.overflowFailed = fmt.Sprintf("--tmp-data: the hooks that share this /tmp grew it by more than %d bytes or %d files during the run (or made a directory the watch cannot read): ended", maxWritableGrowBytes, maxWritableGrowEntries)
	return k, nil
}

// release ends the run's hold, after its sandbox is gone (confirmed: the
// launcher's directory is then removed; unconfirmed, a process of it may
// still write there, and it stays for a later tidy). It reports whether
// the directory, past the bound, was emptied.
func (k *keptTmp) release(confirmed bool) (emptied bool, err error) {
	if confirmed && k.private != "" {
		err = removeIn(k.dir, k.private, k.private+".missing")
	}
	over := !withinBounds(k.dir)
	k.lock.Unlock()
	k.lock.Close()
	if !confirmed {
		return false, err
	}
	return k.tidy(over), err
}

// tidy, when no run holds the directory, removes what the launchers of
// ended runs left there and, when drop, everything in it, as a reboot
// empties /tmp. The directory itself stays: a bind made of it meanwhile
// still sees it. It reports whether it emptied it.
func (k *keptTmp) tidy(drop bool) bool {
	ex := flock.New(k.lock.Path())
	defer ex.Close()
	if ok, err := ex.TryLock(); err != nil || !ok {
		return false
	}
	defer ex.Unlock()
	entries, err := os.ReadDir(k.dir)
	if err != nil {
		return false
	}
	var names []string
	for _, e := range entries {
		if drop || strings.HasPrefix(e.Name(), launcherPrefix) {
			names = append(names, e.Name())
		}
	}
	return removeIn(k.dir, names...) == nil && drop
}

// launcherPrefix begins the name of a launcher's private directory in a
// kept /tmp (and of its stand-ins', with .missing after it, and of the
// file with its feeder's pid, .feeder).
const launcherPrefix = "hook-exec."
