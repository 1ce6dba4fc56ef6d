// Package hook is hook-exec's vocabulary: events, hook definitions, handler
// modes, failure policies, decisions and traces, and the strict parsing of
// what a hook writes back. It imports nothing but the standard library.
package hook

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Mode says whether a hook can change the outcome.
type Mode string

const (
	Blocking      Mode = "blocking"
	Observational Mode = "observational"
)

// FailurePolicy says what a failed run means.
type FailurePolicy string

const (
	PolicyContinue FailurePolicy = "continue" // record the failure, allow
	PolicyWarn     FailurePolicy = "warn"     // allow, and surface the diagnostic
	PolicyDeny     FailurePolicy = "deny"     // fail closed (blocking hooks only)
	PolicyDisable  FailurePolicy = "disable"  // allow, and turn the hook off for the executor's life
)

// Action is a decision's verb.
type Action string

const (
	Allow           Action = "allow"
	Deny            Action = "deny"
	Modify          Action = "modify"
	RequestApproval Action = "request_approval"
)

// ErrInvalid is the class of refused hook definitions and events.
var ErrInvalid = errors.New("invalid hook")

// MaxDepth: an event at this recursion depth or deeper is refused.
const MaxDepth = 3

// Scope says who defined a hook. Plugin and project hooks are untrusted
// code: they run only on an isolating backend.
type Scope string

const (
	ScopePlugin  Scope = "plugin"
	ScopeProject Scope = "project"
	// ScopeOwner covers the owner's own global, profile and session hooks.
	ScopeOwner Scope = "owner"
)

// Untrusted reports whether the scope's hooks need an isolating backend.
func (s Scope) Untrusted() bool { return s != ScopeOwner }

// Hook is one hook definition as the executor runs it.
type Hook struct {
	ID      string
	Dialect Dialect // default holaryn
	// Scope defaults to owner, as `hook-exec run` without --scope: the
	// caller's own hook. A plugin hook must carry SHA256 (the owner's
	// approval) and no Env; plugin and project hooks run only on an
	// isolating backend. The container sandbox is the same for all three.
	Scope         Scope
	Mode          Mode
	FailurePolicy FailurePolicy
	// Matcher selects the events a hook runs at, as its host reads it
	// (Host.Matches); empty matches every event.
	Matcher string
	// Point is the event the hook's configuration runs it at, for a host
	// whose payload may not name it (Copilot's camelCase events); "" for
	// the others, whose payload does.
	Point string
	// MaxConcurrency bounds this hook's runs in flight (default 4).
	MaxConcurrency int
	Timeout        time.Duration
	// MaxOutputBytes caps stdout and stderr together.
	MaxOutputBytes int64
	// Env holds declared, non-secret values.
	Env map[string]string
	// PluginDir and Script locate the script: Script is relative to PluginDir.
	PluginDir string
	Script    string
	// Command is a command handler's argv, run with no shell and no
	// launcher: in a sandbox it is the container's process (the program
	// from the image's PATH), the event its stdin. Script and Command are
	// exclusive; a plugin's command names a program, not a path.
	Command []string
	// Webhook posts the event to a URL instead of running anything (owner
	// hooks only): see package webhook for its rules.
	Webhook *Webhook
	// Builtin runs one of the reviewed in-process handlers (package
	// builtin) with its options object.
	Builtin *Builtin
	// SHA256 is the approved digest of the script (lowercase hex); empty
	// means the bytes read at launch are the pin.
	SHA256 string
	// ApproveWith is the command that approves the script again (`hook-exec
	// install claude`), named in the refusal of a script that changed.
	ApproveWith string
	// Image overrides the reference image for the script's language.
	Image string
	// Memory (bytes), Pids and NanoCPUs override the sandbox's limits; zero
	// keeps its defaults.
	Memory, Pids, NanoCPUs int64

	// Workspace is a host directory mounted read-only at the same path.
	// Empty: the event's workspace (holaryn workspace, arcturn cwd,
	// bernstein workdir), when it lies inside one of AllowRoots.
	Workspace  string
	AllowRoots []string
	// WorkspaceRW loosens the workspace to read-write (formatters); the hook
	// then runs as the workspace's owner. A root-owned workspace is refused
	// unless AllowRootOwned loosens that too.
	WorkspaceRW    bool
	AllowRootOwned bool
	// Mounts are further mounts, such as a session container's; read-only
	// unless WorkspaceRW (and always when the mount says so).
	Mounts []Mount

	// Named loosenings for the hooks of other hosts, each traced:
	// Args are the script's arguments (never the script itself); PluginRoot
	// is a plugin's tree, mounted read-only at its own path, hashed into
	// the trace (and, with PluginRootSHA256, refused when it changed), and
	// CLAUDE_PLUGIN_ROOT for the hook.
	Args             []string
	PluginRoot       string
	PluginRootSHA256 string
	// ScriptRoot is the directory the script lives in with the files it
	// reads beside it (a kit's lib/, a sibling module, its config):
	// pinned whole to ScriptRootSHA256 and refused when it changed,
	// visible read-only at its path (mounted when it is not the
	// workspace's), and the script runs from its path there, so that $0,
	// dirname "$0", __file__ and imports of its neighbours are as on the
	// host.
	ScriptRoot       string
	ScriptRootSHA256 string
	// ScriptRootOthers are names in ScriptRoot's top level that are no
	// part of its digest: the host's hooks files beside the script, which
	// install rewrites (Copilot's .github/hooks/*.json), and install's
	// records there.
	ScriptRootOthers []string
	// EnvFileOut is the host file that gets what the hook writes to
	// $CLAUDE_ENV_FILE: NAME=VALUE lines without expansions, re-quoted, of
	// the names EnvFileAllow lists and no others.
	EnvFileOut   string
	EnvFileAllow []string
	// Transcript mounts the event's transcript_path (Claude Code, Codex,
	// Cursor, Gemini CLI) read-only at its path, for a hook that reads the
	// conversation (a Stop hook that checks what was said): only a regular
	// file of the calling user, and such a run starts its own sandbox
	// (never a pooled or reused one).
	Transcript bool
	// Writable are files of the workspace (relative to it) the hook may
	// rewrite or remove: its own state, such as ralph-wiggum's
	// .claude/ralph-loop.local.md. Each one's directory is a private copy,
	// mounted read-write over it; after the run the named file alone goes
	// back. The run starts its own sandbox, as the calling user (as
	// 65534 when that is root).
	Writable []string
	// WritableEditedFile gives the file an edit event names
	// (Envelope.EditedFile), when it is in the workspace, as one more of
	// Writable: a formatter after a Write or Edit rewrites that file, and
	// only that one.
	WritableEditedFile bool
	// PluginData is a Claude Code plugin's own data directory
	// (${CLAUDE_PLUGIN_DATA}, ~/.claude/plugins/data/ID, which outlives
	// the plugin's updates), mounted read-write at its path for the
	// plugin's hook; the run, in a sandbox of its own, is the calling
	// user's (root's, for root).
	PluginData string
	// TmpData gives the hook a /tmp kept between its runs, as the host's
	// is: its own data directory in hook-exec's state (one per hook tree:
	// the hooks of a kit share it, as they share /tmp on the host, and
	// no other hook sees it), mounted read-write at /tmp in place of the
	// sandbox's empty tmpfs, for state such as a rate limiter's counter
	// or a warned-once marker. The run, in a sandbox of its own, is the
	// calling user's (65534's for root).
	TmpData bool
}

// Webhook is a webhook handler: the URL the event is posted to, and
// headers without credentials.
type Webhook struct {
	URL     string
	Headers map[string]string
}

// Builtin names a builtin handler and holds its options (JSON).
type Builtin struct {
	Name    string
	Options []byte
}

// Mount is a host directory (or an engine volume) a hook sees.
type Mount struct {
	Source string
	Target string
	Volume bool
	// ReadOnly holds it read-only even with WorkspaceRW (--mount SRC:DST:ro).
	ReadOnly bool
}

// Validate checks a definition and fills defaults.
func (h *Hook) Validate() error {
	if h.ID == "" {
		h.ID = "hook"
	}
	if h.Dialect == "" {
		h.Dialect = Holaryn
	}
	if _, err := ParseDialect(string(h.Dialect)); err != nil {
		return err
	}
	if err := h.Dialect.Host().CheckMatcher(h.Matcher); err != nil {
		return err
	}
	if _, ok := h.Dialect.Host().(pointed); h.Point != "" && !ok {
		return fmt.Errorf("%w: point %q: a %s payload names its own event", ErrInvalid, h.Point, h.Dialect)
	}
	switch h.Scope {
	case "":
		h.Scope = ScopeOwner
	case ScopePlugin, ScopeProject, ScopeOwner:
	default:
		return fmt.Errorf("%w: scope %q: use plugin, project or owner", ErrInvalid, h.Scope)
	}
	if h.MaxConcurrency <= 0 {
		h.MaxConcurrency = 4
	}
	switch h.Mode {
	case "":
		h.Mode = Blocking
	case Blocking, Observational:
	default:
		return fmt.Errorf("%w: mode %q: use blocking or observational", ErrInvalid, h.Mode)
	}
	switch h.FailurePolicy {
	case "":
		// The dialect's default, by the failure's kind: Host.DefaultFailurePolicy.
	case PolicyContinue, PolicyWarn, PolicyDisable:
	case PolicyDeny:
		if h.Mode == Observational {
			return fmt.Errorf("%w: an observational hook cannot use failure_policy deny: use continue, warn or disable", ErrInvalid)
		}
	default:
		return fmt.Errorf("%w: failure_policy %q: use continue, warn, deny or disable", ErrInvalid, h.FailurePolicy)
	}
	if h.Timeout <= 0 {
		h.Timeout = 10 * time.Second
	}
	if h.MaxOutputBytes <= 0 {
		h.MaxOutputBytes = 64 << 10
	}
	kinds := 0
	for _, set := range []bool{h.Script != "", len(h.Command) > 0, h.Webhook != nil, h.Builtin != nil} {
		if set {
			kinds++
		}
	}
	switch {
	case kinds == 0:
		return fmt.Errorf("%w: no script, command, webhook or builtin", ErrInvalid)
	case kinds > 1:
		return fmt.Errorf("%w: a hook runs one handler: a script, a command, a webhook or a builtin", ErrInvalid)
	case h.Webhook != nil && h.Scope != ScopeOwner:
		return fmt.Errorf("%w: a %s hook cannot be a webhook: a webhook runs on the host, outside the isolated backend", ErrInvalid, h.Scope)
	case len(h.Command) > 0 && h.Command[0] == "":
		return fmt.Errorf("%w: a command's program name is empty", ErrInvalid)
	case len(h.Command) > 0 && h.Scope == ScopePlugin && strings.ContainsAny(h.Command[0], `/\`):
		return fmt.Errorf("%w: plugin command %q names a path: name a program on the sandbox's PATH", ErrInvalid, h.Command[0])
	}
	return nil
}
