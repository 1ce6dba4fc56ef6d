package install

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"

	"github.com/BurntSushi/toml"
)

// source is another place a host reads hooks from, which install does not
// rewrite: Check names the hooks there as running outside the sandbox.
type source struct {
	// Glob is relative to the project, or with User to the home
	// directory; an absolute one is the system's (read at every scope).
	Glob string
	User bool
	// As names the host whose hooks-file layout it has; "" for a Markdown
	// file whose front matter may declare hooks (Claude Code's skills and
	// subagents).
	As string
	// TOML: a TOML file whose [hooks] tables the host reads (Codex's
	// config.toml).
	TOML bool
	// HookFile: an executable file named by one of the host's HookFiles,
	// with or without an extension (Cline's CLI reads .sh, .py, .js ...).
	HookFile bool
}

// tomlHooks reports whether a TOML document has hooks: a top-level
// "hooks" key in any of TOML's forms (a [hooks] table, a table below it, a
// dotted key, an inline table). A document that does not parse is said
// to have them: the host may read what install cannot.
func tomlHooks(b []byte) bool {
	var doc map[string]any
	if _, err := toml.Decode(string(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))), &doc); err != nil {
		return true
	}
	_, ok := doc["hooks"]
	return ok
}

// frontmatterHooks finds a hooks: key in a Markdown file's front matter.
var frontmatterHooks = regexp.MustCompile(`(?m)^hooks:`)

// elsewhere are the drifts of the hooks in h's other sources at o's scope.
func (h *Target) elsewhere(o Options) []Drift {
	var out []Drift
	for _, s := range h.Elsewhere {
		base := o.ProjectDir
		switch {
		case filepath.IsAbs(s.Glob):
			base = o.SystemRoot
		case s.User && (o.Settings == User || !o.Repository):
			base = o.Home
		case s.User, o.Settings == User:
			continue
		}
		paths := globUnder(base, s.Glob)
		for _, path := range paths {
			cur, err := readFile(path)
			if err != nil {
				continue
			}
			if s.HookFile {
				if _, ok := h.hookFileEvent(path); ok {
					out = append(out, Drift{Path: path, Outside: true, What: fmt.Sprintf(
						"%s is a %s hook that install does not rewrite: it runs outside the sandbox (move it to the hooks directory install reads)", path, h.Product)})
				}
				continue
			}
			if s.TOML {
				if tomlHooks(cur) {
					out = append(out, Drift{Path: path, Outside: true, What: fmt.Sprintf(
						"%s holds [hooks] tables, which %s runs and install does not rewrite: they run outside the sandbox (move them to the hooks.json beside it)", path, h.Name)})
				}
				continue
			}
			if s.As == "" {
				if fm, ok := frontMatter(cur); ok && frontmatterHooks.Match(fm) {
					out = append(out, Drift{Path: path, Outside: true, What: fmt.Sprintf(
						"%s declares hooks in its front matter, which %s runs and install does not rewrite: they run outside the sandbox", path, h.Name)})
				}
				continue
			}
			other := Hosts[s.As]
			rec, err := loadRecord(o.StateDir, other, path)
			if err != nil {
				rec = nil
			}
			so := o
			if s.User {
				so.Settings = User
			}
			for _, d := range other.outside(so, path, cur, rec) {
				switch {
				case other == h && filepath.IsAbs(s.Glob):
					d.What += " (the system's file, which install never writes)"
				case other == h:
					d.What += " (hooks written inline there, which install does not rewrite)"
				default:
					d.What += fmt.Sprintf(" (%s runs %s's hooks too)", h.Name, other.Name)
				}
				out = append(out, d)
			}
		}
	}
	return out
}

// frontMatter is a Markdown file's front matter: between a first line
// "---" and the next.
func frontMatter(b []byte) ([]byte, bool) {
	rest, ok := bytes.CutPrefix(b, []byte("---\n"))
	if !ok {
		return nil, false
	}
	fm, _, ok := bytes.Cut(rest, []byte("\n---"))
	return fm, ok
}
