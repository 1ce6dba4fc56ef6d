package termtext

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// escapeCases are the strings a hostile document uses to rewrite a
// terminal or to look like another string, and what a terminal must show.
var escapeCases = []struct{ in, want string }{
	{"", ""},
	{"sh -c true", "sh -c true"},
	{"héllo wörld ✓ 日本", "héllo wörld ✓ 日本"},
	{"observer\r\x1b[2Kblocking", `observer\r\x1b[2Kblocking`},
	{"\x1b[8mhidden\x1b[0m", `\x1b[8mhidden\x1b[0m`},
	{"tab\there\nnew line", `tab\there\nnew line`},
	{"nul\x00bel\x07del\x7f", `nul\x00bel\adel\x7f`},
	{"c1 \u009b2K csi, \u0085 nel", `c1 \u009b2K csi, \u0085 nel`},
	{"bidi \u202egnp.exe\u202c", `bidi \u202egnp.exe\u202c`},
	{"isolates \u2066\u2067\u2068\u2069 \u202a\u202b\u202d", `isolates \u2066\u2067\u2068\u2069 \u202a\u202b\u202d`},
	{"zero\u200bwidth\u200c\u200d\u2060\ufeff", `zero\u200bwidth\u200c\u200d\u2060\ufeff`},
	{"marks \u200e\u200f\u061c", `marks \u200e\u200f\u061c`},
	{"soft\u00adhyphen", `soft\u00adhyphen`},
	{"nbsp\u00a0and\u2003em", `nbsp\u00a0and\u2003em`},
	{"line\u2028para\u2029", `line\u2028para\u2029`},
	{"tag \U000e0041", `tag \U000e0041`},
	{"bad utf8 \xff\xc3(", `bad utf8 \xff\xc3(`},
	{"literal \\x1b stays distinct", `literal \\x1b stays distinct`},
	{`C:\project`, `C:\\project`},
	{`"quoted"`, `"quoted"`},
	// Printable in Go's sense, and shows as nothing (attack round 2: a
	// script hooks/fmt\u034f.sh beside a harmless hooks/fmt.sh).
	{"fmt\u034f.sh", `fmt\u034f.sh`},
	{"fill\u3164er \u115f\u1160\uffa0 \u17b4", `fill\u3164er \u115f\u1160\uffa0 \u17b4`},
	{"vs\ufe0f \U000e0100 braille\u2800", `vs\ufe0f \U000e0100 braille\u2800`},
}

func TestEscape(t *testing.T) {
	t.Parallel()
	for _, tc := range escapeCases {
		if got := Escape(tc.in); got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
		checkEscape(t, tc.in)
	}
}

// Two strings that look alike before escaping never do after it.
func TestEscapeTellsLookalikesApart(t *testing.T) {
	t.Parallel()
	pairs := [][2]string{
		{"observer", "\x1b[2Kobserver"},
		{"a.sh", "a\u200b.sh"},
		{"exe.txt", "\u202etxt.exe"},
		{"\x1b", `\x1b`},
		{"a b", "a\u00a0b"},
		{"\ufffd", "\xff"},
		{"fmt.sh", "fmt\u034f.sh"},
	}
	for _, p := range pairs {
		if Escape(p[0]) == Escape(p[1]) {
			t.Errorf("Escape(%q) == Escape(%q) == %q", p[0], p[1], Escape(p[0]))
		}
	}
}

// checkEscape holds for every string: the result is printable and reads
// back as s.
func checkEscape(t *testing.T, s string) {
	t.Helper()
	e := Escape(s)
	if !utf8.ValidString(e) {
		t.Fatalf("Escape(%q) = %q is not UTF-8", s, e)
	}
	for _, r := range e {
		if !shown(r) {
			t.Fatalf("Escape(%q) = %q holds %U", s, e, r)
		}
	}
	back, err := strconv.Unquote(`"` + strings.ReplaceAll(e, `"`, `\"`) + `"`)
	if err != nil || back != s {
		t.Fatalf("Escape(%q) = %q reads back as %q (%v)", s, e, back, err)
	}
}

func FuzzEscape(f *testing.F) {
	for _, tc := range escapeCases {
		f.Add(tc.in)
	}
	f.Fuzz(checkEscape)
}

func TestEscapeJSON(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`{"a":["b",1]}` + "\n", `{"a":["b",1]}` + "\n"},
		{`["é✓"]`, `["é✓"]`},
		{"[\"\u202egnp.exe\"]", `["\u202egnp.exe"]`},
		{"[\"\u009b2K\x7f\"]", `["\u009b2K\u007f"]`},
		{"[\"zero\u200bwidth\u2028\"]", `["zero\u200bwidth\u2028"]`},
		{"[\"tag \U000e0041\"]", `["tag \udb40\udc41"]`},
		{"[\"bad \xff\"]", `["bad \ufffd"]`},
		{"{\n  \"indented\": \"\u2066\"\n}", "{\n  \"indented\": \"\\u2066\"\n}"},
	}
	for _, tc := range tests {
		if got := string(EscapeJSON([]byte(tc.in))); got != tc.want {
			t.Errorf("EscapeJSON(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, tc := range escapeCases {
		checkEscapeJSON(t, tc.in)
	}
}

// checkEscapeJSON: the JSON text of s, escaped, has no rune a terminal
// would act on or hide, and decodes to the same value.
func checkEscapeJSON(t *testing.T, s string) {
	t.Helper()
	b, err := json.Marshal([]string{s, "k"}, jsontext.AllowInvalidUTF8(true))
	if err != nil {
		t.Fatal(err)
	}
	e := EscapeJSON(b)
	if !utf8.Valid(e) {
		t.Fatalf("EscapeJSON(%q) = %q is not UTF-8", b, e)
	}
	for _, r := range string(e) {
		if !strconv.IsPrint(r) {
			t.Fatalf("EscapeJSON(%q) = %q holds %U", b, e, r)
		}
	}
	var before, after []string
	if err := json.Unmarshal(b, &before); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(e, &after); err != nil {
		t.Fatalf("EscapeJSON(%q) = %q does not decode: %v", b, e, err)
	}
	if strings.Join(before, "\x00") != strings.Join(after, "\x00") {
		t.Fatalf("EscapeJSON(%q) = %q decodes to %q, want %q", b, e, after, before)
	}
}

func FuzzEscapeJSON(f *testing.F) {
	for _, tc := range escapeCases {
		f.Add(tc.in)
	}
	f.Fuzz(checkEscapeJSON)
}
