// Package arcturn is Arcturn's hook configuration on hook-exec's sandbox:
// the hooks of ~/.arcturn/config.json and then <project>/.arcturn/config.json
// (every layer's fire, in layer order), each event's chain run in order,
// matchers applied, the first deny of a preToolUse ending it. A command
// naming a .sh or .py script of the project runs as a pinned script (its
// bytes hashed and streamed to the launcher); any other command runs as
// `sh -c COMMAND` in the project, mounted read-only.
package arcturn

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/host/chain"
	"github.com/hookexec/hook-exec/host/install"
	"github.com/hookexec/hook-exec/launcher"
	"github.com/hookexec/hook-exec/scriptpin"
)

// ErrConfig is the class of config.json hook declarations refused.
var ErrConfig = errors.New("arcturn config")

// DefaultTimeout is Arcturn's bound of a hook without timeoutMs.
const DefaultTimeout = 10 * time.Second

// Hook is one declared hook.
type Hook struct {
	Event   string        `json:"event"`
	Layer   string        `json:"layer"` // the config file it comes from
	Command string        `json:"command"`
	Matcher string        `json:"matcher,omitempty"`
	Timeout time.Duration `json:"timeout_ns"`
}

// entry is a hook as config.json writes it.
type entry struct {
	Command   string `json:"command"`
	Matcher   string `json:"matcher,omitempty"`
	TimeoutMs *int64 `json:"timeoutMs,omitempty"`
}

// ParseConfig reads a config.json's hooks key exactly (its other keys are
// Arcturn's): the four events, each a list of {command, matcher,
// timeoutMs}; a member of another case, an unknown or duplicate member is
// refused.
func ParseConfig(layer string, b []byte) ([]Hook, error) {
	var top map[string]jsontext.Value
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrConfig, layer, err)
	}
	for k := range top {
		if k != "hooks" && strings.EqualFold(k, "hooks") {
			return nil, fmt.Errorf("%w: %s: %q is hooks in another case (names match exactly)", ErrConfig, layer, k)
		}
	}
	raw, ok := top["hooks"]
	if !ok || raw.Kind() == 'n' {
		return nil, nil
	}
	var events map[string][]entry
	if err := json.Unmarshal(raw, &events, json.RejectUnknownMembers(true)); err != nil {
		return nil, fmt.Errorf("%w: %s: hooks: %w", ErrConfig, layer, err)
	}
	var out []Hook
	for _, ev := range hook.ArcturnEvents { // a fixed order: the map's is random
		for i, e := range events[ev] {
			if strings.TrimSpace(e.Command) == "" {
				return nil, fmt.Errorf("%w: %s: hooks.%s[%d]: no command", ErrConfig, layer, ev, i)
			}
			t := DefaultTimeout
			if e.TimeoutMs != nil {
				if *e.TimeoutMs <= 0 || *e.TimeoutMs > 3_600_000 {
					return nil, fmt.Errorf("%w: %s: hooks.%s[%d]: timeoutMs %d: want 1 to 3600000", ErrConfig, layer, ev, i, *e.TimeoutMs)
				}
				t = time.Duration(*e.TimeoutMs) * time.Millisecond
			}
			out = append(out, Hook{Event: ev, Layer: layer, Command: e.Command, Matcher: e.Matcher, Timeout: t})
		}
	}
	for ev := range events {
		if !slices.Contains(hook.ArcturnEvents, ev) {
			return nil, fmt.Errorf("%w: %s: hooks.%s: not an event (use %s)", ErrConfig, layer, ev, strings.Join(hook.ArcturnEvents, ", "))
		}
	}
	return out, nil
}

// Discover reads the layers: home's config, then the project's; a layer
// without a config adds nothing.
func Discover(home, project string) ([]Hook, error) {
	var all []Hook
	for _, dir := range []string{home, project} {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, ".arcturn", "config.json")
		b, err := os.ReadFile(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		hs, err := ParseConfig(p, b)
		if err != nil {
			return nil, err
		}
		all = append(all, hs...)
	}
	return all, nil
}

// Result is one event's chain.
type Result struct {
	Decision hook.Decision `json:"decision"`
	// DeniedBy is the command whose deny ended the chain.
	DeniedBy string       `json:"denied_by,omitempty"`
	Traces   []hook.Trace `json:"traces"`
	// Warnings are the failures let through (Arcturn fails open), each
	// naming its hook: never silent.
	Warnings []string `json:"warnings,omitempty"`
	// Refused is why the chain could not run (a payload or a config
	// hook-exec cannot read): no hook ran, and the decision is a deny.
	Refused error `json:"-"`
}

// Refusal is the chain's answer when it cannot run at all (a payload or a
// config hook-exec cannot read): a deny naming why. Arcturn lets through
// whatever ends in an exit status other than 2, so any other answer would
// skip every guard of the event.
func Refusal(err error) *Result {
	return &Result{Decision: hook.Decision{SchemaVersion: 1, Action: hook.Deny,
		Reason: hook.Redact(fmt.Sprintf("hook-exec refused the event: %v", err))}, Refused: err}
}

// Run fires payload (its event, toolName, input, cwd) through the hooks of
// its event, in order, on ex. The project is mounted read-only and is
// where each hook starts. A command hook runs as Arcturn runs it, with
// `$SHELL -c` (shell: Arcturn's $SHELL; bash for a bash or zsh, sh for
// anything else or none). A payload that cannot be read is refused
// ([Refusal]); its members hook-exec does not know are passed on.
func Run(ctx context.Context, ex *executor.Executor, hooks []Hook, project, shell string, payload []byte) (*Result, error) {
	env, err := hook.ParseEnvelope(hook.Arcturn, payload)
	if err != nil {
		return Refusal(err), nil
	}
	res := &Result{Decision: hook.Decision{SchemaVersion: 1, Action: hook.Allow}}
	// Every hook reads the payload as the host gave it: an Arcturn answer
	// allows or denies, it never rewrites.
	_, err = chain.Run(ctx, ex, hooks, payload, chain.Options[Hook]{
		Hook: func(i int, h Hook, _ []byte) (hook.Hook, chain.Step) {
			if h.Event != env.Point {
				return hook.Hook{}, chain.Skip
			}
			hk := hook.Hook{ID: fmt.Sprintf("%s#%d", h.Event, i), Dialect: hook.Arcturn, Scope: hook.ScopeProject,
				Matcher: h.Matcher, Timeout: h.Timeout, Workspace: project}
			root := filepath.Dir(filepath.Dir(h.Layer))
			if rel, ok := scriptOf(project, root, h.Command); ok {
				hk.PluginDir, hk.Script = root, rel
				if lang, err := scriptpin.LangOf(rel); err == nil {
					if b, err := os.ReadFile(filepath.Join(root, rel)); err == nil {
						hk.Writable = dataWrites(install.Writes(lang, b, project), project)
					}
				}
			} else {
				hk.Command = []string{shellFor(shell), "-c", h.Command}
				// What the one-liner writes in the project (the seed's
				// `echo session started >> .arcturn/session.log`), as a
				// script installed for another host may write it.
				hk.Writable = dataWrites(install.Writes(launcher.Shell, []byte(h.Command), project), project)
			}
			return hk, chain.Next
		},
		After: func(_ int, h Hook, r *executor.Result) (chain.Step, error) {
			res.Traces = append(res.Traces, r.Trace)
			if r.Warning != "" {
				w := fmt.Sprintf("%s (%s): %s", h.Command, h.Layer, r.Warning)
				if line, _, _ := strings.Cut(strings.TrimSpace(r.Trace.StderrExcerpt), "\n"); line != "" {
					w += ": it said: " + line // what failed, not just that it did
				}
				res.Warnings = append(res.Warnings, w)
			}
			if r.Decision.Action == hook.Deny {
				res.Decision, res.DeniedBy = r.Decision, h.Command
			}
			return chain.Next, nil
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

// dataExts are the names of the files an Arcturn hook may write without
// a person's word: logs and records. Install shows the writes it finds in
// a plan the person approves; an Arcturn configuration is read at each
// call, approved by no one, so its hooks get data files only: never a
// configuration (config.json, a TOML), a directory, or a file that runs.
var dataExts = []string{".log", ".jsonl", ".ndjson", ".txt", ".csv", ".tsv", ".out"}

// dataWrites are the writes of ws that are data files of the project, not
// executable where they exist.
func dataWrites(ws []string, project string) []string {
	return slices.DeleteFunc(ws, func(w string) bool {
		if strings.HasSuffix(w, "/") || !slices.Contains(dataExts, strings.ToLower(filepath.Ext(w))) {
			return true
		}
		fi, err := os.Lstat(filepath.Join(project, w))
		return err == nil && (!fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 != 0)
	})
}

// shellFor is the sandbox's shell for Arcturn's $SHELL: bash for bash
// (and zsh, whose one-liners are bash's far more often than sh's), the
// image's sh for anything else.
func shellFor(shell string) string {
	switch filepath.Base(shell) {
	case "bash", "zsh":
		return "bash"
	}
	return "sh"
}

// scriptOf reports whether command is only a path to a .sh, .py or .js
// (.mjs, .cjs) file
// (relative to the project, or absolute: a home layer's
// ~/.arcturn/hooks/x.sh) inside root, the directory holding the layer's
// .arcturn/ (a project's config names no file outside it), and its path
// relative to root: such a hook runs as a pinned script, its bytes streamed
// to the launcher, opened below root one component at a time, so that no
// directory on the way can be a link out of it.
func scriptOf(project, root, command string) (rel string, ok bool) {
	c := strings.TrimSpace(command)
	if strings.ContainsAny(c, " \t'\"$`;|&<>()\\*?~") {
		return "", false
	}
	if ext := filepath.Ext(c); !slices.Contains([]string{".sh", ".py", ".js", ".mjs", ".cjs"}, ext) {
		return "", false
	}
	p := c
	if !filepath.IsAbs(p) {
		p = filepath.Join(project, p)
	}
	rel, err := filepath.Rel(root, filepath.Clean(p))
	if err != nil || !filepath.IsLocal(rel) {
		return "", false
	}
	if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	return rel, true
}
