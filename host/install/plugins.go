package install

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/hookexec/hook-exec/scriptpin"
)

// Plugin is a Claude Code plugin whose hooks install runs through
// hook-exec. Claude keeps it in its cache (Root, a directory per version);
// install copies that tree, as the owner approves it, into hook-exec's
// state (Copy, named by its digest), and the plugin's hooks run the copy's
// scripts with the copy as ${CLAUDE_PLUGIN_ROOT}, read-only, its whole
// tree pinned: a file of it changed is refused. Only the plugin's hooks
// files in Claude's cache are rewritten (and restored by uninstall).
type Plugin struct {
	Key     string // name@marketplace, as installed_plugins.json has it
	Version string
	Root    string // Claude's copy (installPath)
	Copy    string // hook-exec's copy, what the hooks run
	// TreeSHA256 is the copy's tree digest (scriptpin.TreeDigest), with
	// the hooks files as they were before any install.
	TreeSHA256 string
	// Files are its hooks files in Root: hooks/hooks.json and what its
	// .claude-plugin/plugin.json names (or plugin.json itself, when it
	// holds its hooks).
	Files []string
	// staged is the copy until Apply moves it to Copy ("" when Copy is
	// already there).
	staged string
}

// pluginsFile is where Claude Code lists its installed plugins.
const pluginsFile = ".claude/plugins/installed_plugins.json"

// pluginDataVar holds a plugin's own data directory in its hooks'
// environment (Claude Code's ~/.claude/plugins/data/ID, kept across the
// plugin's updates).
const pluginDataVar = "CLAUDE_PLUGIN_DATA"

var pluginKeyPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*@[A-Za-z0-9][A-Za-z0-9._-]*$`)

// installedPlugin is an entry of installed_plugins.json (version 2: a
// list per plugin, one per scope; version 1: one object).
type installedPlugin struct {
	Scope       string `json:"scope"`
	InstallPath string `json:"installPath"`
	Version     string `json:"version"`
	ProjectPath string `json:"projectPath"`
}

// claudePlugins lists the plugins Claude Code has installed at o's scope:
// the user's (scope "user") or this project's ("project", "local"). A
// plugin is covered whether enabled or not: one enabled later must not
// run outside the sandbox.
func claudePlugins(o Options) ([]*Plugin, error) {
	path := filepath.Join(o.Home, pluginsFile)
	b, err := readFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var doc struct {
		Plugins map[string]jsontext.Value `json:"plugins"`
	}
	if err := jsonv2.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", path, ErrSyntax, err)
	}
	keys := make([]string, 0, len(doc.Plugins))
	for k := range doc.Plugins {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var out []*Plugin
	for _, key := range keys {
		raw := doc.Plugins[key]
		var entries []installedPlugin
		if raw.Kind() == '{' {
			var one installedPlugin
			err = jsonv2.Unmarshal(raw, &one)
			entries = append(entries, one)
		} else {
			err = jsonv2.Unmarshal(raw, &entries)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: plugin %q: %w: %w", path, key, ErrSyntax, err)
		}
		for _, e := range entries {
			mine := e.Scope == "user" || e.Scope == ""
			if o.Settings == Project {
				mine = (e.Scope == "project" || e.Scope == "local") && filepath.Clean(e.ProjectPath) == o.ProjectDir
			}
			if !mine {
				continue
			}
			if !pluginKeyPattern.MatchString(key) {
				return nil, fmt.Errorf("%s: plugin %q: not a name@marketplace install can name a directory by", path, key)
			}
			if !filepath.IsAbs(e.InstallPath) {
				return nil, fmt.Errorf("%s: plugin %s: installPath %q is not absolute", path, key, e.InstallPath)
			}
			p := &Plugin{Key: key, Version: e.Version, Root: filepath.Clean(e.InstallPath)}
			if p.Files, err = pluginHooksFiles(p.Root); err != nil {
				return nil, fmt.Errorf("plugin %s: %w", key, err)
			}
			if len(p.Files) > 0 {
				out = append(out, p)
			}
		}
	}
	return out, nil
}

// pluginHooksFiles are the files a plugin's hooks are in, as Claude Code
// reads them: hooks/hooks.json, and the "hooks" of its manifest (a path,
// a list of paths, or the hooks themselves).
func pluginHooksFiles(root string) ([]string, error) {
	fi, err := os.Lstat(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // installed_plugins.json names a version Claude removed
	}
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a directory (a link is not followed)", root)
	}
	var files []string
	add := func(rel string) error {
		rel = filepath.Clean(filepath.FromSlash(rel))
		if !filepath.IsLocal(rel) {
			return fmt.Errorf("hooks file %q is outside the plugin", rel)
		}
		if err := noLink(root, rel); err != nil {
			return err
		}
		p := filepath.Join(root, rel)
		if !slices.Contains(files, p) {
			files = append(files, p)
		}
		return nil
	}
	if _, err := os.Lstat(filepath.Join(root, "hooks", "hooks.json")); err == nil {
		if err := add("hooks/hooks.json"); err != nil {
			return nil, err
		}
	}
	manifest := filepath.Join(root, ".claude-plugin", "plugin.json")
	if _, err := os.Lstat(manifest); errors.Is(err, fs.ErrNotExist) {
		return files, nil
	}
	if err := noLink(root, filepath.Join(".claude-plugin", "plugin.json")); err != nil {
		return nil, err
	}
	b, err := readFile(manifest)
	if err != nil {
		return nil, err
	}
	var m map[string]jsontext.Value
	if err := jsonv2.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", manifest, ErrSyntax, err)
	}
	hooks, ok := m["hooks"]
	switch {
	case !ok:
	case hooks.Kind() == '{':
		files = append(files, manifest) // its "hooks" member is what install rewrites
	case hooks.Kind() == '"':
		var rel string
		jsonv2.Unmarshal(hooks, &rel)
		if err := add(rel); err != nil {
			return nil, err
		}
	case hooks.Kind() == '[':
		var rels []string
		if err := jsonv2.Unmarshal(hooks, &rels); err != nil {
			return nil, fmt.Errorf("%s: hooks: %w: %w", manifest, ErrSyntax, err)
		}
		for _, rel := range rels {
			if err := add(rel); err != nil {
				return nil, err
			}
		}
	default:
		return nil, fmt.Errorf("%s: hooks is neither a path, a list of paths nor the hooks", manifest)
	}
	return files, nil
}

// noLink refuses a file of a plugin reached through a link at any level
// below its root: install rewrites it in place, and must not be led to a
// file of the user's elsewhere.
func noLink(root, rel string) error {
	p := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		p = filepath.Join(p, part)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a link: a plugin's hooks file is read, and rewritten, only where it is", p)
		}
	}
	return nil
}

// pluginsDir holds the approved copies of a host's plugins.
func pluginsDir(stateDir string, h *Target) string {
	return filepath.Join(stateDir, "installed", h.Name, "plugins")
}

// stage copies p's tree into the state directory, its hooks files as they
// were before any install (originals), and names the copy by its digest.
func (p *Plugin) stage(stateDir string, h *Target, originals map[string][]byte) error {
	dir := pluginsDir(stateDir, h)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	// What an install killed before it ended left (a copy stays staged
	// for an install's consent, seconds to minutes).
	stale, _ := filepath.Glob(filepath.Join(dir, ".stage-*"))
	for _, s := range stale {
		if fi, err := os.Lstat(s); err == nil && time.Since(fi.ModTime()) > staleStage {
			os.RemoveAll(s)
		}
	}
	tmp, err := os.MkdirTemp(dir, ".stage-")
	if err != nil {
		return err
	}
	staged := filepath.Join(tmp, "tree")
	err = copyTree(p.Root, staged, originals)
	var d scriptpin.Digest
	if err == nil {
		d, err = scriptpin.TreeDigest(staged)
	}
	if err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("plugin %s: %w", p.Key, err)
	}
	p.TreeSHA256 = d.String()
	// A copy of the same tree approved before is not reused here: an
	// uninstall may delete it before Apply. commit, under the host's lock,
	// keeps whichever is in place.
	p.Copy = filepath.Join(dir, p.Key, p.TreeSHA256[:16])
	p.staged = staged
	return nil
}

// staleStage is how old a staged copy is when stage takes it for one an
// install left.
const staleStage = 24 * time.Hour

// unstage removes a copy Apply did not move into place.
func (p *Plugin) unstage() {
	if p.staged != "" {
		os.RemoveAll(filepath.Dir(p.staged))
		p.staged = ""
	}
}

// commit moves the staged copy to its place, unless a copy of the same
// tree is there. The caller holds the host's lock.
func (p *Plugin) commit() error {
	if p.staged == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p.Copy), 0o700); err != nil {
		return err
	}
	if err := os.Rename(p.staged, p.Copy); err != nil {
		// An install of the same tree before this one; or a copy damaged
		// since, which this one replaces.
		if d, derr := scriptpin.TreeDigest(p.Copy); derr != nil || d.String() != p.TreeSHA256 {
			if rerr := os.RemoveAll(p.Copy); rerr != nil {
				return rerr
			}
			if err := os.Rename(p.staged, p.Copy); err != nil {
				return err
			}
		}
	}
	p.unstage()
	return nil
}

// readable is where a file of the copy can be read before Apply.
func (p *Plugin) readable(path string) string {
	if rel, err := filepath.Rel(p.Copy, path); err == nil && p.staged != "" && filepath.IsLocal(rel) {
		return filepath.Join(p.staged, rel)
	}
	return path
}

// copyTree copies src into dst (which it makes): directories, regular
// files and links as links, each with its mode exactly (the tree digest
// covers modes), within the bounds of a tree digest; the files in
// replace get those bytes instead.
func copyTree(src, dst string, replace map[string][]byte) error {
	n, total := 0, int64(0)
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if n++; n > scriptpin.MaxTreeEntries {
			return fmt.Errorf("%w: %s has more than %d entries", scriptpin.ErrTree, src, scriptpin.MaxTreeEntries)
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case fi.IsDir():
			if err := os.Mkdir(target, 0o700); err != nil {
				return err
			}
			return os.Chmod(target, fi.Mode().Perm())
		case fi.Mode()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case !fi.Mode().IsRegular():
			return fmt.Errorf("%w: %s is not a regular file, directory or link", scriptpin.ErrTree, p)
		}
		if total += fi.Size(); total > scriptpin.MaxTreeBytes {
			return fmt.Errorf("%w: %s holds more than %d bytes", scriptpin.ErrTree, src, scriptpin.MaxTreeBytes)
		}
		out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return err
		}
		if b, ok := replace[p]; ok {
			_, err = out.Write(b)
		} else {
			err = copyFile(out, p, fi)
		}
		if err = errors.Join(err, out.Close()); err != nil {
			return err
		}
		return os.Chmod(target, fi.Mode().Perm())
	})
}

// copyFile copies the file at p, which fi describes, into out: that file
// still (not another one a link put there since leads to), no more than
// its size.
func copyFile(out io.Writer, p string, fi fs.FileInfo) error {
	in, err := os.Open(p)
	if err != nil {
		return err
	}
	defer in.Close()
	if opened, err := in.Stat(); err != nil || !os.SameFile(fi, opened) {
		return fmt.Errorf("%w: %s changed while it was copied", scriptpin.ErrTree, p)
	}
	n, err := io.Copy(out, io.LimitReader(in, fi.Size()+1))
	if err == nil && n != fi.Size() {
		err = fmt.Errorf("%w: %s changed while it was copied", scriptpin.ErrTree, p)
	}
	return err
}

// removeUnusedCopies deletes the plugin copies of h no record names.
func removeUnusedCopies(stateDir string, h *Target) error {
	recs, err := allRecords(stateDir, h)
	if err != nil {
		return err
	}
	used := map[string]bool{}
	for _, r := range recs {
		used[r.Copy] = true
	}
	copies, _ := filepath.Glob(filepath.Join(pluginsDir(stateDir, h), "*", "*"))
	var errs []error
	for _, c := range copies {
		if rel, _ := filepath.Rel(pluginsDir(stateDir, h), c); strings.HasPrefix(rel, ".") {
			continue // a copy an install is staging
		}
		if !used[c] {
			errs = append(errs, os.RemoveAll(c))
			os.Remove(filepath.Dir(c)) // the plugin's directory, when it is empty
		}
	}
	return errors.Join(errs...)
}

// allRecords reads every record install keeps for h.
func allRecords(stateDir string, h *Target) ([]*record, error) {
	matches := globUnder(filepath.Join(stateDir, "installed", h.Name), filepath.Join("*", recordFile))
	var out []*record
	for _, m := range matches {
		b, err := os.ReadFile(m)
		if err != nil {
			return nil, err
		}
		var rec record
		if err := jsonv2.Unmarshal(b, &rec); err != nil {
			return nil, fmt.Errorf("%s does not read: %w", m, err)
		}
		out = append(out, &rec)
	}
	return out, nil
}

// pluginRecords are the records of plugin hooks files installed at o's
// scope (for this project, at project scope).
func pluginRecords(stateDir string, h *Target, o Options) ([]*record, error) {
	recs, err := allRecords(stateDir, h)
	if err != nil {
		return nil, err
	}
	var out []*record
	for _, r := range recs {
		if r.Plugin != "" && slices.Contains(r.Owners, ownerOf(o)) {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b *record) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// pluginCopyOf is the plugin of a recorded hooks file, its copy read where
// it is (for Check).
func pluginCopyOf(r *record) *Plugin {
	return &Plugin{Key: r.Plugin, Root: r.Root, Copy: r.Copy, TreeSHA256: r.TreeSHA256}
}
