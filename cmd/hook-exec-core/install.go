package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/host/install"
	"github.com/hookexec/hook-exec/internal/engineenv"
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
	opts := &install.Options{Settings: install.Project, StateDir: stateDir}
	if o.user {
		opts.Settings = install.User
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

func hostArg(args []string) (*install.Target, error) {
	h, ok := install.Hosts[args[0]]
	if !ok {
		return nil, usageError("host %q: want %s", args[0], strings.Join(install.HostNames(), ", "))
	}
	return h, nil
}

func newInstallCmd(g *globals, io stdio) *cobra.Command {
	var f installFlags
	c := &cobra.Command{
		Use:   "install HOST [--user] [--image IMAGE] [--writable REL]... [--dry-run | --check | --yes [--digest D]]",
		Short: "Run a host's own hooks (Claude Code, Cline, Codex, Cursor, Gemini CLI, GitHub Copilot, Windsurf) through hook-exec, sandboxed and pinned",
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
			return runInstall(g, io, h, dir, f)
		}),
	}
	f.o.flags(c)
	g.stateFlag(c)
	sealedFlag(c)
	c.Flags().BoolVar(&f.dryRun, "dry-run", false, "show every hook and its new command; write nothing")
	c.Flags().BoolVar(&f.check, "check", false, "report what changed since install: a pinned script (refused until approved again), a hook added since or a plugin installed since (run outside the sandbox)")
	c.Flags().BoolVar(&f.yes, "yes", false, "approve without asking")
	c.Flags().BoolVar(&f.sessionStart, "session-start", false, "as the host's session-start hook (install adds it): tell the person, in the host's JSON, of each hook that runs outside the sandbox; always exit 0")
	c.Flags().StringVar(&f.image, "image", "", "run every hook in `IMAGE` (the project's, with its toolchain) instead of the reference image of its language; the plan says what each hook calls that IMAGE lacks")
	c.Flags().StringArrayVar(&f.writable, "writable", nil, "loosening: every hook may write `REL` in the project (a file; a directory with a trailing slash: every file in it), on top of what install finds each one writes (a copy of it, written back; repeatable)")
	c.Flags().BoolVar(&f.trust, "trust-committed", false, "approve the pins a project's files were committed with (a teammate's clone): the same plan, refused unless it is exactly what is committed; nothing new pinned")
	c.Flags().BoolVar(&f.ci, "ci", false, "with --check: only the repository's own files, as its CI has them (exit 1 when any hook would run outside the sandbox or is refused)")
	c.Flags().StringVar(&f.digest, "digest", "", "with --yes: the `DIGEST` you reviewed; refused when the hooks are no longer that")
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
				fmt.Fprintf(io.out, "nothing of %s's %s files was installed\n", h.Name, opts.Settings)
			}
			return nil
		}),
	}
	o.flags(c)
	g.stateFlag(c)
	c.Flags().BoolVar(&force, "force", false, "restore the original even over edits to the installed commands (the edits are lost)")
	return c
}

func installCheck(io stdio, h *install.Target, opts install.Options) error {
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
		return failure(fmt.Errorf("no hooks of %s's %s files are installed", h.Name, opts.Settings))
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
	fmt.Fprintf(io.out, "%s: %s installed, nothing drifted\n", h.Name, counted(n, "file"))
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
func installSessionStart(io stdio, h *install.Target, opts install.Options, session bool) error {
	type scope struct {
		o   install.Options
		any bool // its hooks that run outside count even with nothing installed
	}
	scopes := []scope{{o: opts}}
	if session {
		u := opts
		u.Settings = install.User
		scopes = []scope{{o: u}}
		root, ok := install.InstalledProject(h, opts.StateDir, opts.Home, opts.ProjectDir)
		if ok {
			p := opts
			p.ProjectDir = root
			scopes = append(scopes, scope{o: p})
		}
		if !ok || !install.SameDir(root, opts.ProjectDir) {
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
		msg = strings.TrimPrefix(msg+"; ", "; ") + fmt.Sprintf("hook-exec: %s changed since approval: hook-exec install %s%s --check names each", counted(refused, "hook or file", "hooks or files"), h.Name, scopeWord(opts))
	}
	return sessionMessage(io, h, msg)
}

// sessionMessage answers the host's session start (h's CheckEvent) with
// msg for the person, in the host's answer, nothing when msg is empty; the
// exit status is 0 either way.
func sessionMessage(io stdio, h *install.Target, msg string) error {
	if msg == "" {
		return nil
	}
	a, err := hook.Notice(h.Dialect, h.CheckEvent, msg)
	if err != nil {
		return failure(err)
	}
	io.out.Write(a.Stdout)
	if a.Stderr != "" {
		fmt.Fprintln(io.err, a.Stderr)
	}
	if a.Exit != 0 {
		return &exitError{code: a.Exit}
	}
	return nil
}

func scopeWord(o install.Options) string {
	if o.Settings == install.User {
		return " --user"
	}
	return ""
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

// installFlags are install's flags.
type installFlags struct {
	o                                           installOptions
	dryRun, check, yes, sessionStart, trust, ci bool
	image, digest                               string
	writable                                    []string
}

// runInstall is install after its flags: check them, then plan, show,
// approve and apply (or check, or answer the host's session start).
func runInstall(g *globals, io stdio, h *install.Target, dir string, f installFlags) error {
	if err := f.validate(h); err != nil {
		return err
	}
	opts, err := f.o.resolve(g, dir)
	if err != nil && f.sessionStart {
		return sessionMessage(io, h, fmt.Sprintf("hook-exec could not check the hooks it installed for %s: %v", h.Name, err))
	}
	if err != nil {
		return err
	}
	if f.check {
		opts.Repository = f.ci
		return installCheck(io, h, *opts)
	}
	if f.sessionStart {
		return installSessionStart(io, h, *opts, !f.o.user && f.o.project == "")
	}
	opts.Image = f.image
	for _, w := range f.writable {
		if err := hook.CheckWritable(w); err != nil {
			return usageError("--writable %s: %v", w, err)
		}
	}
	opts.Writable = f.writable
	// What the installed hooks run on: the installing user's choice,
	// pinned (--sealed commands read it, not the host's environment).
	if opts.Engine, err = engineenv.Of(os.Environ()); err != nil {
		return failure(fmt.Errorf("pin the engine: %w", err))
	}
	p, err := install.Prepare(h, *opts)
	if err != nil {
		return failure(err)
	}
	if f.image == "" && opts.Settings == install.Project {
		// The project's devcontainer f.image, with its toolchain, runs
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
	printPlan(io, p, f.dryRun)
	if f.image != "" || opts.ProjectImage != "" {
		ctx, cancel := context.WithTimeout(context.Background(), imageProbeBound)
		reportImage(ctx, io, g, p)
		cancel()
	}
	if p.Count() == 0 && p.Err() != nil {
		return failure(fmt.Errorf("nothing installed: %w", p.Err()))
	}
	if p.Count() == 0 {
		return failure(fmt.Errorf("no command hooks in %s's %s files", h.Name, opts.Settings))
	}
	if p.Err() != nil {
		// Install takes what it can: each hook it cannot sandbox is
		// named above, and stays as the host runs it.
		fmt.Fprintf(io.out, "note: the hooks refused above are not installed: %s runs them as it does now, outside the sandbox (install --check names them)\n", h.Name)
	}
	if f.trust {
		if err := p.AsCommitted(); err != nil {
			return failure(fmt.Errorf("not trusted: %w", err))
		}
	}
	if f.dryRun {
		fmt.Fprintf(io.out, "dry run: nothing written; approve with: hook-exec install %s%s --yes --digest %s\n", h.Name, userFlag(f.o), p.Digest)
		return nil
	}
	return approveApply(io, h, p, f)
}

// validate refuses flags that exclude each other.
func (f installFlags) validate(h *install.Target) error {
	if n := countTrue(f.dryRun, f.check, f.yes, f.sessionStart); n > 1 {
		return usageError("--dry-run, --check, --session-start and --yes exclude each other")
	}
	if f.sessionStart && h.CheckEvent == "" {
		return usageError("--session-start: %s has no hook of install's own", h.Name)
	}
	if f.ci && !f.check {
		return usageError("--ci goes with --check")
	}
	if f.trust && (f.check || f.sessionStart || f.o.user) {
		return usageError("--trust-committed is a project's install: not with --check, --session-start or --user")
	}
	if f.digest != "" && !f.yes {
		return usageError("--digest goes with --yes")
	}
	return nil
}

// approveApply asks for (or takes) the owner's consent to p, writes it and
// says what was installed.
func approveApply(io stdio, h *install.Target, p *install.Plan, f installFlags) error {
	var ask func(string) bool
	if isTerminal(io.in) {
		ask = func(q string) bool {
			fmt.Fprintf(io.err, "%s [y/N] ", q)
			line, _ := bufio.NewReader(io.in).ReadString('\n')
			a := strings.ToLower(strings.TrimSpace(line))
			return a == "y" || a == "yes"
		}
	}
	if err := p.Approve(install.Consent{Yes: f.yes, Reviewed: f.digest, Ask: ask}); errors.Is(err, install.ErrNobodyToAsk) {
		return usageError("no terminal to ask for consent: pass --yes (with --digest D from --dry-run)")
	} else if err != nil {
		return failure(err)
	}
	if err := p.Apply(); err != nil {
		return failure(err)
	}
	if f.trust {
		fmt.Fprintf(io.out, "trusted %s of %s as committed, pinned as they were (digest %s); undo with: hook-exec uninstall %s\n", counted(p.Count(), "hook"), h.Name, p.Digest, h.Name)
		return nil
	}
	fmt.Fprintf(io.out, "installed %s of %s (digest %s); undo with: hook-exec uninstall %s%s\n", counted(p.Count(), "hook"), h.Name, p.Digest, h.Name, userFlag(f.o))
	if h.Review != "" {
		fmt.Fprintf(io.out, "next: %s\n", h.Review)
	}
	return nil
}

// counted is n with its noun: "1 file", "2 files" (plural: the plural, when
// it is not the noun and an s).
func counted(n int, noun string, plural ...string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	if len(plural) > 0 {
		return fmt.Sprintf("%d %s", n, plural[0])
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
