// Package bernstein is Bernstein's hook pipeline on hook-exec's sandbox:
// discovery (bernstein.yaml's hooks: and the convention
// .bernstein/hooks/<event>.{sh,py}), the sample payloads of the seven
// cross-CLI events, and the chain of one event: sequential, annotate and
// mutate seen by the hooks after, the first deny ending it with an audit
// record (event, hook label, reason, the original data). `hook-exec
// bernstein hooks` is its CLI.
package bernstein

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"go.yaml.in/yaml/v3"

	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/host/chain"
	"github.com/hookexec/hook-exec/internal/shellsyntax"
	"github.com/hookexec/hook-exec/launcher"
	"github.com/hookexec/hook-exec/scriptpin"
)

// ErrConfig is the class of bernstein.yaml hook declarations refused.
var ErrConfig = errors.New("bernstein.yaml")

// Config is the file Bernstein reads hooks from, in the project's root.
const Config = "bernstein.yaml"

// HooksDir holds the convention's scripts, <event>.sh or <event>.py.
const HooksDir = ".bernstein/hooks"

// Hook is one hook of one event.
type Hook struct {
	Event string `json:"event"`
	// Label names it as Bernstein does: script:<path> or plugin:<name>.
	Label string `json:"label"`
	// Script is the path below the project ("" for a plugin reference).
	Script  string        `json:"script,omitempty"`
	Timeout time.Duration `json:"timeout_ns,omitempty"`
	// Plugin is a pluggy plugin's name: listed, never run here.
	Plugin string `json:"plugin,omitempty"`
	// Problem says why the hook cannot run (missing, not executable, a
	// path leaving the project); "" when it can.
	Problem string `json:"problem,omitempty"`
}

// Discover lists the hooks of the project at root: bernstein.yaml's, in
// their order, then the convention's scripts it does not already name. A
// declaration that cannot be read exactly is an error; a script that
// cannot run is listed with its Problem.
func Discover(root string) (map[string][]Hook, error) {
	out := map[string][]Hook{}
	b, err := os.ReadFile(filepath.Join(root, Config))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	default:
		if out, err = ParseConfig(b); err != nil {
			return nil, err
		}
	}
	entries, err := os.ReadDir(filepath.Join(root, HooksDir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, e := range entries {
		name := e.Name()
		ext := filepath.Ext(name)
		event := strings.TrimSuffix(name, ext)
		if (ext != ".sh" && ext != ".py") || !eventName.MatchString(event) || e.IsDir() {
			continue
		}
		rel := filepath.ToSlash(filepath.Join(HooksDir, name))
		if slices.ContainsFunc(out[event], func(h Hook) bool { return h.Script == rel }) {
			continue
		}
		out[event] = append(out[event], Hook{Event: event, Label: "script:" + rel, Script: rel})
	}
	for ev, hs := range out {
		for i := range hs {
			if hs[i].Script != "" {
				hs[i].Problem = problem(root, hs[i].Script)
			}
		}
		out[ev] = hs
	}
	return out, nil
}

var eventName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

// problem says why a script cannot run, "" when it can.
func problem(root, rel string) string {
	if filepath.IsAbs(rel) || !filepath.IsLocal(filepath.FromSlash(rel)) {
		return "the path leaves the project"
	}
	fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
	switch {
	case err != nil:
		return "missing"
	case fi.Mode()&fs.ModeSymlink != 0:
		return "a link"
	case !fi.Mode().IsRegular():
		return "not a regular file"
	case fi.Mode().Perm()&0o111 == 0:
		return "not executable (chmod +x)"
	}
	return ""
}

// Check says why h cannot run, "" when it can: its Problem, a file whose
// language neither its extension nor its #! line gives, or a shell script
// that the shell its #! line names cannot parse (named by line).
func Check(root string, h Hook) string {
	if h.Plugin != "" {
		return ""
	}
	if h.Problem != "" {
		return h.Problem
	}
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(h.Script)))
	if err != nil {
		return err.Error()
	}
	// Any executable file is a hook: its #! line says what runs it.
	lang, err := scriptpin.CheckShebang(filepath.Base(h.Script), b)
	if err != nil {
		return err.Error()
	}
	if _, err := scriptpin.LangOf(h.Script); err != nil && lang == launcher.Shell && !bytes.HasPrefix(b, []byte("#!")) {
		// Bernstein executes the file itself, not through a shell: without
		// a #! line the exec fails.
		return fmt.Sprintf("%s has no #! line: Bernstein cannot execute it", h.Script)
	}
	if lang == launcher.Node {
		if err := launcher.NodeShebang(b); err != nil {
			return err.Error()
		}
	}
	if lang != launcher.Shell {
		return ""
	}
	shell, _, err := launcher.Shebang(b)
	if err != nil {
		return err.Error()
	}
	if shell == "" {
		shell = "sh"
	}
	if err := shellsyntax.Check(b, shell); err != nil {
		return err.Error()
	}
	return ""
}

// ParseConfig reads bernstein.yaml's hooks: key exactly: each event a list
// of script paths, {script, timeout} or {plugin}; other top-level keys are
// Bernstein's and left alone.
func ParseConfig(b []byte) (map[string][]Hook, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	out := map[string][]Hook{}
	if len(doc.Content) == 0 {
		return out, nil
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%w: line %d: the document is not a mapping", ErrConfig, top.Line)
	}
	if err := unique(top); err != nil {
		return nil, err
	}
	hooks := value(top, "hooks")
	if hooks == nil || (hooks.Kind == yaml.ScalarNode && hooks.Tag == "!!null") {
		return out, nil
	}
	if hooks.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%w: line %d: hooks must map events to lists", ErrConfig, hooks.Line)
	}
	if err := unique(hooks); err != nil {
		return nil, err
	}
	for i := 0; i+1 < len(hooks.Content); i += 2 {
		k, list := hooks.Content[i], hooks.Content[i+1]
		event := k.Value
		if k.Kind != yaml.ScalarNode || !eventName.MatchString(event) {
			return nil, fmt.Errorf("%w: line %d: %q is not an event name", ErrConfig, k.Line, k.Value)
		}
		if list.Kind != yaml.SequenceNode {
			return nil, fmt.Errorf("%w: line %d: hooks.%s must be a list", ErrConfig, list.Line, event)
		}
		for _, item := range list.Content {
			h, err := entry(event, item)
			if err != nil {
				return nil, err
			}
			out[event] = append(out[event], h)
		}
	}
	return out, nil
}

// unique refuses a mapping that names a key twice: one reader would take
// the first, another the last.
func unique(m *yaml.Node) error {
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if seen[k.Value] {
			return fmt.Errorf("%w: line %d: %q is given twice", ErrConfig, k.Line, k.Value)
		}
		seen[k.Value] = true
	}
	return nil
}

// value is the node a mapping gives key (exactly), or nil.
func value(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func entry(event string, n *yaml.Node) (Hook, error) {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag != "!!str" || n.Value == "" {
			return Hook{}, fmt.Errorf("%w: line %d: a hook is a script path, {script, timeout} or {plugin}", ErrConfig, n.Line)
		}
		return Hook{Event: event, Label: "script:" + n.Value, Script: n.Value}, nil
	case yaml.MappingNode:
		if err := unique(n); err != nil {
			return Hook{}, err
		}
		h := Hook{Event: event}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			switch k.Value {
			case "script", "plugin":
				if v.Kind != yaml.ScalarNode || v.Tag != "!!str" || v.Value == "" {
					return Hook{}, fmt.Errorf("%w: line %d: %s must be a non-empty string", ErrConfig, v.Line, k.Value)
				}
				if k.Value == "script" {
					h.Script, h.Label = v.Value, "script:"+v.Value
				} else {
					h.Plugin, h.Label = v.Value, "plugin:"+v.Value
				}
			case "timeout":
				var secs float64
				if v.Kind != yaml.ScalarNode || (v.Tag != "!!int" && v.Tag != "!!float") || v.Decode(&secs) != nil || secs <= 0 || secs > 3600 {
					return Hook{}, fmt.Errorf("%w: line %d: timeout must be seconds, more than 0 and at most 3600", ErrConfig, v.Line)
				}
				h.Timeout = time.Duration(secs * float64(time.Second))
			default:
				return Hook{}, fmt.Errorf("%w: line %d: unknown key %q (names match exactly: script, timeout, plugin)", ErrConfig, k.Line, k.Value)
			}
		}
		if (h.Script == "") == (h.Plugin == "") {
			return Hook{}, fmt.Errorf("%w: line %d: a hook names a script or a plugin, one of them", ErrConfig, n.Line)
		}
		if h.Plugin != "" && h.Timeout != 0 {
			return Hook{}, fmt.Errorf("%w: line %d: a plugin reference takes no timeout", ErrConfig, n.Line)
		}
		return h, nil
	}
	return Hook{}, fmt.Errorf("%w: line %d: a hook is a script path, {script, timeout} or {plugin}", ErrConfig, n.Line)
}

// Samples are the documented sample payloads (the data member) of the
// seven cross-CLI events, for a dry run without --payload.
var Samples = map[string]string{
	"sessionStart":        `{"session_id":"s-sample"}`,
	"userPromptSubmitted": `{"session_id":"s-sample","prompt":"refactor the parser"}`,
	"preToolUse":          `{"session_id":"s-sample","tool":"shell.run","args":{"command":"ls"},"blast_radius_score":0}`,
	"postToolUse":         `{"session_id":"s-sample","tool":"shell.run","args":{"command":"ls"},"result":"README.md","duration_ms":12}`,
	"errorOccurred":       `{"session_id":"s-sample","error_class":"ToolError","message":"exit status 1"}`,
	"idle":                `{"session_id":"s-sample","idle_duration_s":30}`,
	"sessionEnd":          `{"session_id":"s-sample","status":"completed"}`,
}

// Denial is the audit record of a deny: what Bernstein forwards to its
// SIEM sinks.
type Denial struct {
	Event  string          `json:"event"`
	Hook   string          `json:"hook"`
	Reason string          `json:"reason"`
	Data   json.RawMessage `json:"data"`
}

// Record is an answer Bernstein normalises to allow but keeps whole for
// its downstream consumers: a verb it does not know, or no decision.
type Record struct {
	Hook string          `json:"hook"`
	Raw  json.RawMessage `json:"raw"`
}

// Result is one event's chain.
type Result struct {
	// Denied is set when a hook denied: the chain stopped there.
	Denied *Denial `json:"denied,omitempty"`
	// Records are the answers kept whole, in the order the hooks ran.
	Records []Record `json:"records,omitempty"`
	// Failed names the hook that failed (a non-zero exit, an answer that
	// cannot be read, a timeout) and why: the chain stopped there.
	Failed string `json:"failed,omitempty"`
	// Data is the payload as the last hook that ran left it.
	Data   json.RawMessage `json:"data"`
	Traces []hook.Trace    `json:"traces"`
	// Skipped are the hooks not run here: plugin references.
	Skipped []Hook `json:"skipped,omitempty"`
}

// Context is the envelope of one dispatch, beside its data.
type Context struct {
	Task, SessionID string
	Workdir         string // the project; the hook's workspace, mounted read-only
}

// Run fires event through hooks, in order, on ex: each hook gets the
// envelope with the data as the hooks before it left it (annotate merges
// its data in, mutate replaces it); the first deny or failure ends the
// chain. data is the payload's data member, checked against the event's
// schema before any script runs; nil is Bernstein's empty context (`hooks
// run`): data {}, no task or session, fired unchecked, as Bernstein fires
// it. A plugin reference is skipped; a script that cannot run (missing,
// not executable, ...) fails the chain, as running it would: skipping a
// guard would let through what it guards.
func Run(ctx context.Context, ex *executor.Executor, root, event string, hooks []Hook, data []byte, c Context) (*Result, error) {
	supplied := data != nil
	if !supplied {
		data = []byte(`{}`)
	}
	if !json.Valid(data) || bytes.TrimSpace(data)[0] != '{' {
		return nil, fmt.Errorf("%w: the payload must be a JSON object", hook.ErrInvalid)
	}
	res := &Result{Data: json.RawMessage(data)}
	original := json.RawMessage(bytes.Clone(data))
	// A supplied payload's schema is checked before any script runs.
	if supplied {
		if err := hook.CheckBernsteinData(event, data); err != nil {
			return nil, err
		}
	}
	first, err := envelope(event, res.Data, c)
	if err != nil {
		return nil, err
	}
	if _, err := hook.ParseEnvelope(hook.Bernstein, first); err != nil {
		return nil, err
	}
	// The chain's event is the data; each hook reads it in the envelope.
	_, err = chain.Run(ctx, ex, hooks, res.Data, chain.Options[Hook]{
		Hook: func(_ int, h Hook, _ []byte) (hook.Hook, chain.Step) {
			switch {
			case h.Plugin != "":
				res.Skipped = append(res.Skipped, h)
				return hook.Hook{}, chain.Skip
			case h.Problem != "":
				res.Failed = fmt.Sprintf("%s: cannot run: %s", h.Label, h.Problem)
				return hook.Hook{}, chain.Stop
			}
			return hook.Hook{ID: h.Label, Dialect: hook.Bernstein, Scope: hook.ScopeProject, PluginDir: root,
				Script: filepath.FromSlash(h.Script), Timeout: h.Timeout, FailurePolicy: hook.PolicyDeny, Workspace: c.Workdir}, chain.Next
		},
		Input: func(data []byte) ([]byte, error) { return envelope(event, data, c) },
		After: func(_ int, h Hook, r *executor.Result) (chain.Step, error) {
			res.Traces = append(res.Traces, r.Trace)
			if f := r.Trace.Failure; f != nil {
				res.Failed = fmt.Sprintf("%s: %s: %s", h.Label, f.Kind, f.Message)
				return chain.Stop, nil
			}
			if raw := hook.BernsteinOf(r.Decision).Raw; len(raw) > 0 {
				res.Records = append(res.Records, Record{Hook: h.Label, Raw: raw})
			}
			if d := r.Decision; d.Action == hook.Deny {
				res.Denied = &Denial{Event: event, Hook: h.Label, Reason: d.Reason, Data: original}
			}
			return chain.Next, nil
		},
		// mutate replaces the data, annotate merges its data in.
		Rewrite: func(_ int, _ Hook, data []byte, d hook.Decision) ([]byte, error) {
			if d.Action == hook.Modify {
				var m struct {
					Data json.RawMessage `json:"data"`
				}
				if err := jsonv2.Unmarshal(d.Mutations, &m); err != nil {
					return nil, err
				}
				res.Data = m.Data
			} else if annotations := hook.BernsteinOf(d).Annotations; len(annotations) > 0 {
				merged, err := merge(res.Data, annotations)
				if err != nil {
					return nil, err
				}
				res.Data = merged
			}
			return res.Data, nil
		},
	})
	if err != nil {
		var re *chain.RunError
		if errors.As(err, &re) {
			err = re.Err
		}
		return nil, err
	}
	return res, nil
}

// envelope is Bernstein's stdin for one hook; a task or session it does
// not have is null, as Bernstein writes it.
func envelope(event string, data json.RawMessage, c Context) ([]byte, error) {
	orNull := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	return json.Marshal(struct {
		Event     string            `json:"event"`
		Task      *string           `json:"task"`
		SessionID *string           `json:"session_id"`
		Workdir   string            `json:"workdir"`
		Env       map[string]string `json:"env"`
		Timestamp float64           `json:"timestamp"`
		Data      json.RawMessage   `json:"data"`
	}{event, orNull(c.Task), orNull(c.SessionID), c.Workdir, map[string]string{}, float64(time.Now().UnixMilli()) / 1000, data})
}

// merge adds annotations' members to data's, replacing the same names.
func merge(data, annotations json.RawMessage) (json.RawMessage, error) {
	var d, a map[string]json.RawMessage
	if err := jsonv2.Unmarshal(data, &d); err != nil {
		return nil, err
	}
	if err := jsonv2.Unmarshal(annotations, &a); err != nil {
		return nil, err
	}
	if d == nil {
		d = map[string]json.RawMessage{}
	}
	for k, v := range a {
		d[k] = v
	}
	return json.Marshal(d)
}
