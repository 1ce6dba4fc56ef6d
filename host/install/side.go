package install

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// A project's file that a team commits carries what uninstall and check
// need beside it, committed too: its side record (the commands install
// wrote and what each replaced) and its inline scripts, in the file's
// sideDir. A teammate's clone, or a repository's CI, has no record of its
// own: it reads that one, and undo takes install's commands out of the
// file as committed, pulled and merged (the edits of others kept).

// sideDir is the directory beside a committed file: .claude/hook-exec/.
func sideDir(path string) string { return filepath.Join(filepath.Dir(path), "hook-exec") }

// sideFile is path's side record.
func sideFile(path string) string {
	return filepath.Join(sideDir(path), filepath.Base(path)+".installed.json")
}

// side is a side record: a record without this machine's paths.
type side struct {
	Version         int       `json:"version"`
	File            string    `json:"file"` // the file's name
	InstalledSHA256 string    `json:"installed_sha256"`
	OriginalSHA256  string    `json:"original_sha256"`
	Rewrites        []rewrite `json:"rewrites"`
	Inline          []string  `json:"inline,omitzero"`
}

// writeSide writes r's side record.
func (r *record) writeSide() error {
	b, err := jsonv2.Marshal(side{Version: 1, File: filepath.Base(r.Path), InstalledSHA256: r.InstalledSHA256,
		OriginalSHA256: r.OriginalSHA256, Rewrites: r.Rewrites, Inline: r.Inline}, jsonv2.Deterministic(true))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(sideDir(r.Path), 0o755); err != nil {
		return err
	}
	return replace(sideFile(r.Path), append(b, '\n'), 0o644, false)
}

// removeSide removes r's side record and inline scripts, and their
// directory when nothing else is left in it.
func (r *record) removeSide() error {
	dir := sideDir(r.Path)
	var errs []error
	names := append(slices.Clone(r.Inline), filepath.Base(sideFile(r.Path)))
	for _, n := range names {
		if filepath.Base(n) != n {
			continue // a record's name, never a path
		}
		if err := os.Remove(filepath.Join(dir, n)); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if left, err := os.ReadDir(dir); err == nil && len(left) == 0 {
		errs = append(errs, os.Remove(dir))
	}
	return errors.Join(errs...)
}

// readSide is the side record committed beside path, nil when none.
func readSide(path string) (*side, error) {
	b, err := readFile(sideFile(path))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var s side
	if err := jsonv2.Unmarshal(b, &s); err != nil || s.Version != 1 || s.File != filepath.Base(path) || s.Rewrites == nil {
		return nil, fmt.Errorf("%s: the record committed beside %s does not read", sideFile(path), path)
	}
	return &s, nil
}

// mergeSide adds to r the commands a teammate's install committed beside
// its file since (a pull brought them): they are install's too.
func (r *record) mergeSide() error {
	s, err := readSide(r.Path)
	if err != nil || s == nil {
		return err
	}
	for _, rw := range s.Rewrites {
		if !slices.ContainsFunc(r.Rewrites, func(x rewrite) bool { return x.Installed == rw.Installed }) {
			r.Rewrites = append(r.Rewrites, rw)
		}
	}
	for _, n := range s.Inline {
		if !slices.Contains(r.Inline, n) {
			r.Inline = append(r.Inline, n)
		}
	}
	return nil
}

// sideRecord is the record committed beside path, nil when there is none:
// its original is the file as it is, without install's commands.
func sideRecord(h *Target, path string) (*record, error) {
	s, err := readSide(path)
	if err != nil || s == nil {
		return nil, err
	}
	rec := &record{Path: path, InstalledSHA256: s.InstalledSHA256, Rewrites: s.Rewrites, Inline: s.Inline, committed: true}
	cur, err := readFile(path)
	if err != nil {
		return nil, err
	}
	if rec.original, err = undo(h, cur, rec); err != nil {
		return nil, fmt.Errorf("%s, as committed, without hook-exec's commands: %w", path, err)
	}
	rec.OriginalSHA256 = digestOf(rec.original)
	return rec, nil
}

// AsCommitted reports whether applying p writes nothing new into the
// project's files: each holds, as committed, exactly what install would
// write of it now (its scripts as they were pinned). A teammate trusting
// the pins their clone came with approves that, and only that. The error
// names each hook that differs, or says nothing was committed.
func (p *Plan) AsCommitted() error {
	var errs []error
	n := 0
	for _, f := range p.Files {
		if f.Plugin != nil {
			continue
		}
		if !f.Reinstall {
			if len(f.Hooks) > 0 {
				errs = append(errs, fmt.Errorf("%s: its hooks were never installed: hook-exec install %s shows them", f.Path, p.Host.Name))
			}
			continue
		}
		n++
		if digestOf(f.Rewritten) == f.seen {
			continue
		}
		cur, err := readFile(f.Path)
		if err != nil {
			return err
		}
		for _, hk := range f.Hooks {
			q, _ := jsontext.AppendQuote(nil, hk.Installed)
			if hk.Err == nil && !bytes.Contains(cur, q) {
				errs = append(errs, fmt.Errorf("%s %s: committed otherwise than install would pin it now (%s, sha256 %s)", f.Path, hk.Pointer, hk.Script, hk.SHA256))
			}
		}
	}
	if n == 0 && len(errs) == 0 {
		return fmt.Errorf("no hooks of %s are committed in %s: hook-exec install %s installs them", p.Host.Name, p.Opts.ProjectDir, p.Host.Name)
	}
	if len(errs) == 0 && p.Count() > 0 {
		return nil
	}
	return errors.Join(errs...)
}
