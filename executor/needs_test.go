package executor

import (
	"slices"
	"strings"
	"testing"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/launcher"
)

// A .sh script's programs travel to the launcher, which judges a missing
// one when the script calls it; a script that sets a PATH of its own
// (which would leave the stand-ins out) has them judged before it starts.
func TestNeedsJudgedWhenCalledUnlessPathSet(t *testing.T) {
	t.Parallel()
	allow := []byte(`{"schema_version":1,"action":"allow"}`)
	for _, c := range []struct {
		script string
		want   []string
	}{
		{"jq -r .x | grep -q rm && exit 2 || exit 0\n", []string{launcher.NeedsVar + "=grep jq"}},
		{"export PATH=\"$HOME/bin:$PATH\"\njq .\n", []string{launcher.NeedsVar + "=jq"}},
		{"PATH=/usr/bin:/bin\njq .\n", []string{launcher.NeedsVar + "=jq", launcher.NeedsNowVar + "=1"}},
		{"echo hi\n", nil},
	} {
		f := &fakeBackend{out: backend.Outcome{Stdout: allow}}
		run(t, f, newHook(t, c.script), event)
		var got []string
		for _, kv := range f.runs[0].Spec.Env {
			if strings.HasPrefix(kv, "HOOKEXEC_NEEDS") {
				got = append(got, kv)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: %q, want %q", c.script, got, c.want)
		}
	}
}
