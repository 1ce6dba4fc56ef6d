package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hookexec/hook-exec/backend/engine"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/host/install"
	"github.com/hookexec/hook-exec/internal/engineenv"
	"github.com/hookexec/hook-exec/launcher"
	"github.com/hookexec/hook-exec/scriptpin"
)

// installOptions are the flags install and uninstall share.
type installOptions struct {
	user    bool
	project string
}

func (o *installOptions) flags(c *cobra.Command) {
	c.Flags().BoolVar(&o.user, "user", false, "the user's own settings (in the home directory) instead of the project's")
	c.Flags().StringVar(&o.project, "project", "", "the project `DIR` (default: the working directory)")
	markPaths(c, "project")
}

// resolve is the options of the package call: where the files are, and
// the hook-exec command line the rewritten hooks run.
func (o *installOptions) resolve(g *globals, stateDir string) (*install.Options, error) {
	opts := &install.Options{Scope: install.Project, StateDir: stateDir}
	if o.user {
		opts.Scope = install.User
	}
	var err error
	if opts.Home, err = os.UserHomeDir(); err != nil {
		return nil, usageError("no home directory: %v", err)
	}
	dir := o.project
	if dir == "" {
		dir = "."
	}
	if opts.ProjectDir, err = filepath.Abs(dir); err != nil {
		return nil, usageError("--project: %v", err)
	}
	if opts.Front, err = frontPath(); err != nil {
		return nil, failure(err)
	}
	// An installed command is sealed: it takes the state directory from
	// its own words, else the default of the user's home as the password
	// database has it, never from the host's environment.
	if u, err := user.Current(); err != nil || filepath.Clean(stateDir) != engineenv.DefaultStateDir(u.HomeDir) {
		opts.RunFlags = []string{"--state-dir", stateDir}
	}
	return opts, nil
}

// frontPath is the absolute path of hook-exec's front beside this core:
// how the user's own files, and install's own hook, name it (a project's
// committed file finds each machine's on its PATH).
func frontPath() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return "", err
	}
	front := filepath.Join(filepath.Dir(exe), "hook-exec")
	if _, err := os.Stat(front); err != nil {
		return "", fmt.Errorf("no hook-exec beside %s: hooks run through the front", exe)
	}
	return front, nil
}

func hostArg(args []string) (*install.Host, error) {
	h, ok := install.Hosts[args[0]]
	if !ok {
		return nil, usageError("host %q: want %s", args[0], strings.Join(install.HostNames(), ", "))
	}
	return h, nil
}

func newInstallCmd(g *globals, io stdio) *cobra.Command {
	var o installOptions
	var dryRun, check, yes, sessionStart, trust, ci bool
	var image string
	var writable []string
	var digest string
	c := &cobra.Command{
		Use:   "install HOST [--user] [--image IMAGE] [--writable REL]... [--dry-run | --check | --yes [--digest D]]",
		Short: "Run a host's own hooks (Claude Code, Cursor, Gemini CLI) through hook-exec, sandboxed and pinned",
		Long: `Rewrite the command hooks of a host's configuration so that each runs
through 'hook-exec run' in the host's dialect, in a sandbox, pinned to the
bytes of its script as they are now: a script that changes later is refused
until you install again. A command line that is not one script's call (a
jq pipeline) runs as a pinned bash script of its own, whose body is that line.

Every hook and the digest of what you approve are shown first; on a terminal
install asks, elsewhere --yes approves (with --digest D, only if it is still
what you reviewed). The file's original bytes are kept: 'hook-exec uninstall
HOST' puts them back byte for byte. Only the command strings change (and
for Claude Code, install adds a SessionStart hook of its own that warns of
any hook that runs outside the sandbox); the rest of the file, its layout
and comments, stays as it is. A file the host edited since (Claude saving a
plugin you enabled) keeps those edits when you install again or uninstall.

Hosts and files (project scope; --user for the home directory's):
` + hostsHelp(),
		Example: `  hook-exec install claude --dry-run
  hook-exec install claude --yes
  hook-exec install cursor --user --yes
  hook-exec install gemini --yes --digest 8bb1...
  hook-exec install claude --check
  hook-exec install claude --trust-committed     # a teammate's clone: approve the committed pins
  hook-exec install claude --check --ci          # a repository's CI: fail when a hook runs outside
  hook-exec uninstall claude`,
		Args: exactArgs(1, "HOST"), Annotations: map[string]string{annotEnv: envState, annotExit: `  0    installed (--check: nothing drifted)
  1    failure (--check: something drifted, each named)
  64   usage error`},
		RunE: withState(g, func(dir string, args []string) error {
			h, err := hostArg(args)
			if err != nil {
				return err
			}
			if n := countTrue(dryRun, check, yes, sessionStart); n > 1 {
				return usageError("--dry-run, --check, --session-start and --yes exclude each other")
			}
			if sessionStart && h.CheckEvent == "" {
				return usageError("--session-start: %s has no hook of install's own", h.Name)
			}
			if ci && !check {
				return usageError("--ci goes with --check")
			}
			if trust && (check || sessionStart || o.user) {
				return usageError("--trust-committed is a project's install: not with --check, --session-start or --user")
			}
			if digest != "" && !yes {
				return usageError("--digest goes with --yes")
			}
			opts, err := o.resolve(g, dir)
			if err != nil && sessionStart {
				return sessionMessage(io, fmt.Sprintf("hook-exec could not check the hooks it installed for %s: %v", h.Name, err))
			}
			if err != nil {
				return err
			}
			if check {
				opts.Repository = ci
				return installCheck(io, h, *opts)
			}
			if sessionStart {
				return installSessionStart(io, h, *opts, !o.user && o.project == "")
			}
			opts.Image = image
			for _, w := range writable {
				if err := hook.CheckWritable(w); err != nil {
					return usageError("--writable %s: %v", w, err)
				}
			}
			opts.Writable = writable
			// What the installed hooks run on: the installing user's choice,
			// pinned (--sealed commands read it, not the host's environment).
			if opts.Engine, err = engineenv.Of(os.Environ()); err != nil {
				return failure(fmt.Errorf("pin the engine: %w", err))
			}
			p, err := install.Prepare(h, *opts)
			if err != nil {
				return failure(err)
			}
			if image == "" && opts.Scope == install.Project {
				// The project's devcontainer image, with its toolchain, runs
				// its own hooks when the engine has it and it runs them.
				ctx, cancel := context.WithTimeout(context.Background(), imageProbeBound)
				dev := devcontainer(ctx, io, g, p)
				cancel()
				if dev != "" {
					p.Close()
					opts.ProjectImage = dev
					if p, err = install.Prepare(h, *opts); err != nil {
						return failure(err)
					}
				}
			}
			defer p.Close()
			printPlan(io, p, dryRun)
			if image != "" || opts.ProjectImage != "" {
				ctx, cancel := context.WithTimeout(context.Background(), imageProbeBound)
				reportImage(ctx, io, g, p)
				cancel()
			}
			if p.Count() == 0 && p.Err() != nil {
				return failure(fmt.Errorf("nothing installed: %w", p.Err()))
			}
			if p.Count() == 0 {
				return failure(fmt.Errorf("no command hooks in %s's %s files", h.Name, opts.Scope))
			}
			if p.Err() != nil {
				// Install takes what it can: each hook it cannot sandbox is
				// named above, and stays as the host runs it.
				fmt.Fprintf(io.out, "note: the hooks refused above are not installed: %s runs them as it does now, outside the sandbox (install --check names them)\n", h.Name)
			}
			if trust {
				if err := p.AsCommitted(); err != nil {
					return failure(fmt.Errorf("not trusted: %w", err))
				}
			}
			if dryRun {
				fmt.Fprintf(io.out, "dry run: nothing written; approve with: hook-exec install %s%s --yes --digest %s\n", h.Name, userFlag(o), p.Digest)
				return nil
			}
			var ask func(string) bool
			if isTerminal(io.in) {
				ask = func(q string) bool {
					fmt.Fprintf(io.err, "%s [y/N] ", q)
					line, _ := bufio.NewReader(io.in).ReadString('\n')
					a := strings.ToLower(strings.TrimSpace(line))
					return a == "y" || a == "yes"
				}
			}
			if err := p.Approve(install.Consent{Yes: yes, Reviewed: digest, Ask: ask}); errors.Is(err, install.ErrNobodyToAsk) {
				return usageError("no terminal to ask for consent: pass --yes (with --digest D from --dry-run)")
			} else if err != nil {
				return failure(err)
			}
			if err := p.Apply(); err != nil {
				return failure(err)
			}
			if trust {
				fmt.Fprintf(io.out, "trusted %d hooks of %s as committed, pinned as they were (digest %s); undo with: hook-exec uninstall %s\n", p.Count(), h.Name, p.Digest, h.Name)
				return nil
			}
			fmt.Fprintf(io.out, "installed %d hooks of %s (digest %s); undo with: hook-exec uninstall %s%s\n", p.Count(), h.Name, p.Digest, h.Name, userFlag(o))
			return nil
		}),
	}
	o.flags(c)
	g.stateFlag(c)
	sealedFlag(c)
	c.Flags().BoolVar(&dryRun, "dry-run", false, "show every hook and its new command; write nothing")
	c.Flags().BoolVar(&check, "check", false, "report what changed since install: a pinned script (refused until approved again), a hook added since or a plugin installed since (run outside the sandbox)")
	c.Flags().BoolVar(&yes, "yes", false, "approve without asking")
	c.Flags().BoolVar(&sessionStart, "session-start", false, "as the host's session-start hook (install adds it): tell the person, in the host's JSON, of each hook that runs outside the sandbox; always exit 0")
	c.Flags().StringVar(&image, "image", "", "run every hook in `IMAGE` (the project's, with its toolchain) instead of the reference image of its language; the plan says what each hook calls that IMAGE lacks")
	c.Flags().StringArrayVar(&writable, "writable", nil, "loosening: every hook may write `REL` in the project (a file; a directory with a trailing slash: every file in it), on top of what install finds each one writes (a copy of it, written back; repeatable)")
	c.Flags().BoolVar(&trust, "trust-committed", false, "approve the pins a project's files were committed with (a teammate's clone): the same plan, refused unless it is exactly what is committed; nothing new pinned")
	c.Flags().BoolVar(&ci, "ci", false, "with --check: only the repository's own files, as its CI has them (exit 1 when any hook would run outside the sandbox or is refused)")
	c.Flags().StringVar(&digest, "digest", "", "with --yes: the `DIGEST` you reviewed; refused when the hooks are no longer that")
	return c
}

func newUninstallCmd(g *globals, io stdio) *cobra.Command {
	var o installOptions
	var force bool
	c := &cobra.Command{
		Use:   "uninstall HOST [--user] [--force]",
		Short: "Put a host's configuration back as it was before install, byte for byte",
		Long: `Restore every file of the host that 'hook-exec install' rewrote to the bytes
it had before, and delete what install kept of it. A settings file edited since
install (Claude saving an enabled plugin or an allowed permission, a hook you
added) keeps those edits, with each installed command back as you wrote it.
One whose installed commands were edited is left as it is, unless --force (the
edits are lost; the original comes back).`,
		Example: `  hook-exec uninstall claude
  hook-exec uninstall claude --user`,
		Args: exactArgs(1, "HOST"), Annotations: stateAnnot,
		RunE: withState(g, func(dir string, args []string) error {
			h, err := hostArg(args)
			if err != nil {
				return err
			}
			opts, err := o.resolve(g, dir)
			if err != nil {
				return err
			}
			done, err := install.Uninstall(h, *opts, force)
			for _, r := range done {
				note := ""
				switch {
				case r.Forced:
					note = " (its edits since install dropped: --force)"
				case r.Edited:
					note = " (without install's commands; the edits made since install kept)"
				case r.Gone:
					fmt.Fprintf(io.out, "forgot %s (Claude removed that version of the plugin)\n", esc(r.Path))
					continue
				case r.KeptFor != nil:
					fmt.Fprintf(io.out, "kept %s: this plugin's hooks are installed for %s too\n", esc(r.Path), esc(strings.Join(r.KeptFor, ", ")))
					continue
				}
				fmt.Fprintf(io.out, "restored %s%s\n", esc(r.Path), note)
			}
			if err != nil {
				return failure(err)
			}
			if len(done) == 0 {
				fmt.Fprintf(io.out, "nothing of %s's %s files was installed\n", h.Name, opts.Scope)
			}
			return nil
		}),
	}
	o.flags(c)
	g.stateFlag(c)
	c.Flags().BoolVar(&force, "force", false, "restore the original even over edits to the installed commands (the edits are lost)")
	return c
}

func installCheck(io stdio, h *install.Host, opts install.Options) error {
	r, err := install.Inspect(h, opts)
	if err != nil {
		return failure(err)
	}
	n, drifts := r.Installed, r.Drifts
	for _, p := range r.Pinned {
		fmt.Fprintf(io.out, "pinned: %s %s (%s): %s, sha256 %s\n", esc(p.Path), esc(p.Pointer), esc(p.Event), esc(p.Script), p.SHA256)
	}
	if n == 0 && opts.Repository && len(drifts) == 0 {
		fmt.Fprintf(io.out, "%s: no hooks in the repository's files\n", h.Name)
		return nil
	}
	if n == 0 && len(drifts) == 0 {
		return failure(fmt.Errorf("no hooks of %s's %s files are installed", h.Name, opts.Scope))
	}
	for _, d := range drifts {
		where := esc(d.Path)
		if d.Pointer != "" {
			where += " " + esc(d.Pointer)
		}
		fmt.Fprintf(io.out, "drift: %s: %s\n", where, esc(d.What))
	}
	if len(drifts) > 0 {
		return failure(fmt.Errorf("%d of %s's installed hooks or files drifted", len(drifts), h.Name))
	}
	fmt.Fprintf(io.out, "%s: %d files installed, nothing drifted\n", h.Name, n)
	return nil
}

// installSessionStart is install's own hook at the start of the host's
// session: a check whose findings reach the person as the host's warning
// (Claude's systemMessage). It never blocks the session: a failure is a
// warning too, and the exit status 0.
//
// The session's check (neither --user nor --project, as install writes it
// into the user's own settings) looks at the user's installs, at those of
// the project the session runs in (its working directory, or one above),
// and at the hooks of the working directory itself, which Claude Code
// reads whether or not anything was installed there.
func installSessionStart(io stdio, h *install.Host, opts install.Options, session bool) error {
	type scope struct {
		o   install.Options
		any bool // its hooks that run outside count even with nothing installed
	}
	scopes := []scope{{o: opts}}
	if session {
		u := opts
		u.Scope = install.User
		scopes = []scope{{o: u}}
		root, ok := install.InstalledProject(h, opts.StateDir, opts.Home, opts.ProjectDir)
		if ok {
			p := opts
			p.ProjectDir = root
			scopes = append(scopes, scope{o: p})
		}
		if !ok || !sameDir(root, opts.ProjectDir) {
			scopes = append(scopes, scope{o: opts, any: true})
		}
	}
	var outside []string
	refused := 0
	var err error
	for _, sc := range scopes {
		k, drifts, cerr := install.Check(h, sc.o)
		if cerr != nil {
			err = cerr
			break
		}
		for _, d := range drifts {
			switch {
			case d.Outside && (k > 0 || sc.any) && !slices.Contains(outside, d.What):
				outside = append(outside, d.What)
			case !d.Outside && k > 0:
				refused++
			}
		}
	}
	var msg string
	if err != nil {
		msg = fmt.Sprintf("hook-exec could not check the hooks it installed for %s: %v", h.Name, err)
	}
	if len(outside) > 0 {
		msg = strings.TrimPrefix(msg+"; ", "; ") + "hook-exec: " + strings.Join(outside, "; ")
	}
	if refused > 0 {
		msg = strings.TrimPrefix(msg+"; ", "; ") + fmt.Sprintf("hook-exec: %d hooks or files changed since you approved them: hook-exec install %s%s --check names them", refused, h.Name, scopeWord(opts))
	}
	return sessionMessage(io, msg)
}

// sameDir reports whether a and b are one directory, links resolved.
func sameDir(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

// sessionMessage answers the host's session start with msg for the
// person, nothing when msg is empty; the exit status is 0 either way.
func sessionMessage(io stdio, msg string) error {
	if msg == "" {
		return nil
	}
	b, err := json.Marshal(map[string]string{"systemMessage": msg})
	if err != nil {
		return failure(err)
	}
	fmt.Fprintf(io.out, "%s\n", b)
	return nil
}

func scopeWord(o install.Options) string {
	if o.Scope == install.User {
		return " --user"
	}
	return ""
}

// printPlan shows every hook as the owner approves it: where it is, what
// it runs, the digest of its script, and (dry run) the command written.
func printPlan(io stdio, p *install.Plan, commands bool) {
	for _, f := range p.Files {
		state := ""
		switch {
		case f.Edited:
			state = " (installed before, and edited since: the edits stay; approving again from what it holds without install's commands)"
		case f.Committed:
			state = " (installed where it was committed: approving the pins its record beside it names)"
		case f.Reinstall:
			state = " (installed before: approving again from its original)"
		}
		if pl := f.Plugin; pl != nil {
			fmt.Fprintf(io.out, "plugin %s %s: ", esc(pl.Key), esc(pl.Version))
			state += fmt.Sprintf("\n  its tree, copied to %s, sha256 %s: the hooks run that copy, read-only", esc(pl.Copy), pl.TreeSHA256)
		}
		fmt.Fprintf(io.out, "%s%s\n", esc(f.Path), state)
		if f.Target != "" && f.Target != f.Path {
			fmt.Fprintf(io.out, "  a link: install writes %s\n", esc(f.Target))
		}
		for _, h := range f.Hooks {
			m := ""
			if h.Matcher != "" {
				m = " [" + esc(h.Matcher) + "]"
			}
			fmt.Fprintf(io.out, "  %s%s %s\n    command: %s\n", esc(h.Event), m, esc(h.Pointer), esc(h.Command))
			switch {
			case h.Err != nil:
				fmt.Fprintf(io.out, "    refused: %s\n", esc(h.Err.Error()))
				continue
			case h.Inline:
				fmt.Fprintf(io.out, "    runs as: a bash script of this line, %s, sha256 %s\n", esc(h.Script), h.SHA256)
			default:
				fmt.Fprintf(io.out, "    script:  %s, sha256 %s\n", esc(h.Script), h.SHA256)
			}
			if len(h.Env) > 0 {
				fmt.Fprintf(io.out, "    env:     %s (declared to its sandbox)\n", esc(strings.Join(h.Env, " ")))
			}
			if h.Note != "" {
				fmt.Fprintf(io.out, "    note:    %s\n", esc(h.Note))
			}
			if commands {
				fmt.Fprintf(io.out, "    becomes: %s\n", esc(h.Installed))
			}
		}
		for _, x := range f.Others {
			fmt.Fprintf(io.out, "  %s %s: left as it is: %s\n", esc(x.Event), esc(x.Pointer), esc(x.Why))
		}
	}
	engine := "the defaults (docker, its local socket)"
	if len(p.Opts.Engine) > 0 {
		var kv []string
		for _, k := range slices.Sorted(maps.Keys(p.Opts.Engine)) {
			kv = append(kv, k+"="+p.Opts.Engine[k])
		}
		engine = strings.Join(kv, " ")
	}
	fmt.Fprintf(io.out, "engine: %s, pinned in %s: the installed hooks run there whatever environment %s hands them\n",
		esc(engine), esc(filepath.Join(p.Opts.StateDir, engineenv.FileName)), p.Host.Name)
	if f := checkFile(p); f != nil {
		fmt.Fprintf(io.out, "%s: hook-exec's own %s hook: at the start of each session, it tells you of any hook %s would run outside the sandbox (a plugin installed since, a hook added since, a project's file replaced)\n", esc(f.Path), p.Host.CheckEvent, p.Host.Name)
		if commands {
			fmt.Fprintf(io.out, "    command: %s\n", esc(f.Check))
		}
	}
	if p.NoCheck != "" {
		fmt.Fprintf(io.out, "note: %s: hook-exec install %s --check tells what runs outside the sandbox\n", esc(p.NoCheck), p.Host.Name)
	}
	if len(p.UserPlugins) > 0 {
		fmt.Fprintf(io.out, "note: the plugins installed for you (%s) run their hooks outside the sandbox until: hook-exec install %s --user\n", esc(strings.Join(p.UserPlugins, ", ")), p.Host.Name)
	}
	fmt.Fprintf(io.out, "hooks digest: %s\n", p.Digest)
}

// checkFile is the file the plan adds install's own hook to, nil if none.
func checkFile(p *install.Plan) *install.File {
	if p.UserCheck != nil {
		return p.UserCheck
	}
	for _, f := range p.Files {
		if f.Check != "" {
			return f
		}
	}
	return nil
}

func userFlag(o installOptions) string {
	if o.user {
		return " --user"
	}
	return ""
}

func countTrue(bs ...bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// imageProbeBound bounds install's probe of a project's image.
const imageProbeBound = 2 * time.Minute

// devcontainer is the image of the project's devcontainer.json when the
// engine has it and it runs every language of the project's own hooks
// (said either way); "" keeps the reference images.
func devcontainer(ctx context.Context, io stdio, g *globals, p *install.Plan) string {
	dev, err := install.DevcontainerImage(p.Opts.ProjectDir)
	switch {
	case err != nil:
		fmt.Fprintf(io.out, "the project's devcontainer: %v: its hooks run in the reference images\n", err)
		return ""
	case dev == "":
		return ""
	}
	var langs []launcher.Lang
	for _, f := range p.Files {
		if f.Plugin != nil {
			continue
		}
		for _, h := range f.Hooks {
			if l, ok := hookLang(&h); ok && !slices.Contains(langs, l) {
				langs = append(langs, l)
			}
		}
	}
	if len(langs) == 0 {
		return ""
	}
	o := g.sandboxEngine()
	o.Ping = true
	e, err := engine.Open(ctx, o)
	if err != nil {
		fmt.Fprintf(io.out, "the project's devcontainer image %s: not checked (%v): its hooks run in the reference images\n", esc(dev), err)
		return ""
	}
	defer e.Close()
	rep, err := executor.CheckImage(ctx, e.Backend(), dev, langs, nil)
	if err != nil {
		fmt.Fprintf(io.out, "the project's devcontainer image %s: %v: its hooks run in the reference images (pull or build it, then install again)\n", esc(dev), err)
		return ""
	}
	for _, l := range langs {
		if m := rep.Langs[l].Missing; len(m) > 0 {
			fmt.Fprintf(io.out, "the project's devcontainer image %s cannot run .%s hooks (it lacks %s): its hooks run in the reference images\n", esc(dev), l, strings.Join(m, ", "))
			return ""
		}
	}
	fmt.Fprintf(io.out, "the project's devcontainer image %s runs the project's own hooks (its toolchain; --image IMAGE chooses another)\n", esc(dev))
	return dev
}

// hookLang is the language a hook's script runs in.
func hookLang(h *install.Hook) (launcher.Lang, bool) {
	if h.Err != nil {
		return "", false
	}
	body := h.Body
	if !h.Inline {
		var err error
		if body, err = os.ReadFile(h.Script); err != nil {
			return "", false
		}
	}
	lang, err := scriptpin.CheckShebang(filepath.Base(h.Script), body)
	return lang, err == nil
}

// reportImage tells, for each hook of p, what it calls that the plan's
// image lacks (one probe of the image for all of them): the hook is
// refused when it calls one. An engine that does not answer is said, and
// install goes on.
func reportImage(ctx context.Context, io stdio, g *globals, p *install.Plan) {
	image := cmp.Or(p.Opts.Image, p.Opts.ProjectImage)
	type call struct {
		where string
		rep   *executor.ScriptReport
	}
	var calls []call
	var progs []string
	langs := []launcher.Lang{}
	for _, f := range p.Files {
		if p.Opts.Image == "" && f.Plugin != nil {
			continue // a plugin's hooks run in the reference images
		}
		for _, h := range f.Hooks {
			lang, ok := hookLang(&h)
			if !ok {
				continue
			}
			body := h.Body
			if !h.Inline {
				body, _ = os.ReadFile(h.Script)
			}
			if !slices.Contains(langs, lang) {
				langs = append(langs, lang)
			}
			rep := &executor.ScriptReport{File: h.Script}
			if lang == launcher.Shell || lang == launcher.Node {
				var err error
				if rep, err = executor.ReadScript(h.Script, body, []launcher.Lang{lang}); err != nil {
					continue
				}
			}
			for _, pr := range rep.Programs {
				if !slices.Contains(progs, pr) {
					progs = append(progs, pr)
				}
			}
			calls = append(calls, call{where: f.Path + " " + h.Pointer, rep: rep})
		}
	}
	o := g.sandboxEngine()
	o.Ping = true
	e, err := engine.Open(ctx, o)
	if err != nil {
		fmt.Fprintf(io.out, "image %s: not checked (%v): hook-exec image check %s --script FILE tells what it lacks\n", esc(image), err, esc(image))
		return
	}
	defer e.Close()
	rep, err := executor.CheckImage(ctx, e.Backend(), image, langs, nil)
	if err != nil {
		fmt.Fprintf(io.out, "image %s: not checked: %v\n", esc(image), err)
		return
	}
	for _, l := range langs {
		if m := rep.Langs[l].Missing; len(m) > 0 {
			fmt.Fprintf(io.out, "image %s cannot run .%s hooks: it lacks %s: every such hook is refused\n", esc(image), l, strings.Join(m, ", "))
		}
	}
	missing, err := executor.MissingPrograms(ctx, e.Backend(), image, progs)
	if err != nil {
		fmt.Fprintf(io.out, "image %s: the programs the hooks call not checked: %v\n", esc(image), err)
		return
	}
	for _, c := range calls {
		var lacks []string
		for _, pr := range c.rep.Programs {
			if slices.Contains(missing, pr) {
				lacks = append(lacks, pr)
			}
		}
		if len(lacks) > 0 {
			fmt.Fprintf(io.out, "image %s lacks what %s calls: %s (the hook is refused when it calls one)\n", esc(image), esc(c.where), esc(strings.Join(lacks, ", ")))
		}
	}
}

// hostsHelp lists install's hosts and the files each reads (install.Hosts).
func hostsHelp() string {
	var lines []string
	for _, name := range install.HostNames() {
		h := install.Hosts[name]
		user := make([]string, len(h.UserFiles))
		for i, f := range h.UserFiles {
			user[i] = "~/" + f
		}
		line := fmt.Sprintf("  %-8s %s (%s)", name, strings.Join(h.ProjectFiles, ", "), strings.Join(user, ", "))
		if h.Plugins {
			line += `,
           and the hooks of the plugins ` + h.Product + ` installed for the project (for you):
           each plugin's tree is copied, as you approve it, into the state directory,
           and its hooks run that copy, read-only and pinned whole`
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}
