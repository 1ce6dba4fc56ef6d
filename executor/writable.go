package executor

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hookexec/hook-exec/internal/statefile"
	"github.com/hookexec/hook-exec/sandbox"
)

// Bounds of a --writable file and of the directory copied around it.
const (
	maxWritableBytes    = 1 << 20
	maxWritableDirFiles = 512
	maxWritableDirBytes = 16 << 20
)

// hostConfigNames are files a hook must never write back: the hosts' own
// hook configuration (a hook that rewrote them would run the next hook
// outside any sandbox).
var hostConfigNames = map[string]bool{"settings.json": true, "settings.local.json": true, "hooks.json": true}

// ErrWritable: a --writable file cannot be given to the hook.
var ErrWritable = errors.New("--writable")

// writable is one file of the workspace a hook may rewrite (a hook's own
// state, such as ralph-wiggum's .claude/ralph-loop.local.md): a private
// copy of its directory is mounted read-write over that directory, and
// after the run the named file alone goes back (rewritten, or removed when
// the hook removed it). The workspace itself stays read-only.
type writable struct {
	rel     string // as given, relative to the workspace
	path    string // the file in the workspace
	scratch string // the private copy of its directory
	before  []byte // the file's bytes at the call; nil: it did not exist
	mode    os.FileMode
}

// prepareWritable checks each of rels (inside the workspace ws, its
// directory reached by no link, not a host's hook configuration) and
// copies its directory into a private one the sandbox's user can write.
// remove deletes every copy.
func prepareWritable(ws string, rels []string, to65534 bool) (_ []*writable, _ func(), err error) {
	var out []*writable
	remove := func() {
		for _, w := range out {
			os.RemoveAll(w.scratch)
		}
	}
	defer func() {
		if err != nil {
			remove()
		}
	}()
	if len(rels) > 0 && ws == "" {
		return nil, nil, fmt.Errorf("%w %s: no workspace: the file is named relative to it", ErrWritable, rels[0])
	}
	dirs := map[string]bool{}
	for _, rel := range rels {
		w, err := newWritable(ws, rel, to65534)
		if err != nil {
			return nil, nil, fmt.Errorf("%w %s: %w", ErrWritable, rel, err)
		}
		out = append(out, w)
		dir := filepath.Dir(w.path)
		if dirs[dir] {
			return nil, nil, fmt.Errorf("%w %s: another --writable file is in %s: name one file per directory", ErrWritable, rel, dir)
		}
		dirs[dir] = true
	}
	return out, remove, nil
}

func newWritable(ws, rel string, to65534 bool) (*writable, error) {
	if !filepath.IsLocal(rel) || filepath.Clean(rel) != rel {
		return nil, errors.New("not a clean path inside the workspace")
	}
	if hostConfigNames[filepath.Base(rel)] || strings.HasPrefix(rel, ".git"+string(filepath.Separator)) {
		return nil, errors.New("a host's hook configuration or git's own files stay read-only")
	}
	// Every directory on the way is a directory, not a link: the copy
	// back writes where the workspace says, nowhere else.
	dir := ws
	for _, part := range strings.Split(filepath.Dir(rel), string(filepath.Separator)) {
		if part == "." {
			continue
		}
		dir = filepath.Join(dir, part)
		fi, err := os.Lstat(dir)
		if err != nil {
			return nil, fmt.Errorf("its directory: %w", err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("%s is not a directory (a link is not followed)", dir)
		}
	}
	w := &writable{rel: rel, path: filepath.Join(ws, rel), mode: 0o644}
	fi, err := os.Lstat(w.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	case !fi.Mode().IsRegular():
		return nil, errors.New("not a regular file (a link is not followed)")
	case fi.Size() > maxWritableBytes:
		return nil, fmt.Errorf("%d bytes, more than %d", fi.Size(), maxWritableBytes)
	default:
		if w.before, err = os.ReadFile(w.path); err != nil {
			return nil, err
		}
		w.mode = fi.Mode().Perm()
	}
	scratch, err := os.MkdirTemp("", "hookexec-writable-")
	if err != nil {
		return nil, err
	}
	w.scratch = scratch
	if err := copyDir(dir, scratch, to65534); err != nil {
		os.RemoveAll(scratch)
		return nil, fmt.Errorf("copying %s: %w", dir, err)
	}
	return w, nil
}

// copyDir copies src's tree (directories, regular files, links as links)
// into dst, bounded, for the sandbox's user to write: to65534, the copy is
// chowned to uid 65534 (a run of root's); otherwise the hook runs as the
// caller.
func copyDir(src, dst string, to65534 bool) error {
	files, size := 0, int64(0)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if files++; files > maxWritableDirFiles {
			return fmt.Errorf("more than %d entries: name a file in a smaller directory", maxWritableDirFiles)
		}
		switch t := d.Type(); {
		case d.IsDir():
			if rel == "." {
				return nil
			}
			return os.Mkdir(target, 0o700)
		case t&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case !t.IsRegular():
			return nil // a socket or a device: not the hook's state
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if size += fi.Size(); size > maxWritableDirBytes {
			return fmt.Errorf("more than %d bytes: name a file in a smaller directory", maxWritableDirBytes)
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm()|0o600)
		if err != nil {
			return err
		}
		_, err = io.Copy(out, io.LimitReader(in, fi.Size()))
		return errors.Join(err, out.Close())
	})
	if err != nil || !to65534 {
		return err
	}
	uid, gid, _ := (&sandbox.Spec{User: sandbox.DefaultUser}).IDs()
	return filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, int(uid), int(gid))
	})
}

// What a hook may write in the copies of its --writable files' directories
// during a run: past it, the run is ended (the copies are the host's /tmp).
const (
	maxWritableGrowBytes   = 64 << 20
	maxWritableGrowEntries = 4096
	writableWatchInterval  = 100 * time.Millisecond
)

// watchWritable measures the copies while the run lasts, and ends the run
// (end) when one grows past the bound. stop ends the watch and reports
// whether that happened.
func watchWritable(ws []*writable, end func()) (stop func() (overflowed bool)) {
	quit, done := make(chan struct{}), make(chan struct{})
	var over atomic.Bool
	go func() {
		defer close(done)
		t := time.NewTicker(writableWatchInterval)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
			}
			for _, w := range ws {
				if !withinBounds(w.scratch) {
					over.Store(true)
					end()
					return
				}
			}
		}
	}()
	return func() bool {
		close(quit)
		<-done
		return over.Load()
	}
}

// withinBounds walks dir until it has seen more than the bounds allow.
func withinBounds(dir string) bool {
	entries, size := 0, int64(0)
	errOver := errors.New("over")
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // a file the hook removed meanwhile
		}
		if entries++; entries > maxWritableGrowEntries {
			return errOver
		}
		if d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				if size += fi.Size(); size > maxWritableGrowBytes {
					return errOver
				}
			}
		}
		return nil
	})
	return err == nil
}

// pluginDataVar is the variable Claude Code gives a plugin's hooks its
// data directory in.
const pluginDataVar = "CLAUDE_PLUGIN_DATA"

// pluginData checks a plugin's data directory: a directory of the caller,
// reached by no link, right below ~/.claude/plugins/data, where Claude
// Code keeps them (the host's variable names it; nothing else is
// mounted read-write).
func pluginData(dir string) (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(dir) || filepath.Dir(filepath.Clean(dir)) != filepath.Join(home, ".claude", "plugins", "data") {
		return "", fmt.Errorf("--plugin-data %q: not a plugin's data directory (%s/.claude/plugins/data/ID)", dir, home)
	}
	// Claude Code makes it when a hook first names it; so does a run.
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("--plugin-data: %w", err)
	}
	clean, err := checkDir(dir)
	if err != nil {
		return "", fmt.Errorf("--plugin-data: %w", err)
	}
	if st, err := ownerOf(clean); err != nil || int(st.Uid) != os.Getuid() {
		return "", fmt.Errorf("--plugin-data %s: not a directory of uid %d", dir, os.Getuid())
	}
	return clean, nil
}

// copyBack puts what the hook left of the named file into the workspace:
// its new bytes, or its removal. It reports what it did.
func (w *writable) copyBack() string {
	name := filepath.Join(w.scratch, filepath.Base(w.rel))
	fi, err := os.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if w.before == nil {
			return "not written"
		}
		if err := os.Remove(w.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Sprintf("not removed: %v", err)
		}
		return "removed"
	case err != nil:
		return fmt.Sprintf("not copied back: %v", err)
	case !fi.Mode().IsRegular():
		return "not copied back: the hook left no regular file there"
	case fi.Size() > maxWritableBytes:
		return fmt.Sprintf("not copied back: %d bytes, more than %d", fi.Size(), maxWritableBytes)
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return fmt.Sprintf("not copied back: %v", err)
	}
	if w.before != nil && bytes.Equal(b, w.before) {
		return "unchanged"
	}
	if err := statefile.WriteFile(w.path, b, w.mode); err != nil {
		return fmt.Sprintf("not copied back: %v", err)
	}
	return "rewritten"
}
