package hook

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// Dialect names the host a hook answers, as hook documents, flags, traces
// and the serve protocol write it; its Host holds what that host means.
type Dialect string

// Host is what differs between the hosts whose hooks hook-exec runs: what
// an event looks like, which hooks it selects, how a hook's answer is
// read and the final one written, and what the host promises its hooks of
// their sandbox. There is one per host (hook/holaryn.go, arcturn.go,
// bernstein.go, claude.go, cursor.go, gemini.go); the executor asks it and never names a host.
type Host interface {
	// Name is the host's dialect name.
	Name() Dialect
	// Parse checks an event before anything runs.
	Parse(event []byte) (*Envelope, error)
	// CheckMatcher refuses a matcher the host could never apply.
	CheckMatcher(matcher string) error
	// Matches reports whether a hook's matcher selects the event.
	Matches(matcher string, e *Envelope) bool
	// Interpret reads a finished hook's exit status and output. The error
	// is ErrExit for a failing exit, ErrMissing for a program the hook's
	// shell could not run, ErrDecision for an answer that cannot be read.
	Interpret(e *Envelope, exitCode int, stdout, stderr []byte) (*Decision, error)
	// Encode writes the final decision at point (the event's name) as one
	// line. failure is the run's, nil when it ran cleanly.
	Encode(point string, dec Decision, failure *Failure) ([]byte, error)
	// DefaultFailurePolicy is the failure policy for a failure when the
	// hook sets none; own says the hook ran and failed on its own (see
	// FailureKind.HooksOwn).
	DefaultFailurePolicy(m Mode, own bool) FailurePolicy
	// HookVars are the variables a hook's sandbox gets beside the event's.
	HookVars(hookID string) map[string]string
	// Sandbox is what the host promises its hooks of their sandbox.
	Sandbox() Sandbox
	// Answer is how a hook command answers the host with the final
	// decision at point: what it prints, and its exit status. failure is
	// the run's, nil when it ran cleanly.
	Answer(point string, dec Decision, failure *Failure) (Answer, error)
}

// Answer is a hook command's answer to its host.
type Answer struct {
	// Stdout is the answer on stdout (nil: nothing); Stderr a line for
	// stderr ("": none).
	Stdout []byte
	Stderr string
	// Exit is the exit status: ExitBlock blocks by status, ExitHookFailed
	// is the host's "the hook failed".
	Exit int
}

// The exit statuses an answer uses besides 0.
const (
	ExitHookFailed = 1
	ExitBlock      = 2
)

// encoded is the answer most hosts read: the encoded decision on stdout,
// and exit status 0.
func encoded(h Host, point string, dec Decision, failure *Failure) (Answer, error) {
	b, err := h.Encode(point, dec, failure)
	return Answer{Stdout: b}, err
}

// Sandbox is what a host promises its hooks of the sandbox they run in.
type Sandbox struct {
	// Shebang: a script runs by its #! line, whatever its name, under the
	// shell that line names. Without it a script runs by its extension
	// (.sh or .py), a .sh under sh whatever its #! line says.
	Shebang bool
	// EventCwd: the hook starts in the event's working directory when that
	// is the mounted workspace or inside it; without it (and for a cwd not
	// mounted) in its private directory.
	EventCwd bool
	// WorkspaceCwd: an event that names no working directory starts the
	// hook in the mounted workspace, where the host runs its hooks (the
	// workspace's root: Windsurf's Cascade); without EventCwd, every event
	// does (Copilot runs a hook in its entry's cwd, the repository's root,
	// whatever the session's).
	WorkspaceCwd bool
	// PluginRootVar names the variable that holds a plugin's tree
	// (Hook.PluginRoot), EnvFileVar the file a hook hands variables back
	// through (Hook.EnvFileOut).
	PluginRootVar, EnvFileVar string
	// HomeDir is the directory the host keeps in the user's home (.claude):
	// it exists, empty, in the sandbox's home, as on any machine the host
	// runs on (hooks look for it: [ -d "$HOME/.claude" ]); the user's own
	// stays out of the sandbox.
	HomeDir string
	// VarPrefix begins the names of the variables the host gives its hooks
	// (CLAUDE_): no hook declares one of those (VarPrefixes).
	VarPrefix string
	// PluginDataVar names the variable that holds a plugin's own data
	// directory (Hook.PluginData), which lies right below PluginDataDir in
	// the user's home.
	PluginDataVar, PluginDataDir string
}

// VarPrefixes are the prefixes of every host's variables (Sandbox.VarPrefix,
// and those of the loosenings' variables), sorted: the event variables a
// sandbox may get, and no hook may declare.
func VarPrefixes() []string {
	set := map[string]bool{}
	for _, h := range hosts {
		r := h.Sandbox()
		for _, v := range []string{r.VarPrefix, prefixOf(r.PluginRootVar), prefixOf(r.EnvFileVar), prefixOf(r.PluginDataVar)} {
			if v != "" {
				set[v] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// prefixOf is a variable's prefix: its name up to its first _, kept.
func prefixOf(name string) string {
	if i := strings.IndexByte(name, '_'); i > 0 {
		return name[:i+1]
	}
	return ""
}

// The variables of the plugin-root and env-file loosenings. Claude Code
// is the one host that names them; hook-exec gives them these names in
// every dialect.
const (
	pluginRootVar = "CLAUDE_PLUGIN_ROOT"
	envFileVar    = "CLAUDE_ENV_FILE"
	pluginDataVar = "CLAUDE_PLUGIN_DATA"
	pluginDataDir = ".claude/plugins/data"
)

// hosts are the hosts hook-exec knows, by name.
var hosts = map[Dialect]Host{
	Holaryn:   holarynHost{},
	Arcturn:   arcturnHost{},
	Bernstein: bernsteinHost{},
	Claude:    claudeHost{},
	Cursor:    cursorHost{},
	Gemini:    geminiHost{},
	Codex:     codexHost{},
	Windsurf:  windsurfHost{},
	Copilot:   copilotHost{},
	Cline:     clineHost{},
}

// Host is the host d names. For a name no host has, it is one that
// refuses every event and answer (ErrInvalid).
func (d Dialect) Host() Host {
	if h, ok := hosts[d]; ok {
		return h
	}
	return unknownHost{d}
}

// ParseDialect accepts the dialect names.
func ParseDialect(s string) (Dialect, error) {
	if d := Dialect(s); hosts[d] != nil {
		return d, nil
	}
	names := Dialects()
	return "", fmt.Errorf("%w: dialect %q: use %s or %s", ErrInvalid, s, strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
}

// Dialects are the hosts' names: the default's first, then the others in
// name order.
func Dialects() []string {
	out := []string{string(DefaultDialect)}
	for _, d := range slices.Sorted(maps.Keys(hosts)) {
		if d != DefaultDialect {
			out = append(out, string(d))
		}
	}
	return out
}

// noticer is a host that tells the person something at an event its own
// way (Copilot: exit 2, its stderr shown as a warning).
type noticer interface {
	notice(point, msg string) Answer
}

// Notice is the answer at point that tells the person msg and decides
// nothing: Claude Code's systemMessage, or the host's own way (noticer).
func Notice(d Dialect, point, msg string) (Answer, error) {
	if n, ok := d.Host().(noticer); ok {
		return n.notice(point, msg), nil
	}
	return d.Host().Answer(point, Decision{SchemaVersion: 1, Action: Allow, Extension: &ClaudeAnswer{SystemMessage: msg}}, nil)
}

// ParseEnvelope checks an event in its dialect before anything runs.
func ParseEnvelope(d Dialect, b []byte) (*Envelope, error) { return d.Host().Parse(b) }

// pointed is a host whose payload may not name its event (Copilot's
// camelCase ones): the hook's configuration does (Hook.Point).
type pointed interface {
	ParseAt(point string, b []byte) (*Envelope, error)
}

// ParseAt checks an event of the point a hook's configuration names
// (Hook.Point), for a host whose payload may not name it; for the others
// point is "", and the payload names it.
func ParseAt(d Dialect, point string, b []byte) (*Envelope, error) {
	if p, ok := d.Host().(pointed); ok {
		return p.ParseAt(point, b)
	}
	if point != "" {
		return nil, fmt.Errorf("%w: point %q: a %s payload names its own event", ErrInvalid, point, d)
	}
	return d.Host().Parse(b)
}

// Interpret reads a finished hook's exit status and output in the
// envelope's dialect (Host.Interpret).
func Interpret(e *Envelope, exitCode int, stdout, stderr []byte) (*Decision, error) {
	return e.Dialect.Host().Interpret(e, exitCode, stdout, stderr)
}

// Encode writes the final decision at point in the host's dialect
// (Host.Encode).
func Encode(d Dialect, point string, dec Decision, failure *Failure) ([]byte, error) {
	return d.Host().Encode(point, dec, failure)
}

// unknownHost is the host of a name that names none.
type unknownHost struct{ name Dialect }

func (u unknownHost) Name() Dialect { return u.name }
func (u unknownHost) Parse([]byte) (*Envelope, error) {
	return nil, fmt.Errorf("%w: dialect %q", ErrInvalid, u.name)
}
func (unknownHost) CheckMatcher(string) error      { return nil }
func (unknownHost) Matches(string, *Envelope) bool { return true }
func (u unknownHost) Interpret(*Envelope, int, []byte, []byte) (*Decision, error) {
	return nil, fmt.Errorf("%w: dialect %q", ErrInvalid, u.name)
}
func (u unknownHost) Encode(string, Decision, *Failure) ([]byte, error) {
	return nil, fmt.Errorf("%w: dialect %q", ErrInvalid, u.name)
}
func (unknownHost) DefaultFailurePolicy(m Mode, _ bool) FailurePolicy { return defaultFailurePolicy(m) }
func (unknownHost) HookVars(string) map[string]string                 { return nil }
func (unknownHost) Answer(string, Decision, *Failure) (Answer, error) {
	return Answer{Exit: ExitBlock}, nil // whose block is unknown: exit 2 is most hosts'
}
func (unknownHost) Sandbox() Sandbox { return Sandbox{} }

// defaultFailurePolicy is the failure policy of most hosts: observational
// hooks warn, blocking hooks fail closed. A hook that could not run at all
// (a refused script, a missing program, an engine that is down, a timeout
// before it started) is refused in every dialect: the guard never ran.
func defaultFailurePolicy(m Mode) FailurePolicy {
	if m == Observational {
		return PolicyWarn
	}
	return PolicyDeny
}

// ErrExit is the class of a hook's non-zero exit that its dialect reads as a
// failure (trace kind exit_nonzero).
var ErrExit = errors.New("hook exited non-zero")

// ErrMissing is the class of a hook's exit 126 or 127: its shell could not
// run a program the hook runs (not found, not executable, such as a
// missing jq). The hook as written never ran (trace kind missing_program),
// in every dialect: Arcturn's "other exits fail open" is for a hook that
// ran and failed.
var ErrMissing = errors.New("a program the hook runs is missing or not executable")

// missing is the failure of an exit 126 or 127, or nil.
func missing(exitCode int, stderr []byte) error {
	if exitCode != exitNotExecutable && exitCode != exitNotFound {
		return nil
	}
	return fmt.Errorf("%w: status %d: %s", ErrMissing, exitCode, reasonFrom(stderr, "no message"))
}

// Envelope is what the executor needs of an event, whatever its dialect.
type Envelope struct {
	Dialect   Dialect
	Point     string // holaryn point; arcturn or bernstein event name
	EventID   string
	SessionID string
	// TraceID is the event's distributed trace id, where the host sends
	// one (holaryn's trace_id).
	TraceID   string
	Depth     int
	Workspace string // holaryn workspace, arcturn cwd, bernstein workdir
	ToolName  string // for arcturn matchers
	// CanBlock is false where a deny cannot stop anything (arcturn's events
	// other than preToolUse): a deny there is let through as allow.
	CanBlock bool
	// TranscriptPath is the conversation's file as the host names it
	// (Claude Code, Codex, Cursor, Gemini CLI), "" when it names none.
	TranscriptPath string
	// EditedFile is the file an edit event names (Claude Code's and
	// Gemini CLI's tool_input.file_path, Cursor's file_path), absolute
	// (a relative one is the event's working directory's); "" for none.
	EditedFile string
	vars       map[string]string
	// argsSchema is the tool's argument schema a holaryn event carries
	// (data.args_schema), nil for none: a modify's args must fit it.
	argsSchema jsontext.Value
}

// MutationCheck says how a modify of this event was checked: against its
// tool's argument schema, or for its shape only.
func (e *Envelope) MutationCheck() string {
	if e.argsSchema != nil {
		return MutationSchema
	}
	return MutationShapeOnly
}

// EnvVars returns the event variables a sandbox gets for this event.
func (e *Envelope) EnvVars(hookID string) map[string]string {
	vars := maps.Clone(e.vars)
	if vars == nil {
		vars = map[string]string{}
	}
	maps.Copy(vars, e.Dialect.Host().HookVars(hookID))
	for k, v := range vars {
		if v == "" || strings.IndexByte(v, 0) >= 0 {
			delete(vars, k)
		}
	}
	return vars
}

// objectOf decodes a host's payload exactly: a duplicate member (at any
// depth) or one of names in another case is refused. A member not in
// names is left alone: a newer host adds members, and the hook still gets
// the payload's original bytes, so what is not read here is passed on.
func objectOf(b []byte, names ...string) (map[string]jsontext.Value, error) {
	m, err := object(b)
	if err == nil {
		err = exactNames(m, names)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: event: %w", ErrInvalid, err)
	}
	return m, nil
}

// typedObject decodes a host's payload as objectOf does, and checks the
// type of each member kinds names: 't' is a boolean, 'n' a string that may
// be null, any other kind that kind. Members kinds does not name pass.
func typedObject(b []byte, kinds map[string]jsontext.Kind) (map[string]jsontext.Value, error) {
	m, err := objectOf(b, slices.Collect(maps.Keys(kinds))...)
	if err != nil {
		return nil, err
	}
	for k, kind := range kinds {
		raw, ok := m[k]
		if !ok {
			continue
		}
		switch got := raw.Kind(); {
		case got == kind, kind == 't' && got == 'f', kind == 'n' && (got == '"' || got == 'n'):
		default:
			return nil, fmt.Errorf("%w: event member %q has the wrong type", ErrInvalid, k)
		}
	}
	return m, nil
}

func stringField(m map[string]jsontext.Value, key string, required bool) (string, error) {
	raw, ok := m[key]
	if !ok {
		if required {
			return "", fmt.Errorf("%w: event has no %q", ErrInvalid, key)
		}
		return "", nil
	}
	if raw.Kind() != '"' {
		return "", fmt.Errorf("%w: event %q must be a string", ErrInvalid, key)
	}
	var s string
	if err := unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("%w: event %q: %w", ErrInvalid, key, err)
	}
	return s, nil
}

// nullableString reads an optional string member that its host writes as
// null when it has no value (Bernstein's task and session_id).
func nullableString(m map[string]jsontext.Value, key string) (string, error) {
	if raw, ok := m[key]; ok && raw.Kind() == 'n' {
		return "", nil
	}
	return stringField(m, key, false)
}

func isObject(raw []byte) bool { return jsontext.Value(raw).Kind() == '{' }

// editedFile is the file an event names an edit of: its tool_input's
// file_path, else its own file_path, read exactly; resolved against cwd.
// "" when it names none, or names it in a way that does not read.
func editedFile(m map[string]jsontext.Value, cwd string) string {
	var path string
	if raw, ok := m["tool_input"]; ok && raw.Kind() == '{' {
		if in, err := objectOf(raw, "file_path"); err == nil {
			path, _ = stringField(in, "file_path", false)
		}
	}
	if path == "" {
		path, _ = stringField(m, "file_path", false)
	}
	return resolvedIn(path, cwd)
}

// resolvedIn is path, a file an event names, made absolute against cwd
// and clean; "" for none, one with a NUL, or a relative one without an
// absolute cwd.
func resolvedIn(path, cwd string) string {
	if path == "" || strings.ContainsRune(path, 0) {
		return ""
	}
	if !filepath.IsAbs(path) {
		if !filepath.IsAbs(cwd) {
			return ""
		}
		path = filepath.Join(cwd, path)
	}
	return filepath.Clean(path)
}

// maxReasonBytes bounds a reason taken from stderr.
const maxReasonBytes = 1024

func reasonFrom(stderr []byte, fallback string) string {
	s := strings.TrimSpace(strings.ToValidUTF8(string(stderr), "\uFFFD"))
	if len(s) > maxReasonBytes {
		s = strings.ToValidUTF8(s[:maxReasonBytes], "")
	}
	if s == "" {
		return fallback
	}
	return s
}

// errExit is the failure of a non-zero exit the dialect does not read as an answer.
func errExit(exitCode int) error { return fmt.Errorf("%w: status %d", ErrExit, exitCode) }
