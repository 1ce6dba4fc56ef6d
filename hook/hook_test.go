package hook

import (
	"errors"
	"strings"
	"testing"

	"github.com/hookexec/hook-exec/internal/corpus"
)

func TestParseDecision(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, out, point string
		want             Action
		ok               bool
	}{
		{"allow", `{"schema_version":1,"action":"allow"}`, "tool.before", Allow, true},
		{"allow with newline", "\n{\"schema_version\":1,\"action\":\"allow\"}\n", "tool.before", Allow, true},
		{"deny", `{"schema_version":1,"action":"deny","reason":"no"}`, "tool.before", Deny, true},
		{"approval", `{"schema_version":1,"action":"request_approval","reason":"ask"}`, "command.before", RequestApproval, true},
		{"modify args", `{"schema_version":1,"action":"modify","mutations":{"args":{"path":"docs/a.md"}},"output":{"rule":"x"}}`, "tool.before", Modify, true},
		{"modify elsewhere", `{"schema_version":1,"action":"modify","mutations":{"args":{}}}`, "file.before_write", "", false},
		{"modify other field", `{"schema_version":1,"action":"modify","mutations":{"tool_name":{}}}`, "tool.before", "", false},
		{"modify args not object", `{"schema_version":1,"action":"modify","mutations":{"args":"x"}}`, "tool.before", "", false},
		{"modify without mutations", `{"schema_version":1,"action":"modify"}`, "tool.before", "", false},
		{"allow with mutations", `{"schema_version":1,"action":"allow","mutations":{"args":{}}}`, "tool.before", "", false},
		{"empty", ``, "tool.before", "", false},
		{"plain text", `ok`, "tool.before", "", false},
		{"truncated", `{"schema_version":1,"action":"al`, "tool.before", "", false},
		{"two objects", `{"schema_version":1,"action":"allow"}{"schema_version":1,"action":"deny"}`, "tool.before", "", false},
		{"duplicate action", `{"schema_version":1,"action":"allow","action":"deny"}`, "tool.before", "", false},
		{"nested duplicate", `{"schema_version":1,"action":"allow","output":{"a":1,"a":2}}`, "tool.before", "", false},
		{"unknown action", `{"schema_version":1,"action":"maybe"}`, "tool.before", "", false},
		{"unknown member", `{"schema_version":1,"action":"allow","extra":1}`, "tool.before", "", false},
		{"wrong version", `{"schema_version":2,"action":"allow"}`, "tool.before", "", false},
		{"no version", `{"action":"allow"}`, "tool.before", "", false},
		{"array", `[{"schema_version":1,"action":"allow"}]`, "tool.before", "", false},
		{"oversized", `{"schema_version":1,"action":"allow","reason":"` + strings.Repeat("x", MaxDecisionBytes) + `"}`, "tool.before", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d, err := ParseDecision([]byte(tc.out), tc.point)
			if !tc.ok {
				if !errors.Is(err, ErrDecision) {
					t.Fatalf("ParseDecision = %+v, %v; want ErrDecision", d, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseDecision: %v", err)
			}
			if d.Action != tc.want {
				t.Errorf("action = %q, want %q", d.Action, tc.want)
			}
		})
	}
}

func TestParseEvent(t *testing.T) {
	t.Parallel()
	good := `{"schema_version":1,"event_id":"e1","timestamp":0,"point":"tool.before","session_id":"s","run_id":"r","trace_id":"t","workspace":"/w","depth":1,"data":{"tool_name":"bash"}}`
	e, err := ParseEvent([]byte(good))
	if err != nil {
		t.Fatalf("ParseEvent: %v", err)
	}
	if e.Point != "tool.before" {
		t.Errorf("point = %q, want %q", e.Point, "tool.before")
	}
	if e.Depth != 1 {
		t.Errorf("depth = %d, want 1", e.Depth)
	}
	vars := e.EnvVars("guard")
	for k, want := range map[string]string{"HOLARYN_HOOK_POINT": "tool.before", "HOLARYN_HOOK_ID": "guard", "HOLARYN_HOOK_DEPTH": "1"} {
		if got := vars[k]; got != want {
			t.Errorf("EnvVars()[%s] = %q, want %q", k, got, want)
		}
	}
	for _, bad := range []string{
		``, `[]`, `{"schema_version":2,"point":"x"}`, `{"schema_version":1}`,
		`{"schema_version":1,"point":"x","depth":-1}`, `{"schema_version":1,"point":"x","data":[1]}`,
		`{"schema_version":1,"point":"x","point":"y"}`, `{"schema_version":1,"point":"x"} {}`,
	} {
		if _, err := ParseEvent([]byte(bad)); !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseEvent(%s) accepted", bad)
		}
	}
}

func TestHookValidate(t *testing.T) {
	t.Parallel()
	h := Hook{Script: "a.sh"}
	if err := h.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if h.Mode != Blocking {
		t.Errorf("default mode = %q, want %q", h.Mode, Blocking)
	}
	if p := h.Dialect.Host().DefaultFailurePolicy(h.Mode, true); h.FailurePolicy != "" || p != PolicyDeny {
		t.Errorf("default failure policy = %q (%q by default), want the dialect's %q", h.FailurePolicy, p, PolicyDeny)
	}
	if h.Timeout == 0 {
		t.Error("default timeout = 0, want one set")
	}
	if h.MaxOutputBytes != 65536 {
		t.Errorf("default max output bytes = %d, want 65536", h.MaxOutputBytes)
	}
	o := Hook{Script: "a.sh", Mode: Observational, FailurePolicy: PolicyDeny}
	if err := o.Validate(); !errors.Is(err, ErrInvalid) {
		t.Fatal("observational hook with failure_policy deny accepted")
	}
	for _, bad := range []Hook{{Script: "a.sh", Mode: "x"}, {Script: "a.sh", FailurePolicy: "x"}, {}} {
		if err := bad.Validate(); !errors.Is(err, ErrInvalid) {
			t.Errorf("accepted %+v", bad)
		}
	}
}

// Planted secrets of every kind the redactor must catch.
var plantedSecrets = []string{
	"AKIAIOSFODNN7EXAMPLE",
	"ghp_abcdefghijklmnopqrstuvwxyz0123456789",
	"github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
	"glpat-abcdefghij0123456789",
	"hunter2-the-password",
	"s3cr3t-in-url",
	"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
	"MIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
	"sk-proj-abcdefghijklmnopqrstuvwxyz",
	"bearer-token-value-123456",
}

func TestRedact(t *testing.T) {
	t.Parallel()
	text := strings.Join([]string{
		"key AKIAIOSFODNN7EXAMPLE used",
		"token ghp_abcdefghijklmnopqrstuvwxyz0123456789",
		"fine-grained github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
		"gitlab glpat-abcdefghij0123456789",
		"password=hunter2-the-password",
		`"db_password": "hunter2-the-password"`,
		"clone https://user:s3cr3t-in-url@example.com/repo.git",
		"jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
		"-----BEGIN RSA PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END RSA PRIVATE KEY-----",
		"openai sk-proj-abcdefghijklmnopqrstuvwxyz",
		"Authorization: Bearer bearer-token-value-123456",
	}, "\n")
	got := Redact(text)
	for _, s := range plantedSecrets {
		if strings.Contains(got, s) {
			t.Errorf("secret %q survived:\n%s", s, got)
		}
	}
	for _, keep := range []string{"used", "clone https://", "example.com/repo.git", "password=", "token [REDACTED]", "Authorization:"} {
		if !strings.Contains(got, keep) {
			t.Errorf("redaction removed %q:\n%s", keep, got)
		}
	}
	if Redact("plain text, nothing secret") != "plain text, nothing secret" {
		t.Error("plain text changed")
	}
}

func FuzzParseDecision(f *testing.F) {
	for _, s := range []string{
		`{"schema_version":1,"action":"allow"}`,
		`{"schema_version":1,"action":"modify","mutations":{"args":{"a":1}}}`,
		`{"schema_version":1,"action":"allow","action":"deny"}`,
		`{"schema_version":1,"action":"deny","reason":"x","output":{"a":[1,{"b":2}]}}`,
		`{`, ``, `[1]`,
	} {
		f.Add([]byte(s), "tool.before")
	}
	f.Fuzz(func(t *testing.T, b []byte, point string) {
		d, err := ParseDecision(b, point)
		if err != nil {
			return
		}
		switch d.Action {
		case Allow, Deny, RequestApproval:
		case Modify:
			if point != "tool.before" {
				t.Fatalf("modify accepted at %q", point)
			}
		default:
			t.Fatalf("unknown action %q accepted", d.Action)
		}
		if d.SchemaVersion != 1 {
			t.Fatalf("schema_version %d accepted", d.SchemaVersion)
		}
	})
}

func FuzzParseEvent(f *testing.F) {
	f.Add([]byte(`{"schema_version":1,"point":"tool.before","depth":0,"data":{}}`))
	f.Add([]byte(`{"schema_version":1,"point":"x","point":"y"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := ParseEvent(b)
		if err != nil {
			return
		}
		if e.SchemaVersion != 1 {
			t.Errorf("accepted schema_version %d, want 1", e.SchemaVersion)
		}
		if e.Point == "" {
			t.Error("accepted an empty point")
		}
		if e.Depth < 0 {
			t.Errorf("accepted depth %d, want >= 0", e.Depth)
		}
	})
}

func FuzzRedact(f *testing.F) {
	for _, s := range plantedSecrets {
		f.Add("x " + s)
	}
	for _, p := range plantedKinds() {
		f.Add(p.line())
	}
	f.Add("password=abc; token=def")
	f.Fuzz(func(t *testing.T, s string) {
		r := Redact(s)
		if Redact(r) != r {
			t.Fatalf("redaction is not idempotent: %q -> %q -> %q", s, r, Redact(r))
		}
	})
}

func TestRedactKeepsWhatIsNotSecret(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"PWD=/tmp/hook.abc OLDPWD=/",
		"cat: can't open '/etc/passwd': No such file or directory",
		`open /home/u/.config/token: permission denied`,
		"the word password alone",
	} {
		if got := Redact(s); got != s {
			t.Errorf("Redact(%q) = %q: nothing here is secret", s, got)
		}
	}
	for in, want := range map[string]string{
		"DB_PASSWORD=hunter2":       "DB_PASSWORD=" + Redacted,
		`{"api_key": "abc123"}`:     `{"api_key": ` + Redacted,
		"export GITHUB_TOKEN=abc12": "export GITHUB_TOKEN=" + Redacted,
		"curl https://api.example.com/v1?access_token=abcd1234efgh": "curl https://api.example.com/v1?access_token=" + Redacted,
		"https://x.example/?user=a&password=hunter2xx":              "https://x.example/?user=a&password=" + Redacted,
	} {
		if got := Redact(in); !strings.HasPrefix(got, want) {
			t.Errorf("Redact(%q) = %q, want it to start %q", in, got, want)
		}
	}
}

func TestRedactBearerWithoutDigits(t *testing.T) {
	t.Parallel()
	token := "abcdefghijklmnopqrstuvwxyzABCDEF"
	if got := Redact("Authorization: Bearer " + token); strings.Contains(got, token) {
		t.Errorf("Redact = %q: the bearer token survived", got)
	}
}

func TestRedactJSON(t *testing.T) {
	t.Parallel()
	got := string(RedactJSON([]byte(`{"rule":"r","note":"uses ghp_abcdefghijklmnopqrstuvwxyz0123456789","api_key":"plainvalue","list":["password=x1"],"n":1}`)))
	for _, secret := range []string{"ghp_abcdefghijklmnopqrstuvwxyz0123456789", "plainvalue", "x1"} {
		if strings.Contains(got, secret) {
			t.Errorf("%q survived: %s", secret, got)
		}
	}
	for _, keep := range []string{`"rule":"r"`, `"n":1`, `"note":"uses [REDACTED]"`} {
		if !strings.Contains(got, keep) {
			t.Errorf("%s lost %q", got, keep)
		}
	}
}

// TestRedactionRates measures, on the first 200,000 lines of the Go
// standard library's source in file order (text that holds no secrets),
// how many lines redaction changes. The rate is in docs/security.md.
func TestRedactionRates(t *testing.T) {
	if testing.Short() || raceBuild {
		t.Skip("a measurement over the Go source tree: run without -race and -short (make test does)")
	}
	lines, changed := 0, 0
	var examples []string
	for _, b := range corpus.GoSource() {
		for _, l := range strings.Split(string(b), "\n") {
			lines++
			if Redact(l) != l {
				changed++
				if len(examples) < 5 {
					examples = append(examples, strings.TrimSpace(l))
				}
			}
		}
		if lines >= 200000 {
			break
		}
	}
	if lines < 200000 {
		t.Skipf("only %d lines of Go source", lines)
	}
	rate := float64(changed) / float64(lines)
	t.Logf("false positives: %d of %d lines of the Go standard library (%.4f%%), e.g. %q", changed, lines, 100*rate, examples)
	if rate > 0.001 {
		t.Errorf("redaction changed %.4f%% of ordinary source lines, more than 0.1%%", 100*rate)
	}
}
