package install

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Restored is one file Uninstall put back.
type Restored struct {
	Path string
	// Forced: the file had changed since install, and was restored anyway.
	Forced bool
	// Edited: the file had changed since install; install's commands were
	// taken out of it and the edits kept.
	Edited bool
	// Gone: a plugin's hooks file Claude removed with its version; only
	// install's record of it was deleted.
	Gone bool
	// KeptFor: a plugin's hooks file other installs still hold (for these
	// projects, "user" for the user's); it stays as installed.
	KeptFor []string
}

// ErrDrifted: a file changed since install; it is left alone.
var ErrDrifted = errors.New("changed since install")

// Uninstall puts back every file of the host at the scope that install
// rewrote, byte for byte, and deletes what install kept of it. A settings
// file edited since install keeps the edits, without install's commands;
// one whose installed commands were edited, or a plugin's hooks file that
// changed, is left as it is (ErrDrifted) unless force.
func Uninstall(h *Target, o Options, force bool) ([]Restored, error) {
	var done []Restored
	var errs []error
	unlock, err := lockHost(o.StateDir, h)
	if err != nil {
		return nil, err
	}
	defer unlock()
	paths, err := h.installedFiles(o)
	if err != nil {
		return nil, err
	}
	for _, path := range paths {
		rec, err := loadRecord(o.StateDir, h, path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if rec == nil {
			continue
		}
		if _, err := os.Lstat(filepath.Dir(path)); rec.Plugin != "" && errors.Is(err, os.ErrNotExist) {
			// Claude removed that version of the plugin: nothing to restore.
			if err := os.RemoveAll(recordDir(o.StateDir, h, path)); err != nil {
				errs = append(errs, err)
			}
			done = append(done, Restored{Path: path, Gone: true})
			continue
		}
		if _, err := within(path, h.base(o)); err != nil && rec.Plugin == "" {
			errs = append(errs, err) // a link made since leads elsewhere
			continue
		}
		if h.hookFiles() && !force && editedCopy(path, rec.original) {
			errs = append(errs, fmt.Errorf("%s: %w: the hook was edited in %s: hook-exec install %s%s approves the edit; --force puts back the original and drops it", path, ErrDrifted, copyOf(path), h.Name, scopeFlag(o)))
			continue
		}
		cur, err := readFile(path)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		drifted := err != nil || digestOf(cur) != rec.InstalledSHA256
		if others := slices.DeleteFunc(slices.Clone(rec.Owners), func(w Owner) bool { return w == ownerOf(o) }); rec.Plugin != "" && len(others) > 0 && !drifted {
			if err := rec.save(o.StateDir, h, others); err != nil {
				errs = append(errs, err)
				continue
			}
			r := Restored{Path: path}
			for _, w := range others {
				r.KeptFor = append(r.KeptFor, cmp.Or(w.Project, "user"))
			}
			done = append(done, r)
			continue
		}
		restore, edited := rec.original, false
		if drifted && !force && rec.Plugin == "" && err == nil {
			// Edited since (by the host, or its owner): the edits stay,
			// install's commands go.
			b, uerr := undo(h, cur, rec)
			if uerr != nil {
				errs = append(errs, fmt.Errorf("%s: %w, and %v: its original is kept in %s; --force puts it back, dropping the later edits", path, ErrDrifted, uerr, recordDir(o.StateDir, h, path)))
				continue
			}
			restore, edited, drifted = b, true, false
		}
		if drifted && !force {
			errs = append(errs, fmt.Errorf("%s: %w: its original is kept in %s; --force puts it back, dropping the later edits", path, ErrDrifted, recordDir(o.StateDir, h, path)))
			continue
		}
		mode := os.FileMode(0o644)
		if info, err := os.Stat(path); err == nil {
			mode = info.Mode().Perm()
		}
		if err := replace(path, restore, mode, rec.Plugin == ""); err != nil {
			errs = append(errs, err)
			continue
		}
		if err := os.RemoveAll(recordDir(o.StateDir, h, path)); err != nil {
			errs = append(errs, err)
		}
		if rec.Plugin == "" {
			errs = append(errs, rec.removeSide())
		}
		if h.hookFiles() {
			if err := os.Remove(copyOf(path)); err != nil && !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
			}
		}
		done = append(done, Restored{Path: path, Forced: drifted, Edited: edited})
	}
	if h.Plugins {
		errs = append(errs, removeUnusedCopies(o.StateDir, h))
	}
	errs = append(errs, syncUserCheck(h, o))
	return done, errors.Join(errs...)
}

// installedFiles are the files of h at o's scope install may have
// rewritten: its configuration files and its plugins' recorded hooks
// files.
func (h *Target) installedFiles(o Options) ([]string, error) {
	paths := h.files(o)
	// A file of a directory the host globs (Copilot's .github/hooks/*.json)
	// renamed or removed since install: its record says what it was.
	recs, err := allRecords(o.StateDir, h)
	if err != nil {
		return nil, err
	}
	rel := h.ProjectFiles
	if o.Settings == User {
		rel = h.UserFiles
	}
	for _, r := range recs {
		name, err := filepath.Rel(h.base(o), r.Path)
		if err != nil || r.Plugin != "" || slices.Contains(paths, r.Path) {
			continue
		}
		if slices.ContainsFunc(rel, func(pattern string) bool {
			ok, _ := filepath.Match(pattern, name)
			return ok && strings.Contains(pattern, "*")
		}) {
			paths = append(paths, r.Path)
		}
	}
	if !h.Plugins {
		return paths, nil
	}
	mine, err := pluginRecords(o.StateDir, h, o)
	for _, r := range mine {
		paths = append(paths, r.Path)
	}
	return paths, err
}
