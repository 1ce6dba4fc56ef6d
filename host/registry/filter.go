package registry

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/scriptpin"
)

// Subject is what filters read from an event: its session, its data's
// tool name, category and members, and every path the tool call's
// arguments name, as written and as resolved (hook.PathForms), relative
// to the workspace when inside it.
type Subject struct {
	SessionID string
	ToolName  string
	Category  string
	Paths     []string
	// PathDoubt says why Paths may miss a path or where one leads (args
	// too deep to search, a link loop, a /proc link of the agent's): a
	// path filter then matches.
	PathDoubt error
	Data      map[string]jsontext.Value
}

// SubjectOf reads an event's filterable members. The event was checked
// before (hook.ParseEvent); members of other types than filters expect
// simply match nothing.
func SubjectOf(event []byte) (*Subject, error) {
	var e struct {
		SessionID string                    `json:"session_id"`
		Workspace string                    `json:"workspace"`
		Data      map[string]jsontext.Value `json:"data"`
	}
	if err := json.Unmarshal(event, &e); err != nil {
		return nil, fmt.Errorf("%w: event: %v", ErrDocument, err)
	}
	s := &Subject{SessionID: e.SessionID, Data: e.Data}
	str := func(v jsontext.Value) string {
		var out string
		json.Unmarshal(v, &out)
		return out
	}
	s.ToolName, s.Category = str(e.Data["tool_name"]), str(e.Data["category"])
	args, err := hook.PathArguments(e.Data["args"])
	s.PathDoubt = err
	for _, a := range args {
		forms, err := hook.PathForms(a.Value, e.Workspace)
		s.Paths = append(s.Paths, forms...)
		if err != nil && s.PathDoubt == nil {
			s.PathDoubt = fmt.Errorf("%s (%s): %w", a.Name, a.Value, err)
		}
	}
	return s, nil
}

// Matches reports whether every filter family matches the subject.
func (f *Filters) Matches(s *Subject) bool {
	if len(f.Tools) > 0 && !anyGlob(f.Tools, s.ToolName) {
		return false
	}
	if len(f.Categories) > 0 && !contains(f.Categories, s.Category) {
		return false
	}
	if len(f.Sessions) > 0 && !anyGlob(f.Sessions, s.SessionID) {
		return false
	}
	// A path in doubt matches: a guard that runs too often is safe, one
	// skipped is a hole.
	if len(f.Paths) > 0 && s.PathDoubt == nil {
		hit := false
		for _, p := range s.Paths {
			hit = hit || anyGlob(f.Paths, p)
		}
		if !hit {
			return false
		}
	}
	for k, want := range f.Data {
		got, ok := s.Data[k]
		if !ok || !sameJSON(want, got) {
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sameJSON(a, b jsontext.Value) bool {
	ca, err1 := scriptpin.Canonicalize(wrap(a))
	cb, err2 := scriptpin.Canonicalize(wrap(b))
	return err1 == nil && err2 == nil && bytes.Equal(ca, cb)
}

// wrap puts a value in an object: the canonicalizer takes documents.
func wrap(v jsontext.Value) []byte { return append(append([]byte(`{"v":`), v...), '}') }

var globs sync.Map // glob -> *regexp.Regexp

// anyGlob matches s against globs: * within a path segment, ** across
// segments, ? one character, [...] a class.
func anyGlob(patterns []string, s string) bool {
	for _, g := range patterns {
		re, err := compileGlob(g)
		if err == nil && re.MatchString(s) {
			return true
		}
	}
	return false
}

func checkGlob(g string) error {
	if g == "" {
		return fmt.Errorf("an empty glob")
	}
	_, err := compileGlob(g)
	return err
}

func compileGlob(g string) (*regexp.Regexp, error) {
	if re, ok := globs.Load(g); ok {
		return re.(*regexp.Regexp), nil
	}
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(g); i++ {
		c := g[i]
		switch {
		case c == '*' && strings.HasPrefix(g[i:], "**/"):
			b.WriteString("(?:.*/)?") // zero or more whole segments
			i += 2
		case c == '*' && strings.HasPrefix(g[i:], "**"):
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '[':
			j := strings.IndexByte(g[i+1:], ']')
			if j < 0 {
				return nil, fmt.Errorf("glob %q: '[' without ']'", g)
			}
			class := g[i+1 : i+1+j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += j + 1
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("glob %q: %v", g, err)
	}
	globs.Store(g, re)
	return re, nil
}
