package registry

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/hookexec/hook-exec/hook"
)

// seedExample is the definition example of Holaryn's reference, as
// `hook examples` prints it.
var seedExample = Examples[0].Document

func TestParseSeedExample(t *testing.T) {
	defs, err := Parse([]byte(seedExample))
	if err != nil {
		t.Fatal(err)
	}
	if len(defs) != 1 {
		t.Fatalf("parsed %d definitions, want 1", len(defs))
	}
	d := defs[0]
	if d.ID != "protect-sensitive-paths" {
		t.Errorf("id = %q", d.ID)
	}
	if d.Point != "file.before_write" {
		t.Errorf("point = %q", d.Point)
	}
	if d.Scope != Global {
		t.Errorf("scope = %q, want global", d.Scope)
	}
	if d.ScopeKey != nil {
		t.Errorf("scope_key = %q, want null", *d.ScopeKey)
	}
	if d.Order != 10 {
		t.Errorf("order = %d, want 10", d.Order)
	}
	if d.FailurePolicy != hook.PolicyDeny {
		t.Errorf("failure_policy = %q, want deny", d.FailurePolicy)
	}
	if d.Handler.Kind != KindBuiltin || d.Handler.Builtin != "forbidden-path" {
		t.Errorf("handler = %+v, want builtin forbidden-path", d.Handler)
	}
}

func TestParseDefaults(t *testing.T) {
	defs, err := Parse([]byte(`{"schema_version":1,"id":"a","point":"tool.before","scope":"session","handler":{"kind":"script","script":"a.py"}}`))
	if err != nil {
		t.Fatal(err)
	}
	d := defs[0]
	if !*d.Enabled {
		t.Error("enabled defaults to false")
	}
	if d.Mode != hook.Blocking {
		t.Errorf("mode = %q, want blocking", d.Mode)
	}
	if d.TimeoutSeconds != DefaultTimeoutSeconds {
		t.Errorf("timeout_seconds = %v, want %d", d.TimeoutSeconds, DefaultTimeoutSeconds)
	}
	if d.MaxOutputBytes != DefaultMaxOutputBytes {
		t.Errorf("max_output_bytes = %d", d.MaxOutputBytes)
	}
	if d.FailurePolicy != hook.PolicyDeny {
		t.Errorf("failure_policy = %q, want deny for a blocking hook", d.FailurePolicy)
	}
	o, err := Parse([]byte(`{"schema_version":1,"id":"a","point":"tool.after","scope":"session","mode":"observational","handler":{"kind":"script","script":"a.py"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if o[0].FailurePolicy != hook.PolicyContinue {
		t.Errorf("observational failure_policy = %q, want continue", o[0].FailurePolicy)
	}
}

// version is d's content address; a definition that parsed always has one.
func version(t testing.TB, d *Definition) string {
	t.Helper()
	v, err := d.Version()
	if err != nil {
		t.Fatalf("a parsed definition has no version: %v", err)
	}
	return v
}

func TestParseVersionIgnoresFormatting(t *testing.T) {
	a, err := Parse([]byte(seedExample))
	if err != nil {
		t.Fatal(err)
	}
	compact := jsontext.Value(seedExample)
	if err := compact.Compact(); err != nil {
		t.Fatal(err)
	}
	b, err := Parse(compact)
	if err != nil {
		t.Fatal(err)
	}
	if va, vb := version(t, a[0]), version(t, b[0]); va != vb {
		t.Errorf("versions differ by formatting: %s vs %s", va, vb)
	}
	changed, _ := Parse([]byte(strings.Replace(seedExample, `"order": 10`, `"order": 11`, 1)))
	if version(t, changed[0]) == version(t, a[0]) {
		t.Error("a content change kept the version")
	}
}

func TestParseRefusals(t *testing.T) {
	base := `"schema_version":1,"id":"a","point":"tool.before","scope":"global","handler":{"kind":"script","script":"a.sh"}`
	for _, tc := range []struct {
		name, doc, member string
	}{
		{"unknown member", `{` + base + `,"extra":1}`, "/extra"},
		{"other case of a member", `{` + base + `,"ID":"b"}`, "/ID"},
		{"unknown handler member", `{"schema_version":1,"id":"a","point":"tool.before","scope":"global","handler":{"kind":"script","script":"a.sh","Script":"b.sh"}}`, "/handler/Script"},
		{"duplicate member", `{` + base + `,"id":"b"}`, "/id"},
		{"wrong type", `{` + base + `,"order":"1"}`, "/order"},
		{"fraction for an integer", `{` + base + `,"order":1.5}`, "/order"},
		{"overflowing number", `{` + base + `,"timeout_seconds":1e999}`, "/timeout_seconds"},
		{"null", `{` + base + `,"enabled":null}`, "/enabled"},
		{"lone surrogate", `{` + base + `,"name":"\ud800"}`, "/name"},
		{"schema version", `{"schema_version":2,"id":"a","point":"tool.before","scope":"global","handler":{"kind":"script","script":"a.sh"}}`, "/schema_version"},
		{"unknown point", `{"schema_version":1,"id":"a","point":"tool.during","scope":"global","handler":{"kind":"script","script":"a.sh"}}`, "/point"},
		{"plugin namespace id", `{"schema_version":1,"id":"plugin:acme/guard","point":"tool.before","scope":"global","handler":{"kind":"script","script":"a.sh"}}`, "/id"},
		{"plugin scope in an owner document", `{"schema_version":1,"id":"a","point":"tool.before","scope":"plugin","handler":{"kind":"script","script":"a.sh"}}`, "/scope"},
		{"profile key that is a path", `{"schema_version":1,"id":"a","point":"tool.before","scope":"profile","scope_key":"../../../escaped","handler":{"kind":"script","script":"a.sh"}}`, "/scope_key"},
		{"code-loading env", `{"schema_version":1,"id":"a","point":"tool.before","scope":"global","handler":{"kind":"script","script":"a.sh","env":{"LD_PRELOAD":"/x"}}}`, "/handler/env/LD_PRELOAD"},
		{"project notification to a file", `{"schema_version":1,"id":"a","point":"tool.after","scope":"project","mode":"observational","handler":{"kind":"builtin","builtin":"notification","options":{"message":"x","to":"file","path":"/home/u/.bashrc"}}}`, "/handler/options"},
		{"an unknown workspace access", `{"schema_version":1,"id":"a","point":"tool.before","scope":"global","workspace_access":"rw","handler":{"kind":"script","script":"a.sh"}}`, "/workspace_access: \"rw\": use read-only or read-write"},
		{"a builtin asks to write the workspace", `{"schema_version":1,"id":"a","point":"tool.before","scope":"global","workspace_access":"read-write","handler":{"kind":"builtin","builtin":"audit"}}`, "/workspace_access: read-write: only a script or command handler sees the workspace"},
		{"project notification with nested ranges", `{"schema_version":1,"id":"a","point":"tool.after","scope":"project","mode":"observational","handler":{"kind":"builtin","builtin":"notification","options":{"message":"{{range 100000}}{{range 100000}}{{end}}{{end}}"}}}`, "/handler/options: invalid builtin options: a project hook's notification builtin: refused for a project or plugin hook: message: m:1:8: range over 100000"},
		{"profile without its key", `{"schema_version":1,"id":"a","point":"tool.before","scope":"profile","handler":{"kind":"script","script":"a.sh"}}`, "/scope_key"},
		{"observational deny", `{` + base + `,"mode":"observational","failure_policy":"deny"}`, "/failure_policy"},
		{"zero timeout is the default, negative refused", `{` + base + `,"timeout_seconds":-1}`, "/timeout_seconds"},
		{"a timeout a run would take as none (the default)", `{` + base + `,"timeout_seconds":1e-12}`, "/timeout_seconds"},
		{"unknown builtin", `{"schema_version":1,"id":"a","point":"tool.before","scope":"global","handler":{"kind":"builtin","builtin":"firewall"}}`, "/handler/builtin"},
		{"builtin option of another case", `{"schema_version":1,"id":"a","point":"tool.before","scope":"global","handler":{"kind":"builtin","builtin":"secret-scan","options":{"Action":"deny"}}}`, "/handler/builtin"},
		{"blocking notification", `{"schema_version":1,"id":"a","point":"tool.after","scope":"global","handler":{"kind":"builtin","builtin":"notification","options":{"message":"x"}}}`, "/handler/builtin"},
		{"webhook in a project document", `{"schema_version":1,"id":"a","point":"tool.before","scope":"project","handler":{"kind":"webhook","url":"https://example.com/h"}}`, "/handler/kind"},
		{"webhook over plain http", `{"schema_version":1,"id":"a","point":"tool.before","scope":"global","handler":{"kind":"webhook","url":"http://example.com/h"}}`, "/handler/url"},
		{"webhook credential header", `{"schema_version":1,"id":"a","point":"tool.before","scope":"global","handler":{"kind":"webhook","url":"https://example.com/h","headers":{"Authorization":"Bearer x"}}}`, "/handler/headers"},
		{"webhook without url", `{"schema_version":1,"id":"a","point":"tool.before","scope":"global","handler":{"kind":"webhook"}}`, "/handler/url"},
		{"webhook with a script", `{"schema_version":1,"id":"a","point":"tool.before","scope":"global","handler":{"kind":"webhook","url":"https://example.com/h","script":"a.sh"}}`, "/handler/script"},
		{"command without argv", `{"schema_version":1,"id":"a","point":"tool.before","scope":"global","handler":{"kind":"command","command":[]}}`, "/handler/command"},
		{"command as a string", `{"schema_version":1,"id":"a","point":"tool.before","scope":"global","handler":{"kind":"command","command":"jq ."}}`, "/handler/command"},
		{"script member on a command", `{"schema_version":1,"id":"a","point":"tool.before","scope":"global","handler":{"kind":"command","command":["jq"],"script":"a.sh"}}`, "/handler/script"},
		{"script member on another kind", `{"schema_version":1,"id":"a","point":"tool.before","scope":"global","handler":{"kind":"script","script":"a.sh","url":"https://x"}}`, "/handler/url"},
		{"script language", `{"schema_version":1,"id":"a","point":"tool.before","scope":"global","handler":{"kind":"script","script":"a.rb"}}`, "/handler/script"},
		{"bad glob", `{` + base + `,"filters":{"paths":["a["]}}`, "/filters/paths/0"},
		{"unknown filter family", `{` + base + `,"filters":{"tool":["x"]}}`, "/filters/tool"},
		{"duplicate id in a list", `[{` + base + `},{` + base + `}]`, "/1/id"},
		{"empty list", `[]`, ""},
		{"not an object", `"x"`, ""},
		{"trailing data", `{` + base + `} {}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.doc))
			if !errors.Is(err, ErrDocument) && !errors.Is(err, hook.ErrInvalid) {
				t.Fatalf("err = %v, want ErrDocument", err)
			}
			if !strings.Contains(err.Error(), tc.member) {
				t.Errorf("error %q does not name member %s", err, tc.member)
			}
		})
	}
}

func TestParsePlugin(t *testing.T) {
	defs, err := ParsePlugin([]byte(`[{"schema_version":1,"id":"rewrite","point":"tool.before","handler":{"kind":"script","script":"r.sh"}}]`))
	if err != nil {
		t.Fatal(err)
	}
	if defs[0].Scope != Plugin {
		t.Errorf("scope = %q, want plugin", defs[0].Scope)
	}
	if _, err := ParsePlugin([]byte(`{"schema_version":1,"id":"x","point":"tool.before","scope":"global","handler":{"kind":"script","script":"r.sh"}}`)); !errors.Is(err, ErrDocument) {
		t.Errorf("a plugin hook with scope global: err = %v, want ErrDocument", err)
	}
	_, err = ParsePlugin([]byte(`{"schema_version":1,"id":"n","point":"tool.after","mode":"observational","handler":{"kind":"builtin","builtin":"notification",` +
		`"options":{"message":"{{range .data.args}}{{range $.data.args}}{{end}}{{end}}"}}}`))
	if !errors.Is(err, ErrDocument) || !strings.Contains(err.Error(), "a range in a range") {
		t.Errorf("a plugin notification with nested ranges: err = %v, want ErrDocument naming the range in a range", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(seedExample))
	f.Add([]byte(`[{"schema_version":1,"id":"a","point":"tool.before","scope":"session","filters":{"paths":["protected/**"],"data":{"k":null}},"handler":{"kind":"script","script":"a.py"}}]`))
	f.Add([]byte(`{"schema_version":1,"id":"a","ID":"b"}`))
	f.Add([]byte(`{"a":"\ud800"}`))
	for _, seed := range fuzzSeeds {
		f.Add([]byte(seed))
	}
	subject := &Subject{SessionID: "s", ToolName: "write_file", Category: "fs.write", Paths: []string{"a/b.md"},
		Data: map[string]jsontext.Value{"x": jsontext.Value(`1`), "y": jsontext.Value(`{"a":[null,1e-999]}`)}}
	f.Fuzz(func(t *testing.T, b []byte) {
		defs, err := Parse(b)
		if err != nil {
			if !errors.Is(err, ErrDocument) && !errors.Is(err, hook.ErrInvalid) {
				t.Fatalf("error of another class: %v", err)
			}
			return
		}
		for _, d := range defs {
			// What parsed validates again and has a stable version.
			if err := d.Validate(); err != nil {
				t.Fatalf("parsed definition does not validate again: %v", err)
			}
			if version(t, d) != version(t, d) {
				t.Fatal("version not stable")
			}
			if _, err := Normalize([]*Definition{d}); err != nil {
				t.Fatalf("normalize: %v", err)
			}
			d.Filters.Matches(subject) // must not panic, whatever the filters
		}
		// A normalized document parses to the same versions.
		n, err := Normalize(defs)
		if err != nil {
			t.Fatal(err)
		}
		again, err := Parse(n)
		if err != nil {
			t.Fatalf("normalized document refused: %v\n%s", err, n)
		}
		for i := range defs {
			if version(t, again[i]) != version(t, defs[i]) {
				t.Fatalf("normalizing changed %s's version", defs[i].ID)
			}
		}
	})
}

// fuzzSeeds are documents at the edges the parsers must refuse cleanly:
// numbers no float64 holds, nesting past MaxNesting, nulls and numbers in
// raw members.
var fuzzSeeds = []string{
	`{"schema_version":1,"id":"a","point":"tool.before","scope":"project","filters":{"data":{"x":1e999}},"handler":{"kind":"script","script":"a.sh"}}`,
	`{"schema_version":1,"id":"a","point":"tool.before","scope":"session","filters":{"data":{"x":-1e999}},"handler":{"kind":"command","command":["true"]}}`,
	`{"schema_version":1,"id":"a","point":"tool.before","scope":"global","filters":{"data":{"x":1E+99999999999999999999}},"handler":{"kind":"script","script":"a.sh"}}`,
	`{"schema_version":1,"id":"a","point":"tool.before","scope":"global","filters":{"data":{"x":1e-999}},"handler":{"kind":"script","script":"a.sh"}}`,
	`{"schema_version":1,"id":"a","point":"tool.before","scope":"global","timeout_seconds":1e999,"order":-1e999,"handler":{"kind":"script","script":"a.sh"}}`,
	`{"schema_version":1,"id":"a","point":"tool.before","scope":"global","handler":{"kind":"builtin","builtin":"secret-scan","options":{"x":1e999}}}`,
	`{"schema_version":1,"id":"a","point":"tool.before","scope":"global","filters":{"data":{"x":` + strings.Repeat(`[`, 40) + strings.Repeat(`]`, 40) + `}},"handler":{"kind":"script","script":"a.sh"}}`,
	`{"schema_version":1,"id":"a","point":"tool.before","scope":"global","filters":{"data":{"x":` + strings.Repeat(`{"k":`, 29) + `null` + strings.Repeat(`}`, 29) + `}},"handler":{"kind":"script","script":"a.sh"}}`,
	`[` + strings.Repeat(`[`, 10000) + strings.Repeat(`]`, 10000) + `]`,
	`{"schema_version":1,"id":"a","point":"tool.before","scope":"global","handler":{"kind":"script","script":"/etc/a.sh"}}`,
	`{"schema_version":1,"id":"a","point":"tool.before","scope":"global","handler":{"kind":"command","command":["sh","a\u0000b"],"env":{"A":"\u0000"}}}`,
}

func FuzzParsePlugin(f *testing.F) {
	for _, seed := range fuzzSeeds {
		f.Add([]byte(seed))
	}
	f.Add([]byte(`[{"schema_version":1,"id":"guard","point":"tool.before","mode":"blocking","handler":{"kind":"script","script":"hooks/guard.sh"}}]`))
	f.Add([]byte(`{"schema_version":1,"id":"plugin:acme/guard","point":"tool.before","handler":{"kind":"script","script":"g.sh"}}`))
	f.Add([]byte(`{"schema_version":1,"id":"g","point":"tool.before","scope":"global","handler":{"kind":"script","script":"g.sh","env":{"A":"1"}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		defs, err := ParsePlugin(b)
		if err != nil {
			if !errors.Is(err, ErrDocument) && !errors.Is(err, hook.ErrInvalid) {
				t.Fatalf("error of another class: %v", err)
			}
			return
		}
		for _, d := range defs {
			if d.Scope != Plugin {
				t.Fatalf("a plugin hook of scope %q", d.Scope)
			}
			if strings.ContainsAny(d.ID, ":/") {
				t.Fatalf("a plugin hook id %q that is not bare", d.ID)
			}
		}
	})
}

func TestExamplesValidate(t *testing.T) {
	for _, ex := range Examples {
		defs, err := Parse([]byte(ex.Document))
		if err != nil {
			t.Errorf("example %s does not validate: %v", ex.Name, err)
			continue
		}
		if len(defs) != 1 || defs[0].Scope != Global {
			t.Errorf("example %s: %d definitions of scope %v, want one global", ex.Name, len(defs), defs[0].Scope)
		}
	}
}

// Issue 31: a number that no float64 holds, anywhere in a document, is
// refused when the document is read, naming the member; before, 1e999 in
// filters.data parsed and then crashed Version (hook validate, add, list).
func TestParseRefusesNumbersThatAreNotFinite(t *testing.T) {
	doc := func(filters, handler string) string {
		return `{"schema_version":1,"id":"a","point":"tool.before","scope":"project","filters":` + filters + `,"handler":` + handler + `}`
	}
	script := `{"kind":"script","script":"a.sh"}`
	for _, tc := range []struct {
		name, doc, member string
	}{
		{"data filter", doc(`{"data":{"x":1e999}}`, script), "/filters/data/x"},
		{"negative", doc(`{"data":{"x":-1e999}}`, script), "/filters/data/x"},
		{"huge exponent", doc(`{"data":{"x":1E+99999999999999999999}}`, script), "/filters/data/x"},
		{"just past the largest float64", doc(`{"data":{"x":1.8e308}}`, script), "/filters/data/x"},
		{"400 digits", doc(`{"data":{"x":1`+strings.Repeat("0", 400)+`}}`, script), "/filters/data/x"},
		{"inside a nested value", doc(`{"data":{"x":{"y":[1,2,{"z":1e999}]}}}`, script), "/filters/data/x/y/2/z"},
		{"a name that needs escaping", doc(`{"data":{"a/b~c":1e999}}`, script), "/filters/data/a~1b~0c"},
		{"builtin options", doc(`{}`, `{"kind":"builtin","builtin":"secret-scan","options":{"x":1e999}}`), "/handler/options/x"},
		{"a member of number type", doc(`{}`, script)[:len(doc(`{}`, script))-1] + `,"max_concurrency":1e999}`, "/max_concurrency"},
		{"in a list", `[` + doc(`{}`, script) + `,` + strings.Replace(doc(`{"data":{"x":1e999}}`, script), `"id":"a"`, `"id":"b"`, 1) + `]`, "/1/filters/data/x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.doc))
			if !errors.Is(err, ErrDocument) {
				t.Fatalf("err = %v, want ErrDocument", err)
			}
			if want := "member " + tc.member + ": number"; !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not name the number at %s", err, tc.member)
			}
		})
	}
	// A number too small for a float64 rounds to zero: finite, kept.
	defs, err := Parse([]byte(doc(`{"data":{"x":1e-999}}`, script)))
	if err != nil {
		t.Fatalf("an underflowing number: %v", err)
	}
	version(t, defs[0])
}

func TestParseBoundsNesting(t *testing.T) {
	nested := func(levels int) string {
		return strings.Repeat(`{"k":`, levels) + `1` + strings.Repeat(`}`, levels)
	}
	doc := func(value string) string {
		return `{"schema_version":1,"id":"a","point":"tool.before","scope":"global","filters":{"data":{"x":` + value + `}},"handler":{"kind":"script","script":"a.sh"}}`
	}
	// The definition, filters and data are three levels: a value may nest
	// the rest of MaxNesting.
	defs, err := Parse([]byte(doc(nested(MaxNesting - 3))))
	if err != nil {
		t.Fatalf("nesting %d deep: %v", MaxNesting, err)
	}
	version(t, defs[0])
	_, err = Parse([]byte(doc(nested(MaxNesting - 2))))
	if !errors.Is(err, ErrDocument) || !strings.Contains(err.Error(), "nested deeper than") {
		t.Fatalf("nesting %d deep: err = %v, want ErrDocument saying it nests too deep", MaxNesting+1, err)
	}
	if !strings.Contains(err.Error(), "member /filters/data/x"+strings.Repeat("/k", MaxNesting-3)+":") {
		t.Errorf("error %q does not name the member that nests too deep", err)
	}
}

// A definition that did not come through Parse (a state file, Go code) is
// checked by Validate, and Version answers with an error, never a panic.
func TestValidateAndVersionOfDefinitionsNotParsed(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(d *Definition)
		member string
	}{
		{"data filter", func(d *Definition) { d.Filters.Data = map[string]jsontext.Value{"x": jsontext.Value(`1e999`)} }, "/filters/data/x"},
		{"builtin options", func(d *Definition) {
			d.Handler = Handler{Kind: KindBuiltin, Builtin: "secret-scan", Options: jsontext.Value(`{"x":[-1e999]}`)}
		}, "/handler/options/x/0"},
		{"deep data filter", func(d *Definition) {
			d.Filters.Data = map[string]jsontext.Value{"x": jsontext.Value(strings.Repeat("[", 70) + strings.Repeat("]", 70))}
		}, "/filters/data/x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &Definition{SchemaVersion: 1, ID: "a", Point: "tool.before", Scope: Global, Handler: Handler{Kind: KindScript, Script: "a.sh"}}
			tc.change(d)
			if err := d.Validate(); !errors.Is(err, ErrDocument) || !strings.Contains(err.Error(), tc.member) {
				t.Errorf("Validate: err = %v, want ErrDocument naming %s", err, tc.member)
			}
			if v, err := d.Version(); !errors.Is(err, ErrDocument) {
				t.Errorf("Version = %q, %v; want ErrDocument", v, err)
			}
		})
	}
}

// A definition may ask for the workspace read-write: the hook the executor
// runs says so, and nothing else does.
func TestWorkspaceAccess(t *testing.T) {
	for access, rw := range map[string]bool{"": false, "read-only": false, "read-write": true} {
		doc := `{"schema_version":1,"id":"fmt","point":"file.after_write","scope":"global","mode":"observational","handler":{"kind":"command","command":["fmt"]}`
		if access != "" {
			doc += `,"workspace_access":"` + access + `"`
		}
		defs, err := Parse([]byte(doc + "}"))
		if err != nil {
			t.Fatalf("%q: %v", access, err)
		}
		e := &Entry{Def: defs[0], ID: "fmt", Origin: Global}
		if h := e.Hook(); h.WorkspaceRW != rw || h.AllowRootOwned {
			t.Errorf("%q: WorkspaceRW %v AllowRootOwned %v, want %v and never a root-owned workspace", access, h.WorkspaceRW, h.AllowRootOwned, rw)
		}
	}
}
