package registry

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/go-json-experiment/json"

	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/internal/statefile"
)

// ProjectFile is where a workspace keeps its project hooks.
const ProjectFile = ".holaryn/hooks.json"

// Entry is one hook of a snapshot.
type Entry struct {
	Def *Definition
	// ID is the effective id: the definition's, or plugin:<plugin>/<id>.
	ID     string
	Origin Origin
	Plugin string // the plugin's name, for plugin hooks
	// Source is the file the definition came from (empty for a session
	// document given in memory); BaseDir is where its script paths start.
	Source  string
	BaseDir string
	// Disabled says why the hook does not run ("" when it does): the
	// document, `hook disable`, its failure policy, or (Paused) its
	// plugin's content changed since the owner approved it, or its
	// project's since the owner trusted it.
	Disabled string
	Paused   bool
}

// Hook is the entry as the executor runs it (the caller adds what is its
// own: AllowRoots).
func (e *Entry) Hook() hook.Hook { return e.Def.hook(e.ID, e.Origin, e.BaseDir) }

// Version is the definition's content address, computed when asked: a
// boundary that only runs hooks never needs it.
func (e *Entry) Version() (string, error) { return e.Def.Version() }

// Snapshot is the registry as one boundary sees it; it never changes.
type Snapshot struct {
	entries []*Entry
	// Warnings are what a boundary must say although no hook can be
	// listed for it: a changed project document that does not validate.
	Warnings []string
}

// All returns every entry, enabled or not, in run order per point.
func (s *Snapshot) All() []*Entry { return slices.Clone(s.entries) }

// At returns the enabled hooks of point in run order: plugin hooks first
// (by order, then id), then the rest by order, scope precedence, id.
func (s *Snapshot) At(point string) []*Entry {
	var out []*Entry
	for _, e := range s.entries {
		if e.Def.Point == point && e.Disabled == "" {
			out = append(out, e)
		}
	}
	return out
}

// PausedAt returns the hooks of point whose plugin changed since it was
// approved, or whose project since it was trusted: they do not run, and a
// boundary traces each as refused.
func (s *Snapshot) PausedAt(point string) []*Entry {
	var out []*Entry
	for _, e := range s.entries {
		if e.Def.Point == point && e.Paused {
			out = append(out, e)
		}
	}
	return out
}

// Lookup returns the entry with the effective id.
func (s *Snapshot) Lookup(id string) *Entry {
	for _, e := range s.entries {
		if e.ID == id {
			return e
		}
	}
	return nil
}

func runOrder(a, b *Entry) int {
	ap, bp := a.Origin == Plugin, b.Origin == Plugin
	switch {
	case ap && !bp:
		return -1
	case bp && !ap:
		return 1
	}
	return cmp.Or(cmp.Compare(a.Def.Point, b.Def.Point), cmp.Compare(a.Def.Order, b.Def.Order),
		cmp.Compare(precedence[a.Origin], precedence[b.Origin]), cmp.Compare(a.ID, b.ID))
}

// PluginDocument is an enabled plugin's approved hooks document.
type PluginDocument struct {
	Name string
	Dir  string // the installed copy: scripts run from here only
	Doc  []byte
}

// Sources are the documents a boundary's snapshot is taken from.
type Sources struct {
	// StateDir holds global and profile definitions and the switches of
	// `hook enable|disable` and of the disable failure policy.
	StateDir string
	Profile  string
	// Workspace's project document runs when Trusted says the exact bytes
	// of it and of its scripts are trusted (TrustedBy); trusted once and
	// changed since, its hooks are listed paused, never run.
	Workspace string
	Trusted   func(workspace string, doc []byte) ProjectTrust
	// Session is an ephemeral document (scope session); SessionDir is where
	// its script paths start.
	Session    []byte
	SessionDir string
	// Plugins are the approved documents of enabled plugins; Paused those
	// of plugins whose content changed since approval (listed, never run).
	Plugins, Paused []PluginDocument
}

// Take reads every source now and returns the snapshot. A document that
// does not validate fails the whole snapshot with an error naming it: a
// boundary never runs a registry it could not read in full.
func Take(src Sources) (*Snapshot, error) {
	if err := CheckProfile(src.Profile); err != nil {
		return nil, err
	}
	t := &taking{src: src, owner: map[string]*Entry{}}
	if src.StateDir != "" {
		for _, f := range []struct {
			scope Origin
			path  string
		}{{Global, globalFile(src.StateDir)}, {Profile, profileFile(src.StateDir, src.Profile)}} {
			if f.scope == Profile && src.Profile == "" {
				continue
			}
			stored, err := readStored(f.path)
			if err != nil {
				return nil, err
			}
			for _, s := range stored {
				if err := t.add([]*Definition{s.Definition}, f.scope, f.path, s.BaseDir); err != nil {
					return nil, err
				}
			}
		}
	}
	if src.Workspace != "" {
		if err := t.project(); err != nil {
			return nil, err
		}
	}
	if src.Session != nil {
		defs, err := Parse(src.Session)
		if err != nil {
			return nil, fmt.Errorf("session hooks: %w", err)
		}
		if err := t.add(defs, Session, "", src.SessionDir); err != nil {
			return nil, err
		}
	}
	snap := &Snapshot{Warnings: t.warnings}
	for _, e := range t.owner {
		snap.entries = append(snap.entries, e)
	}
	snap.entries = append(snap.entries, t.changed...)
	for i, docs := range [][]PluginDocument{src.Plugins, src.Paused} {
		for _, p := range docs {
			defs, err := ParsePlugin(p.Doc)
			if err != nil {
				return nil, fmt.Errorf("plugin %s: %w", p.Name, err)
			}
			for _, d := range defs {
				e := &Entry{Def: d, ID: "plugin:" + p.Name + "/" + d.ID, Origin: Plugin,
					Plugin: p.Name, Source: filepath.Join(p.Dir, "hooks.json"), BaseDir: p.Dir}
				if i == 1 {
					e.Paused, e.Disabled = true, "paused: plugin "+p.Name+" changed since it was approved"
				}
				snap.entries = append(snap.entries, e)
			}
		}
	}
	var switches Switches
	if src.StateDir != "" {
		if err := statefile.Read(switchesFile(src.StateDir), &switches); err != nil {
			return nil, err
		}
	}
	for _, e := range snap.entries {
		switch {
		case e.Paused:
		case !*e.Def.Enabled:
			e.Disabled = "disabled in its document"
		case switches.Disabled[e.ID] != "":
			e.Disabled = switches.Disabled[e.ID]
		}
	}
	slices.SortFunc(snap.entries, runOrder)
	return snap, nil
}

// taking is a snapshot being taken: the owner's and the project's hooks by
// id (a later source's replaces an earlier's), a changed project's hooks,
// paused, and what the snapshot warns of.
type taking struct {
	src      Sources
	owner    map[string]*Entry
	changed  []*Entry
	warnings []string
}

// add takes defs of a document of scope want from source (base: the
// directory its paths are relative to).
func (t *taking) add(defs []*Definition, want Origin, source, base string) error {
	for _, d := range defs {
		if d.Scope != want {
			return fmt.Errorf("%w: %s: hook %s declares scope %s, but this is a %s document", ErrDocument, sourceName(source), d.ID, d.Scope, want)
		}
		if want == Profile && *d.ScopeKey != t.src.Profile {
			continue // another profile's
		}
		t.owner[d.ID] = &Entry{Def: d, ID: d.ID, Origin: want, Source: source, BaseDir: base}
	}
	return nil
}

// project takes the workspace's project hooks as the owner trusted them:
// trusted, their scripts pinned to the trusted digests; changed since,
// paused.
func (t *taking) project() error {
	src := t.src
	file := filepath.Join(src.Workspace, ProjectFile)
	b, err := os.ReadFile(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("project hooks: %w", err)
	case src.Trusted != nil:
		pt := src.Trusted(src.Workspace, b)
		switch pt.State {
		case Trusted:
			defs, err := Parse(b)
			if err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
			var kept []*Definition
			for _, d := range defs {
				if d.Handler.Kind == KindScript {
					d.Handler.SHA256 = pt.Scripts[d.Handler.Script] // re-checked at launch
				}
				// A project hook replaces an owner's of the same id only
				// where it did when the owner trusted it: a guard the
				// owner adds later is never taken over.
				if e := t.owner[d.ID]; e != nil && !slices.Contains(pt.Replaces, d.ID) {
					t.warnings = append(t.warnings, fmt.Sprintf("project hook %s of %s does not run: it would replace your %s hook %s, which it did not when you trusted the project: review it, then hook-exec hook trust %s",
						d.ID, src.Workspace, e.Origin, d.ID, src.Workspace))
					continue
				}
				kept = append(kept, d)
			}
			if err := t.add(kept, Project, file, src.Workspace); err != nil {
				return err
			}
		case Changed:
			why := "paused: the project's hooks changed since they were trusted: review them, then hook-exec hook trust " + src.Workspace
			defs, err := Parse(b)
			if err != nil {
				t.warnings = append(t.warnings, fmt.Sprintf("%s changed since it was trusted and does not validate: none of its hooks run (%v)", file, err))
			}
			for _, d := range defs {
				t.changed = append(t.changed, &Entry{Def: d, ID: d.ID, Origin: Project, Source: file, BaseDir: src.Workspace, Paused: true, Disabled: why})
			}
		}
	}
	return nil
}

func sourceName(s string) string {
	if s == "" {
		return "session document"
	}
	return s
}

// ParsePlugin reads a plugin's hooks document: bare ids, scope left out
// (or "plugin"); the ids are namespaced when the snapshot is taken.
func ParsePlugin(b []byte) ([]*Definition, error) {
	return parse(b, Plugin)
}

// Digest is the SHA-256 of a document's bytes, as trust binds it.
func Digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// stored is a definition kept in the state directory, with the directory
// its script paths start from (where the document was added from).
type stored struct {
	BaseDir    string      `json:"base_dir"`
	Definition *Definition `json:"definition"`
}

func globalFile(stateDir string) string { return filepath.Join(stateDir, "hooks", "global.json") }

func profileFile(stateDir, profile string) string {
	return filepath.Join(stateDir, "hooks", "profiles", profile+".json")
}

func switchesFile(stateDir string) string { return filepath.Join(stateDir, "hooks", "switches.json") }

func readStored(path string) ([]stored, error) {
	var s []stored
	if err := statefile.Read(path, &s); err != nil {
		return nil, err
	}
	for _, d := range s {
		if d.Definition == nil {
			return nil, fmt.Errorf("%s: an entry without a definition", path)
		}
		if err := d.Definition.Validate(); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return s, nil
}

// Switches are the hooks turned off outside their documents, by effective
// id, with the reason.
type Switches struct {
	Disabled map[string]string `json:"disabled"`
}

// Change is what a registry change did, with content-addressed versions
// ("" where there was none).
type Change struct {
	ID       string
	Scope    Origin
	Previous string
	Current  string
}

func (c Change) String() string {
	prev, cur := cmp.Or(c.Previous, "none"), cmp.Or(c.Current, "none")
	return fmt.Sprintf("hook %s (%s): %s -> %s", c.ID, c.Scope, prev, cur)
}

// Add stores definitions of scope global, or profile (scope_key names the
// profile), whose scripts start at baseDir. A definition with an id already
// stored in its scope replaces it.
func Add(stateDir string, defs []*Definition, baseDir string) ([]Change, error) {
	var changes []Change
	for _, d := range defs {
		var path string
		switch d.Scope {
		case Global:
			path = globalFile(stateDir)
		case Profile:
			if err := CheckProfile(*d.ScopeKey); err != nil || *d.ScopeKey == "" {
				return nil, fmt.Errorf("%w: hook %s: a profile definition needs a valid profile id: %v", ErrDocument, d.ID, err)
			}
			path = profileFile(stateDir, *d.ScopeKey)
		default:
			return nil, fmt.Errorf("%w: hook %s has scope %s: only global and profile hooks are stored (project hooks live in %s, session hooks are given per call)", ErrDocument, d.ID, d.Scope, ProjectFile)
		}
		if err := d.Validate(); err != nil {
			return nil, fmt.Errorf("hook %s: %w", d.ID, err)
		}
		current, err := d.Version()
		if err != nil {
			return nil, err
		}
		err = statefile.Update(path, func(s *[]stored) error {
			c := Change{ID: d.ID, Scope: d.Scope, Current: current}
			i := slices.IndexFunc(*s, func(x stored) bool { return x.Definition.ID == d.ID })
			if i >= 0 {
				c.Previous = storedVersion((*s)[i].Definition)
				(*s)[i] = stored{BaseDir: baseDir, Definition: d}
			} else {
				*s = append(*s, stored{BaseDir: baseDir, Definition: d})
			}
			changes = append(changes, c)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return changes, nil
}

// storedVersion is the version a change reports for the definition it
// replaces or removes: one broken by hand in the state file has none, and
// is replaced or removed all the same.
func storedVersion(d *Definition) string {
	v, _ := d.Version()
	return v
}

// ErrNoHook: no stored definition has the id.
var ErrNoHook = errors.New("no such hook")

// Remove deletes the stored global (or, with profile, profile) definition.
func Remove(stateDir, profile, id string) (Change, error) {
	if err := CheckProfile(profile); err != nil {
		return Change{}, err
	}
	path, scope := globalFile(stateDir), Global
	if profile != "" {
		path, scope = profileFile(stateDir, profile), Profile
	}
	c := Change{ID: id, Scope: scope}
	err := statefile.Update(path, func(s *[]stored) error {
		i := slices.IndexFunc(*s, func(x stored) bool { return x.Definition.ID == id })
		if i < 0 {
			return fmt.Errorf("%w: %s has no %s hook %q", ErrNoHook, path, scope, id)
		}
		c.Previous = storedVersion((*s)[i].Definition)
		*s = slices.Delete(*s, i, i+1)
		return nil
	})
	return c, err
}

// SetDisabled turns a hook off (reason non-empty) or back on, by effective
// id, from the next boundary on.
func SetDisabled(stateDir, id, reason string) error {
	return statefile.Update(switchesFile(stateDir), func(s *Switches) error {
		if s.Disabled == nil {
			s.Disabled = map[string]string{}
		}
		if reason == "" {
			delete(s.Disabled, id)
		} else {
			s.Disabled[id] = reason
		}
		return nil
	})
}

// Normalize returns a document's canonical project form: the validated
// definitions, defaults filled in, as an indented list.
func Normalize(defs []*Definition) ([]byte, error) {
	b, err := json.Marshal(defs, json.Deterministic(true), jsonIndent)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// ReadSwitches reads the hooks turned off outside their documents.
func ReadSwitches(stateDir string, s *Switches) error {
	return statefile.Read(switchesFile(stateDir), s)
}
