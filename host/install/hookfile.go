package install

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hookexec/hook-exec/scriptpin"
)

// A host whose hooks are files named by their event (Cline's
// .clinerules/hooks/PreToolUse) has no configuration to rewrite: install
// keeps each file's bytes beside it (copyOf, the pinned script the sandbox
// runs, from the same directory, so that dirname "$0" and the files it
// loads beside itself are what they were) and writes in its place, mode
// kept, a wrapper that runs it through hook-exec. Uninstall writes the
// bytes back and removes the copy.

// hookFiles reports whether h's hooks are files (Target.HookFiles).
func (h *Target) hookFiles() bool { return len(h.HookFiles) > 0 }

// hookFileExts are the extensions a hook file may have (Cline's CLI finds
// PreToolUse.sh and pretooluse.py as PreToolUse; its VS Code extension
// only PreToolUse); wrappable those whose runner runs a shell script.
var (
	hookFileExts = []string{"", ".sh", ".bash", ".zsh", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".py", ".ps1"}
	wrappable    = []string{"", ".sh", ".bash"}
)

// hookFileEvent is the event a file of a hooks directory is the hook of,
// by its name (any case, an extension the host reads), and whether it is
// one: a regular file, or a link (which install refuses to rewrite, but
// the host runs).
func (h *Target) hookFileEvent(path string) (string, bool) {
	base := filepath.Base(path)
	ext := filepath.Ext(base)
	if !slices.Contains(hookFileExts, strings.ToLower(ext)) {
		ext = ""
	}
	name := strings.TrimSuffix(base, ext)
	i := slices.IndexFunc(h.HookFiles, func(n string) bool { return strings.EqualFold(n, name) })
	if i < 0 {
		return "", false
	}
	fi, err := os.Lstat(path)
	if err != nil || !(fi.Mode().IsRegular() || fi.Mode()&os.ModeSymlink != 0) {
		return "", false
	}
	return h.HookFiles[i], true
}

// copyOf is where install keeps a hook file's original bytes: beside it,
// hidden, under a name the host never runs (no extension it reads).
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
// (copyOf) the installed command runs, the wrapper in its place. A link,
// and a file its host runs by an extension of another language, are left
// as they are, named.
func (h *Target) planHookFile(o Options, f *File) error {
	ev, _ := h.hookFileEvent(f.Path)
	f.Rewritten = f.Original
	if _, ok := wrapped(f.Original); ok {
		return fmt.Errorf("%w: it is hook-exec's wrapper, with no record of what it replaced (its copy %s holds that): hook-exec install %s --trust-committed, in a teammate's clone", ErrSyntax, copyOf(f.Path), h.Name)
	}
	hk := Hook{Pointer: "/" + ev, Event: ev, Command: f.Path, Timeout: h.DefaultTimeout}
	fi, err := os.Lstat(f.Path)
	if err != nil {
		return err
	}
	switch ext := strings.ToLower(filepath.Ext(f.Path)); {
	case fi.Mode()&os.ModeSymlink != 0:
		hk.Err = errCommand("it is a link: install would rewrite the file it leads to; make the hook a file of its own")
	case !slices.Contains(wrappable, ext):
		hk.Err = errCommand("%s's CLI runs it by its extension (%s), which a shell wrapper is not: name it %s (a script with its #! line) to have it sandboxed", h.Product, ext, ev)
	default:
		if cp, err := readFile(copyOf(f.Path)); err == nil && f.Reinstall && !bytes.Equal(cp, f.Original) {
			// The hook was edited where it lives now, its copy: that edit
			// is what the owner approves now, and what uninstall restores.
			f.Original, f.Edited = cp, true
		}
		hk.Err = h.pinHookFile(o, f, &hk)
	}
	if hk.Err == nil {
		hk.Installed = h.command(o, f, &hk)
		f.Rewritten = h.wrapper(f.Path, hk.Installed)
		if fi.Mode().Perm()&0o111 == 0 {
			hk.Note = h.Product + "'s VS Code extension skips it (it is not executable), its CLI runs it: wrapped with its mode"
		}
	}
	if len(hk.Writable) > 0 {
		hk.Note = strings.TrimPrefix(hk.Note+"; ", "; ") + "it may write these in the project (a copy, what it leaves goes back; a directory: every file in it), and nothing else there: " + strings.Join(hk.Writable, ", ")
	}
	f.Hooks = append(f.Hooks, hk)
	return nil
}

// pinHookFile pins f's original bytes as hk's script, kept at copyOf, and
// the directory it lies in as its tree (the host's hook files, their
// copies and install's records left out).
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
// hook file's tree: the host's hook files there (each a wrapper once
// installed), their copies, install's records.
func (h *Target) hookFileOthers(dir string) []string {
	out := []string{filepath.Base(sideDir(filepath.Join(dir, "x")))}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if _, ok := h.hookFileEvent(p); ok {
			out = append(out, e.Name(), filepath.Base(copyOf(p)))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// undoHookFile is the original of cur, a hook file install rewrote that
// changed since: a wrapper's is its copy (a teammate's clone has both, as
// committed), when the wrapper is one rec recorded and the copy is what
// it pins; anything else in its place is the hook as it is now (a pull
// brought a new one).
func undoHookFile(cur []byte, rec *record) ([]byte, error) {
	installed, ok := wrapped(cur)
	if !ok {
		return cur, nil
	}
	if !slices.ContainsFunc(rec.Rewrites, func(rw rewrite) bool { return rw.Installed == installed }) {
		return nil, fmt.Errorf("it is a wrapper hook-exec did not write here")
	}
	orig, err := readFile(copyOf(rec.Path))
	if err != nil {
		return nil, fmt.Errorf("its wrapper's copy: %w", err)
	}
	sum := sha256.Sum256(orig)
	if !strings.Contains(installed, " --sha256 "+hex.EncodeToString(sum[:])+" ") {
		return nil, fmt.Errorf("%s is not what its wrapper pins", copyOf(rec.Path))
	}
	return orig, nil
}

// editedCopy reports whether path's copy holds other bytes than the
// original install kept: the hook was edited where it lives now.
func editedCopy(path string, original []byte) bool {
	cp, err := readFile(copyOf(path))
	return err == nil && !bytes.Equal(cp, original)
}

// addedHookFile is the hook of cur install did not write: the file itself
// when it is not a wrapper rec recorded.
func addedHookFile(cur []byte, path string, rec *record) [][2]string {
	installed, ok := wrapped(cur)
	if ok && rec != nil && slices.ContainsFunc(rec.Rewrites, func(rw rewrite) bool { return rw.Installed == installed }) {
		return nil
	}
	if ok {
		return [][2]string{{"/" + filepath.Base(path), installed}}
	}
	return [][2]string{{"/" + filepath.Base(path), path}}
}
