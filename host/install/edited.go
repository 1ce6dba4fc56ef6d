package install

import (
	"fmt"
	"slices"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// A host edits the files install rewrote: Claude Code adds the plugins a
// person enables and the permissions they allow to its settings, Gemini
// CLI its settings, a person a hook. Such a file is neither install's
// rewrite nor its original; undo finds what it is without install.

// undo is cur, a file install rewrote and something edited since, without
// install's rewrites: each command install wrote back to the text it
// replaced (and the member it set beside it removed), every other edit
// kept. An installed command the edit removed stays removed; one it
// changed is an error (it is neither install's nor the owner's).
func undo(h *Target, cur []byte, rec *record) ([]byte, error) {
	if h.hookFiles() {
		return undoHookFile(cur, rec)
	}
	if rec.Rewrites == nil {
		// Installed by a hook-exec that kept no rewrites.
		return nil, fmt.Errorf("what install wrote in it is not known")
	}
	doc, els, err := parseLayout(h, cur)
	if err != nil {
		return nil, err
	}
	byInstalled := map[string]rewrite{}
	for _, rw := range rec.Rewrites {
		if !rw.Check {
			byInstalled[rw.Installed] = rw
		}
	}
	var edits []edit
	for _, ptr := range commandPointers(h, doc, els) {
		e := els[ptr]
		var cmd string
		if jsonv2.Unmarshal(doc[e.Value:e.End], &cmd) != nil {
			continue
		}
		rw, ok := byInstalled[cmd]
		if !ok {
			if editedInstall(cmd, rec) {
				return nil, fmt.Errorf("the command hook-exec installed at %s was edited", ptr)
			}
			continue // added since: the owner's
		}
		edits = append(edits, edit{Start: e.Value, End: e.End, Text: []byte(rw.Was)})
		if m := ptr.Parent().AppendToken(rw.Added); rw.Added != "" && els[m] != nil && string(doc[els[m].Value:els[m].End]) == "true" {
			edits = append(edits, cut(els, m))
		}
	}
	out, err := applyEdits(cur, edits)
	if err != nil {
		return nil, err
	}
	for _, rw := range rec.Rewrites {
		if rw.Check {
			if out, err = removeCheck(h, out, rw); err != nil {
				return nil, err
			}
		}
	}
	if _, _, err := parseLayout(h, out); err != nil {
		return nil, fmt.Errorf("without install's commands it no longer reads: %w", err)
	}
	return out, nil
}

// editedInstall reports whether cmd, not one install wrote, is an edit of
// one: a hook-exec run of the same front under a hook id install gave. A
// `hook-exec run` the owner wrote themselves is a hook of theirs.
func editedInstall(cmd string, rec *record) bool {
	for _, rw := range rec.Rewrites {
		front, rest, ok := strings.Cut(rw.Installed, " run ")
		if rw.Check || !ok || !strings.HasPrefix(cmd, front+" run ") {
			continue
		}
		if _, after, ok := strings.Cut(rest, "--hook-id "); ok {
			id, _, _ := strings.Cut(after, " ")
			if strings.Contains(cmd, " --hook-id "+id+" ") {
				return true
			}
		}
	}
	return false
}

// addedHooks are the command hooks of cur, a file install rewrote, that
// install did not write: added since, they run as the host runs them,
// outside the sandbox. Each is its command's pointer and the command.
func addedHooks(h *Target, o Options, path string, cur []byte, rec *record) ([][2]string, error) {
	if h.hookFiles() {
		return addedHookFile(cur, path, rec), nil
	}
	doc, els, err := parseLayout(h, cur)
	if err != nil {
		return nil, err
	}
	var out [][2]string
	for _, ptr := range commandPointers(h, doc, els) {
		e := els[ptr]
		var cmd string
		if jsonv2.Unmarshal(doc[e.Value:e.End], &cmd) != nil {
			cmd = string(doc[e.Value:e.End])
		}
		if h.isCheck(o, path, cmd) {
			continue // install's own
		}
		if rec == nil || !slices.ContainsFunc(rec.Rewrites, func(rw rewrite) bool { return rw.Installed == cmd }) {
			out = append(out, [2]string{string(ptr), cmd})
		} else if id := hookIDOf(cmd); id != "" && !strings.Contains(id, ":"+ptrEvent(ptr)+":") {
			// Installed for another event: moved since (a Copilot command
			// names its event; under another one it answers as that one's).
			out = append(out, [2]string{string(ptr), cmd})
		}
	}
	// What the host runs here without a command install rewrites
	// (Copilot's exec and its args).
	for ptr, e := range els {
		if !hasShape(ptr, []string{"hooks", "*", "*", "*"}) || !slices.Contains(h.RunsUnrewritten, ptr.LastToken()) {
			continue
		}
		out = append(out, [2]string{string(ptr), string(doc[e.Value:e.End])})
	}
	slices.SortFunc(out, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	return out, nil
}

// hookIDOf is the --hook-id an installed command gives, "" for none.
func hookIDOf(cmd string) string {
	_, after, ok := strings.Cut(cmd, " --hook-id ")
	if !ok {
		return ""
	}
	id, _, _ := strings.Cut(after, " ")
	return strings.Trim(id, "'")
}

// ptrEvent is the event a command's pointer is under (/hooks/EVENT/...).
func ptrEvent(ptr jsontext.Pointer) string {
	i := 0
	for tok := range ptr.Tokens() {
		if i == 1 {
			return tok
		}
		i++
	}
	return ""
}

// commandsIn are the commands of cur's command hooks (none when it does
// not read).
func commandsIn(h *Target, cur []byte) map[string]bool {
	if h.hookFiles() {
		installed, ok := wrapped(cur)
		return map[string]bool{installed: ok}
	}
	doc, els, err := parseLayout(h, cur)
	if err != nil {
		return nil
	}
	out := map[string]bool{}
	for _, ptr := range commandPointers(h, doc, els) {
		var cmd string
		if jsonv2.Unmarshal(doc[els[ptr].Value:els[ptr].End], &cmd) == nil {
			out[cmd] = true
		}
	}
	return out
}

// parseLayout reads cur as the host does: its layout, over the document
// with comments blanked where the host allows them.
func parseLayout(h *Target, cur []byte) ([]byte, map[jsontext.Pointer]*element, error) {
	doc := cur
	if h.Comments {
		var err error
		if doc, err = blankComments(cur); err != nil {
			return nil, nil, err
		}
	}
	els, err := layout(doc)
	return doc, els, err
}

// commandPointers are the pointers of the commands of the command hooks
// in doc's layout, in order: /hooks/EVENT/I/command (Cursor; Copilot's
// /hooks/EVENT/I/bash), or /hooks/EVENT/I/hooks/J/command, of an object
// whose type, when it says one, is "command" (or "", as plan reads it).
func commandPointers(h *Target, doc []byte, els map[jsontext.Pointer]*element) []jsontext.Pointer {
	shape := []string{"hooks", "*", "*", "*"}
	if h.Grouped {
		shape = []string{"hooks", "*", "*", "hooks", "*", "*"}
	}
	var out []jsontext.Pointer
	for ptr := range els {
		if !hasShape(ptr, shape) || ptr.LastToken() != h.commandKey(func(k string) bool { return els[ptr.Parent().AppendToken(k)] != nil }) {
			continue
		}
		if t := els[ptr.Parent().AppendToken("type")]; t != nil {
			var typ string
			if jsonv2.Unmarshal(doc[t.Value:t.End], &typ) != nil || (typ != "" && typ != "command") {
				continue // as plan reads it: "" says no other type
			}
		}
		out = append(out, ptr)
	}
	slices.Sort(out)
	return out
}

// hasShape reports whether ptr's tokens are shape's, "*" matching any.
func hasShape(ptr jsontext.Pointer, shape []string) bool {
	i := 0
	for tok := range ptr.Tokens() {
		if i == len(shape) || (shape[i] != "*" && shape[i] != tok) {
			return false
		}
		i++
	}
	return i == len(shape)
}

// edited is what Check says of a file install rewrote that changed since:
// each command hook added to it runs outside the sandbox; a plugin's
// hooks file, or one whose installed commands were edited, is drift.
func (h *Target) edited(o Options, path string, cur []byte, rec *record) []Drift {
	if rec.Plugin != "" {
		return []Drift{{Path: path, What: "the file changed since install"}}
	}
	if _, err := undo(h, cur, rec); err != nil {
		// What the edit made runs as the host runs it: say so too.
		return append([]Drift{{Path: path, What: fmt.Sprintf("the file changed since install, and %v: hook-exec uninstall %s%s --force restores it as it was before", err, h.Name, scopeFlag(o))}},
			h.outside(o, path, cur, rec)...)
	}
	return h.outside(o, path, cur, rec)
}

// notInstalled is what Check says of a configuration file install has not
// rewritten (made since, or holding no hook then): its command hooks run
// outside the sandbox.
func (h *Target) notInstalled(o Options, path string) []Drift {
	cur, err := readFile(path)
	if err != nil {
		return nil // no file, no hooks; an unreadable one the host cannot read either
	}
	return h.outside(o, path, cur, nil)
}

// outside are the drifts of cur's command hooks install did not write.
func (h *Target) outside(o Options, path string, cur []byte, rec *record) []Drift {
	added, err := addedHooks(h, o, path, cur, rec)
	if err != nil {
		// The host may read it its own way (a duplicate member: the last
		// one wins), hooks and all.
		return []Drift{{Path: path, Outside: true, What: fmt.Sprintf("%s does not read as hook-exec reads a %s file (%v): its hooks may run outside the sandbox", path, h.Name, err)}}
	}
	var out []Drift
	for _, a := range added {
		out = append(out, Drift{Path: path, Pointer: a[0], Outside: true, What: fmt.Sprintf(
			"%s: %q is not installed through hook-exec: it runs outside the sandbox until you approve it: hook-exec install %s%s", path, a[1], h.Name, scopeFlag(o))})
	}
	return out
}

// kept says, for each of hooks (planned from the original), whether cur
// still holds the command install wrote for it (found by its hook id): an
// edit since may have taken one out. A hook install did not write (left as
// the host runs it) is kept, and so is every one when cur does not read.
func (h *Target) kept(cur []byte, rec *record, hooks []Hook) []bool {
	out := make([]bool, len(hooks))
	for i := range out {
		out[i] = true
	}
	present := commandsIn(h, cur)
	if rec.Plugin != "" || present == nil {
		return out
	}
	for i, hk := range hooks {
		id := " --hook-id " + quote(h.hookID(rec.Path, &hk)) + " "
		for _, rw := range rec.Rewrites {
			if !rw.Check && strings.Contains(rw.Installed, id) {
				out[i] = present[rw.Installed]
			}
		}
	}
	return out
}
