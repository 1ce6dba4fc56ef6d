// Package install rewrites an agent host's own hook configuration (Claude
// Code, Cursor, Gemini CLI) so that every command hook runs through
// hook-exec in the host's dialect, in a sandbox, pinned to the bytes its
// owner approved. A command line that is not one script's call becomes a
// pinned shell script of its own. The file's original bytes are kept, and
// Uninstall puts them back byte for byte; Check reports what drifted.
package install

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/gofrs/flock"

	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/internal/engineenv"
	"github.com/hookexec/hook-exec/internal/shellsyntax"
	"github.com/hookexec/hook-exec/internal/statefile"
	"github.com/hookexec/hook-exec/launcher"
	"github.com/hookexec/hook-exec/sandbox"
	"github.com/hookexec/hook-exec/scriptpin"
)

// Host is what install knows of one host's hook configuration.
type Host struct {
	Name    string
	Dialect hook.Dialect
	// Product is the host as a person calls it (Claude, Cursor, Gemini CLI).
	Product string
	// ProjectFiles are relative to the project directory, UserFiles to
	// the home directory: where the host reads its hooks, in its order.
	ProjectFiles, UserFiles []string
	// Comments: the host reads its file as JSON with comments.
	Comments bool
	// Grouped: hooks.<event> holds matcher groups each with a "hooks"
	// list (Claude Code, Gemini CLI); otherwise the event's list holds
	// the hooks themselves (Cursor).
	Grouped bool
	// ProjectVars are the variables the host sets to the project directory
	// in a hook's environment (its own first); a command may name them.
	ProjectVars []string
	// Workspace is the word a rewritten command gives --workspace: the
	// project directory as the host hands it to its hooks.
	Workspace string
	// UserBase is the directory (below home) the host runs the user's
	// hooks in, "" when it runs them in the project: a relative script
	// path there is each project's, which install refuses.
	UserBase string
	// TimeoutUnit is the unit of a hook's "timeout"; DefaultTimeout the
	// host's bound when a hook gives none.
	TimeoutUnit, DefaultTimeout time.Duration
	// FailClosed names the member that has the host refuse the action
	// when the command itself fails (Cursor's failClosed): hook-exec
	// answers every failure of the hook, but not its own end (killed at
	// the host's timeout, its binary gone), which the host would read as
	// an allow. Install sets it on a hook that does not say.
	FailClosed string
	// Plugins: the host's installed plugins carry hooks of their own
	// (Claude Code's), installed with the configuration's.
	Plugins bool
	// Substitutes are the variables the host replaces in a command's text
	// before its shell reads it (Gemini CLI's, shell-quoted): one inside a
	// word install quotes would end the quoting.
	Substitutes []string
	// Elsewhere are the other places the host reads hooks from that
	// install does not rewrite (skills, extensions, another host's files):
	// Check names their hooks as running outside the sandbox.
	Elsewhere []source
	// EditEvents are the events that follow an edit and name its file: a
	// formatter there may rewrite that file.
	EditEvents []string
	// DotEnv are the files of a project (relative to it) whose variables
	// the host loads into its own environment, which its hooks inherit
	// (Gemini CLI's .env files), besides the settings' "env" member.
	DotEnv []string
	// CheckEvent is the event at which install adds a hook of its own
	// (Claude's SessionStart): `install --session-start`, which tells the
	// person, in the host's words, of each hook the host would run outside
	// the sandbox (a plugin installed since, a hook added since).
	CheckEvent string
}

// Hosts are the hosts install speaks, by name.
var Hosts = map[string]*Host{
	"claude": {
		Name: "claude", Dialect: hook.Claude, Product: "Claude",
		ProjectFiles: []string{".claude/settings.json", ".claude/settings.local.json"},
		UserFiles:    []string{".claude/settings.json"},
		Grouped:      true, ProjectVars: []string{"CLAUDE_PROJECT_DIR"}, Workspace: `"$CLAUDE_PROJECT_DIR"`,
		TimeoutUnit: time.Second, DefaultTimeout: 60 * time.Second,
		Plugins: true, CheckEvent: "SessionStart", EditEvents: []string{"PostToolUse"},
		Elsewhere: []source{{Glob: ".claude/skills/*/SKILL.md"}, {Glob: ".claude/agents/*.md"},
			{Glob: ".claude/skills/*/SKILL.md", User: true}, {Glob: ".claude/agents/*.md", User: true}},
	},
	// Cursor runs a project's hooks in its root and the user's in
	// ~/.cursor; its default timeout is not documented (60 s measured by
	// others: a 75 s hook was killed).
	"cursor": {
		Name: "cursor", Dialect: hook.Cursor, Product: "Cursor",
		ProjectFiles: []string{".cursor/hooks.json"},
		UserFiles:    []string{".cursor/hooks.json"},
		ProjectVars:  []string{"CURSOR_PROJECT_DIR", "CLAUDE_PROJECT_DIR"}, Workspace: `"$CURSOR_PROJECT_DIR"`,
		UserBase:    ".cursor",
		TimeoutUnit: time.Second, DefaultTimeout: 60 * time.Second,
		FailClosed: "failClosed", EditEvents: []string{"afterFileEdit", "afterTabFileEdit", "postToolUse"},
		// Cursor runs Claude Code's hooks too when its third-party hooks
		// are on.
		Elsewhere: []source{{Glob: ".claude/settings.json", As: "claude"}, {Glob: ".claude/settings.local.json", As: "claude"},
			{Glob: ".claude/settings.json", User: true, As: "claude"}},
	},
	// Gemini CLI reads its settings as JSON with comments, runs a command
	// with bash -c, and replaces the bare word $GEMINI_PROJECT_DIR in it
	// with the directory, shell-quoted, before bash sees it (so it is not
	// quoted again here).
	"gemini": {
		Name: "gemini", Dialect: hook.Gemini, Product: "Gemini CLI",
		ProjectFiles: []string{".gemini/settings.json"},
		UserFiles:    []string{".gemini/settings.json"},
		Comments:     true, Grouped: true,
		ProjectVars: []string{"GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR"}, Workspace: "$GEMINI_PROJECT_DIR",
		DotEnv: []string{".gemini/.env", ".env"}, Substitutes: []string{"GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR"},
		Elsewhere:   []source{{Glob: ".gemini/extensions/*/hooks/hooks.json", User: true, As: "gemini"}},
		TimeoutUnit: time.Millisecond, DefaultTimeout: 60 * time.Second,
	},
}

// HostNames lists the hosts install speaks.
func HostNames() []string {
	names := make([]string, 0, len(Hosts))
	for n := range Hosts {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Scope says whose configuration is rewritten.
type Scope string

const (
	Project Scope = "project" // the project's files; its hooks run at hook scope project
	User    Scope = "user"    // the user's own; its hooks are the owner's
)

// Options say where the configuration and hook-exec are.
type Options struct {
	Scope      Scope
	ProjectDir string // absolute
	Home       string // absolute
	StateDir   string // hook-exec's state directory: originals and inline scripts
	// Front is the absolute path of hook-exec's front, which a rewritten
	// hook runs (never a name a PATH finds: the host's may lack it, or a
	// project's settings may put another first); RunFlags go after its
	// "run" (--state-dir, when not the default).
	Front    string
	RunFlags []string
	// Writable are paths of the project (hook.CheckWritable's: a file, or
	// a directory with a trailing slash) every installed hook may write, on
	// top of what install finds each one writes: a loosening the person
	// names at install (a hook's failure says which).
	Writable []string
	// ProjectImage is the image the project's own hooks run in when Image
	// is "": its devcontainer's (DevcontainerImage), when the engine has
	// it and it runs them. Never a plugin's or the user's hooks: a
	// project's image must not answer for the user's own guards.
	ProjectImage string
	// Image is the image every installed hook runs in ("" for the
	// reference image of its language): a project's own, with its
	// toolchain (prettier, ruff, go).
	Image string
	// Repository: check only the project's own files, as a repository's CI
	// has them (no user's files, plugins or local records).
	Repository bool
	// Engine is what the installed hooks run on: the installing user's
	// pinned values (engineenv), written to the state directory, which
	// installed commands read instead of the environment the host hands
	// them (--sealed).
	Engine map[string]string
}

// Hook is one command hook of a file and what install makes of it.
type Hook struct {
	Pointer string // JSON pointer of its command in the file
	Event   string
	Matcher string
	Command string // as the owner wrote it
	// Script is the file it runs (absolute), pinned to SHA256; for an
	// inline command, the pinned script install writes of its line.
	Script string
	Inline bool
	// Root is the directory the script reads its neighbours from (the
	// host's hooks directory holding it, else its own), pinned whole to
	// RootSHA256: "" when it is too large to pin (the script then runs
	// without them).
	Root, RootSHA256 string
	Args             []string
	// Env are the hook's own "env" values (Gemini CLI's), NAME=VALUE in
	// name order: declared to its sandbox, shown and digested as part of
	// its command.
	Env    []string
	SHA256 string
	// Body is an inline script's bytes (written by Apply).
	Body []byte
	// Transcript: the script reads the host's transcript (its bytes name
	// it), which the sandbox then gets, read-only.
	Transcript bool
	// Writable are the files of the project the script keeps its state
	// in (its bytes name them): each may be rewritten from the sandbox.
	Writable []string
	// Formats: the script rewrites the file it is given (a formatter:
	// gofmt -w, prettier --write, sed -i) at an event that follows an
	// edit: it may rewrite the file that event names, and no other.
	Formats bool
	// PluginData: a plugin's script names its data directory
	// (${CLAUDE_PLUGIN_DATA}), which it then gets, read-write.
	PluginData bool
	// TmpData: the script keeps something in /tmp it finds again at its
	// next run (a counter, a warned-once marker): its /tmp is then kept,
	// in hook-exec's state (TmpDir shows where).
	TmpData bool
	TmpDir  string
	Timeout time.Duration
	// Installed is the command written in its place.
	Installed string
	// Note says what the owner should know of an installable hook.
	Note string
	// Err says why it cannot be installed; nothing of the plan is then
	// written.
	Err error
	// was is the JSON text of the command Installed replaces, added the
	// member install sets beside it (Cursor's failClosed): what undo
	// puts back.
	was, added string
}

// Other is an entry of the host's hooks install leaves as the host runs
// it, and why.
type Other struct {
	Pointer, Event, Why string
}

// File is one configuration file's plan.
type File struct {
	Path string
	// Target is the file Apply writes: Path with its links resolved (a
	// settings file kept in a dotfiles checkout), never out of the project
	// (or, for the user's files, the home directory).
	Target string
	// Original is what the file held before any install (what Uninstall
	// restores); Rewritten what Apply writes.
	Original, Rewritten []byte
	// Reinstall: the file holds an earlier install's rewrite of Original;
	// Committed: as its record committed beside it says (this machine has
	// none of its own: a teammate's clone).
	Reinstall, Committed bool
	// Edited: the file was edited since that install (Claude adds the
	// plugins it enables, the permissions a person allows): Original is
	// the file as it is without install's rewrites, and the edits stay.
	Edited bool
	// Plugin is the plugin whose hooks file this is, nil for a settings
	// file.
	Plugin *Plugin
	Hooks  []Hook
	Others []Other
	// Check is the command of install's own hook, added to this file at
	// the host's CheckEvent; checkAdded the member it added for it
	// ("hooks", the event's name, or "" when the event was there).
	Check      string
	checkAdded string
	// seen is the digest of the bytes Prepare read: Apply replaces only
	// those (an edit made while the plan was shown is not lost).
	seen string
}

// Plan is what install would do, and the digest of what the owner
// approves by applying it. Close removes what it staged and Apply did not
// take.
type Plan struct {
	Host    *Host
	Opts    Options
	Files   []*File
	Plugins []*Plugin
	// UserPlugins are the plugins installed for the user (Claude's
	// default scope) whose hooks no install of the user's covers: a
	// project's install leaves them running outside the sandbox.
	UserPlugins []string
	// UserCheck is the user's settings file with install's own hook added,
	// when the plan's files do not hold it (Apply writes it unrecorded);
	// NoCheck says why install adds no hook of its own.
	UserCheck *File
	NoCheck   string
	Digest    string
}

// Close removes the plugin copies Prepare staged and Apply did not move
// into place.
func (p *Plan) Close() {
	for _, pl := range p.Plugins {
		pl.unstage()
	}
}

// Err joins every hook's reason it cannot be installed. Apply installs
// the others and leaves these as the host runs them (the plan names them,
// and check after it).
func (p *Plan) Err() error {
	var errs []error
	for _, f := range p.Files {
		for _, h := range f.Hooks {
			if h.Err != nil {
				errs = append(errs, fmt.Errorf("%s %s: %w", f.Path, h.Pointer, h.Err))
			}
		}
	}
	return errors.Join(errs...)
}

// installs reports whether Apply writes f.
func (f *File) installs() bool { return f.installable() > 0 || f.Check != "" }

// installable is the number of f's hooks install rewrites.
func (f *File) installable() int {
	n := 0
	for _, h := range f.Hooks {
		if h.Err == nil {
			n++
		}
	}
	return n
}

// Count is the number of command hooks the plan installs.
func (p *Plan) Count() int {
	n := 0
	for _, f := range p.Files {
		n += f.installable()
	}
	return n
}

// Files of a host at a scope, absolute.
func (h *Host) files(o Options) []string {
	rel := h.ProjectFiles
	if o.Scope == User {
		rel = h.UserFiles
	}
	var out []string
	for _, r := range rel {
		out = append(out, filepath.Join(h.base(o), r))
	}
	return out
}

// base is the directory a scope's files are in, and whose links stay in
// it: the project, or the home directory.
func (h *Host) base(o Options) string {
	if o.Scope == User {
		return o.Home
	}
	return o.ProjectDir
}

// ErrLinkOut: a host's file is a link (or lies behind one) that leads out
// of the project, or of the home directory for the user's files: install
// would rewrite the file it leads to, another project's hooks or the
// user's own, to run this project's scripts.
var ErrLinkOut = errors.New("a link out of its directory")

// within is path with its links resolved; ErrLinkOut when they lead out
// of base. A path that does not resolve is itself.
func within(path, base string) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return path, nil
	}
	rb, err := filepath.EvalSymlinks(base)
	if err != nil {
		return "", err
	}
	if rel, err := filepath.Rel(rb, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s: %w: it leads to %s, outside %s: refused (install would rewrite that file)", path, ErrLinkOut, real, base)
	}
	return real, nil
}

// maxFileBytes bounds a configuration file install reads.
const maxFileBytes = 4 << 20

// Prepare reads the host's files at the scope, and its plugins' hooks
// files, and plans each command hook's rewrite. It writes nothing but the
// copies of plugins it stages (Close removes them). A file the host does
// not have is skipped; a file that does not read is an error naming it.
func Prepare(h *Host, o Options) (_ *Plan, err error) {
	if o.Scope != Project && o.Scope != User {
		return nil, fmt.Errorf("scope %q: want project or user", o.Scope)
	}
	// A file read between another install's record and its rewrite, or
	// a plugin tree copied as its hooks file is replaced, is half of it.
	unlock, err := lockHost(o.StateDir, h)
	if err != nil {
		return nil, err
	}
	defer unlock()
	p := &Plan{Host: h, Opts: o}
	defer func() {
		if err != nil {
			p.Close()
		}
	}()
	for _, path := range h.files(o) {
		cur, err := readFile(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		target, err := within(path, h.base(o))
		if err != nil {
			return nil, err
		}
		if err := h.projectEnv(o, path, cur); err != nil {
			return nil, err
		}
		f := &File{Path: path, Target: target, Original: cur, seen: digestOf(cur)}
		rec, err := loadRecord(o.StateDir, h, path)
		if err != nil {
			return nil, err
		}
		if rec != nil {
			f.Original, f.Reinstall, f.Committed = rec.original, true, rec.committed
			if digestOf(cur) != rec.InstalledSHA256 {
				if f.Original, err = undo(h, cur, rec); err != nil {
					return nil, fmt.Errorf("%s changed since hook-exec installed its hooks, and %v: `hook-exec uninstall %s%s --force` restores the file as it was before (dropping the later edits unless you make them again), then install again", path, err, h.Name, scopeFlag(o))
				}
				f.Edited = true
			}
		}
		if err := plan(h, o, f); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		p.Files = append(p.Files, f)
	}
	if err := h.projectEnv(o, "", nil); err != nil {
		return nil, err
	}
	if h.Plugins {
		if err := p.preparePlugins(); err != nil {
			return nil, err
		}
	}
	if h.CheckEvent != "" {
		if err := p.addCheck(); err != nil {
			return nil, err
		}
	}
	p.Digest = p.digest()
	return p, nil
}

// preparePlugins stages each plugin's copy and plans its hooks files. A
// file Claude rewrote since an earlier install (the plugin updated in
// place) is planned from what it holds now.
func (p *Plan) preparePlugins() error {
	plugins, err := claudePlugins(p.Opts)
	if err != nil {
		return err
	}
	if p.Opts.Scope == Project {
		mine, err := p.Host.uncoveredUserPlugins(p.Opts)
		if err != nil {
			return err
		}
		for _, pl := range mine {
			p.UserPlugins = append(p.UserPlugins, pl.Key)
		}
	}
	for _, pl := range plugins {
		var files []*File
		originals := map[string][]byte{}
		for _, path := range pl.Files {
			cur, err := readFile(path)
			if err != nil {
				return fmt.Errorf("plugin %s: %w", pl.Key, err)
			}
			f := &File{Path: path, Original: cur, Plugin: pl, seen: digestOf(cur)}
			rec, err := loadRecord(p.Opts.StateDir, p.Host, path)
			if err != nil {
				return err
			}
			if rec != nil && digestOf(cur) == rec.InstalledSHA256 {
				f.Original, f.Reinstall = rec.original, true
			}
			originals[path] = f.Original
			files = append(files, f)
		}
		if err := pl.stage(p.Opts.StateDir, p.Host, originals); err != nil {
			return err
		}
		p.Plugins = append(p.Plugins, pl)
		for _, f := range files {
			if err := plan(p.Host, p.Opts, f); err != nil {
				return fmt.Errorf("plugin %s: %s: %w", pl.Key, f.Path, err)
			}
			p.Files = append(p.Files, f)
		}
	}
	return nil
}

// uncoveredUserPlugins are the plugins installed for the user (Claude's
// default scope) whose hooks no install of the user's covers.
func (h *Host) uncoveredUserPlugins(o Options) ([]*Plugin, error) {
	u := o
	u.Scope = User
	mine, err := claudePlugins(u)
	if err != nil {
		return nil, err
	}
	var out []*Plugin
	for _, pl := range mine {
		for _, path := range pl.Files {
			if rec, err := loadRecord(o.StateDir, h, path); err != nil || rec == nil || !slices.Contains(rec.Owners, ownerOf(u)) {
				out = append(out, pl)
				break
			}
		}
	}
	return out, nil
}

// digest covers what the owner approves: each hook's place, its command as
// written, when it runs (its matcher) and for how long, and the digest of
// the script it runs.
func (p *Plan) digest() string {
	s := sha256.New()
	for _, f := range p.Files {
		if f.Plugin != nil {
			fmt.Fprintf(s, "plugin %s\x00%s\n", f.Plugin.Key, f.Plugin.TreeSHA256)
		}
		for _, h := range f.Hooks {
			fmt.Fprintf(s, "%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00env\x00%s\x00formats %v\x00root %s\n", f.Path, h.Pointer, h.Command, h.Matcher, h.Timeout, h.SHA256, strings.Join(h.Args, "\x00"), strings.Join(h.Env, "\x00"), h.Formats, h.RootSHA256)
			if len(h.Writable) > 0 { // absent, a plan's digest is what it was before writes were found
				fmt.Fprintf(s, "writable\x00%s\n", strings.Join(h.Writable, "\x00"))
			}
			if h.TmpData {
				fmt.Fprintf(s, "tmp-data\n")
			}
		}
		if f.Check != "" {
			fmt.Fprintf(s, "check %s\n", f.Path)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(p.Opts.Engine)) {
		fmt.Fprintf(s, "engine %s=%s\n", k, p.Opts.Engine[k])
	}
	fmt.Fprintf(s, "image %s\n", p.Opts.Image)
	if p.Opts.ProjectImage != "" {
		fmt.Fprintf(s, "project image %s\n", p.Opts.ProjectImage)
	}
	return hex.EncodeToString(s.Sum(nil))
}

// plan reads f.Original as the host does and fills f's hooks and rewrite.
func plan(h *Host, o Options, f *File) error {
	doc := f.Original
	if h.Comments {
		var err error
		if doc, err = blankComments(doc); err != nil {
			return err
		}
	}
	sites, err := stringSites(doc)
	if err != nil {
		return err
	}
	f.Rewritten = f.Original
	var top map[string]jsontext.Value
	if err := jsonv2.Unmarshal(doc, &top); err != nil {
		return fmt.Errorf("%w: %w", ErrSyntax, err)
	}
	if top == nil {
		return fmt.Errorf("%w: not a JSON object", ErrSyntax)
	}
	raw, ok := top["hooks"]
	if !ok {
		return nil
	}
	var events map[string][]map[string]jsontext.Value
	if err := jsonv2.Unmarshal(raw, &events); err != nil {
		return fmt.Errorf("%w: hooks: %w", ErrSyntax, err)
	}
	evNames := make([]string, 0, len(events))
	for ev := range events {
		evNames = append(evNames, ev)
	}
	slices.Sort(evNames)
	edits := map[stringSite][]byte{}
	for _, ev := range evNames {
		for i, entry := range events[ev] {
			ptr := "/hooks/" + escapePointer(ev) + "/" + strconv.Itoa(i)
			if !h.Grouped {
				var matcher string
				if m, ok := entry["matcher"]; ok && jsonv2.Unmarshal(m, &matcher) != nil {
					matcher = "?"
				}
				h.entry(o, f, sites, edits, ev, matcher, ptr, entry)
				continue
			}
			var matcher string
			if m, ok := entry["matcher"]; ok && jsonv2.Unmarshal(m, &matcher) != nil {
				return fmt.Errorf("%w: %s/matcher is not a string", ErrSyntax, ptr)
			}
			var list []map[string]jsontext.Value
			if err := jsonv2.Unmarshal(entry["hooks"], &list); err != nil {
				return fmt.Errorf("%w: %s/hooks: %w", ErrSyntax, ptr, err)
			}
			for j, hk := range list {
				h.entry(o, f, sites, edits, ev, matcher, ptr+"/hooks/"+strconv.Itoa(j), hk)
			}
		}
	}
	if len(edits) == 0 {
		return nil
	}
	f.Rewritten = splice(f.Original, edits)
	return nil
}

// entry plans one hook object at ptr.
func (h *Host) entry(o Options, f *File, sites map[jsontext.Pointer]stringSite, edits map[stringSite][]byte,
	ev, matcher, ptr string, obj map[string]jsontext.Value) {
	var typ string
	if t, ok := obj["type"]; ok && jsonv2.Unmarshal(t, &typ) != nil {
		typ = "?"
	}
	if typ != "" && typ != "command" {
		f.Others = append(f.Others, Other{Pointer: ptr, Event: ev, Why: fmt.Sprintf("type %q: not a command, the host runs it itself", typ)})
		return
	}
	hk := Hook{Pointer: ptr + "/command", Event: ev, Matcher: matcher}
	site, ok := sites[jsontext.Pointer(hk.Pointer)]
	if err := jsonv2.Unmarshal(obj["command"], &hk.Command); err == nil && h.isCheck(o, f.Path, hk.Command) {
		f.Others = append(f.Others, Other{Pointer: ptr, Event: ev, Why: "hook-exec's own check"})
		return
	}
	if err := jsonv2.Unmarshal(obj["command"], &hk.Command); err != nil || !ok {
		hk.Err = errCommand("its command is not a string")
		f.Hooks = append(f.Hooks, hk)
		return
	}
	hk.Timeout = h.DefaultTimeout
	if t, ok := obj["timeout"]; ok {
		var n float64
		if jsonv2.Unmarshal(t, &n) != nil || n <= 0 {
			hk.Err = errCommand("timeout is not a positive number")
			f.Hooks = append(f.Hooks, hk)
			return
		}
		hk.Timeout = time.Duration(n * float64(h.TimeoutUnit))
	}
	if hk.Env, hk.Err = hookEnv(obj); hk.Err != nil {
		f.Hooks = append(f.Hooks, hk)
		return
	}
	hk.Err = h.pin(o, f, &hk)
	if hk.Err == nil {
		hk.Err = h.substituted(hk)
	}
	if len(hk.Writable) > 0 {
		hk.Note = "it may write these in the project (a copy, what it leaves goes back; a directory: every file in it), and nothing else there: " + strings.Join(hk.Writable, ", ")
	}
	if hk.Formats {
		hk.Note = strings.TrimPrefix(hk.Note+"; ", "; ") + "a formatter: it may rewrite the file the event names, when that file is in the project, and nothing else there"
	}
	if hk.TmpData && hk.Err == nil {
		// A plugin's hook that gets its data directory runs as root for
		// root, and keeps a /tmp of its own (as the run reckons it).
		hk.TmpDir = hook.TmpDataDir(o.StateDir, tmpTree(o, f, &hk), hk.PluginData && os.Getuid() == 0)
		hk.Note = strings.TrimPrefix(hk.Note+"; ", "; ") + "it keeps state in /tmp between its runs: its /tmp is kept for it (and the other hooks of its " + tmpOwner(o, f) + ") in " + hk.TmpDir
	}
	if hk.Timeout < minTimeout {
		hk.Note = strings.TrimPrefix(hk.Note+"; ", "; ") + fmt.Sprintf("its timeout, %v (%s reads it in %s), is shorter than a sandbox takes to start: a call that runs out of it is refused, as a guard that did not answer", hk.Timeout, h.Name, unitName(h.TimeoutUnit))
	}
	if hk.Err == nil {
		hk.Installed = h.command(o, f, &hk)
		hk.was = string(f.Original[site.Start:site.End])
		edit, _ := jsontext.AppendQuote(nil, hk.Installed)
		if h.FailClosed != "" {
			if v, said := obj[h.FailClosed]; !said {
				// Beside the command: `"command": "...", "failClosed": true`.
				edit = fmt.Appendf(edit, ", %q: true", h.FailClosed)
				hk.added = h.FailClosed
			} else if v.Kind() != 't' {
				hk.Note = strings.TrimPrefix(hk.Note+"; ", "; ") + fmt.Sprintf("%s is not true: if hook-exec itself is killed (the host's timeout), the host lets the action through", h.FailClosed)
			}
		}
		edits[site] = edit
	}
	f.Hooks = append(f.Hooks, hk)
}

// substituted refuses a hook whose words (its arguments, env values,
// script path) name a variable the host replaces in the command's text:
// the installed command quotes them, and the host's replacement, quoted
// by itself, would end that quoting.
func (h *Host) substituted(hk Hook) error {
	words := append(append([]string{hk.Script}, hk.Args...), hk.Env...)
	for _, v := range h.Substitutes {
		for _, w := range words {
			if strings.Contains(w, "$"+v) {
				return errCommand("%q names $%s, which %s replaces in the command's text before its shell reads it: give it another way", w, v, h.Name)
			}
		}
	}
	return nil
}

// hookEnv is a hook's own "env" object (Gemini CLI merges it into the
// command's environment) as the --env values its sandbox is declared, in
// name order. A name that would steer hook-exec or what runs before it
// (engineenv.Steers), or that looks like a secret, which no sandbox is
// given, is refused: the host would hand it to hook-exec, not the hook.
func hookEnv(obj map[string]jsontext.Value) ([]string, error) {
	raw, ok := obj["env"]
	if !ok {
		return nil, nil
	}
	var env map[string]string
	if err := jsonv2.Unmarshal(raw, &env); err != nil {
		return nil, errCommand("its env is not an object of strings")
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(env)) {
		if engineenv.Steers(k) || engineenv.Chooses(k) {
			return nil, errCommand("its env sets $%s, which would steer hook-exec itself (its engine, state or programs) or what the shell runs first: a hook may not set it", k)
		}
		// What run takes of a declared value, and only that: a valid name
		// (never bash's BASH_FUNC_x%% functions), no secret, nothing
		// that loads code.
		if err := sandbox.CheckName(k, hook.VarPrefixes()...); err != nil {
			return nil, errCommand("its env: %w", err)
		}
		if strings.ContainsRune(env[k], 0) {
			return nil, errCommand("its env's $%s holds a NUL", k)
		}
		out = append(out, k+"="+env[k])
	}
	return out, nil
}

// pin finds what hk's command runs and its digest.
func (h *Host) pin(o Options, f *File, hk *Hook) error {
	if strings.TrimSpace(hk.Command) == "" {
		return errCommand("its command is empty")
	}
	vars := map[string]string{"HOME": o.Home}
	for _, v := range h.ProjectVars {
		if o.Scope == Project {
			vars[v] = o.ProjectDir
		} else if strings.Contains(hk.Command, v) {
			return errCommand("it names $%s, a different directory in each project: install it in the project (hook-exec install %s, without --user)", v, h.Name)
		}
	}
	if f.Plugin != nil {
		// Claude puts the plugin's directory in place of the variable; the
		// hook runs the approved copy's.
		vars["CLAUDE_PLUGIN_ROOT"] = f.Plugin.Copy
	}
	c := parseCall(hk.Command, vars, o.Home)
	if c == nil {
		// The line is the hook: a bash script of its own, as the host's
		// shell would run it (and the image with the programs such lines
		// call: jq, grep, sed).
		hk.Inline = true
		hk.Body = []byte("#!/bin/bash\n" + hk.Command + "\n")
		hk.Transcript = readsTranscript(hk.Body)
		hk.Writable = granted(o, slices.DeleteFunc(append(stateFiles(hk.Body), projectWrites(launcher.Shell, hk.Body)...),
			func(w string) bool { return !fitsProject(o.ProjectDir, w) }))
		hk.Formats = h.formats(hk.Event, hk.Body)
		hk.PluginData = f.Plugin != nil && bytes.Contains(hk.Body, []byte(pluginDataVar))
		hk.TmpData = keepsTmp(launcher.Shell, hk.Body)
		sum := sha256.Sum256(hk.Body)
		hk.SHA256 = hex.EncodeToString(sum[:])
		hk.Script = filepath.Join(recordDir(o.StateDir, h, f.Path), "inline-"+hk.SHA256[:16]+".sh")
		if committed(o, f) {
			// Beside the file, committed with it: a teammate's clone runs it.
			hk.Script = filepath.Join(sideDir(f.Path), "inline-"+hk.SHA256[:16]+".sh")
		}
		return nil
	}
	path := c.Path
	if !filepath.IsAbs(path) {
		switch {
		case o.Scope == Project:
			path = filepath.Join(o.ProjectDir, path)
		case h.UserBase != "":
			path = filepath.Join(o.Home, h.UserBase, path)
		default:
			return errCommand("script %q is relative: the host runs it from each project's directory; give its full path", path)
		}
	}
	read := path
	if f.Plugin != nil {
		read = f.Plugin.readable(path)
	}
	s, err := scriptpin.ReadShebang(filepath.Dir(read), filepath.Base(read))
	if err != nil {
		return errCommand("script %s: %w", path, err)
	}
	if c.Interp != "" && !interpMatches(c.Interp, s) {
		return errCommand("it runs %s under %s, but the script's name and #! line say %s: name it for its language (.py, .js, .sh) or give it a #! line", path, c.Interp, s.Lang)
	}
	if err := h.runnable(s); err != nil {
		return errCommand("script %s: %w", path, err)
	}
	hk.Script, hk.Args, hk.SHA256 = path, c.Args, s.SHA256.String()
	hk.Writable = append(stateFiles(s.Bytes), projectWrites(s.Lang, s.Bytes)...)
	if f.Plugin == nil {
		h.pinRoot(o, f, hk)
	}
	hk.Writable = granted(o, slices.DeleteFunc(hk.Writable, func(w string) bool { return !fitsProject(o.ProjectDir, w) }))
	hk.Transcript = readsTranscript(s.Bytes)
	hk.Formats = h.formats(hk.Event, s.Bytes)
	hk.PluginData = f.Plugin != nil && (bytes.Contains(s.Bytes, []byte(pluginDataVar)) || strings.Contains(hk.Command, pluginDataVar))
	hk.TmpData = hk.TmpData || keepsTmp(s.Lang, s.Bytes)
	return nil
}

// Bounds of a script's tree install pins whole: a hook's kit, not a
// project.
const (
	maxRootFiles = 256
	maxRootBytes = 8 << 20
)

// pinRoot pins the directory hk's script reads its neighbours from: the
// hooks directory beside the host's file (.claude/hooks) when the script
// is in it, else the script's own directory; never the project or the
// home directory itself, nor a tree past the bounds (said in a note).
func (h *Host) pinRoot(o Options, f *File, hk *Hook) {
	root := filepath.Dir(hk.Script)
	if kit := filepath.Join(filepath.Dir(f.Path), "hooks"); strings.HasPrefix(hk.Script, kit+string(filepath.Separator)) {
		root = kit
	}
	if root == filepath.Clean(o.ProjectDir) || root == filepath.Clean(o.Home) || root == filepath.Dir(root) {
		return
	}
	files, bytes := 0, int64(0)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != root && scriptpin.Written(d.Name(), d.IsDir()) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if files++; files > maxRootFiles {
			return errRootTooLarge
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if info.Mode().IsRegular() {
			if bytes += info.Size(); bytes > maxRootBytes {
				return errRootTooLarge
			}
		}
		// The sandbox's user (not the owner) reads the tree where it is:
		// a private file there would fail the hook that runs beside it,
		// which its private copy of the script alone does not.
		if need := fs.FileMode(0o004); info.Mode().IsRegular() && info.Mode().Perm()&need == 0 || d.IsDir() && info.Mode().Perm()&0o005 != 0o005 {
			return fmt.Errorf("%s is not readable by others, as the sandbox's user reads it", p)
		}
		return nil
	})
	var d scriptpin.Digest
	if err == nil {
		d, err = scriptpin.ScriptTreeDigest(root)
	}
	if err != nil {
		hk.Note = strings.TrimPrefix(hk.Note+"; ", "; ") + fmt.Sprintf("its directory %s is not pinned whole (%v): the script runs without the files beside it", root, err)
		return
	}
	hk.Root, hk.RootSHA256 = root, d.String()
	// What the files it sources or imports write is its writing too (a
	// kit's lib/log.sh): those of the tree its script names (lib/log.sh,
	// "import hook_utils"), not its sibling hooks', which would cost each
	// hook its pooled sandbox for what another writes.
	script, _ := os.ReadFile(hk.Script)
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || p == hk.Script {
			return nil
		}
		lang := map[string]launcher.Lang{".sh": launcher.Shell, ".bash": launcher.Shell, ".py": launcher.Python, ".js": launcher.Node, ".mjs": launcher.Node, ".cjs": launcher.Node}[filepath.Ext(p)]
		stem := strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))
		if len(stem) < 3 || !strings.Contains(string(script), stem) {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil && lang != "" {
			hk.TmpData = hk.TmpData || keepsTmp(lang, b)
			for _, w := range projectWrites(lang, b) {
				if !slices.Contains(hk.Writable, w) {
					hk.Writable = append(hk.Writable, w)
				}
			}
		}
		return nil
	})
}

var errRootTooLarge = fmt.Errorf("more than %d files or %d bytes", maxRootFiles, maxRootBytes)

// runnable says why a sandbox would refuse s at every call, as the
// executor reads it: a shell its launcher does not run (#!/usr/bin/env
// fish), syntax that shell lacks.
func (h *Host) runnable(s *scriptpin.Script) error {
	if s.Lang != launcher.Shell {
		return nil
	}
	shell := "sh"
	if h.Dialect.Host().Sandbox().Shebang {
		name, _, err := launcher.HostShell(s.Path, s.Bytes)
		if err != nil {
			return err
		}
		shell = cmp.Or(name, shell)
	}
	return shellsyntax.Check(s.Bytes, shell)
}

// statePattern finds the files of a project a hook keeps its own state in:
// the hosts' directories' *.local.* files (Claude Code's name for a
// person's own, uncommitted files, such as ralph-wiggum's
// .claude/ralph-loop.local.md), relative or under the project's variable,
// never their settings.
var statePattern = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./-]|PROJECT_DIR\}?"?/)(\.(?:claude|cursor|gemini)/[A-Za-z0-9_-][A-Za-z0-9._-]*\.local\.[A-Za-z0-9]+)\b`)

// stateFiles are the state files a script's bytes name, in order.
func stateFiles(b []byte) []string {
	var out []string
	for _, m := range statePattern.FindAllSubmatch(b, -1) {
		rel := string(m[1])
		// Case-folded: on macOS and Windows, Settings.local.json is the settings.
		if !strings.HasPrefix(strings.ToLower(filepath.Base(rel)), "settings.") && !slices.Contains(out, rel) {
			out = append(out, rel)
		}
	}
	return out
}

// formatter finds a command that rewrites the files it is given in
// place: the formatters hooks run after an edit.
var formatter = regexp.MustCompile(`\b(?:gofmt|goimports|gofumpt)\s[^\n|;&]*-w\b|\bgo\s+fmt\b|--write\b|\bsed\s+(?:-[a-zA-Z]*\s+)*-i|\bsed\s+-[a-zA-Z]*i|\bruff\s+(?:format|check\s[^\n|;&]*--fix)|\bblack\b|\bisort\b|\bautopep8\s[^\n|;&]*-i|\brustfmt\b|\bcargo\s+fmt\b|\bclang-format\s[^\n|;&]*-i|\bshfmt\s[^\n|;&]*-w|\bterraform\s+fmt\b|\bdprint\s+fmt\b|--fix\b|\bmix\s+format\b|\bswiftformat\b|\bktlint\s[^\n|;&]*-F`)

// formats reports whether a hook at event runs a formatter on what an
// edit left (the host's edit events: Claude Code's PostToolUse, Cursor's
// afterFileEdit, Gemini CLI's AfterTool).
func (h *Host) formats(event string, b []byte) bool {
	return slices.Contains(h.EditEvents, event) && formatter.Match(b)
}

// readsTranscript reports whether a script names the host's transcript
// (transcript_path, CURSOR_TRANSCRIPT_PATH): a Stop hook that checks what
// was said, such as Claude Code's ralph-wiggum, reads it.
func readsTranscript(b []byte) bool {
	return bytes.Contains(bytes.ToLower(b), []byte("transcript"))
}

// interpMatches reports whether the interpreter a command names is the one
// hook-exec's launcher picks for s.
func interpMatches(interp string, s *scriptpin.Script) bool {
	switch string(s.Lang) {
	case "py":
		return strings.HasPrefix(interp, "python")
	case "js":
		return interp == "node"
	case "sh":
		return interp == "sh" || interp == "bash" || interp == "dash"
	}
	return false
}

// imageFor is the image f's hooks run in: Image, else the project's own
// for the project's own files; "" for the reference images.
func imageFor(o Options, f *File) string {
	if o.Image == "" && o.Scope == Project && f.Plugin == nil {
		return o.ProjectImage
	}
	return o.Image
}

// minTimeout is the shortest host timeout install takes without a word:
// below it, a sandbox's start (a fraction of a second on a fast engine,
// more on a slow one) leaves the hook little or nothing of it.
const minTimeout = time.Second

// unitName names a host's timeout unit.
func unitName(u time.Duration) string {
	if u == time.Millisecond {
		return "milliseconds"
	}
	return "seconds"
}

// margin is how much sooner than the host hook-exec ends a run: the host
// reads a hook it had to kill as a non-blocking error (an allow), so the
// failure policy's answer must reach it first.
const margin = 2 * time.Second

// command is the hook-exec line that replaces hk's.
func (h *Host) command(o Options, f *File, hk *Hook) string {
	scope, id := "project", h.Name+":"+hk.Event+":"+hookIndex(hk.Pointer)
	if o.Scope == User {
		scope = "owner"
	}
	if f.Plugin != nil {
		scope, id = "plugin", h.Name+":"+f.Plugin.Key+":"+hk.Event+":"+hookIndex(hk.Pointer)
	}
	timeout := hk.Timeout - margin
	if hk.Timeout < 2*margin {
		timeout = hk.Timeout / 2
	}
	words := []string{"run", engineenv.Flag}
	words = append(words, o.RunFlags...)
	words = append(words, "--dialect", string(h.Dialect), "--scope", scope,
		"--hook-id", id,
		"--script", scriptMark, "--sha256", hk.SHA256, "--timeout", timeout.String(),
		"--approve-with", "hook-exec install "+h.Name+scopeFlag(o))
	if f.Plugin != nil {
		words = append(words, "--plugin-root", f.Plugin.Copy, "--plugin-root-sha256", f.Plugin.TreeSHA256)
	}
	if hk.Root != "" {
		words = append(words, "--script-root", rootMark, "--script-root-sha256", hk.RootSHA256)
	}
	if image := imageFor(o, f); image != "" {
		words = append(words, "--image", image)
	}
	if hk.Transcript {
		words = append(words, "--transcript")
	}
	for _, w := range hk.Writable {
		words = append(words, "--writable", w)
	}
	if hk.Formats {
		words = append(words, "--writable-edited-file")
	}
	if hk.TmpData {
		words = append(words, "--tmp-data")
	}
	for _, e := range hk.Env {
		words = append(words, "--env", e)
	}
	for _, a := range hk.Args {
		words = append(words, "--arg", a)
	}
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		switch w {
		case scriptMark:
			b.WriteString(h.pathWord(o, f, hk.Script))
			continue
		case rootMark:
			b.WriteString(h.pathWord(o, f, hk.Root))
			continue
		}
		b.WriteString(quote(w))
	}
	if hk.PluginData {
		// The directory Claude gives the plugin's hooks, as it gives it.
		b.WriteString(` --plugin-data "$` + pluginDataVar + `"`)
	}
	// The project the host names, mounted read-only: hooks read it.
	b.WriteString(" --workspace " + h.Workspace)
	return guarded(frontWord(o, f), b.String(), h.missingFront(o, hk))
}

// scriptMark and rootMark stand for the script's and its tree's words
// while the command is built.
const (
	scriptMark = "\x00script"
	rootMark   = "\x00root"
)

// committed reports whether what install writes into f is committed with
// the project (a team shares the file): a project's own settings, not a
// plugin's hooks file, which is the user's. Its commands name no path of
// this machine, its inline scripts live beside it, and so does what
// uninstall needs (sideFile).
func committed(o Options, f *File) bool { return o.Scope == Project && f.Plugin == nil }

// pathWord is path as an installed command names it: in a committed file,
// through the host's project variable when the path is in the project
// (each clone's own), else as it is.
func (h *Host) pathWord(o Options, f *File, path string) string {
	if committed(o, f) {
		if rel, err := filepath.Rel(o.ProjectDir, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return h.Workspace + quote("/"+filepath.ToSlash(rel))
		}
	}
	return quote(path)
}

// frontWord is how an installed command finds hook-exec: the user's own
// file names this machine's front by its absolute path; a committed file
// the hook-exec of whoever runs it, on the host's PATH or else where
// `go install` puts it, never a path of the installing machine.
func frontWord(o Options, f *File) string {
	if committed(o, f) {
		return `$(command -v hook-exec || echo "$HOME/go/bin/hook-exec")`
	}
	return quote(o.Front)
}

func scopeFlag(o Options) string {
	if o.Scope == User {
		return " --user"
	}
	return ""
}

// hookIndex is the part of a command's pointer after /hooks/EVENT/.
func hookIndex(ptr string) string {
	parts := strings.Split(strings.TrimSuffix(ptr, "/command"), "/")
	var idx []string
	for _, p := range parts[3:] {
		if p != "hooks" {
			idx = append(idx, p)
		}
	}
	return strings.Join(idx, ".")
}

func escapePointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// Apply writes the plan: the inline scripts, each file's original (kept
// once, before its first install) and the rewritten file, replaced
// atomically with its mode kept. It refuses a plan with a hook it cannot
// install: nothing is written then.
func (p *Plan) Apply() error {
	if p.Count() == 0 && p.Err() != nil {
		return p.Err()
	}
	unlock, err := lockHost(p.Opts.StateDir, p.Host)
	if err != nil {
		return err
	}
	defer unlock()
	for _, f := range p.Files {
		if !f.installs() {
			continue
		}
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
	}
	return syncUserCheck(p.Host, p.Opts)
}

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
func Uninstall(h *Host, o Options, force bool) ([]Restored, error) {
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
func (h *Host) installedFiles(o Options) ([]string, error) {
	paths := h.files(o)
	if !h.Plugins {
		return paths, nil
	}
	recs, err := pluginRecords(o.StateDir, h, o)
	for _, r := range recs {
		paths = append(paths, r.Path)
	}
	return paths, err
}

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
func Check(h *Host, o Options) (installed int, drifts []Drift, err error) {
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
func Inspect(h *Host, o Options) (*Report, error) {
	r := &Report{}
	installed, drifts, err := r.check(h, o)
	r.Installed, r.Drifts = installed, drifts
	return r, err
}

func (r *Report) check(h *Host, o Options) (installed int, drifts []Drift, err error) {
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
		rec, err := loadRecord(o.StateDir, h, path)
		if err != nil {
			return 0, nil, err
		}
		if rec == nil {
			drifts = append(drifts, h.notInstalled(o, path)...)
			continue
		}
		if o.Repository && !rec.committed {
			// What this machine recorded is not the repository's.
			if rec, err = sideRecord(h, path); err != nil {
				return 0, nil, err
			}
			if rec == nil {
				drifts = append(drifts, h.notInstalled(o, path)...)
				continue
			}
		}
		installed++
		cur, err := readFile(path)
		if err != nil {
			drifts = append(drifts, Drift{Path: path, What: err.Error()})
			continue
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
			drifts = append(drifts, Drift{Path: path, What: fmt.Sprintf("its original no longer reads: %v", err)})
			continue
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
	}
	if o.Scope == Project && !o.Repository {
		// The user's own hooks run in the project's sessions too.
		u := o
		u.Scope = User
		for _, path := range h.files(u) {
			if rec, err := loadRecord(o.StateDir, h, path); err == nil && rec == nil {
				drifts = append(drifts, h.notInstalled(u, path)...)
			}
		}
	}
	if o.Scope == Project {
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
		path := filepath.Join(o.Home, h.UserFiles[0])
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
		// A plugin installed or updated since (Claude keeps each version in
		// a directory of its own) runs its hooks as Claude does: outside;
		// at a project, one installed for the user too (what /plugin
		// install does by default): the project's sessions run its hooks.
		scopes := []Options{o}
		if o.Scope == Project {
			u := o
			u.Scope = User
			scopes = append(scopes, u)
		}
		for _, so := range scopes {
			plugins, err := claudePlugins(so)
			if err != nil {
				return installed, drifts, err
			}
			mine := ""
			if so.Scope != o.Scope {
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
	}
	return installed, drifts, nil
}

// fileIs reports whether the file at path holds exactly b.
func fileIs(path string, b []byte) bool {
	got, err := os.ReadFile(path)
	return err == nil && bytes.Equal(got, b)
}

// What install keeps of a file: its original bytes and the record.
const (
	originalFile = "original"
	recordFile   = "installed.json"
)

type record struct {
	Path            string `json:"path"`
	OriginalSHA256  string `json:"original_sha256"`
	InstalledSHA256 string `json:"installed_sha256"`
	// A plugin's hooks file: the plugin, where Claude keeps it, the
	// approved copy its hooks run, and whose install it is.
	Plugin     string  `json:"plugin,omitzero"`
	Root       string  `json:"root,omitzero"`
	Copy       string  `json:"copy,omitzero"`
	TreeSHA256 string  `json:"tree_sha256,omitzero"`
	Owners     []Owner `json:"owners,omitzero"`
	// Rewrites are the commands install wrote, for undo.
	Rewrites []rewrite `json:"rewrites,omitzero"`
	// Inline are the inline scripts install wrote beside a committed file
	// (their names in its sideDir): uninstall removes them.
	Inline   []string `json:"inline,omitzero"`
	original []byte
	// committed: read from the file's side record (sideFile) on a machine
	// that has no record of its own (a teammate's clone).
	committed bool
}

// rewrite is one command install wrote: the JSON text it replaced, and
// the member it set beside it.
type rewrite struct {
	Installed string `json:"installed"`
	Was       string `json:"was,omitzero"`
	Added     string `json:"added,omitzero"`
	// Check: the hook install added of its own (Was is empty; Added the
	// outermost member it added for it).
	Check bool `json:"check,omitzero"`
}

// Owner is an install of a plugin's hooks file: the user's, or a
// project's, from the home directory whose plugins it read (one state
// directory may serve several: root's under sudo -E, a test's).
type Owner struct {
	Scope   Scope  `json:"scope"`
	Project string `json:"project,omitzero"`
	Home    string `json:"home"`
}

func ownerOf(o Options) Owner {
	home := filepath.Clean(o.Home) // $HOME as given may end in a slash
	if o.Scope == Project {
		return Owner{Scope: Project, Project: o.ProjectDir, Home: home}
	}
	return Owner{Scope: User, Home: home}
}

// save writes the record again with these owners.
func (r *record) save(stateDir string, h *Host, owners []Owner) error {
	r.Owners = owners
	b, err := jsonv2.Marshal(r)
	if err != nil {
		return err
	}
	return statefile.WriteFile(filepath.Join(recordDir(stateDir, h, r.Path), recordFile), b, 0o600)
}

// recordDir is where install keeps what it knows of the file at path.
func recordDir(stateDir string, h *Host, path string) string {
	sum := sha256.Sum256([]byte(path))
	return filepath.Join(stateDir, "installed", h.Name, hex.EncodeToString(sum[:8]))
}

// lockHost holds h's files and what install keeps of them against other
// installs and uninstalls of h, of any project: the plugin copies and
// their hooks files are shared, and an uninstall deletes the copies no
// record names, which a copy is between Apply's move of it and the
// record naming it.
func lockHost(stateDir string, h *Host) (unlock func(), err error) {
	dir := filepath.Join(stateDir, "installed", h.Name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	l := flock.New(filepath.Join(dir, ".lock"), flock.SetPermissions(0o600))
	if err := l.Lock(); err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	return func() { l.Unlock() }, nil
}

// loadRecord is the record of path's install, nil when none: this
// machine's, else the one committed beside the file (sideRecord).
func loadRecord(stateDir string, h *Host, path string) (*record, error) {
	dir := recordDir(stateDir, h, path)
	b, err := os.ReadFile(filepath.Join(dir, recordFile))
	if errors.Is(err, os.ErrNotExist) {
		return sideRecord(h, path)
	}
	if err != nil {
		return nil, err
	}
	var rec record
	if err := jsonv2.Unmarshal(b, &rec); err != nil || rec.Path != path {
		return nil, fmt.Errorf("%s: the record of %s's install does not read", dir, path)
	}
	if rec.original, err = os.ReadFile(filepath.Join(dir, originalFile)); err != nil {
		return nil, err
	}
	if digestOf(rec.original) != rec.OriginalSHA256 {
		return nil, fmt.Errorf("%s: the kept original of %s is not what install kept", dir, path)
	}
	if rec.Plugin == "" {
		if err := rec.mergeSide(); err != nil {
			return nil, err
		}
	}
	return &rec, nil
}

// replace writes a host's file atomically; a settings file kept behind a
// link (a dotfiles checkout) is replaced where it is (follow), and the link
// stays. A plugin's file is never reached through a link.
func replace(path string, b []byte, perm os.FileMode, follow bool) error {
	if real, err := filepath.EvalSymlinks(path); err == nil && follow {
		path = real
	}
	return statefile.WriteFile(path, b, perm)
}

func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() || info.Size() > maxFileBytes {
		return nil, fmt.Errorf("%s: not a regular file of at most %d bytes", path, maxFileBytes)
	}
	b := make([]byte, info.Size())
	_, err = f.ReadAt(b, 0)
	if err != nil && info.Size() > 0 {
		return nil, err
	}
	return b, nil
}

func digestOf(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// tmpTree is the tree a run keys hk's kept /tmp by (hook.Hook.TmpDataTree,
// for the command install writes): the plugin's approved copy, the
// project, else the script's pinned tree or its directory.
func tmpTree(o Options, f *File, hk *Hook) string {
	switch {
	case f.Plugin != nil:
		return f.Plugin.Copy
	case o.Scope == Project:
		return o.ProjectDir
	case hk.Root != "":
		return hk.Root
	}
	return filepath.Dir(hk.Script)
}

// tmpOwner names who shares a kept /tmp, as tmpTree keys it.
func tmpOwner(o Options, f *File) string {
	switch {
	case f.Plugin != nil:
		return "plugin"
	case o.Scope == Project:
		return "project"
	}
	return "directory"
}
