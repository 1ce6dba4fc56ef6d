package registry

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/hookexec/hook-exec/hook"
)

func TestFilters(t *testing.T) {
	event := []byte(`{"schema_version":1,"point":"tool.before","session_id":"sess_review_1","workspace":"/w","data":{
		"tool_name":"write_file","category":"fs.write","reversible":false,
		"args":{"file_path":"/w/protected/a.txt","paths":["docs/x.md","../etc/passwd"],"content":"protected/not-a-path"}}}`)
	s, err := SubjectOf(event)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		filter Filters
		want   bool
	}{
		{"empty matches", Filters{}, true},
		{"tool glob", Filters{Tools: []string{"write_*"}}, true},
		{"tool glob miss", Filters{Tools: []string{"read_*"}}, false},
		{"category exact", Filters{Categories: []string{"fs.write"}}, true},
		{"category is not a glob", Filters{Categories: []string{"fs.*"}}, false},
		{"absolute path inside the workspace", Filters{Paths: []string{"protected/**"}}, true},
		{"path in a list", Filters{Paths: []string{"docs/*.md"}}, true},
		{".. folded, from the workspace", Filters{Paths: []string{"/etc/passwd"}}, true},
		{"* stays in its segment", Filters{Paths: []string{"*.txt"}}, false},
		{"** crosses segments", Filters{Paths: []string{"**/*.txt"}}, true},
		{"content is not a path", Filters{Paths: []string{"protected/not-a-path"}}, false},
		{"session glob", Filters{Sessions: []string{"sess_review_*"}}, true},
		{"data exact", Filters{Data: map[string]jsontext.Value{"reversible": []byte("false")}}, true},
		{"data differs", Filters{Data: map[string]jsontext.Value{"reversible": []byte("true")}}, false},
		{"data missing", Filters{Data: map[string]jsontext.Value{"other": []byte("null")}}, false},
		{"families are conjunctive", Filters{Tools: []string{"write_file"}, Categories: []string{"fs.read"}}, false},
	} {
		if got := tc.filter.Matches(s); got != tc.want {
			t.Errorf("%s: Matches = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestFiltersResolvePaths: a path filter matches the file a path reaches
// (links followed, /proc/self/cwd the workspace) as well as its text, and
// matches when where a path leads is in doubt.
func TestFiltersResolvePaths(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, "protected"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"link": "protected", "loop": "loop2", "loop2": "loop"} {
		if err := os.Symlink(target, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	guard := Filters{Paths: []string{"protected/**"}}
	for _, tc := range []struct {
		name, path string
		filter     Filters
		want       bool
		doubt      bool
	}{
		{"a link into protected", "link/secret.txt", guard, true, false},
		{"a link into protected, absolute", ws + "/link/secret.txt", guard, true, false},
		{"the agent's cwd through /proc", "/proc/self/cwd/protected/x", guard, true, false},
		{"the agent's root through /proc", "/proc/self/root" + ws + "/protected/x", guard, true, false},
		{"the link's own name still matches", "link/x", Filters{Paths: []string{"link/**"}}, true, false},
		{"elsewhere", "docs/x", guard, false, false},
		{"a loop is in doubt: the guard runs", "loop/x", guard, true, true},
		{"another process's cwd is in doubt", "/proc/1/cwd/x", guard, true, true},
		{"doubt does not widen other families", "loop/x", Filters{Paths: []string{"protected/**"}, Tools: []string{"read_*"}}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := SubjectOf(fmt.Appendf(nil, `{"schema_version":1,"point":"tool.before","workspace":%q,"data":{"tool_name":"write_file","args":{"path":%q}}}`, ws, tc.path))
			if err != nil {
				t.Fatal(err)
			}
			if got := tc.filter.Matches(s); got != tc.want {
				t.Errorf("Matches = %v, want %v (paths %q, doubt %v)", got, tc.want, s.Paths, s.PathDoubt)
			}
			if (s.PathDoubt != nil) != tc.doubt {
				t.Errorf("PathDoubt = %v, want doubt %v", s.PathDoubt, tc.doubt)
			}
		})
	}
	// The argument names and shapes tools use.
	deep := strings.Repeat(`{"x":`, 40) + `{"path":"a.md"}` + strings.Repeat("}", 40)
	for _, tc := range []struct {
		args  string
		want  bool
		doubt bool
	}{
		{`{"dst":"protected/a"}`, true, false},
		{`{"uri":"file://` + ws + `/protected/a"}`, true, false},
		{`{"uri":"file://` + ws + `/link/a%20b"}`, true, false},
		{`{"url":"https://example.com/protected/a"}`, false, false},
		{`{"files":[{"name":"docs/a"},{"name":"protected/a","content":"x"}]}`, true, false},
		{`{"files":[{"name":"docs/a","content":"protected/a"}]}`, false, false},
		{`{"edit":` + deep + `}`, true, true},
	} {
		s, err := SubjectOf(fmt.Appendf(nil, `{"schema_version":1,"point":"tool.before","workspace":%q,"data":{"args":%s}}`, ws, tc.args))
		if err != nil {
			t.Fatal(err)
		}
		if got := guard.Matches(s); got != tc.want || (s.PathDoubt != nil) != tc.doubt {
			t.Errorf("args %.60s: Matches = %v (doubt %v), want %v (doubt %v)", tc.args, got, s.PathDoubt, tc.want, tc.doubt)
		}
	}
	s, _ := SubjectOf(fmt.Appendf(nil, `{"schema_version":1,"point":"tool.before","workspace":%q,"data":{"args":{"path":"loop"}}}`, ws))
	if !errors.Is(s.PathDoubt, hook.ErrLinkLoop) {
		t.Errorf("PathDoubt = %v, want hook.ErrLinkLoop", s.PathDoubt)
	}
}
