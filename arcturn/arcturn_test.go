package arcturn

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
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
