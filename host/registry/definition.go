// Package registry holds hook definitions: the strict reading of Holaryn's
// definition documents (schema version 1), their scopes and namespaces,
// the order hooks run in at a point, their filters, and the immutable
// snapshot a boundary takes of them.
package registry

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/executor/handler/builtin"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/scriptpin"
)

// ErrDocument is the class of refused definition documents.
var ErrDocument = errors.New("invalid hook document")

// MaxDocumentBytes bounds a definition document.
const MaxDocumentBytes = 1 << 20

// Origin is where a definition comes from, the document's "scope" (a
// registry's word; hook.Scope is the trust it gives the hook). Owner
// origins merge from least to most specific; plugin definitions live in
// their own namespace.
type Origin string

const (
	Global  Origin = "global"
	Profile Origin = "profile"
	Project Origin = "project"
	Session Origin = "session"
	Plugin  Origin = "plugin"
)

// precedence orders the owner origins, least specific first.
var precedence = map[Origin]int{Global: 0, Profile: 1, Project: 2, Session: 3}

// Handler kinds.
const (
	KindScript  = "script"
	KindCommand = "command"
	KindWebhook = "webhook"
	KindBuiltin = "builtin"
)

// Definition is one hook definition document, member for member.
type Definition struct {
	SchemaVersion  int                `json:"schema_version"`
	ID             string             `json:"id"`
	Name           string             `json:"name"`
	Description    string             `json:"description"`
	Point          string             `json:"point"`
	Scope          Origin             `json:"scope"`
	ScopeKey       *string            `json:"scope_key"`
	Enabled        *bool              `json:"enabled"`
	Mode           hook.Mode          `json:"mode"`
	Order          int                `json:"order"`
	TimeoutSeconds float64            `json:"timeout_seconds"`
	MaxOutputBytes int64              `json:"max_output_bytes"`
	MaxConcurrency int                `json:"max_concurrency"`
	FailurePolicy  hook.FailurePolicy `json:"failure_policy"`
	Filters        Filters            `json:"filters"`
	Handler        Handler            `json:"handler"`
	// WorkspaceAccess is how a process handler sees the event's workspace
	// (when the boundary mounts one): read-only (the default), or
	// read-write, a loosening a formatter needs, which hook list, plugin
	// inspect and trust show, and consent and trust approve with the rest
	// of the document. The hook then runs as the workspace's owner; a
	// root-owned workspace is refused for it.
	WorkspaceAccess string `json:"workspace_access,omitzero"`
}

// Workspace access a definition may ask for.
const (
	ReadOnly  = "read-only"
	ReadWrite = "read-write"
)

// Filters select the events a hook runs for. Families are conjunctive;
// within one, any entry matches. An empty family matches everything.
type Filters struct {
	Tools      []string                  `json:"tools,omitzero"`      // globs over data.tool_name
	Categories []string                  `json:"categories,omitzero"` // exact data.category
	Paths      []string                  `json:"paths,omitzero"`      // globs over every path argument
	Sessions   []string                  `json:"sessions,omitzero"`   // globs over session_id
	Data       map[string]jsontext.Value `json:"data,omitzero"`       // exact values of data members
}

// Handler is what runs. Members beyond kind depend on it.
type Handler struct {
	Kind    string            `json:"kind"`
	Script  string            `json:"script,omitzero"`  // script: path below the document's base directory
	SHA256  string            `json:"sha256,omitzero"`  // script: the approved digest, optional
	Image   string            `json:"image,omitzero"`   // script: an image other than the reference one
	Command []string          `json:"command,omitzero"` // command: argv, no shell
	URL     string            `json:"url,omitzero"`     // webhook
	Headers map[string]string `json:"headers,omitzero"` // webhook
	Builtin string            `json:"builtin,omitzero"` // builtin: its name
	Options jsontext.Value    `json:"options,omitzero"` // builtin: its options object
	Env     map[string]string `json:"env,omitzero"`     // declared, non-secret values
}

// Defaults of the members a document may leave out.
const (
	DefaultTimeoutSeconds = 10
	DefaultMaxOutputBytes = 64 << 10
	DefaultMaxConcurrency = 1
	MaxTimeoutSeconds     = 600
)

var jsonIndent = jsontext.WithIndent("  ")

var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// Parse reads a document that holds one definition or a list of them,
// strictly: member names matched exactly, no unknown or duplicate members,
// no nulls but scope_key's, numbers of their member's type and all of them
// finite, definitions nested at most [MaxNesting] deep.
// Errors name the member by its JSON pointer. Defaults are filled in and
// every definition is validated ([Definition.Validate]).
func Parse(b []byte) ([]*Definition, error) { return parse(b, "") }

// parse reads an owner document (want "") or a plugin's (want Plugin).
func parse(b []byte, want Origin) ([]*Definition, error) {
	if len(b) > MaxDocumentBytes {
		return nil, fmt.Errorf("%w: %d bytes, more than %d", ErrDocument, len(b), MaxDocumentBytes)
	}
	v := jsontext.Value(bytes.Clone(b)) // Format works in place
	if err := v.Format(); err != nil {  // one valid JSON value: syntax, duplicates, surrogates
		return nil, docErr(err)
	}
	depth := 0
	if v.Kind() == '[' {
		depth = -1 // MaxNesting counts from each definition: a list of one is the same one
	}
	if err := checkValues(b, "", depth, nullableMember); err != nil {
		return nil, err
	}
	var defs []*Definition
	opts := json.JoinOptions(json.RejectUnknownMembers(true))
	switch v.Kind() {
	case '{':
		var d Definition
		if err := json.Unmarshal(b, &d, opts); err != nil {
			return nil, docErr(err)
		}
		defs = []*Definition{&d}
	case '[':
		if err := json.Unmarshal(b, &defs, opts); err != nil {
			return nil, docErr(err)
		}
		if len(defs) == 0 {
			return nil, fmt.Errorf("%w: an empty list", ErrDocument)
		}
	default:
		return nil, fmt.Errorf("%w: a document is one definition (an object) or a list of them", ErrDocument)
	}
	seen := map[string]int{}
	for i, d := range defs {
		if err := d.validate(want == Plugin); err != nil {
			if len(defs) > 1 {
				return nil, fmt.Errorf("definition /%d: %w", i, err)
			}
			return nil, err
		}
		if j, dup := seen[d.ID]; dup {
			return nil, fmt.Errorf("%w: /%d/id: %q is already defined at /%d", ErrDocument, i, d.ID, j)
		}
		seen[d.ID] = i
	}
	return defs, nil
}

// docErr turns a decoder's error into one that names the member.
func docErr(err error) error {
	var se *json.SemanticError
	var sy *jsontext.SyntacticError
	switch {
	case errors.As(err, &se):
		ptr := string(se.JSONPointer)
		if errors.Is(se.Err, json.ErrUnknownName) {
			return fmt.Errorf("%w: member %s: unknown member (names match exactly)", ErrDocument, ptr)
		}
		if se.Err != nil {
			return fmt.Errorf("%w: member %s: %v", ErrDocument, ptr, se.Err)
		}
		want := "a value of another type"
		if se.GoType != nil {
			want = se.GoType.String()
		}
		return fmt.Errorf("%w: member %s: JSON %s where %s belongs", ErrDocument, ptr, se.JSONKind, want)
	case errors.As(err, &sy):
		return fmt.Errorf("%w: at %s: %v", ErrDocument, sy.JSONPointer, sy.Err)
	}
	return fmt.Errorf("%w: %w", ErrDocument, err)
}

// MaxNesting bounds how deep a definition nests, its own object included
// (a list around it does not count). A definition needs a few levels (filters.data values, builtin options);
// the bound keeps every definition within what its content address can
// canonicalize ([scriptpin.Canonicalize] goes no deeper than 64).
const MaxNesting = 32

// checkValues walks every token of b, a document or (at, depth) one raw
// member of a definition at that JSON pointer and nesting depth: every
// number fits a finite float64 (1e999 does not: its content address could
// not be computed, and no host reads it the same way), nesting stays
// within MaxNesting, and null appears only where nullOK says.
func checkValues(b []byte, at string, depth int, nullOK func(ptr string) bool) error {
	d := jsontext.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := d.ReadToken()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return docErr(err)
		}
		ptr := at + string(d.StackPointer())
		switch tok.Kind() {
		case '{', '[':
			if depth+d.StackDepth() > MaxNesting {
				return fmt.Errorf("%w: member %s: nested deeper than %d levels", ErrDocument, ptr, MaxNesting)
			}
		case '0':
			if _, err := strconv.ParseFloat(tok.String(), 64); err != nil {
				return fmt.Errorf("%w: member %s: number %s does not fit a finite float64", ErrDocument, ptr, tok.String())
			}
		case 'n':
			if !nullOK(ptr) {
				return fmt.Errorf("%w: member %s: null is not a value here: leave the member out for its default", ErrDocument, ptr)
			}
		}
	}
}

// nullable matches the members where a document may hold null: scope_key,
// and inside data filter values (they match the event's own nulls).
var nullable = regexp.MustCompile(`^(/[0-9]+)?/(scope_key$|filters/data/)`)

func nullableMember(ptr string) bool { return nullable.MatchString(ptr) }

// Validate checks a parsed definition and fills the defaults of the
// members left out. It applies every rule a run applies to the hook
// ([executor.Check]): a definition that validates is not refused by a run
// for what it says.
func (d *Definition) Validate() error { return d.validate(false) }

func (d *Definition) validate(plugin bool) error {
	bad := func(member, format string, args ...any) error {
		return fmt.Errorf("%w: member /%s: %s", ErrDocument, member, fmt.Sprintf(format, args...))
	}
	if d.SchemaVersion != 1 {
		return bad("schema_version", "%d: want 1", d.SchemaVersion)
	}
	if err := d.checkRawValues(); err != nil {
		return err
	}
	if strings.HasPrefix(d.ID, "plugin:") || strings.ContainsAny(d.ID, ":/") {
		return bad("id", "%q: the plugin namespace (plugin:<plugin>/<id>) belongs to plugins; a document uses a bare id", d.ID)
	}
	if !idPattern.MatchString(d.ID) {
		return bad("id", "%q: want 1-128 letters, digits, '.', '_' or '-', starting with a letter or digit", d.ID)
	}
	if err := hook.CheckPoint(d.Point); err != nil {
		return bad("point", "%v", err)
	}
	if plugin {
		if d.Scope != "" && d.Scope != Plugin {
			return bad("scope", "%q: a plugin's hooks have scope plugin (or none)", d.Scope)
		}
		d.Scope = Plugin
	}
	switch d.Scope {
	case Global, Profile, Project, Session:
	case Plugin:
		if plugin {
			break
		}
		return bad("scope", "plugin: plugin hooks come from an installed plugin's hooks.json, never from this document")
	case "":
		return bad("scope", "missing: use global, profile, project or session")
	default:
		return bad("scope", "%q: use global, profile, project or session", d.Scope)
	}
	if d.Scope == Profile && (d.ScopeKey == nil || *d.ScopeKey == "") {
		return bad("scope_key", "a profile definition names its profile here")
	}
	if d.Scope == Profile && !idPattern.MatchString(*d.ScopeKey) {
		return bad("scope_key", "%q: a profile id is 1-128 letters, digits, '.', '_' or '-', starting with a letter or digit", *d.ScopeKey)
	}
	if err := d.defaults(bad); err != nil {
		return err
	}
	if timeout(d.TimeoutSeconds) < time.Millisecond {
		return bad("timeout_seconds", "%v: want at least 0.001 (a millisecond)", d.TimeoutSeconds)
	}
	if err := d.Filters.validate(); err != nil {
		return err
	}
	if err := d.Handler.validate(); err != nil {
		return err
	}
	// What a run refuses, the document is refused for: the executor's own
	// check of the hook a boundary would run.
	h := d.hook(d.ID, d.Scope, "")
	if err := executor.Check(&h); err != nil {
		member := "/handler"
		var re *executor.RuleError
		if errors.As(err, &re) {
			member += re.Field
		}
		return fmt.Errorf("%w: member %s: %w", ErrDocument, member, err)
	}
	return nil
}

// defaults fills what a definition leaves out (enabled, mode, timeout,
// bounds, failure policy) and refuses values out of their range; bad
// names the member.
func (d *Definition) defaults(bad func(member, format string, args ...any) error) error {
	if d.Enabled == nil {
		t := true
		d.Enabled = &t
	}
	switch d.Mode {
	case "":
		d.Mode = hook.Blocking
	case hook.Blocking, hook.Observational:
	default:
		return bad("mode", "%q: use blocking or observational", d.Mode)
	}
	if d.TimeoutSeconds == 0 {
		d.TimeoutSeconds = DefaultTimeoutSeconds
	}
	if math.IsNaN(d.TimeoutSeconds) || d.TimeoutSeconds <= 0 || d.TimeoutSeconds > MaxTimeoutSeconds {
		return bad("timeout_seconds", "%v: want more than 0 and at most %d", d.TimeoutSeconds, MaxTimeoutSeconds)
	}
	if d.MaxOutputBytes == 0 {
		d.MaxOutputBytes = DefaultMaxOutputBytes
	}
	if d.MaxOutputBytes < 0 {
		return bad("max_output_bytes", "%d: want a positive number", d.MaxOutputBytes)
	}
	if d.MaxConcurrency == 0 {
		d.MaxConcurrency = DefaultMaxConcurrency
	}
	if d.MaxConcurrency < 0 {
		return bad("max_concurrency", "%d: want a positive number", d.MaxConcurrency)
	}
	switch d.FailurePolicy {
	case "":
		d.FailurePolicy = hook.PolicyDeny
		if d.Mode == hook.Observational {
			d.FailurePolicy = hook.PolicyContinue
		}
	case hook.PolicyContinue, hook.PolicyWarn, hook.PolicyDisable:
	case hook.PolicyDeny:
		if d.Mode == hook.Observational {
			return bad("failure_policy", "deny: an observational hook cannot deny: use continue, warn or disable")
		}
	default:
		return bad("failure_policy", "%q: use continue, warn, deny or disable", d.FailurePolicy)
	}
	switch d.WorkspaceAccess {
	case "", ReadOnly:
	case ReadWrite:
		if d.Handler.Kind != KindScript && d.Handler.Kind != KindCommand {
			return bad("workspace_access", "read-write: only a script or command handler sees the workspace")
		}
	default:
		return bad("workspace_access", "%q: use read-only or read-write", d.WorkspaceAccess)
	}
	return nil
}

// timeout is a definition's timeout as a run takes it.
func timeout(seconds float64) time.Duration { return time.Duration(seconds * float64(time.Second)) }

// hook is the definition as the executor runs it: id is the effective id,
// baseDir where its script path starts.
func (d *Definition) hook(id string, scope Origin, baseDir string) hook.Hook {
	hs := hook.ScopeOwner
	switch scope {
	case Plugin:
		hs = hook.ScopePlugin
	case Project:
		hs = hook.ScopeProject
	}
	var wh *hook.Webhook
	if d.Handler.Kind == KindWebhook {
		wh = &hook.Webhook{URL: d.Handler.URL, Headers: maps.Clone(d.Handler.Headers)}
	}
	var bi *hook.Builtin
	if d.Handler.Kind == KindBuiltin {
		bi = &hook.Builtin{Name: d.Handler.Builtin, Options: slices.Clone(d.Handler.Options)}
	}
	return hook.Hook{
		Webhook:        wh,
		Builtin:        bi,
		ID:             id,
		Dialect:        hook.Holaryn,
		Scope:          hs,
		Mode:           d.Mode,
		FailurePolicy:  d.FailurePolicy,
		MaxConcurrency: d.MaxConcurrency,
		Timeout:        timeout(d.TimeoutSeconds),
		MaxOutputBytes: d.MaxOutputBytes,
		Env:            maps.Clone(d.Handler.Env),
		PluginDir:      baseDir,
		Script:         d.Handler.Script,
		Command:        slices.Clone(d.Handler.Command),
		SHA256:         d.Handler.SHA256,
		Image:          d.Handler.Image,
		WorkspaceRW:    d.WorkspaceAccess == ReadWrite,
	}
}

// checkRawValues applies the document's value rules to the members kept as
// raw JSON. Parse walked the whole document already; a definition read
// from a state file or built in Go was not.
func (d *Definition) checkRawValues() error {
	for k, v := range d.Filters.Data {
		at := string(jsontext.Pointer("/filters/data").AppendToken(k))
		if err := checkValues(v, at, 3, func(string) bool { return true }); err != nil {
			return err
		}
	}
	return checkValues(d.Handler.Options, "/handler/options", 2, func(string) bool { return false })
}

func (f *Filters) validate() error {
	for name, globs := range map[string][]string{"tools": f.Tools, "paths": f.Paths, "sessions": f.Sessions} {
		for i, g := range globs {
			if err := checkGlob(g); err != nil {
				return fmt.Errorf("%w: member /filters/%s/%d: %v", ErrDocument, name, i, err)
			}
		}
	}
	for i, c := range f.Categories {
		if c == "" {
			return fmt.Errorf("%w: member /filters/categories/%d: empty", ErrDocument, i)
		}
	}
	return nil
}

func (h *Handler) validate() error {
	bad := func(member, format string, args ...any) error {
		return fmt.Errorf("%w: member /handler/%s: %s", ErrDocument, member, fmt.Sprintf(format, args...))
	}
	extra := func(allowed ...string) error {
		set := map[string]bool{"script": h.Script != "", "sha256": h.SHA256 != "", "image": h.Image != "",
			"command": h.Command != nil, "url": h.URL != "", "headers": h.Headers != nil, "builtin": h.Builtin != "",
			"options": h.Options != nil}
		for _, a := range allowed {
			delete(set, a)
		}
		for name, present := range set {
			if present {
				return bad(name, "does not belong to a %s handler", h.Kind)
			}
		}
		return nil
	}
	switch h.Kind {
	case KindScript:
		if h.Script == "" {
			return bad("script", "missing: a script handler names its .sh or .py file")
		}
		return extra("script", "sha256", "image")
	case KindCommand:
		if len(h.Command) == 0 || h.Command[0] == "" {
			return bad("command", "missing: a command handler is an argv array, program first (no shell)")
		}
		return extra("command", "image")
	case KindWebhook:
		if h.URL == "" {
			return bad("url", "missing: a webhook handler names its https URL")
		}
		if len(h.Env) > 0 {
			return bad("env", "a webhook runs no process: it has no environment")
		}
		return extra("url", "headers")
	case KindBuiltin:
		if h.Builtin == "" {
			return bad("builtin", "missing: name one of %v", builtin.Names)
		}
		if len(h.Options) > 0 && h.Options.Kind() != '{' {
			return bad("options", "a builtin's options are an object")
		}
		if len(h.Env) > 0 {
			return bad("env", "a builtin runs no process: it has no environment")
		}
		return extra("builtin", "options")
	case "":
		return bad("kind", "missing: use script, command, webhook or builtin")
	default:
		return bad("kind", "%q: use script, command, webhook or builtin", h.Kind)
	}
}

// CheckProfile refuses a profile id that could not name its file.
func CheckProfile(id string) error {
	if id != "" && !idPattern.MatchString(id) {
		return fmt.Errorf("%w: profile %q: a profile id is 1-128 letters, digits, '.', '_' or '-', starting with a letter or digit", ErrDocument, id)
	}
	return nil
}

// Version is the definition's content address: SHA-256 of its canonical
// JSON (RFC 8785), defaults filled in, so formatting does not change it.
// A validated definition always has one; the error is for one that was
// not (a number that is not finite, nesting too deep).
func (d *Definition) Version() (string, error) {
	b, err := json.Marshal(d, json.Deterministic(true))
	if err != nil {
		return "", fmt.Errorf("%w: hook %s: %w", ErrDocument, d.ID, err)
	}
	c, err := scriptpin.Canonicalize(b)
	if err != nil {
		return "", fmt.Errorf("%w: hook %s has no content address: %w", ErrDocument, d.ID, err)
	}
	sum := sha256.Sum256(c)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}
