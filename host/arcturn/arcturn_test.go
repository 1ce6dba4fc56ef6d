package arcturn

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hookexec/hook-exec/backend/local"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/scriptpin"
)

const seedConfig = `{
  "hooks": {
    "preToolUse": [
      { "command": "./.arcturn/hooks/guard-bash.sh", "matcher": "bash" }
    ],
    "postToolUse": [
      { "command": "./.arcturn/hooks/log-tool-use.sh", "timeoutMs": 5000 }
    ],
    "sessionStart": [
      { "command": "echo session started >> .arcturn/session.log" }
    ],
    "runEnd": [
      { "command": "./.arcturn/hooks/notify.sh" }
    ]
  },
  "permissions": {"allow": ["bash"]}
}`

func TestParseConfig(t *testing.T) {
	t.Parallel()
	got, err := ParseConfig("p", []byte(seedConfig))
	if err != nil {
		t.Fatal(err)
	}
	want := []Hook{
		{Event: "preToolUse", Layer: "p", Command: "./.arcturn/hooks/guard-bash.sh", Matcher: "bash", Timeout: DefaultTimeout},
		{Event: "postToolUse", Layer: "p", Command: "./.arcturn/hooks/log-tool-use.sh", Timeout: 5 * time.Second},
		{Event: "sessionStart", Layer: "p", Command: "echo session started >> .arcturn/session.log", Timeout: DefaultTimeout},
		{Event: "runEnd", Layer: "p", Command: "./.arcturn/hooks/notify.sh", Timeout: DefaultTimeout},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestParseConfigRefused(t *testing.T) {
	t.Parallel()
	for name, doc := range map[string]string{
		"a member in another case": `{"hooks": {"preToolUse": [{"Command": "x"}]}}`,
		"hooks in another case":    `{"Hooks": {"preToolUse": [{"command": "x"}]}}`,
		"an unknown member":        `{"hooks": {"preToolUse": [{"command": "x", "timeout": 5}]}}`,
		"a duplicate member":       `{"hooks": {"preToolUse": [{"command": "x", "command": "y"}]}}`,
		"an unknown event":         `{"hooks": {"PreToolUse": [{"command": "x"}]}}`,
		"no command":               `{"hooks": {"runEnd": [{"matcher": "bash"}]}}`,
		"a zero timeout":           `{"hooks": {"runEnd": [{"command": "x", "timeoutMs": 0}]}}`,
		"a fractional timeout":     `{"hooks": {"runEnd": [{"command": "x", "timeoutMs": 1.5}]}}`,
		"not JSON":                 `{"hooks":`,
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := ParseConfig("p", []byte(doc)); !errors.Is(err, ErrConfig) {
				t.Fatalf("err %v, want ErrConfig", err)
			}
		})
	}
}

// A project's config.json is untrusted input.
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(seedConfig))
	f.Add([]byte(`{"hooks": {"runEnd": [{"command": "x", "timeoutMs": 1}]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		hs, err := ParseConfig("p", b)
		if err != nil {
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("error outside ErrConfig: %v", err)
			}
			return
		}
		for _, h := range hs {
			if h.Command == "" || h.Timeout <= 0 {
				t.Fatalf("hook %+v", h)
			}
		}
	})
}

// A layer's script path stays inside the directory holding its .arcturn/:
// a project's config cannot have hook-exec read a file elsewhere as a
// script (it runs as a command, where that file is not mounted).
func TestScriptOfStaysInItsLayer(t *testing.T) {
	t.Parallel()
	project, home := t.TempDir(), t.TempDir()
	for _, p := range []string{filepath.Join(project, "h.sh"), filepath.Join(home, "secret.py")} {
		os.WriteFile(p, []byte("exit 0\n"), 0o644)
	}
	if rel, ok := scriptOf(project, project, "./h.sh"); !ok || rel != "h.sh" {
		t.Errorf("the project's own script: %q %v", rel, ok)
	}
	if _, ok := scriptOf(project, project, filepath.Join(home, "secret.py")); ok {
		t.Error("a project layer reached a file outside the project")
	}
	if _, ok := scriptOf(project, project, "../"+filepath.Base(home)+"/secret.py"); ok {
		t.Error("a project layer reached a file outside the project through ..")
	}
	if _, ok := scriptOf(project, home, filepath.Join(home, "secret.py")); !ok {
		t.Error("the home layer's own script")
	}
	// A directory of the project that links out: the path is below the
	// project, and the read, one component at a time below it, refuses it.
	if err := os.Symlink(home, filepath.Join(project, "hooks")); err != nil {
		t.Fatal(err)
	}
	if rel, ok := scriptOf(project, project, "hooks/secret.py"); ok {
		if _, err := scriptpin.ReadShebang(project, rel); !errors.Is(err, scriptpin.ErrLink) {
			t.Errorf("read %s below %s through a linked directory: err %v, want ErrLink", rel, project, err)
		}
	}
}

// A payload with members hook-exec does not know still runs its hooks (on
// the local backend a project's hook is attempted and stops at the
// isolation gate, past the payload's reading); one hook-exec cannot read
// is refused, no hook run: Arcturn would let any other answer through.
func TestRunReadsPayloads(t *testing.T) {
	t.Parallel()
	ex, err := executor.New(executor.Options{Backend: local.New()})
	if err != nil {
		t.Fatal(err)
	}
	project := t.TempDir()
	hooks := []Hook{{Event: "preToolUse", Layer: filepath.Join(project, ".arcturn", "config.json"), Command: "exit 2", Timeout: time.Second}}
	run := func(payload string) *Result {
		t.Helper()
		res, err := Run(context.Background(), ex, hooks, project, "", []byte(payload))
		if err != nil {
			t.Fatalf("%s: %v", payload, err)
		}
		return res
	}
	res := run(`{"event":"preToolUse","toolName":"bash","input":{},"cwd":"/p","sessionId":"s-1","model":{"id":"m"}}`)
	if len(res.Traces) != 1 || res.Traces[0].Failure == nil || res.Traces[0].Failure.Kind != hook.FailNotIsolated {
		t.Errorf("traces %+v, want the hook attempted (not_isolated)", res.Traces)
	}
	for _, bad := range []string{
		`{"event":"preToolUse","toolName":"bash","input":{},"cwd":"/p","cwd":"/"}`,
		`{"event":"preToolUse","toolName":"bash","ToolName":"mcp_x","input":{},"cwd":"/p"}`,
		`{"event":"preToolUse","toolName":"bash","input":"ls","cwd":"/p"}`,
		`{"event":"preToolUse"`,
	} {
		res := run(bad)
		if res.Decision.Action != hook.Deny || !errors.Is(res.Refused, hook.ErrInvalid) || len(res.Traces) != 0 {
			t.Errorf("%s: decision %+v refused %v traces %d, want a deny for ErrInvalid and no hook run", bad, res.Decision, res.Refused, len(res.Traces))
		}
	}
}

// An Arcturn hook, approved by no one, may write data files its text
// names, and nothing else: no configuration, directory or file that runs.
func TestDataWrites(t *testing.T) {
	t.Parallel()
	project := t.TempDir()
	os.MkdirAll(filepath.Join(project, "scripts"), 0o755)
	os.WriteFile(filepath.Join(project, "scripts", "run.log"), []byte("#!/bin/sh\n"), 0o755)
	got := dataWrites([]string{".arcturn/session.log", ".arcturn/config.json", "bernstein.yaml", ".clinerules/hooks/PreToolUse",
		"logs/", "audit.JSONL", "scripts/run.log"}, project)
	if want := []string{".arcturn/session.log", "audit.JSONL"}; !slices.Equal(got, want) {
		t.Errorf("dataWrites = %q, want %q", got, want)
	}
}
