package hookrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookexec/hook-exec/engine"
	"github.com/hookexec/hook-exec/hook"
)

const event = `{"schema_version":1,"event_id":"e","timestamp":0,"point":"tool.before","session_id":"s","depth":0,"data":{}}`

func ownerHook(t *testing.T, body string) hook.Hook {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "h.sh"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	h := hook.Hook{ID: "h", PluginDir: dir, Script: "h.sh", Scope: hook.ScopeOwner, Timeout: 10 * time.Second}
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	return h
}

func TestRunLocal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		dialect    hook.Dialect
		body       string
		action     hook.Action
		stdout     string
		stderrLast string
	}{
		{"allow", hook.Holaryn, `echo '{"schema_version":1,"action":"allow"}'`, hook.Allow, `{"schema_version":1,"action":"allow"}`, ""},
		{"arcturn deny puts the reason on stderr", hook.Arcturn, "echo 'not here' >&2; exit 2", hook.DenyAction, "", "not here"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := ownerHook(t, tc.body+"\n")
			h.Dialect = tc.dialect
			var stdout, stderr bytes.Buffer
			state := t.TempDir()
			ev := []byte(event)
			if tc.dialect == hook.Arcturn {
				ev = []byte(`{"event":"preToolUse","toolName":"bash","input":{},"cwd":"/"}`)
			}
			d, err := Run(context.Background(), Options{
				Hook: h, Event: ev, Engine: engine.Options{Backend: "local"},
				StateDir: state, TraceFile: filepath.Join(state, "trace.json"), Stdout: &stdout, Stderr: &stderr,
			})
			if err != nil {
				t.Fatal(err)
			}
			if d.Action != tc.action {
				t.Errorf("action %q, want %q", d.Action, tc.action)
			}
			if tc.stdout != "" && strings.TrimSpace(stdout.String()) != tc.stdout {
				t.Errorf("stdout %q, want %q", stdout.String(), tc.stdout)
			}
			if tc.stderrLast != "" && !strings.HasSuffix(strings.TrimSpace(stderr.String()), tc.stderrLast) {
				t.Errorf("stderr %q does not end with %q", stderr.String(), tc.stderrLast)
			}
			var tr hook.Trace
			b, err := os.ReadFile(filepath.Join(state, "trace.json"))
			if err != nil {
				t.Fatalf("--trace file: %v", err)
			}
			if err := json.Unmarshal(b, &tr); err != nil {
				t.Fatalf("--trace file %q: %v", b, err)
			}
			if tr.FinalAction != tc.action {
				t.Errorf("trace final_action %q, want %q", tr.FinalAction, tc.action)
			}
		})
	}
}

func TestRunUnreachableEngineIsADecision(t *testing.T) {
	t.Parallel()
	h := ownerHook(t, "exit 0\n")
	h.Scope, h.Image = hook.ScopeProject, "x"
	var stdout, stderr bytes.Buffer
	sock := filepath.Join(t.TempDir(), "none.sock")
	d, err := Run(context.Background(), Options{
		Hook: h, Event: []byte(event), Engine: engine.Options{Backend: "containerd", ContainerdAddress: sock},
		StateDir: t.TempDir(), Stdout: &stdout, Stderr: &stderr,
	})
	if err != nil {
		t.Fatalf("an unreachable engine is a failure of the run, not of the call: %v", err)
	}
	if d.Action != hook.DenyAction {
		t.Errorf("action %q, want deny (failure_policy deny)", d.Action)
	}
	for _, want := range []string{string(hook.FailEngineError), sock} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr %q lacks %q", stderr.String(), want)
		}
	}
}

func TestRunUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		o    Options
	}{
		{"unknown backend", Options{Engine: engine.Options{Backend: "podman"}}},
		{"session on local", Options{Engine: engine.Options{Backend: "local"}, Session: "c1"}},
	}
	for _, tc := range tests {
		tc.o.Hook = ownerHook(t, "exit 0\n")
		tc.o.Event = []byte(event)
		tc.o.StateDir = t.TempDir()
		tc.o.Stdout, tc.o.Stderr = &bytes.Buffer{}, &bytes.Buffer{}
		var ue *UsageError
		if _, err := Run(context.Background(), tc.o); !errors.As(err, &ue) {
			t.Errorf("%s: error %v, want a UsageError", tc.name, err)
		}
	}
}
