package hook

import (
	stdjson "encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
)

// geminiReads are hook outputs read as Gemini CLI 0.56.0's hook runner
// reads them (packages/core/src/hooks/hookRunner.ts): stdout's trimmed
// text, or stderr's when stdout has none; JSON.parse, again when that gives
// a string; an object is the answer; what does not parse is text, read by
// the exit status (issue 44, finding 7).
var geminiReads = []struct {
	name           string
	code           int
	stdout, stderr string
	want           *Decision
	err            error
}{
	{"a JSON string holding a deny", 0, `"{\"decision\":\"deny\",\"reason\":\"x\"}"`, "",
		&Decision{SchemaVersion: 1, Action: Deny, Reason: "x"}, nil},
	{"a JSON string holding a block, spaces inside", 0, `" {\"decision\":\"block\",\"reason\":\"x\"}\n"`, "",
		&Decision{SchemaVersion: 1, Action: Deny, Reason: "x"}, nil},
	{"a JSON string holding a deny, exit 1", 1, `"{\"decision\":\"deny\",\"reason\":\"x\"}"` + "\n", "warn",
		&Decision{SchemaVersion: 1, Action: Deny, Reason: "x"}, nil},
	{"a JSON string holding continue false", 0, `"{\"continue\":false,\"stopReason\":\"halt\"}"`, "",
		&Decision{SchemaVersion: 1, Action: Deny, Reason: "halt", Extension: &ClaudeAnswer{StopAgent: true, StopReason: "halt"}}, nil},
	{"a JSON string holding an allow", 0, `"{\"decision\":\"allow\"}"`, "",
		&Decision{SchemaVersion: 1, Action: Allow, Extension: &ClaudeAnswer{Approved: true}}, nil},
	{"a JSON string holding a duplicate", 0, `"{\"decision\":\"deny\",\"decision\":\"allow\"}"`, "", nil, ErrDecision},
	{"a JSON string holding text is text", 0, `"hello"`, "",
		&Decision{SchemaVersion: 1, Action: Allow, Extension: &ClaudeAnswer{SystemMessage: `"hello"`}}, nil},
	{"a JSON string holding text blocks at exit 2", 2, `"no rm"`, "",
		&Decision{SchemaVersion: 1, Action: Deny, Reason: `"no rm"`}, nil},
	{"a string in a string is no answer", 0, `"\"{\\\"decision\\\":\\\"deny\\\"}\""`, "",
		&Decision{SchemaVersion: 1, Action: Allow}, nil},
	{"stdout empty: stderr's JSON is the answer", 0, "", `{"decision":"deny","reason":"x"}`,
		&Decision{SchemaVersion: 1, Action: Deny, Reason: "x"}, nil},
	{"stdout blank: stderr's JSON string is the answer", 1, " \n", `"{\"decision\":\"deny\",\"reason\":\"x\"}"`,
		&Decision{SchemaVersion: 1, Action: Deny, Reason: "x"}, nil},
	{"stdout empty: stderr's text is shown at exit 0", 0, "", "note",
		&Decision{SchemaVersion: 1, Action: Allow, Extension: &ClaudeAnswer{SystemMessage: "note"}}, nil},
	{"stdout's text hides stderr's JSON", 0, "ok", `{"decision":"deny","reason":"x"}`,
		&Decision{SchemaVersion: 1, Action: Allow, Extension: &ClaudeAnswer{SystemMessage: "ok"}}, nil},
	{"a byte-order mark after the JSON", 0, "{\"decision\":\"deny\",\"reason\":\"x\"}\ufeff\n", "",
		&Decision{SchemaVersion: 1, Action: Deny, Reason: "x"}, nil},
	{"a number is no answer", 0, "5", "", &Decision{SchemaVersion: 1, Action: Allow}, nil},
	{"a number and exit 2 still blocks", 2, "5", "no", &Decision{SchemaVersion: 1, Action: Deny, Reason: "no"}, nil},
	{"a number and exit 3 with nothing to say fails", 3, "5", "", nil, ErrExit},
	{"stderr's allow at exit 2 does not count", 2, "", `{"decision":"allow"}`,
		&Decision{SchemaVersion: 1, Action: Deny, Reason: "blocked by BeforeTool hook"}, nil},
}

func TestInterpretGeminiReadsAsGeminiCLI(t *testing.T) {
	t.Parallel()
	e, err := ParseEnvelope(Gemini, []byte(geminiBeforeTool))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range geminiReads {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Interpret(e, tc.code, []byte(tc.stdout), []byte(tc.stderr))
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// geminiRefuses is a second, independent reading of a hook's output as
// Gemini CLI 0.56.0 reads it (hookRunner.ts executeCommandHook and
// convertPlainTextToHookOutput; types.ts isBlockingDecision), written on
// the standard library's decoder, which like JSON.parse keeps the last of
// duplicate members: whether Gemini refuses (a deny or block decision,
// continue false, or text with an exit other than 0 and 1).
func geminiRefuses(code int, stdout, stderr []byte) bool {
	jsTrim := func(b []byte) string {
		return strings.TrimFunc(strings.ToValidUTF8(string(b), "\uFFFD"), func(r rune) bool {
			return (unicode.IsSpace(r) && r != '\u0085') || r == '\uFEFF'
		})
	}
	text := jsTrim(stdout)
	if text == "" {
		text = jsTrim(stderr)
	}
	if text == "" {
		return false
	}
	var v any
	if stdjson.Unmarshal([]byte(text), &v) != nil {
		return code != 0 && code != 1
	}
	if s, ok := v.(string); ok {
		if stdjson.Unmarshal([]byte(s), &v) != nil {
			return code != 0 && code != 1
		}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	d, _ := m["decision"].(string)
	return d == "deny" || d == "block" || m["continue"] == false
}

// FuzzGeminiInterpret: whatever Gemini CLI reads as a refusal, hook-exec
// does not read as an allow (it refuses too, or fails, and the failure
// policy answers).
func FuzzGeminiInterpret(f *testing.F) {
	for _, tc := range geminiReads {
		f.Add(tc.code, []byte(tc.stdout), []byte(tc.stderr))
	}
	for _, tc := range geminiAnswers {
		f.Add(tc.code, []byte(tc.out), []byte(tc.out))
	}
	e, err := ParseEnvelope(Gemini, []byte(geminiBeforeTool))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, code int, stdout, stderr []byte) {
		dec, err := Interpret(e, code, stdout, stderr)
		if err != nil || !geminiRefuses(code, stdout, stderr) {
			return
		}
		if dec.Action != Deny && dec.Action != RequestApproval {
			t.Fatalf("exit %d stdout %q stderr %q: Gemini CLI refuses, hook-exec answers %s", code, stdout, stderr, dec.Action)
		}
	})
}
