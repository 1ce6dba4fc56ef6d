// Package plugin installs plugins into hook-exec's state directory, checks
// their hooks against the plugin rules, and keeps the owner's consent: a
// plugin's hooks are inert until the owner approved exactly their content
// (the hooks digest over hooks.json and every script it names), and they
// pause again when that content changes.
package plugin

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hookexec/hook-exec/host/registry"
	"github.com/hookexec/hook-exec/internal/shellsyntax"
	"github.com/hookexec/hook-exec/internal/statefile"
	"github.com/hookexec/hook-exec/scriptpin"
)

// Files of a plugin's directory.
const (
	ManifestFile = "holaryn-plugin.toml"
	HooksFile    = "hooks.json"
)

var (
	// ErrManifest: the plugin's manifest is missing or does not read.
	ErrManifest = errors.New("invalid plugin manifest")
	// ErrRule: the hooks document breaks a plugin rule; it is not loaded.
	ErrRule = errors.New("plugin hooks not loaded")
	// ErrChanged: the content is no longer what the given digest approved.
	ErrChanged = errors.New("changed since shown")
	// ErrNotInstalled: no installed plugin has the name.
	ErrNotInstalled = errors.New("no such plugin")
)

// State is a plugin's consent state.
type State string

const (
	Pending  State = "pending"  // never approved
	Approved State = "approved" // enabled, and its content is what was approved
	Changed  State = "changed"  // approved once; the content changed since
	Disabled State = "disabled" // turned off by the owner
	// NotLoaded: its hooks document breaks a rule; nothing of it can run or
	// be approved until the author fixes it.
	NotLoaded State = "not-loaded"
)

// Limits of what install copies.
const (
	maxFiles     = 256
	maxFileBytes = 1 << 20
)

func pluginsDir(stateDir string) string { return filepath.Join(stateDir, "plugins") }

// Dir is where an installed plugin's copy lives: scripts run from here only.
func Dir(stateDir, name string) string { return filepath.Join(pluginsDir(stateDir), name) }

func stateFile(stateDir string) string { return filepath.Join(stateDir, "plugins-state.json") }

// record is one plugin's consent.
type record struct {
	Enabled bool `json:"enabled"`
	// ApprovedDigest is the hooks digest the owner approved ("" never).
	ApprovedDigest string `json:"approved_digest,omitzero"`
}

type stateDoc struct {
	Plugins map[string]record `json:"plugins"`
}

// Install copies the plugin in src (its manifest names it) into the state
// directory, replacing an earlier copy of the same name; the consent
// record stays, so changed hooks show as changed. Links and anything but
// regular files and directories are refused. It returns the name and what
// loading its hooks says now.
func Install(stateDir, src string) (string, *Info, error) {
	name, err := ReadManifest(filepath.Join(src, ManifestFile))
	if err != nil {
		return "", nil, err
	}
	dst := Dir(stateDir, name)
	if err := os.MkdirAll(pluginsDir(stateDir), 0o700); err != nil {
		return "", nil, err
	}
	tmp, err := os.MkdirTemp(pluginsDir(stateDir), "."+name+".install-")
	if err != nil {
		return "", nil, err
	}
	defer os.RemoveAll(tmp) // after the rename: nothing
	if err := copyTree(src, tmp); err != nil {
		return "", nil, err
	}
	old := dst + ".old"
	os.RemoveAll(old)
	if err := os.Rename(dst, old); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", nil, err
	}
	if err := os.Rename(tmp, dst); err != nil {
		os.Rename(old, dst) // the earlier copy back: nothing is lost
		return "", nil, err
	}
	os.RemoveAll(old)
	info, err := Inspect(stateDir, name)
	return name, info, err
}

func copyTree(src, dst string) error {
	n := 0
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			if rel == "." {
				return nil
			}
			return os.Mkdir(target, 0o700)
		case !d.Type().IsRegular():
			return fmt.Errorf("%w: %s is not a regular file or directory (links are not copied)", ErrRule, rel)
		}
		if n++; n > maxFiles {
			return fmt.Errorf("%w: more than %d files", ErrRule, maxFiles)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if len(b) > maxFileBytes {
			return fmt.Errorf("%w: %s is larger than %d bytes", ErrRule, rel, maxFileBytes)
		}
		return os.WriteFile(target, b, 0o600)
	})
}

// Info is an installed plugin as `plugin inspect` shows it.
type Info struct {
	Name  string
	Dir   string
	State State
	// Digest is the hooks digest of the content now ("" when not loaded).
	Digest         string
	ApprovedDigest string
	Hooks          []*registry.Definition
	// Scripts are the per-script SHA-256s read now.
	Scripts map[string]string
	// Problem says why the hooks are not loaded.
	Problem error
}

// Inspect loads an installed plugin's hooks, applying every plugin rule,
// and reports its state.
func Inspect(stateDir, name string) (*Info, error) {
	dir := Dir(stateDir, name)
	if _, err := os.Stat(filepath.Join(dir, ManifestFile)); err != nil {
		return nil, fmt.Errorf("%w: %q is not installed in %s", ErrNotInstalled, name, pluginsDir(stateDir))
	}
	var doc stateDoc
	if err := statefile.Read(stateFile(stateDir), &doc); err != nil {
		return nil, err
	}
	rec := doc.Plugins[name]
	info := &Info{Name: name, Dir: dir, ApprovedDigest: rec.ApprovedDigest}
	hooks, digest, scripts, err := load(dir)
	if err != nil {
		info.State, info.Problem = NotLoaded, err
		return info, nil
	}
	info.Hooks, info.Digest, info.Scripts = hooks, digest, scripts
	switch {
	case rec.ApprovedDigest == "":
		info.State = Pending
	case !rec.Enabled:
		info.State = Disabled
	case rec.ApprovedDigest != digest:
		info.State = Changed
	default:
		info.State = Approved
	}
	return info, nil
}

// load reads hooks.json and its scripts under the plugin rules.
func load(dir string) ([]*registry.Definition, string, map[string]string, error) {
	b, err := os.ReadFile(filepath.Join(dir, HooksFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil, fmt.Errorf("%w: no %s beside %s", ErrRule, HooksFile, ManifestFile)
	}
	if err != nil {
		return nil, "", nil, err
	}
	hooks, err := registry.ParsePlugin(b)
	if err != nil {
		return nil, "", nil, fmt.Errorf("%w: %w", ErrRule, err)
	}
	for _, h := range hooks {
		if err := checkRules(h); err != nil {
			return nil, "", nil, err
		}
	}
	d, per, err := scriptpin.HooksDigest(dir, b)
	if err != nil {
		return nil, "", nil, fmt.Errorf("%w: %w", ErrRule, err)
	}
	scripts := map[string]string{}
	for p, s := range per {
		scripts[p] = s.String()
		// A plugin's .sh runs under sh: what sh cannot run is refused now,
		// at consent, naming the line, not at every call.
		if filepath.Ext(p) == ".sh" {
			body, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
			if err == nil {
				err = shellsyntax.Check(body, "sh")
			}
			if err != nil {
				return nil, "", nil, fmt.Errorf("%w: %s: %w", ErrRule, p, err)
			}
		}
	}
	return hooks, d.String(), scripts, nil
}

// checkRules applies the rules of consent beyond what a run refuses
// (registry.ParsePlugin applied those): what runs is pinned by the owner's
// approval and runs on the session's image, so the document names neither.
func checkRules(d *registry.Definition) error {
	bad := func(rule, instead string) error {
		return fmt.Errorf("%w: hook %s: %s; %s", ErrRule, d.ID, rule, instead)
	}
	h := d.Handler
	if h.Image != "" {
		return bad("plugin hooks run on the session's isolated backend image", "leave out handler.image")
	}
	if h.SHA256 != "" {
		return bad("a plugin hook's script is pinned by consent, not by the document", "leave out handler.sha256")
	}
	return nil
}

// Enable records consent to the content whose hooks digest is digest and
// turns the plugin on. It refuses when the content no longer has that
// digest (ErrChanged, with the digest now) or its hooks are not loaded.
func Enable(stateDir, name, digest string) (*Info, error) {
	info, err := Inspect(stateDir, name)
	if err != nil {
		return nil, err
	}
	if info.State == NotLoaded {
		return info, info.Problem
	}
	if digest != info.Digest {
		return info, fmt.Errorf("%w: plugin %s's hooks digest is now %s, not %s: inspect it again", ErrChanged, name, info.Digest, digest)
	}
	err = statefile.Update(stateFile(stateDir), func(doc *stateDoc) error {
		if doc.Plugins == nil {
			doc.Plugins = map[string]record{}
		}
		doc.Plugins[name] = record{Enabled: true, ApprovedDigest: digest}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return Inspect(stateDir, name)
}

// Disable turns the plugin off; its consent record stays.
func Disable(stateDir, name string) error {
	if _, err := Inspect(stateDir, name); err != nil {
		return err
	}
	return statefile.Update(stateFile(stateDir), func(doc *stateDoc) error {
		if doc.Plugins == nil {
			doc.Plugins = map[string]record{}
		}
		r := doc.Plugins[name]
		r.Enabled = false
		doc.Plugins[name] = r
		return nil
	})
}

// List inspects every installed plugin, by name.
func List(stateDir string) ([]*Info, error) {
	entries, err := os.ReadDir(pluginsDir(stateDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []*Info
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") || strings.HasSuffix(e.Name(), ".old") {
			continue
		}
		info, err := Inspect(stateDir, e.Name())
		if err != nil {
			return nil, err
		}
		out = append(out, info)
	}
	slices.SortFunc(out, func(a, b *Info) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// Sources reads every plugin now (at a boundary): the approved ones as
// registry documents whose scripts are pinned to the bytes read now (the
// launch re-checks them), and the hooks of plugins whose content changed
// since approval as paused.
func Sources(stateDir string) (approved, paused []registry.PluginDocument, err error) {
	all, err := List(stateDir)
	if err != nil {
		return nil, nil, err
	}
	for _, info := range all {
		switch info.State {
		case Approved:
			doc, err := pinned(info)
			if err != nil {
				return nil, nil, err
			}
			approved = append(approved, registry.PluginDocument{Name: info.Name, Dir: info.Dir, Doc: doc})
		case Changed:
			doc, err := pinned(info)
			if err != nil {
				return nil, nil, err
			}
			paused = append(paused, registry.PluginDocument{Name: info.Name, Dir: info.Dir, Doc: doc})
		}
	}
	return approved, paused, nil
}

// pinned is the plugin's hooks as a document whose script handlers carry
// the SHA-256 read at this boundary.
func pinned(info *Info) ([]byte, error) {
	var defs []*registry.Definition
	for _, d := range info.Hooks {
		c := *d
		c.Scope = "" // a plugin document declares none
		if c.Handler.Kind == registry.KindScript {
			c.Handler.SHA256 = info.Scripts[c.Handler.Script]
		}
		defs = append(defs, &c)
	}
	return registry.Normalize(defs)
}
