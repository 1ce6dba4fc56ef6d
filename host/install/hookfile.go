package install

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hookexec/hook-exec/scriptpin"
)

// A host whose hooks are executable files named by their event (Cline's
// .clinerules/hooks/PreToolUse) has no configuration to rewrite: install
// keeps each file's bytes beside it (copyOf, the pinned script the sandbox
// runs, from the same directory, so that its $0 and dirname "$0" are what
// they were) and writes in its place, mode kept, a wrapper that runs it
// through hook-exec. Uninstall writes the bytes back and removes the copy.

// hookFiles reports whether h's hooks are files (Target.HookFiles).
func (h *Target) hookFiles() bool { return len(h.HookFiles) > 0 }

// isHookFile reports whether path is one of h's hook files: a name of
// HookFiles, a regular file (not a link, which install would have to
// follow out of the directory).
func (h *Target) isHookFile(path string) bool {
	if !slices.Contains(h.HookFiles, filepath.Base(path)) {
		return false
	}
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode().IsRegular()
}

// copyOf is where install keeps a hook file's original bytes: beside it,
// hidden, under a name the host never runs (no event's, no extension it
// reads).
func copyOf(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".hook-exec")
}

// wrapperMark begins a wrapper's second line.
const wrapperMark = "# hook-exec: "

// wrapper is the file install writes in place of a hook file: a shell
// script that runs the installed command (its third line).
func (h *Target) wrapper(path, installed string) []byte {
	return fmt.Appendf(nil, "#!/bin/sh\n%s%s's %s hook runs sandboxed; its own script is %s beside this file (hook-exec uninstall %s puts it back)\n%s\n",
		wrapperMark, h.Product, filepath.Base(path), filepath.Base(copyOf(path)), h.Name, installed)
}

// wrapped is the installed command of a wrapper, and whether b is one.
func wrapped(b []byte) (string, bool) {
	lines := strings.SplitN(string(b), "\n", 4)
	if len(lines) != 4 || lines[0] != "#!/bin/sh" || !strings.HasPrefix(lines[1], wrapperMark) || lines[3] != "" {
		return "", false
	}
	return lines[2], true
}

// planHookFile plans f, one hook file: its bytes pinned as the script
// (copyOf) the installed command runs, the wrapper in its place. A file
// the host does not run (not executable) is left as it is.
func (h *Target) planHookFile(o Options, f *File) error {
	ev := filepath.Base(f.Path)
	f.Rewritten = f.Original
	if _, ok := wrapped(f.Original); ok {
		return fmt.Errorf("%w: it is hook-exec's wrapper, with no record of what it replaced (its copy %s holds that): hook-exec install %s --trust-committed, in a teammate's clone", ErrSyntax, copyOf(f.Path), h.Name)
	}
	fi, err := os.Stat(f.Path)
	if err != nil {
		return err
	}
	if fi.Mode().Perm()&0o111 == 0 {
		f.Others = append(f.Others, Other{Pointer: "/" + ev, Event: ev, Why: "not executable: " + h.Product + " does not run it"})
		return nil
	}
	hk := Hook{Pointer: "/" + ev, Event: ev, Command: f.Path, Timeout: h.DefaultTimeout}
	if hk.Err = h.pinHookFile(o, f, &hk); hk.Err == nil {
		hk.Installed = h.command(o, f, &hk)
		f.Rewritten = h.wrapper(f.Path, hk.Installed)
	}
	if len(hk.Writable) > 0 {
		hk.Note = "it may write these in the project (a copy, what it leaves goes back; a directory: every file in it), and nothing else there: " + strings.Join(hk.Writable, ", ")
	}
	f.Hooks = append(f.Hooks, hk)
	return nil
}

// pinHookFile pins f's original bytes as hk's script, kept at copyOf, and
// the directory it lies in as its tree (the host's other hook files,
// their copies and install's records left out).
func (h *Target) pinHookFile(o Options, f *File, hk *Hook) error {
	lang, err := scriptpin.CheckShebang(filepath.Base(f.Path), f.Original)
	if err != nil {
		return errCommand("script %s: %w", f.Path, err)
	}
	s := &scriptpin.Script{Path: f.Path, Lang: lang, Bytes: f.Original, SHA256: sha256.Sum256(f.Original)}
	if err := h.runnable(s); err != nil {
		return errCommand("script %s: %w", f.Path, err)
	}
	hk.Inline, hk.Body, hk.Script = true, f.Original, copyOf(f.Path)
	hk.SHA256 = hex.EncodeToString(s.SHA256[:])
	hk.Writable = granted(o, slices.DeleteFunc(append(stateFiles(s.Bytes), projectWrites(lang, s.Bytes)...),
		func(w string) bool { return !fitsProject(o.ProjectDir, w) }))
	hk.Transcript = readsTranscript(s.Bytes)
	hk.Formats = h.formats(hk.Event, s.Bytes)
	hk.TmpData = keepsTmp(lang, s.Bytes)
	h.pinRoot(o, f, hk)
	return nil
}

// hookFileOthers are the names of dir's top level that are no part of a
// hook file's tree: the host's hook files (each a wrapper once
// installed), their copies, install's records.
func (h *Target) hookFileOthers(dir string) []string {
	var out []string
	for _, n := range h.HookFiles {
		out = append(out, n, filepath.Base(copyOf(filepath.Join(dir, n))))
	}
	return append(out, filepath.Base(sideDir(filepath.Join(dir, "x"))))
}

// undoHookFile is the original of cur, a hook file install rewrote that
// changed since: a wrapper's is its copy (a teammate's clone has both, as
// committed), when the copy is what the wrapper pins; anything else in
// its place is the hook as it is now (a pull brought a new one).
func undoHookFile(cur []byte, path string) ([]byte, error) {
	installed, ok := wrapped(cur)
	if !ok {
		return cur, nil
	}
	orig, err := readFile(copyOf(path))
	if err != nil {
		return nil, fmt.Errorf("its wrapper's copy: %w", err)
	}
	sum := sha256.Sum256(orig)
	if !strings.Contains(installed, " --sha256 "+hex.EncodeToString(sum[:])+" ") {
		return nil, fmt.Errorf("%s is not what its wrapper pins", copyOf(path))
	}
	return orig, nil
}

// addedHookFile is the hook of cur install did not write: the file itself
// when it is not a wrapper rec recorded, and the host runs it (it is
// executable).
func addedHookFile(cur []byte, path string, rec *record) [][2]string {
	installed, ok := wrapped(cur)
	if ok && rec != nil && slices.ContainsFunc(rec.Rewrites, func(rw rewrite) bool { return rw.Installed == installed }) {
		return nil
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm()&0o111 == 0 {
		return nil
	}
	if ok {
		return [][2]string{{"/" + filepath.Base(path), installed}}
	}
	return [][2]string{{"/" + filepath.Base(path), path}}
}
