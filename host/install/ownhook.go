package install

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/internal/engineenv"
)

// Claude Code keeps each version of a plugin in a directory of its own,
// and a person adds hooks with /hooks: what comes after install runs as
// the host runs it, outside the sandbox, and nothing install wrote runs
// to say so. So install adds one hook of its own, at the start of each
// session: `install --session-start`, which tells the person, in the
// host's words, what `install --check` would find running outside. It
// lives in the user's own settings, which no project can edit: a
// project's file replaced by a pull (its hooks raw again, install's own
// gone with them) must not silence it. It checks the user's installs and
// the session's project's.

// addCheck adds install's own hook to the user's settings file, as the
// last of the CheckEvent's groups (the hooks object and the event's list
// made when the file has none), unless it is there. A --user plan's file
// carries it as a rewrite of its own; any other plan adds it beside what
// it installs (UserCheck), unrecorded. Apply makes sure it is there while
// any install of the host is; uninstall takes it out with the last one.
func (p *Plan) addCheck() error {
	h := p.Host
	path := h.checkPath(p.Opts)
	i := slices.IndexFunc(p.Files, func(f *File) bool { return f.Plugin == nil && f.Path == path })
	var f *File
	if i >= 0 {
		f = p.Files[i]
	} else {
		if _, err := within(path, p.Opts.Home); err != nil {
			return err
		}
		cur, err := readFile(path)
		if errors.Is(err, os.ErrNotExist) {
			cur, err = nil, nil
		}
		if err != nil {
			return err
		}
		f = &File{Path: path, Original: cur, Rewritten: cur, seen: digestOf(cur)}
	}
	has, err := hasCheck(h, p.Opts, path, f.Rewritten)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if has {
		return nil
	}
	out, added, why, err := withCheck(h, f.Rewritten, h.checkCommand(p.Opts))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if why != "" {
		p.NoCheck = fmt.Sprintf("%s: %s", path, why)
		return nil
	}
	f.Rewritten, f.Check, f.checkAdded = out, h.checkCommand(p.Opts), added
	if i < 0 {
		p.UserCheck = f
	}
	return nil
}

// withCheck is doc (nil: a file the host does not have yet) with install's
// own hook cmd added as the last group of the CheckEvent, and the
// outermost member it added for it; why says why it cannot be added.
func withCheck(h *Target, doc []byte, cmd string) (out []byte, added, why string, err error) {
	if len(doc) == 0 {
		doc = []byte(h.newFile())
	}
	blank, els, err := parseLayout(h, doc)
	if err != nil {
		return nil, "", "", err
	}
	quoted, _ := jsontext.AppendQuote(nil, cmd)
	text := fmt.Appendf(nil, `{"type":"command",%q:%s}`, h.commandKeys()[0], quoted)
	if h.Grouped {
		text = fmt.Appendf(nil, `{"hooks":[%s]}`, text)
	}
	event := jsontext.Pointer("/hooks").AppendToken(h.CheckEvent)
	var at jsontext.Pointer
	switch {
	case els["/hooks"] == nil:
		at, added = "", "hooks"
		text = fmt.Appendf(nil, `"hooks": {%q: [%s]}`, h.CheckEvent, text)
	case els[event] == nil:
		at, added = "/hooks", h.CheckEvent
		text = fmt.Appendf(nil, `%q: [%s]`, h.CheckEvent, text)
	default:
		at = event
	}
	if e := els[at]; (at == event && blank[e.Value] != '[') || (at != event && blank[e.Value] != '{') {
		return nil, "", fmt.Sprintf("%s is not what %s reads there: hook-exec's own %s hook is not added", where(at), h.Name, h.CheckEvent), nil
	}
	out, err = applyEdits(doc, []edit{appendKid(els, at, text)})
	return out, added, "", err
}

// isCheck reports whether cmd, a command of the file at path, is install's
// own hook: only in the user's settings (which no project edits), and only
// exactly the command install writes there, for a hook-exec at an
// absolute path. Anything else that names it is a hook like any other.
func (h *Target) isCheck(o Options, path, cmd string) bool {
	if h.CheckEvent == "" || filepath.Clean(path) != h.checkPath(o) {
		return false
	}
	inner, ok := h.unshell(cmd)
	if !ok {
		return false
	}
	rest, ok := strings.CutPrefix(inner, guardVar+"=")
	if !ok {
		return false
	}
	word, _, ok := strings.Cut(rest, "; if [ -x ")
	front, uok := unquote(word)
	if !ok || !uok || !filepath.IsAbs(front) {
		return false
	}
	x := o
	x.Front = front
	return cmd == h.checkCommand(x)
}

// unquote is the word quote wrote.
func unquote(w string) (string, bool) {
	s := w
	if strings.HasPrefix(w, "'") && strings.HasSuffix(w, "'") && len(w) >= 2 {
		s = strings.ReplaceAll(w[1:len(w)-1], `'\''`, "'")
	}
	return s, quote(s) == w
}

// hasCheck reports whether doc, the user's file at path, holds install's
// own hook.
func hasCheck(h *Target, o Options, path string, doc []byte) (bool, error) {
	if len(doc) == 0 {
		return false, nil
	}
	blank, els, err := parseLayout(h, doc)
	if err != nil {
		return false, err
	}
	for _, ptr := range commandPointers(h, blank, els) {
		var cmd string
		if jsonv2.Unmarshal(blank[els[ptr].Value:els[ptr].End], &cmd) == nil && h.isCheck(o, path, cmd) {
			return true, nil
		}
	}
	return false, nil
}

// writeUserFile replaces the user's settings file (a new one readable by
// the user alone: settings may hold secrets).
func writeUserFile(path string, b []byte) error {
	mode := os.FileMode(0o600)
	if info, err := os.Stat(path); err == nil {
		mode = info.Mode().Perm()
	} else if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return replace(path, b, mode, true)
}

// syncUserCheck keeps install's own hook in the user's file while any
// install of the host is left (an uninstall of the user's file may have
// taken it out with its rewrites), and takes it out when none is.
func syncUserCheck(h *Target, o Options) error {
	if h.CheckEvent == "" {
		return nil
	}
	path := h.checkPath(o)
	if _, err := within(path, o.Home); err != nil {
		return err
	}
	cur, err := readFile(path)
	if errors.Is(err, os.ErrNotExist) {
		cur, err = nil, nil
	}
	if err != nil {
		return err
	}
	left, err := anyRecord(o.StateDir, h)
	if err != nil {
		return err
	}
	has, err := hasCheck(h, o, path, cur)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	switch {
	case left && !has:
		out, _, why, err := withCheck(h, cur, h.checkCommand(o))
		if err != nil || why != "" {
			return cmp.Or(err, fmt.Errorf("%s: %s", path, why))
		}
		return writeUserFile(path, out)
	case !left && has:
		out, err := removeChecks(h, o, path, cur)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if string(out) == h.newFile() {
			return os.Remove(path) // the file install made for it
		}
		return writeUserFile(path, out)
	}
	return nil
}

// anyRecord reports whether the state directory holds any install of h.
func anyRecord(stateDir string, h *Target) (bool, error) {
	m, err := filepath.Glob(filepath.Join(stateDir, "installed", h.Name, "*", recordFile))
	return len(m) > 0, err
}

// removeChecks takes every hook of install's own out of doc, with the
// group, event list and hooks object that held only it.
func removeChecks(h *Target, o Options, path string, doc []byte) ([]byte, error) {
	for range 64 {
		blank, els, err := parseLayout(h, doc)
		if err != nil {
			return nil, err
		}
		var cmd string
		for _, ptr := range commandPointers(h, blank, els) {
			var c string
			if jsonv2.Unmarshal(blank[els[ptr].Value:els[ptr].End], &c) == nil && h.isCheck(o, path, c) {
				cmd = c
				break
			}
		}
		if cmd == "" {
			return doc, nil
		}
		if doc, err = removeCheck(h, doc, rewrite{Installed: cmd, Added: "hooks", Check: true}); err != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("hook-exec's own hook is in it more than 64 times")
}

// where names the value at p.
func where(p jsontext.Pointer) string {
	if p == "" {
		return "the document"
	}
	return string(p)
}

// checkCommand is the command of install's own hook: the session's check,
// sealed (no project's environment can point it at another state
// directory), and where hook-exec cannot start, a warning that its hooks
// refuse every action.
func (h *Target) checkCommand(o Options) string {
	words := []string{"install", h.Name, engineenv.Flag}
	words = append(words, o.RunFlags...)
	words = append(words, "--session-start")
	var b []string
	for _, w := range words {
		b = append(b, quote(w))
	}
	msg := fmt.Sprintf("hook-exec (%s) could not run: the %s hooks it installed refuse every action until it is installed again (go install github.com/hookexec/hook-exec/cmd/...@latest), or put back as they were (hook-exec uninstall %s)", o.Front, h.Name, h.Name)
	text, _ := jsonv2.Marshal(map[string]string{"systemMessage": msg})
	a := hook.Answer{Stdout: text} // Claude Code's and Codex's, as installed before
	if n, err := hook.Notice(h.Dialect, h.CheckEvent, msg); err == nil && n.Exit != 0 {
		a = n // a host that shows a warning its own way (Copilot)
	}
	return h.shell(guarded(quote(o.Front), strings.Join(b, " "), answerShell(a), true))
}

// appendKid is the edit that adds text as the last element of the
// container at ptr.
func appendKid(els map[jsontext.Pointer]*element, ptr jsontext.Pointer, text []byte) edit {
	c := els[ptr]
	if len(c.Kids) == 0 {
		return edit{Start: c.Value + 1, End: c.Value + 1, Text: text}
	}
	end := els[c.Kids[len(c.Kids)-1]].End
	return edit{Start: end, End: end, Text: append([]byte(", "), text...)}
}

// removeCheck takes install's own hook (rw) out of doc, with the group,
// event list and hooks object install added for it when nothing else came
// to be in them since.
func removeCheck(h *Target, doc []byte, rw rewrite) ([]byte, error) {
	for range 64 { // each pass removes one; a host would not copy it more
		blank, els, err := parseLayout(h, doc)
		if err != nil {
			return nil, err
		}
		ptrs := commandPointers(h, blank, els)
		i := slices.IndexFunc(ptrs, func(p jsontext.Pointer) bool {
			var cmd string
			return jsonv2.Unmarshal(blank[els[p].Value:els[p].End], &cmd) == nil && cmd == rw.Installed
		})
		if i < 0 {
			return doc, nil
		}
		target := ptrs[i].Parent() // the hook object
		only := func(p jsontext.Pointer) bool { return len(els[p.Parent()].Kids) == 1 }
		if event := target.Parent(); !h.Grouped && only(target) && (rw.Added == "hooks" || rw.Added == event.LastToken()) {
			target = event // the event's list held it alone
			if only(target) && rw.Added == "hooks" {
				target = event.Parent()
			}
		} else if group := target.Parent().Parent(); h.Grouped && only(target) && len(els[group].Kids) == 1 {
			target = group // its group held it alone (and no matcher)
			event := group.Parent()
			if only(target) && (rw.Added == "hooks" || rw.Added == event.LastToken()) {
				target = event
				if only(target) && rw.Added == "hooks" {
					target = event.Parent()
				}
			}
		}
		if doc, err = applyEdits(doc, []edit{cut(els, target)}); err != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("hook-exec's own hook is in it more than 64 times")
}

// projectBase is the project whose file rel (a name of ProjectFiles, a
// pattern: .github/hooks/*.json) path is, and whether it is one.
func projectBase(path, rel string) (string, bool) {
	base := path
	for range strings.Count(rel, "/") + 1 {
		base = filepath.Dir(base)
	}
	r, err := filepath.Rel(base, path)
	if err != nil {
		return "", false
	}
	ok, _ := filepath.Match(filepath.FromSlash(rel), r)
	return base, ok
}

// InstalledProject is the project install rewrote files of that dir is in
// (dir itself or a directory above it, links resolved), as install was
// given it: the project a session's check looks at. The session's own
// directory, not a variable its environment could set, says which.
func InstalledProject(h *Target, stateDir, home, dir string) (string, bool) {
	recs, err := filepath.Glob(filepath.Join(stateDir, "installed", h.Name, "*", recordFile))
	if err != nil {
		return "", false
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", false
	}
	best, bestReal := "", ""
	for _, r := range recs {
		var rec record
		b, err := os.ReadFile(r)
		if err != nil || jsonv2.Unmarshal(b, &rec) != nil || rec.Plugin != "" {
			continue
		}
		for _, rel := range h.ProjectFiles {
			base, ok := projectBase(rec.Path, rel)
			if !ok || base == filepath.Clean(home) {
				continue
			}
			rb, err := filepath.EvalSymlinks(base)
			if err != nil {
				continue
			}
			if rel, err := filepath.Rel(rb, real); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && len(rb) > len(bestReal) {
				best, bestReal = base, rb
			}
		}
	}
	return best, best != ""
}
