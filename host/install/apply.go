package install

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/hookexec/hook-exec/internal/engineenv"
	"github.com/hookexec/hook-exec/internal/statefile"
)

// Apply writes the plan: the inline scripts, each file's original (kept
// once, before its first install) and the rewritten file, replaced
// atomically with its mode kept. It refuses a plan with a hook it cannot
// install: nothing is written then.
func (p *Plan) Apply() error {
	if !p.approved {
		return fmt.Errorf("%w: nothing written", ErrNotApproved)
	}
	if p.Count() == 0 && p.Err() != nil {
		return p.Err()
	}
	unlock, err := lockHost(p.Opts.StateDir, p.Host)
	if err != nil {
		return err
	}
	defer unlock()
	for _, f := range p.Files {
		if f.installs() {
			if err := p.unchanged(f); err != nil {
				return err
			}
		}
	}
	for _, f := range p.Files {
		if f.Plugin != nil && len(f.Hooks) > 0 {
			if err := f.Plugin.commit(); err != nil {
				return err
			}
		}
	}
	if p.Opts.Engine != nil {
		// What the sealed commands below run on.
		if err := engineenv.Write(p.Opts.StateDir, p.Opts.Engine); err != nil {
			return fmt.Errorf("pin the engine: %w", err)
		}
	}
	for _, f := range p.Files {
		if !f.installs() {
			continue
		}
		if err := p.write(f); err != nil {
			return err
		}
	}
	return syncUserCheck(p.Host, p.Opts)
}

// unchanged refuses f when it is neither as the plan read it nor as
// another install or uninstall of the same hooks left it meanwhile (its
// original, or an install of it).
func (p *Plan) unchanged(f *File) error {
	// As read, or as another install or uninstall of the same hooks
	// left it meanwhile: its original, or an install of it.
	cur, err := readFile(f.Path)
	if err != nil {
		return fmt.Errorf("%s: %w: nothing installed", f.Path, err)
	}
	if d := digestOf(cur); d != f.seen && !bytes.Equal(cur, f.Original) {
		rec, err := loadRecord(p.Opts.StateDir, p.Host, f.Path)
		if err != nil || rec == nil || rec.InstalledSHA256 != d || rec.OriginalSHA256 != digestOf(f.Original) {
			return fmt.Errorf("%s changed since the plan was made: nothing installed; install again to see the change", f.Path)
		}
	}
	return nil
}

// write installs f: its inline scripts, its record and original beside the
// state (and, committed, beside the file), then the rewritten file.
func (p *Plan) write(f *File) error {
	dir := recordDir(p.Opts.StateDir, p.Host, f.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	var inline []string
	for _, hk := range f.Hooks {
		if !hk.Inline {
			continue
		}
		perm := os.FileMode(0o600)
		if committed(p.Opts, f) {
			// The project's, as its other hooks' scripts are.
			perm = 0o644
			inline = append(inline, filepath.Base(hk.Script))
			if err := os.MkdirAll(filepath.Dir(hk.Script), 0o755); err != nil {
				return err
			}
		}
		if err := statefile.WriteFile(hk.Script, hk.Body, perm); err != nil {
			return err
		}
	}
	if f.Target != "" {
		// As planned: a link made meanwhile would write elsewhere.
		if t, err := within(f.Path, p.Host.base(p.Opts)); err != nil || t != f.Target {
			return cmp.Or(err, fmt.Errorf("%s now leads to %s, not %s as planned: nothing more installed", f.Path, t, f.Target))
		}
	}
	info, err := os.Stat(f.Path)
	if err != nil {
		return err
	}
	rec := record{Path: f.Path, InstalledSHA256: digestOf(f.Rewritten), OriginalSHA256: digestOf(f.Original), Inline: inline}
	rec.Rewrites = []rewrite{}
	for _, hk := range f.Hooks {
		if hk.Err == nil {
			rec.Rewrites = append(rec.Rewrites, rewrite{Installed: hk.Installed, Was: hk.was, Added: hk.added})
		}
	}
	if f.Check != "" {
		rec.Rewrites = append(rec.Rewrites, rewrite{Installed: f.Check, Added: f.checkAdded, Check: true})
	}
	if pl := f.Plugin; pl != nil {
		rec.Plugin, rec.Root, rec.Copy, rec.TreeSHA256 = pl.Key, pl.Root, pl.Copy, pl.TreeSHA256
		// One version of a plugin serves every project and the user:
		// each install of it is an owner, and the file is restored when
		// the last one uninstalls.
		if prev, err := loadRecord(p.Opts.StateDir, p.Host, f.Path); err == nil && prev != nil && prev.OriginalSHA256 == rec.OriginalSHA256 {
			rec.Owners = prev.Owners
		}
		if me := ownerOf(p.Opts); !slices.Contains(rec.Owners, me) {
			rec.Owners = append(rec.Owners, me)
		}
	}
	if err := statefile.WriteFile(filepath.Join(dir, originalFile), f.Original, 0o600); err != nil {
		return err
	}
	b, err := jsonv2.Marshal(rec)
	if err != nil {
		return err
	}
	if err := statefile.WriteFile(filepath.Join(dir, recordFile), b, 0o600); err != nil {
		return err
	}
	if committed(p.Opts, f) {
		if err := rec.writeSide(); err != nil {
			return err
		}
	}
	if err := replace(f.Path, f.Rewritten, info.Mode().Perm(), f.Plugin == nil); err != nil {
		return err
	}
	return nil
}
