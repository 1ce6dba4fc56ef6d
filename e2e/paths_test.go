package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDispatchCLIPathsAsReached: through `hook-exec dispatch` with a
// trusted project document, a guard filtered to protected/** runs (and
// denies) for a path that reaches protected/ through a workspace link or
// through /proc/self/cwd, and forbidden-path denies .env named by dst, by
// a file: URI and by an object in a list of files.
func TestDispatchCLIPathsAsReached(t *testing.T) {
	t.Parallel()
	eng := engines(t)[0] // the CLI's default engine
	timeout := hookTimeout(t, eng)
	state, ws, dir := t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, "protected"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("protected", filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	files(t, ws, map[string]string{"guard.sh": denyAs("protected guard")})
	doc := "[" + definition("guard", "project", 0, "guard.sh", timeout, `,"filters":{"paths":["protected/**"]}`) + "," +
		`{"schema_version":1,"id":"forbid","point":"tool.before","scope":"project","order":1,"handler":{"kind":"builtin","builtin":"forbidden-path"}}]`
	files(t, dir, map[string]string{"project.json": doc})
	st := "--state-dir=" + state
	for _, args := range [][]string{{"install-project", ws, filepath.Join(dir, "project.json")}, {"trust", ws}} {
		if r := hookExec(t, nil, nil, append([]string{"hook", st}, args...)...); r.code != 0 {
			t.Fatalf("hook %s: exit %d: %s", args[0], r.code, r.stderr)
		}
	}
	for _, tc := range []struct {
		args   string
		reason string // "" for allow
		guard  bool   // whether the guard ran
	}{
		{`{"path":"docs/a.md","content":"x"}`, "", false},
		{`{"path":"link/secret.txt","content":"x"}`, "protected guard", true},
		{`{"path":"/proc/self/cwd/protected/x","content":"x"}`, "protected guard", true},
		{`{"dst":".env"}`, "forbidden path: dst (.env) is a .env file", false},
		{`{"uri":"file://` + ws + `/.env"}`, "forbidden path: uri (" + ws + "/.env) is a .env file", false},
		{`{"files":[{"name":".env","content":"A=1"}]}`, "forbidden path: files[0].name (.env) is a .env file", false},
	} {
		event := fmt.Appendf(nil, `{"schema_version":1,"event_id":"hookevt_p","timestamp":0,"point":"tool.before","session_id":"sess_paths",`+
			`"run_id":"run_1","trace_id":"trace_1","workspace":%q,"depth":0,"data":{"call_id":"call_1","tool_name":"write_file","args":%s,"category":"fs.write"}}`, ws, tc.args)
		r, out := dispatchCLI(t, event, st, "--workspace", ws)
		want := 0
		if tc.reason != "" {
			want = 2
		}
		if r.code != want || out.Decision.Reason != tc.reason {
			t.Errorf("%s: exit %d reason %q, want %d %q (stderr %q)", tc.args, r.code, out.Decision.Reason, want, tc.reason, r.stderr)
		}
		ids := strings.Join(hookIDs(out.Traces), ",")
		if ran := strings.Contains(ids, "guard"); ran != tc.guard {
			t.Errorf("%s: hooks run %q, want the guard run %v", tc.args, ids, tc.guard)
		}
		for _, tr := range out.Traces {
			if tr.Failure != nil {
				t.Errorf("%s: %s failed: %s: %s", tc.args, tr.HookID, tr.Failure.Kind, tr.Failure.Message)
			}
		}
	}
}
