package e2e

import (
	"encoding/json"

	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookexec/hook-exec/hook"
)

// eventAt is an event of point with data.
func eventAt(point, ws, session string, data map[string]any) []byte {
	b, _ := json.Marshal(map[string]any{"schema_version": 1, "event_id": "hookevt_x", "timestamp": 0, "point": point,
		"session_id": session, "workspace": ws, "depth": 0, "data": data})
	return b
}

// TestExamplesRunAsPrinted: every definition `hook examples` prints is
// added as printed and runs at its point on the real engine.
func TestExamplesRunAsPrinted(t *testing.T) {
	t.Parallel()
	requireEngines(t)
	state, ws := t.TempDir(), t.TempDir()
	if err := os.Chmod(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	files(t, ws, map[string]string{"notes.md": "clean line\ntrailing   \nalso trailing\t\n", "check.sh": "#!/bin/sh\necho checks ran >&2\n"})
	if err := os.Chmod(filepath.Join(ws, "check.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The formatter writes as the workspace's owner: not root.
	for _, p := range []string{ws, filepath.Join(ws, "notes.md"), filepath.Join(ws, "check.sh")} {
		if err := os.Chown(p, 1234, 1234); err != nil {
			t.Fatal(err)
		}
	}
	st := "--state-dir=" + state
	dir := t.TempDir()
	for _, name := range []string{"forbidden-paths", "proposed-secret", "formatter", "test-on-completion", "notification"} {
		r := hookExec(t, nil, nil, "hook", "examples", name)
		r.wantCode(t, 0)
		file := filepath.Join(dir, name+".json")
		if err := os.WriteFile(file, []byte(r.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		hookExec(t, nil, nil, "hook", st, "validate", file).wantCode(t, 0)
		hookExec(t, nil, nil, "hook", st, "add", file).wantCode(t, 0)
	}
	dispatchAt := func(point string, data map[string]any) (cliResult, dispatchOut) {
		t.Helper()
		r := hookExec(t, eventAt(point, ws, "sess_examples", data), nil, "dispatch", point, st, "--workspace", ws)
		var out dispatchOut
		if r.code == 0 || r.code == 2 || r.code == 3 {
			if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
				t.Fatalf("%s: stdout %q (stderr %q)", point, r.stdout, r.stderr)
			}
		}
		return r, out
	}
	write := map[string]any{"tool_name": "write_file", "category": "fs.write"}
	with := func(args map[string]any) map[string]any {
		m := map[string]any{"args": args}
		for k, v := range write {
			m[k] = v
		}
		return m
	}

	r, out := dispatchAt("file.before_write", with(map[string]any{"path": ".env", "content": "A=1"}))
	r.wantCode(t, 2)
	if !strings.Contains(out.Decision.Reason, "forbidden path") {
		t.Errorf("forbidden-paths: reason %q", out.Decision.Reason)
	}
	r, out = dispatchAt("file.before_write", with(map[string]any{"path": "notes.md", "content": "token: ghp_abcdefghijklmnopqrstuvwxyz0123456789"}))
	r.wantCode(t, 3)
	if !strings.Contains(out.Decision.Reason, "proposed secret") || strings.Contains(out.Decision.Reason, "ghp_") {
		t.Errorf("proposed-secret: reason %q, want the finding without the secret", out.Decision.Reason)
	}
	r, _ = dispatchAt("file.before_write", with(map[string]any{"path": "notes.md", "content": "plain"}))
	r.wantCode(t, 0)
	r, out = dispatchAt("file.after_write", with(map[string]any{"path": "notes.md"}))
	r.wantCode(t, 0)
	if out.Decision.Action != hook.Allow {
		t.Errorf("formatter: action %s", out.Decision.Action)
	}
	r, _ = dispatchAt("run.completed", map[string]any{"status": "ok"})
	r.wantCode(t, 0)
	r, _ = dispatchAt("approval.requested", map[string]any{"tool_name": "bash"})
	r.wantCode(t, 0)
	wantIn(t, "stderr", r.stderr, "approval requested in session sess_examples for bash")

	// The observers' traces: each ran without a failure. Those that run a
	// process do so after dispatch answered, in a process of their own.
	cold := coldLatency(t, engines(t)[0])
	for _, id := range []string{"whitespace-fix", "test-on-completion", "approval-notification"} {
		var tr cliResult
		for deadline := time.Now().Add(40*time.Second + 20*cold); time.Now().Before(deadline); time.Sleep(cold) {
			if tr = hookExec(t, nil, nil, "traces", st, "--hook-id", id, "--json"); tr.stdout != "" {
				break
			}
		}
		tr.wantCode(t, 0)
		var got hook.Trace
		if err := json.Unmarshal([]byte(strings.SplitN(tr.stdout, "\n", 2)[0]), &got); err != nil {
			t.Errorf("%s: no trace (%q)", id, tr.stdout)
			continue
		}
		if got.Failure != nil {
			t.Errorf("%s failed: %s: %s", id, got.Failure.Kind, got.Failure.Message)
		}
	}
	// The formatter asked for the workspace read-write, and fixed the file.
	if b, err := os.ReadFile(filepath.Join(ws, "notes.md")); err != nil || string(b) != "clean line\ntrailing\nalso trailing\n" {
		t.Errorf("notes.md after the formatter: %q (%v), want its trailing whitespace gone", b, err)
	}
}
