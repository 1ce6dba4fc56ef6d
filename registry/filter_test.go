package registry

import (
	"testing"

	"github.com/go-json-experiment/json/jsontext"
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
		{".. folded", Filters{Paths: []string{"../etc/passwd"}}, true},
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
