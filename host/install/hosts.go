package install

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/hookexec/hook-exec/hook"
)

// Target is what install knows of one host's hook configuration: where it
// reads its hooks and how it runs them (hook.Host is the host's dialect).
type Target struct {
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
	// ProjectCommands are commands whose output a hook's command uses for
	// the project directory, where the host sets no variable to it
	// (Codex's reference: "$(git rev-parse --show-toplevel)/...").
	ProjectCommands []string
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
	// CheckFile is the user's file install's own hook is in, relative to
	// home: a hooks file of hook-exec's own where the host reads every
	// file of a directory (Copilot's ~/.copilot/hooks); "" for the first
	// of UserFiles.
	CheckFile string
	// NewFile is what a hooks file of the host holds before any hook ("{}"
	// when ""): Copilot's needs its version.
	NewFile string
	// LoginShell: the host runs a command with the user's login shell
	// ($SHELL -lc, Codex), which may be no POSIX shell (fish): the
	// installed command is handed to /bin/sh, in quotes that fish reads
	// alike.
	LoginShell bool
	// WorkDir names the member that sets a hook's working directory
	// (Windsurf's working_directory): install takes only the project's
	// root there.
	WorkDir string
	// Review is what the person must do in the host before it runs a
	// rewritten hook, "" when nothing: Codex skips a hook whose command
	// changed until it is trusted again.
	Review string
	// CommandKeys are the members a hook's command may be in, the one the
	// host runs here first ("command" when none: Copilot's "bash", then
	// its cross-platform "command"); TimeoutKeys likewise for its timeout.
	CommandKeys, TimeoutKeys []string
	// OtherShells are members of a hook that has none of CommandKeys and
	// that the host never runs on this system (Copilot's "powershell"), or
	// runs in a way install does not rewrite: why, for each.
	OtherShells map[string]string
	// EnvExpands: the host expands variables in a hook's env values
	// (Copilot's): one that names a variable is refused.
	EnvExpands bool
	// RunsUnrewritten are members of a hook whose program the host runs
	// here and install does not rewrite (Copilot's exec): Check names
	// each as running outside the sandbox.
	RunsUnrewritten []string
	// NamesPoint: the host's payload does not name its event, so the
	// installed command does (run --point, Copilot's camelCase events).
	NamesPoint bool
	// EventTimeouts are the events whose timeout the host bounds apart
	// from DefaultTimeout (Codex's SessionEnd and Interrupt).
	EventTimeouts map[string]EventTimeout
	// MaxOutputBytes is the most a hook may print that the host reads
	// (Cline's 1 MiB), when more than hook-exec's default.
	MaxOutputBytes int64
	// HookFiles: the host's hooks are executable files of these names
	// (their events), in the directories ProjectFiles and UserFiles glob
	// (Cline's): install wraps each (hookfile.go).
	HookFiles []string
}

// EventTimeout is an event's own default timeout, and the longest the
// host allows whatever the hook says.
type EventTimeout struct{ Default, Max time.Duration }

// globUnder is the paths below base that pattern (relative to it)
// matches: base taken as it is, whatever its name holds (a project in
// proj[1] is no pattern).
func globUnder(base, pattern string) []string {
	quoted := strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`).Replace(base)
	matches, _ := filepath.Glob(filepath.Join(quoted, pattern))
	return matches
}

// holdsHooks reports whether path is a hooks file of h's: a JSON object
// with a "hooks" member (a .json beside Copilot's hooks files may be a
// script's data instead).
func (h *Target) holdsHooks(path string) bool {
	b, err := readFile(path)
	if err != nil {
		return false
	}
	if h.Comments {
		if b, err = blankComments(b); err != nil {
			return false
		}
	}
	var top map[string]jsontext.Value
	if jsonv2.Unmarshal(b, &top) != nil {
		return false
	}
	_, ok := top["hooks"]
	return ok
}

// checkPath is the user's file install's own hook is in.
func (h *Target) checkPath(o Options) string {
	return filepath.Join(o.Home, cmp.Or(h.CheckFile, h.UserFiles[0]))
}

// newFile is what a hooks file install makes holds before any hook.
func (h *Target) newFile() string { return cmp.Or(h.NewFile, "{}") + "\n" }

// commandKeys are the members a hook's command may be in.
func (h *Target) commandKeys() []string {
	if len(h.CommandKeys) == 0 {
		return []string{"command"}
	}
	return h.CommandKeys
}

// commandKey is the member of a hook whose command the host runs here:
// the first of commandKeys that has (says whether the hook has it); ""
// for none.
func (h *Target) commandKey(has func(string) bool) string {
	for _, k := range h.commandKeys() {
		if has(k) {
			return k
		}
	}
	return ""
}

func (h *Target) timeoutKeys() []string {
	if len(h.TimeoutKeys) == 0 {
		return []string{"timeout"}
	}
	return h.TimeoutKeys
}

// Hosts are the hosts install speaks, by name.
var Hosts = map[string]*Target{
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
	// Codex runs a hook's command with $SHELL -lc in the session's cwd,
	// which may be below the project's root, and sets no variable to the
	// project: its reference has commands find it with git, as the
	// rewritten ones do. Its config.toml may hold hooks too ([hooks]),
	// which install does not rewrite.
	"codex": {
		Name: "codex", Dialect: hook.Codex, Product: "Codex",
		ProjectFiles: []string{".codex/hooks.json"},
		UserFiles:    []string{".codex/hooks.json"},
		Grouped:      true, ProjectCommands: []string{"git rev-parse --show-toplevel"}, Workspace: `"$(git rev-parse --show-toplevel)"`,
		LoginShell:  true,
		TimeoutUnit: time.Second, DefaultTimeout: 600 * time.Second,
		CheckEvent: "SessionStart", EditEvents: []string{"PostToolUse"},
		// "SessionEnd and Interrupt default to 1 second and allow at most 3."
		EventTimeouts: map[string]EventTimeout{"SessionEnd": {time.Second, 3 * time.Second}, "Interrupt": {time.Second, 3 * time.Second}},
		Elsewhere:     []source{{Glob: ".codex/config.toml", TOML: true}, {Glob: ".codex/config.toml", User: true, TOML: true}},
		Review: "Codex skips a hook whose command changed until you trust it: open /hooks in Codex and trust the rewritten hooks " +
			"(until then they do not run at all, sandboxed or not)",
	},
	// Windsurf (Cascade) runs a hook's command in the workspace's root
	// (or its working_directory) and sets no variable to it; it reads no
	// timeout (none is documented) and merges the system's file first,
	// which install reads and reports, never rewrites.
	"windsurf": {
		Name: "windsurf", Dialect: hook.Windsurf, Product: "Windsurf",
		ProjectFiles: []string{".windsurf/hooks.json"},
		UserFiles:    []string{".codeium/windsurf/hooks.json"},
		Workspace:    `"$PWD"`, WorkDir: "working_directory",
		TimeoutUnit: time.Second, DefaultTimeout: 60 * time.Second,
		EditEvents: []string{"post_write_code"},
		Elsewhere:  []source{{Glob: "/etc/windsurf/hooks.json", As: "windsurf"}},
	},
	// Copilot (the CLI and the cloud agent) reads every .json file of
	// .github/hooks and ~/.copilot/hooks; a hook's Unix command is its
	// "bash", else its "command", run in its cwd (the repository's root,
	// the only one install takes), which sets no variable to it. Its
	// camelCase payloads do not name their event: the installed command
	// does. Its settings files may hold hooks inline, and it runs Claude
	// Code's project hooks too, and the system's policy hooks first.
	"copilot": {
		Name: "copilot", Dialect: hook.Copilot, Product: "GitHub Copilot",
		ProjectFiles: []string{".github/hooks/*.json"},
		UserFiles:    []string{".copilot/hooks/*.json"},
		Workspace:    `"$PWD"`, WorkDir: "cwd",
		CommandKeys: []string{"bash", "command"}, TimeoutKeys: []string{"timeoutSec", "timeout"},
		OtherShells: map[string]string{
			"powershell": "only a powershell command: Copilot runs it on Windows, not on this system",
			"exec":       "an exec hook (a program and its args, without a shell): install does not rewrite those yet, so it runs outside the sandbox",
		},
		RunsUnrewritten: []string{"exec"}, EnvExpands: true,
		// Its sessionStart shows nothing of a hook's but an exit 2's
		// stderr, as a warning: install's own check says it so.
		CheckEvent: "sessionStart", CheckFile: ".copilot/hooks/hook-exec.json", NewFile: `{"version": 1}`,
		NamesPoint:  true,
		TimeoutUnit: time.Second, DefaultTimeout: 30 * time.Second,
		EditEvents: []string{"postToolUse", "PostToolUse"},
		Elsewhere: []source{{Glob: ".github/copilot/settings.json", As: "copilot"}, {Glob: ".github/copilot/settings.local.json", As: "copilot"},
			{Glob: ".copilot/settings.json", User: true, As: "copilot"},
			{Glob: ".claude/settings.json", As: "claude"}, {Glob: ".claude/settings.local.json", As: "claude"},
			{Glob: "/etc/github-copilot/policy.d/*.json", As: "copilot"}},
	},
	// Cline runs the executable file named by an event in
	// .clinerules/hooks (and the user's ~/Documents/Cline/Hooks) with
	// /bin/sh -c, in the workspace's root, for 30 s (its VS Code
	// extension's bound).
	"cline": {
		Name: "cline", Dialect: hook.Cline, Product: "Cline",
		ProjectFiles: []string{".clinerules/hooks/*"},
		UserFiles:    []string{"Documents/Cline/Hooks/*"},
		HookFiles:    slices.Sorted(maps.Keys(hook.ClineEvents)),
		Workspace:    `"$PWD"`,
		TimeoutUnit:  time.Second, DefaultTimeout: 30 * time.Second, MaxOutputBytes: 1 << 20,
		EditEvents: []string{"PostToolUse"},
		// Cline's CLI also runs hook files (with an extension too) of
		// .cline/hooks and ~/.cline/hooks.
		Elsewhere: []source{{Glob: ".cline/hooks/*", HookFile: true}, {Glob: ".cline/hooks/*", User: true, HookFile: true}},
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

// Files of a host at a scope, absolute; a name with a * is each file it
// matches, in name order (Copilot's .github/hooks/*.json).
func (h *Target) files(o Options) []string {
	rel := h.ProjectFiles
	if o.Settings == User {
		rel = h.UserFiles
	}
	var out []string
	for _, r := range rel {
		path := filepath.Join(h.base(o), r)
		if !strings.Contains(r, "*") {
			out = append(out, path)
			continue
		}
		matches := globUnder(h.base(o), r)
		for _, m := range matches {
			if _, ok := h.hookFileEvent(m); !h.hookFiles() || ok {
				out = append(out, m)
			}
		}
	}
	return out
}

// base is the directory a scope's files are in, and whose links stay in
// it: the project, or the home directory.
func (h *Target) base(o Options) string {
	if o.Settings == User {
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
