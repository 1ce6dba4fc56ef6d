// Package install rewrites an agent host's own hook configuration (Claude
// Code, Cline, Codex, Cursor, Gemini CLI, GitHub Copilot, Windsurf) so that every command hook runs through
// hook-exec in the host's dialect, in a sandbox, pinned to the bytes its
// owner approved. A command line that is not one script's call becomes a
// pinned shell script of its own. The file's original bytes are kept, and
// Uninstall puts them back byte for byte; Check reports what drifted.
package install

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/internal/engineenv"
	"github.com/hookexec/hook-exec/sandbox"
)

// Settings says whose configuration is rewritten.
type Settings string

const (
	Project Settings = "project" // the project's files; its hooks run at hook scope project
	User    Settings = "user"    // the user's own; its hooks are the owner's
)

// Options say where the configuration and hook-exec are.
type Options struct {
	Settings   Settings
	ProjectDir string // absolute
	Home       string // absolute
	// SystemRoot is where the system's files are (the hosts' files below
	// /etc): "" for /; a test's directory in tests.
	SystemRoot string
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
	// RootOthers are the names in Root's top level that are no part of
	// its digest: the host's hooks files, install's records.
	RootOthers []string
	Args       []string
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
	Host    *Target
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
	// approved: the owner consented to this plan (Approve).
	approved bool
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

// maxFileBytes bounds a configuration file install reads.
const maxFileBytes = 4 << 20

// Prepare reads the host's files at the scope, and its plugins' hooks
// files, and plans each command hook's rewrite. It writes nothing but the
// copies of plugins it stages (Close removes them). A file the host does
// not have is skipped; a file that does not read is an error naming it.
func Prepare(h *Target, o Options) (_ *Plan, err error) {
	if o.Settings != Project && o.Settings != User {
		return nil, fmt.Errorf("scope %q: want project or user", o.Settings)
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
	if p.Opts.Settings == Project {
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
func (h *Target) uncoveredUserPlugins(o Options) ([]*Plugin, error) {
	u := o
	u.Settings = User
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
func plan(h *Target, o Options, f *File) error {
	if h.hookFiles() {
		return h.planHookFile(o, f)
	}
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
func (h *Target) entry(o Options, f *File, sites map[jsontext.Pointer]stringSite, edits map[stringSite][]byte,
	ev, matcher, ptr string, obj map[string]jsontext.Value) {
	var typ string
	if t, ok := obj["type"]; ok && jsonv2.Unmarshal(t, &typ) != nil {
		typ = "?"
	}
	if typ != "" && typ != "command" {
		f.Others = append(f.Others, Other{Pointer: ptr, Event: ev, Why: fmt.Sprintf("type %q: not a command, the host runs it itself", typ)})
		return
	}
	key := h.commandKey(func(k string) bool { _, ok := obj[k]; return ok })
	if key == "" && h.OtherShells != nil {
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			if why, ok := h.OtherShells[k]; ok {
				f.Others = append(f.Others, Other{Pointer: ptr, Event: ev, Why: why})
				return
			}
		}
	}
	hk := Hook{Pointer: ptr + "/" + cmp.Or(key, h.commandKeys()[0]), Event: ev, Matcher: matcher}
	site, ok := sites[jsontext.Pointer(hk.Pointer)]
	if err := jsonv2.Unmarshal(obj[key], &hk.Command); err == nil && h.isCheck(o, f.Path, hk.Command) {
		f.Others = append(f.Others, Other{Pointer: ptr, Event: ev, Why: "hook-exec's own check"})
		return
	}
	if err := jsonv2.Unmarshal(obj[key], &hk.Command); err != nil || !ok {
		hk.Err = errCommand("its %s is not a string", cmp.Or(key, h.commandKeys()[0]))
		f.Hooks = append(f.Hooks, hk)
		return
	}
	hk.Timeout = h.DefaultTimeout
	et, bounded := h.EventTimeouts[ev]
	if bounded {
		hk.Timeout = et.Default
	}
	for _, k := range h.timeoutKeys() {
		t, ok := obj[k]
		if !ok {
			continue
		}
		var n float64
		if jsonv2.Unmarshal(t, &n) != nil || n <= 0 {
			hk.Err = errCommand("%s is not a positive number", k)
			f.Hooks = append(f.Hooks, hk)
			return
		}
		hk.Timeout = time.Duration(n * float64(h.TimeoutUnit))
		break
	}
	if bounded && hk.Timeout > et.Max {
		hk.Timeout = et.Max
	}
	if hk.Env, hk.Err = hookEnv(obj); hk.Err != nil {
		f.Hooks = append(f.Hooks, hk)
		return
	}
	for _, e := range hk.Env {
		if name, value, _ := strings.Cut(e, "="); h.EnvExpands && strings.Contains(value, "$") {
			hk.Err = errCommand("its env's $%s is %q: %s expands the variables in it, which the sandbox would get as written: give the value itself", name, value, h.Product)
			f.Hooks = append(f.Hooks, hk)
			return
		}
	}
	if raw, ok := obj[h.WorkDir]; ok && h.WorkDir != "" {
		var dir string
		if jsonv2.Unmarshal(raw, &dir) != nil || (dir != "." && dir != "" && dir != "./") {
			hk.Err = errCommand("its %s is %s: install runs a hook in the project's root only (leave it out, or \".\")", h.WorkDir, raw)
			f.Hooks = append(f.Hooks, hk)
			return
		}
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
	if hk.Timeout <= minTimeout {
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
func (h *Target) substituted(hk Hook) error {
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
