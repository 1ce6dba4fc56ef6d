package bernstein

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hookexec/hook-exec/backend/local"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
)

const sampleConfig = `project: demo
hooks:
  preToolUse:
    - script: scripts/policy/preflight.sh
      timeout: 5
  postToolUse:
    - scripts/audit/log_tool_use.sh
    - plugin: bernstein_plugin_jira
  sessionEnd:
    - scripts/cleanup.sh
`

func TestParseConfig(t *testing.T) {
	t.Parallel()
	got, err := ParseConfig([]byte(sampleConfig))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]Hook{
		"preToolUse": {{Event: "preToolUse", Label: "script:scripts/policy/preflight.sh", Script: "scripts/policy/preflight.sh", Timeout: 5 * time.Second}},
		"postToolUse": {
			{Event: "postToolUse", Label: "script:scripts/audit/log_tool_use.sh", Script: "scripts/audit/log_tool_use.sh"},
			{Event: "postToolUse", Label: "plugin:bernstein_plugin_jira", Plugin: "bernstein_plugin_jira"},
		},
		"sessionEnd": {{Event: "sessionEnd", Label: "script:scripts/cleanup.sh", Script: "scripts/cleanup.sh"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestParseConfigRefused(t *testing.T) {
	t.Parallel()
	for name, doc := range map[string]string{
		"a key in another case":          "hooks:\n  preToolUse:\n    - Script: a.sh\n",
		"an unknown key":                 "hooks:\n  preToolUse:\n    - script: a.sh\n      retries: 3\n",
		"script and plugin":              "hooks:\n  preToolUse:\n    - script: a.sh\n      plugin: p\n",
		"a duplicate key":                "hooks:\n  preToolUse:\n    - script: a.sh\n      script: b.sh\n",
		"a timeout that is not a number": "hooks:\n  preToolUse:\n    - script: a.sh\n      timeout: soon\n",
		"a negative timeout":             "hooks:\n  preToolUse:\n    - script: a.sh\n      timeout: -1\n",
		"an event that is not a list":    "hooks:\n  preToolUse: a.sh\n",
		"a number for a script":          "hooks:\n  preToolUse:\n    - 12\n",
		"hooks not a mapping":            "hooks: [a.sh]\n",
		"not YAML":                       "hooks: [\n",
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := ParseConfig([]byte(doc)); !errors.Is(err, ErrConfig) {
				t.Fatalf("err %v, want ErrConfig", err)
			}
		})
	}
}

func TestDiscover(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write := func(rel, body string, mode os.FileMode) {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(Config, "hooks:\n  preToolUse:\n    - scripts/first.sh\n    - .bernstein/hooks/preToolUse.sh\n    - ../outside.sh\n", 0o644)
	write("scripts/first.sh", "exit 0\n", 0o755)
	write(".bernstein/hooks/preToolUse.sh", "exit 0\n", 0o755)
	write(".bernstein/hooks/postToolUse.py", "pass\n", 0o644)
	write(".bernstein/hooks/session_start.sh", "exit 0\n", 0o755)
	write(".bernstein/hooks/README.md", "", 0o644)
	got, err := Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	labels := map[string][]string{}
	for ev, hs := range got {
		for _, h := range hs {
			l := h.Label
			if h.Problem != "" {
				l += " (" + h.Problem + ")"
			}
			labels[ev] = append(labels[ev], l)
		}
	}
	want := map[string][]string{
		// bernstein.yaml's order; the convention script it names is not repeated.
		"preToolUse":    {"script:scripts/first.sh", "script:.bernstein/hooks/preToolUse.sh", "script:../outside.sh (the path leaves the project)"},
		"postToolUse":   {"script:.bernstein/hooks/postToolUse.py (not executable (chmod +x))"},
		"session_start": {"script:.bernstein/hooks/session_start.sh"},
	}
	if diff := cmp.Diff(want, labels); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	write("scripts/bashism.sh", "if [[ $x == y ]]; then :; fi\n", 0o755)
	if p := Check(root, Hook{Script: "scripts/bashism.sh"}); !strings.Contains(p, "line 1: [[ is a bash feature") {
		t.Errorf("check of a bash script run under sh: %q", p)
	}
}

// bernstein.yaml is read from projects hook-exec does not trust.
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(sampleConfig))
	f.Add([]byte("hooks:\n  preToolUse:\n    - script: a.sh\n      timeout: 1.5\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := ParseConfig(b)
		if err != nil {
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("error outside ErrConfig: %v", err)
			}
			return
		}
		for ev, hs := range got {
			for _, h := range hs {
				if (h.Script == "") == (h.Plugin == "") || h.Event != ev || h.Timeout < 0 {
					t.Fatalf("hook %+v", h)
				}
			}
		}
	})
}

// `hooks run` fires Bernstein's empty context (data {}, task and session
// null) unchecked: the hook is attempted with it (on the local backend a
// project's hook then stops at the isolation gate, past the event's
// reading). A supplied payload is checked against the schema.
func TestRunEmptyContext(t *testing.T) {
	t.Parallel()
	ex, err := executor.New(executor.Options{Backend: local.New()})
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	hooks := []Hook{{Event: "preToolUse", Label: "script:guard.sh", Script: "guard.sh"}}
	res, err := Run(context.Background(), ex, root, "preToolUse", hooks, nil, Context{Workdir: root})
	if err != nil {
		t.Fatalf("the empty context: %v", err)
	}
	if len(res.Traces) != 1 || res.Traces[0].Failure == nil || res.Traces[0].Failure.Kind != hook.FailNotIsolated {
		t.Errorf("traces %+v, want the hook attempted and stopped at the gate (not_isolated)", res.Traces)
	}
	if string(res.Data) != "{}" {
		t.Errorf("data %s, want {}", res.Data)
	}
	env, err := envelope("preToolUse", res.Data, Context{Workdir: root})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(env), `"task":null,"session_id":null`) {
		t.Errorf("envelope %s: want task and session_id null", env)
	}
	_, err = Run(context.Background(), ex, root, "preToolUse", hooks, []byte(`{}`), Context{Workdir: root})
	if !errors.Is(err, hook.ErrInvalid) || !strings.Contains(err.Error(), `"session_id"`) {
		t.Errorf("a supplied {}: err %v, want ErrInvalid naming session_id", err)
	}
}
