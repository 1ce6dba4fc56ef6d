package install

import (
	"fmt"
	"slices"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Claude Code keeps each version of a plugin in a directory of its own,
// and a person adds hooks with /hooks: what comes after install runs as
// the host runs it, outside the sandbox, and nothing install wrote runs
// to say so. So install adds one hook of its own, at the start of each
// session: `install --session-start`, which tells the person, in the
// host's words, what `install --check` would find running outside.

// addCheck adds install's own hook to the first settings file the plan
// rewrites hooks of (else the first there is), as the last of the
// CheckEvent's groups (the hooks object and the event's list made when the
// file has none).
func (p *Plan) addCheck() error {
	h := p.Host
	i := slices.IndexFunc(p.Files, func(f *File) bool { return f.Plugin == nil && len(f.Hooks) > 0 })
	if i < 0 {
		i = slices.IndexFunc(p.Files, func(f *File) bool { return f.Plugin == nil })
	}
	if i < 0 {
		p.NoCheck = fmt.Sprintf("no %s settings file at %s scope to add hook-exec's own %s hook to", h.Name, p.Opts.Scope, h.CheckEvent)
		return nil
	}
	f := p.Files[i]
	doc, els, err := parseLayout(h, f.Rewritten)
	if err != nil {
		return fmt.Errorf("%s: %w", f.Path, err)
	}
	cmd := h.checkCommand(p.Opts)
	type hookObj struct {
		Type    string `json:"type"`
		Command string `json:"command"`
	}
	text, _ := jsonv2.Marshal(map[string][]hookObj{"hooks": {{"command", cmd}}})
	event := jsontext.Pointer("/hooks").AppendToken(h.CheckEvent)
	var at jsontext.Pointer
	var added string
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
	if e := els[at]; (at == event && doc[e.Value] != '[') || (at != event && doc[e.Value] != '{') {
		p.NoCheck = fmt.Sprintf("%s: %s is not what %s reads there: hook-exec's own %s hook is not added", f.Path, where(at), h.Name, h.CheckEvent)
		return nil
	}
	out, err := applyEdits(f.Rewritten, []edit{appendKid(els, at, text)})
	if err != nil {
		return err
	}
	f.Rewritten, f.Check, f.checkAdded = out, cmd, added
	return nil
}

// where names the value at p.
func where(p jsontext.Pointer) string {
	if p == "" {
		return "the document"
	}
	return string(p)
}

// checkCommand is the command of install's own hook.
func (h *Host) checkCommand(o Options) string {
	words := append(slices.Clone(o.Command), "install", h.Name)
	if o.Scope == User {
		words = append(words, "--user")
	}
	words = append(words, o.RunFlags...)
	if o.Scope == Project {
		// The directory install keyed its records by, as it was given:
		// the host's may name it another way (its cwd, links resolved).
		words = append(words, "--project", o.ProjectDir)
	}
	words = append(words, "--session-start")
	var b []byte
	for i, w := range words {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, quote(w)...)
	}
	return string(b)
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
func removeCheck(h *Host, doc []byte, rw rewrite) ([]byte, error) {
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
		if group := target.Parent().Parent(); only(target) && len(els[group].Kids) == 1 {
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
