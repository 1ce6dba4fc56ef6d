package install

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hookexec/hook-exec/internal/engineenv"
	"github.com/hookexec/hook-exec/scriptpin"
)

// Drift is something Check found changed since install.
type Drift struct {
	Path    string // the configuration file
	Pointer string // the hook's command, "" for the file itself
	What    string
	// Outside: the host runs the hook (a plugin's hooks) itself, outside
	// the sandbox; every other drift is a refusal.
	Outside bool
}

// Check compares every file install rewrote, and every script its hooks
// are pinned to, with what was approved. installed says how many files
// carry installed hooks.
func Check(h *Target, o Options) (installed int, drifts []Drift, err error) {
	r, err := Inspect(h, o)
	return r.Installed, r.Drifts, err
}

// Pin is an installed hook whose script (and tree) are as approved.
type Pin struct {
	Path, Pointer, Event, Script, SHA256 string
}

// Report is what Inspect found: how many files carry installed hooks,
// the hooks pinned as approved, and what drifted.
type Report struct {
	Installed int
	Pinned    []Pin
	Drifts    []Drift
}

// Inspect is Check with the hooks found pinned as approved.
func Inspect(h *Target, o Options) (*Report, error) {
	r := &Report{}
	installed, drifts, err := r.check(h, o)
	r.Installed, r.Drifts = installed, drifts
	return r, err
}

func (r *Report) check(h *Target, o Options) (installed int, drifts []Drift, err error) {
	// Where nothing was installed there is nothing to lock (nor a state
	// directory to write the lock in).
	if _, err := os.Lstat(filepath.Join(o.StateDir, "installed", h.Name)); err == nil {
		unlock, err := lockHost(o.StateDir, h)
		if err != nil {
			return 0, nil, err
		}
		defer unlock()
	}
	paths := h.files(o)
	if !o.Repository {
		if paths, err = h.installedFiles(o); err != nil {
			return 0, nil, err
		}
	}
	for _, path := range paths {
		counted, found, err := r.checkFile(h, o, path)
		if err != nil {
			return 0, nil, err
		}
		if counted {
			installed++
		}
		drifts = append(drifts, found...)
	}
	if o.Settings == Project && !o.Repository {
		// The user's own hooks run in the project's sessions too.
		u := o
		u.Settings = User
		for _, path := range h.files(u) {
			if rec, err := loadRecord(o.StateDir, h, path); err == nil && rec == nil {
				drifts = append(drifts, h.notInstalled(u, path)...)
			}
		}
	}
	if o.Settings == Project {
		for _, path := range h.files(o) {
			if cur, err := readFile(path); err == nil {
				if err := h.projectEnv(o, path, cur); err != nil {
					drifts = append(drifts, Drift{Path: path, What: err.Error(), Outside: true})
				}
			}
		}
		if err := h.projectEnv(o, "", nil); err != nil {
			drifts = append(drifts, Drift{Path: o.ProjectDir, What: err.Error(), Outside: true})
		}
	}
	drifts = append(drifts, h.elsewhere(o)...)
	if h.CheckEvent != "" && installed > 0 && !o.Repository {
		path := h.checkPath(o)
		cur, err := readFile(path)
		if errors.Is(err, os.ErrNotExist) {
			cur, err = nil, nil
		}
		if has, herr := hasCheck(h, o, path, cur); err != nil || herr != nil || !has {
			drifts = append(drifts, Drift{Path: path, What: fmt.Sprintf(
				"hook-exec's own %s hook is not in it: nothing tells you at a session's start of a hook that runs outside the sandbox: hook-exec install %s%s adds it again", h.CheckEvent, h.Name, scopeFlag(o))})
		}
	}
	if h.Plugins && !o.Repository {
		found, err := h.pluginsOutside(o)
		if err != nil {
			return installed, drifts, err
		}
		drifts = append(drifts, found...)
	}
	return installed, drifts, nil
}

// checkFile checks one of the host's files against what install recorded
// of it: counted, when install wrote it; what drifted, and the hooks still
// pinned as approved (r.Pinned).
func (r *Report) checkFile(h *Target, o Options, path string) (counted bool, drifts []Drift, err error) {
	rec, err := loadRecord(o.StateDir, h, path)
	if err != nil {
		return false, nil, err
	}
	if rec == nil {
		return false, h.notInstalled(o, path), nil
	}
	if o.Repository && !rec.committed {
		// What this machine recorded is not the repository's.
		if rec, err = sideRecord(h, path); err != nil {
			return false, nil, err
		}
		if rec == nil {
			return false, h.notInstalled(o, path), nil
		}
	}
	cur, err := readFile(path)
	if err != nil {
		return true, append(drifts, Drift{Path: path, What: err.Error()}), nil
	}
	if slices.ContainsFunc(rec.Rewrites, func(rw rewrite) bool { return !rw.Check && !strings.Contains(rw.Installed, " "+engineenv.Flag+" ") }) {
		drifts = append(drifts, Drift{Path: path, What: fmt.Sprintf(
			"installed by an earlier hook-exec, whose commands take the engine and state from the environment the host hands them (a project's settings can set it): install again: hook-exec install %s%s", h.Name, scopeFlag(o))})
	}
	if digestOf(cur) != rec.InstalledSHA256 {
		drifts = append(drifts, h.edited(o, path, cur, rec)...)
	}
	f := &File{Path: path, Original: rec.original}
	if rec.Plugin != "" {
		f.Plugin = pluginCopyOf(rec)
		if d, err := scriptpin.TreeDigest(rec.Copy); err != nil || d.String() != rec.TreeSHA256 {
			drifts = append(drifts, Drift{Path: path, What: fmt.Sprintf(
				"plugin %s: its approved copy %s changed or is gone: its hooks are refused until you approve it again: hook-exec install %s%s", rec.Plugin, rec.Copy, h.Name, scopeFlag(o))})
		}
	}
	if err := plan(h, o, f); err != nil {
		return true, append(drifts, Drift{Path: path, What: fmt.Sprintf("its original no longer reads: %v", err)}), nil
	}
	kept := h.kept(cur, rec, f.Hooks)
	raw := commandsIn(h, cur)
	for i, hk := range f.Hooks {
		switch {
		case !kept[i]:
			// Taken out of the file since: the host no longer runs it.
		case hk.Err != nil && raw[hk.Command]:
			// Install left it as the host runs it, and said why.
			drifts = append(drifts, Drift{Path: path, Pointer: hk.Pointer, Outside: true, What: fmt.Sprintf("%q is left as %s runs it, outside the sandbox: %v", hk.Command, h.Name, hk.Err)})
		case hk.Err != nil:
			drifts = append(drifts, Drift{Path: path, Pointer: hk.Pointer, What: hk.Err.Error()})
		case !bytes.Contains(cur, []byte(hk.SHA256)):
			drifts = append(drifts, Drift{Path: path, Pointer: hk.Pointer, What: fmt.Sprintf(
				"%s changed since approval (sha256 now %s): it is refused until you approve it again: hook-exec install %s%s", hk.Script, hk.SHA256, h.Name, scopeFlag(o))})
		case hk.Root != "" && bytes.Contains(cur, []byte(" --script-root-sha256 ")) && !bytes.Contains(cur, []byte(hk.RootSHA256)):
			drifts = append(drifts, Drift{Path: path, Pointer: hk.Pointer, What: fmt.Sprintf(
				"a file beside %s, in %s, changed since approval (tree sha256 now %s): the hook is refused until you approve it again: hook-exec install %s%s", hk.Script, hk.Root, hk.RootSHA256, h.Name, scopeFlag(o))})
		case hk.Inline && !fileIs(hk.Script, hk.Body):
			drifts = append(drifts, Drift{Path: path, Pointer: hk.Pointer, What: fmt.Sprintf("the inline script %s is missing or changed", hk.Script)})
		default:
			r.Pinned = append(r.Pinned, Pin{Path: path, Pointer: hk.Pointer, Event: hk.Event, Script: hk.Script, SHA256: hk.SHA256})
		}
	}
	return true, drifts, nil
}

// pluginsOutside are the host's plugins installed (or updated) since,
// whose hooks run as the host runs them: outside.
func (h *Target) pluginsOutside(o Options) (drifts []Drift, err error) {
	// A plugin installed or updated since (Claude keeps each version in
	// a directory of its own) runs its hooks as Claude does: outside;
	// at a project, one installed for the user too (what /plugin
	// install does by default): the project's sessions run its hooks.
	scopes := []Options{o}
	if o.Settings == Project {
		u := o
		u.Settings = User
		scopes = append(scopes, u)
	}
	for _, so := range scopes {
		plugins, err := claudePlugins(so)
		if err != nil {
			return drifts, err
		}
		mine := ""
		if so.Settings != o.Settings {
			mine = ", installed for you,"
		}
		for _, pl := range plugins {
			for _, path := range pl.Files {
				if rec, err := loadRecord(o.StateDir, h, path); err != nil || rec == nil {
					drifts = append(drifts, Drift{Path: path, Outside: true, What: fmt.Sprintf(
						"plugin %s (version %s)%s is not installed through hook-exec: its hooks run outside the sandbox: hook-exec install %s%s", pl.Key, pl.Version, mine, h.Name, scopeFlag(so))})
				}
			}
		}
	}
	return drifts, nil
}

// fileIs reports whether the file at path holds exactly b.
func fileIs(path string, b []byte) bool {
	got, err := os.ReadFile(path)
	return err == nil && bytes.Equal(got, b)
}
