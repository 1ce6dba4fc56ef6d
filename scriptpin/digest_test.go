package scriptpin

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/hookexec/hook-exec/launcher"
)

func TestFormatES(t *testing.T) {
	t.Parallel()
	// Vectors from RFC 8785 appendix B and ECMAScript's Number.prototype.toString.
	tests := map[float64]string{
		0:                      "0",
		math.Copysign(0, -1):   "0",
		1:                      "1",
		-1:                     "-1",
		0.1:                    "0.1",
		1e21:                   "1e+21",
		1e20:                   "100000000000000000000",
		123456789012345680000:  "123456789012345680000",
		1e-6:                   "0.000001",
		1e-7:                   "1e-7",
		4.5:                    "4.5",
		2e-3:                   "0.002",
		0.000001234:            "0.000001234",
		1.7976931348623157e308: "1.7976931348623157e+308",
		5e-324:                 "5e-324",
		-5e-324:                "-5e-324",
		9007199254740992:       "9007199254740992",
		295147905179352830000:  "295147905179352830000",
		333333333.3333333:      "333333333.3333333",
		1e23:                   "1e+23",
		1.5e-7:                 "1.5e-7",
	}
	for f, want := range tests {
		if got := formatES(f); got != want {
			t.Errorf("formatES(%v) = %q, want %q", f, got, want)
		}
	}
}

func TestCanonicalize(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`{"b":1, "a":[true,false,null]}`, `{"a":[true,false,null],"b":1}`},
		{` { "x" : 1.0e2 , "y":"\u00e9\n\u001f\"" } `, `{"x":100,"y":"é\n\u001f\""}`},
		// UTF-16 ordering: U+1F600 (surrogates D83D...) sorts before U+FB33.
		{`{"\ufb33":1,"😀":2,"a":3}`, `{"a":3,"😀":2,"דּ":1}`},
		{`{"a":"\u2028</>"}`, `{"a":"` + "\u2028" + `</>"}`},
	}
	for _, tc := range tests {
		got, err := Canonicalize([]byte(tc.in))
		if err != nil {
			t.Fatalf("Canonicalize(%s): %v", tc.in, err)
		}
		if string(got) != tc.want {
			t.Errorf("Canonicalize(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
	for _, bad := range []string{
		`{"a":1,"a":2}`, `{"a":1e999}`, `{"a":-1e400}`, `NaN`, `{"a":1} {}`, "{\"a\":\"\xff\"}", `{"a":`, ``,
		deep(maxDepth + 2),
	} {
		if _, err := Canonicalize([]byte(bad)); !errors.Is(err, ErrDocument) {
			t.Errorf("Canonicalize(%.40q) = %v, want ErrDocument", bad, err)
		}
	}
}

func deep(n int) string {
	s := ""
	for range n {
		s += "["
	}
	for range n {
		s += "]"
	}
	return s
}

const hooksDoc = `{
  "schema_version": 1,
  "hooks": [
    {"id": "guard", "point": "tool.before", "mode": "blocking",
     "handler": {"kind": "script", "script": "hooks/guard.sh"}},
    {"id": "audit", "point": "tool.after", "mode": "observational",
     "handler": {"kind": "script", "script": "hooks/audit.py"}},
    {"id": "fmt", "point": "tool.after", "handler": {"kind": "command", "command": ["gofmt", "-l"]}}
  ]
}`

// Same content: reordered members, other whitespace, equivalent escapes and numbers.
const hooksDocReformatted = `{"hooks":[{"handler":{"script":"hooks/guard.sh","kind":"script"},"mode":"blocking","point":"tool.before","id":"guard"},
{"handler":{"script":"hooks/audit.py","kind":"script"},"mode":"observational","point":"tool.after","id":"au\u0064it"},
{"id":"fmt","point":"tool.after","handler":{"kind":"command","command":["gofmt","-l"]}}],"schema_version":1.0}`

func pluginDir(t *testing.T, guard string) string {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, dir, "hooks/guard.sh", []byte(guard))
	writeFile(t, dir, "hooks/audit.py", []byte("import sys\nsys.stdin.read()\n"))
	return dir
}

func TestHooksDigest(t *testing.T) {
	t.Parallel()
	dir := pluginDir(t, "cat >/dev/null\necho '{\"schema_version\":1,\"action\":\"allow\"}'\n")
	base, scripts, err := HooksDigest(dir, []byte(hooksDoc))
	if err != nil {
		t.Fatal(err)
	}
	if len(scripts) != 2 {
		t.Fatalf("scripts = %v", scripts)
	}
	again, _, err := HooksDigest(dir, []byte(hooksDocReformatted))
	if err != nil {
		t.Fatal(err)
	}
	if again != base {
		t.Fatalf("reformatting changed the digest: %s vs %s", again, base)
	}

	changedDoc := []byte(`{"schema_version":1,"hooks":[{"id":"guard","point":"tool.before","mode":"observational","handler":{"kind":"script","script":"hooks/guard.sh"}},{"id":"audit","point":"tool.after","mode":"observational","handler":{"kind":"script","script":"hooks/audit.py"}},{"id":"fmt","point":"tool.after","handler":{"kind":"command","command":["gofmt","-l"]}}]}`)
	if d, _, err := HooksDigest(dir, changedDoc); err != nil || d == base {
		t.Fatalf("a content change kept the digest (err %v)", err)
	}

	dir2 := pluginDir(t, "cat >/dev/null\necho '{\"schema_version\":1,\"action\":\"allow\"} '\n")
	if d, _, err := HooksDigest(dir2, []byte(hooksDoc)); err != nil || d == base {
		t.Fatalf("a one-byte script change kept the digest (err %v)", err)
	}

	// A document that breaks a rule is refused whole.
	bad := t.TempDir()
	writeFile(t, bad, "hooks/guard.sh", []byte("echo hi\r\n"))
	writeFile(t, bad, "hooks/audit.py", []byte("pass\n"))
	if _, _, err := HooksDigest(bad, []byte(hooksDoc)); !errors.Is(err, ErrCRLF) {
		t.Fatalf("CRLF script: %v", err)
	}
	if _, _, err := HooksDigest(dir, []byte(`{"handler":{"kind":"script"}}`)); !errors.Is(err, ErrDocument) {
		t.Fatalf("script handler without path: %v", err)
	}
	if _, _, err := HooksDigest(dir, []byte(`{"handler":{"kind":"script","script":"../x.sh"}}`)); !errors.Is(err, ErrEscape) {
		t.Fatalf("escaping script: %v", err)
	}
}

func TestDigestOfNeedsEveryScript(t *testing.T) {
	t.Parallel()
	if _, err := DigestOf([]byte(hooksDoc), map[string]Digest{"hooks/guard.sh": {}}); !errors.Is(err, ErrDocument) {
		t.Fatalf("missing hash: %v", err)
	}
	if _, err := DigestOf([]byte(hooksDoc), map[string]Digest{"hooks/guard.sh": {}, "other.py": {}}); !errors.Is(err, ErrDocument) {
		t.Fatalf("wrong hash set: %v", err)
	}
}

func FuzzCheck(f *testing.F) {
	f.Add("a.sh", []byte("echo hi\n"))
	f.Add("a.sh", []byte("echo hi\r\n"))
	f.Add("a.py", []byte("\xef\xbb\xbfprint(1)"))
	f.Add("a.py", []byte("print('\xff')"))
	f.Add("a.py", []byte("x\x00"))
	f.Add("a.rb", []byte(""))
	f.Fuzz(func(t *testing.T, name string, b []byte) {
		lang, err := Check(name, b)
		if err != nil {
			return
		}
		if len(b) > MaxScriptBytes || (lang != launcher.Shell && lang != launcher.Python) {
			t.Fatalf("accepted %q (%d bytes, lang %q)", name, len(b), lang)
		}
	})
}

func FuzzCanonicalize(f *testing.F) {
	for _, s := range []string{hooksDoc, hooksDocReformatted, `{"a":1e21,"b":-0.0}`, `[1,"\u0000",{}]`, `{"a":1,"a":2}`, `1e999`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		c, err := Canonicalize(doc)
		if err != nil {
			return
		}
		// Canonical form is a fixed point, and the digest only sees it.
		c2, err := Canonicalize(c)
		if err != nil {
			t.Fatalf("Canonicalize(%q) of a canonical form: %v", c, err)
		}
		if string(c2) != string(c) {
			t.Fatalf("not a fixed point: %q -> %q", c, c2)
		}
		refs, err := ScriptRefs(doc)
		if err != nil {
			return
		}
		hashes := map[string]Digest{}
		for i, r := range refs {
			hashes[r] = Digest{byte(i)}
		}
		d1, err1 := DigestOf(doc, hashes)
		d2, err2 := DigestOf(c, hashes)
		if err1 != nil {
			t.Fatalf("DigestOf(document): %v", err1)
		}
		if err2 != nil {
			t.Fatalf("DigestOf(canonical form): %v", err2)
		}
		if d1 != d2 {
			t.Fatalf("digest differs between a document (%s) and its canonical form (%s)", d1, d2)
		}
	})
}

func FuzzRead(f *testing.F) {
	f.Add("hook.sh", []byte("echo hi\n"))
	f.Add("a/../b.sh", []byte("x"))
	f.Add("/etc/passwd.sh", []byte("x"))
	f.Fuzz(func(t *testing.T, rel string, b []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "hook.sh"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Read(dir, rel)
		if err != nil {
			return
		}
		// The only file in the directory is hook.sh: anything else read is an escape.
		if string(s.Bytes) != string(b) {
			t.Fatalf("Read(%q) returned bytes that are not hook.sh's", rel)
		}
	})
}

func TestCanonicalizeRefusesLoneSurrogates(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{`{"a":"\ud800"}`, `{"a":"\udc00"}`, `{"a":"x\ud800y"}`, `{"\ud800":1}`, `{"a":"\ud800\u0041"}`} {
		if _, err := Canonicalize([]byte(doc)); !errors.Is(err, ErrDocument) {
			t.Errorf("%s: err = %v, want ErrDocument", doc, err)
		}
	}
	a, err := Canonicalize([]byte(`{"a":"\ud83d\ude00","b":"\\ud800","c":"\ufffd"}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\"a\":\"\U0001F600\",\"b\":\"\\\\ud800\",\"c\":\"\uFFFD\"}"; string(a) != want {
		t.Errorf("Canonicalize = %s, want %s", a, want)
	}
}

// FuzzCanonicalizeDifferential holds the canonicalizer to an independent
// one (go-json-experiment's jsontext, RFC 8785): what one accepts, the
// other must, with the same bytes.
func FuzzCanonicalizeDifferential(f *testing.F) {
	for _, s := range []string{hooksDoc, `{"a":1e21,"b":-0.0,"c":[0.1,1e-7,123456789012345680000]}`, `{"\u00e9":1,"e\u0301":2,"\ud83d\ude00":3}`, `{"a":"\ud800"}`, `{"a":"\ufffd"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		ours, err := Canonicalize(doc)
		if err != nil {
			return
		}
		v := jsontext.Value(bytes.Clone(doc))
		if err := v.Canonicalize(); err != nil {
			t.Fatalf("accepted what the independent canonicalizer refuses (%v): %q", err, doc)
		}
		if !bytes.Equal(ours, v) {
			t.Fatalf("canonical forms differ:\nours   %q\ntheirs %q", ours, v)
		}
	})
}
