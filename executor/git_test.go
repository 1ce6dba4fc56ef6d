package executor

import (
	"slices"
	"strings"
	"testing"

	"github.com/hookexec/hook-exec/backend"
)

// A mounted workspace comes with git's safe.directory for its path alone,
// in the sandbox's own environment (a pooled run's environment block is
// the same list); no workspace, or the local backend (the user's own git
// there), none.
func TestGitSafeDirectoryForWorkspace(t *testing.T) {
	t.Parallel()
	allow := []byte(`{"schema_version":1,"action":"allow"}`)
	ws := t.TempDir()
	for _, c := range []struct {
		name      string
		local     bool
		workspace string
		want      []string
	}{
		{"workspace", false, ws, []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=safe.directory", "GIT_CONFIG_VALUE_0=" + ws}},
		{"no workspace", false, "", nil},
		{"local", true, ws, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := &fakeBackend{out: backend.Outcome{Stdout: allow}, local: c.local}
			h := newHook(t, "git status\n")
			h.Workspace = c.workspace
			r := run(t, f, h, event)
			if r.Trace.Failure != nil {
				t.Fatalf("failure %+v", r.Trace.Failure)
			}
			var got []string
			for _, kv := range f.runs[0].Spec.Env {
				if strings.HasPrefix(kv, "GIT_") {
					got = append(got, kv)
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("git's environment %q, want %q", got, c.want)
			}
		})
	}
}
