package hook

import (
	"errors"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

const writeFileSchema = `{"type":"object","properties":{"path":{"type":"string","minLength":1},"content":{"type":"string"},"mode":{"enum":["create","append"]},"lines":{"type":"array","items":{"type":"integer","minimum":0}}},"required":["path","content"],"additionalProperties":false}`

func TestArgsSchema(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, args string
		ok         bool
	}{
		{"fits", `{"path":"docs/notes.md","content":"hello"}`, true},
		{"with an enum and items", `{"path":"a","content":"","mode":"append","lines":[1,2]}`, true},
		{"a required member missing", `{"path":"a"}`, false},
		{"a member the tool does not take", `{"path":"a","content":"","sudo":true}`, false},
		{"a wrong type", `{"path":7,"content":""}`, false},
		{"an empty path", `{"path":"","content":""}`, false},
		{"not in the enum", `{"path":"a","content":"","mode":"truncate"}`, false},
		{"a negative item", `{"path":"a","content":"","lines":[-1]}`, false},
		{"a fraction as an integer", `{"path":"a","content":"","lines":[1.5]}`, false},
		{"not an object", `"a"`, false},
	} {
		err := checkArgs(jsontext.Value(writeFileSchema), []byte(`{"args":`+c.args+`}`))
		if (err == nil) != c.ok || (err != nil && !errors.Is(err, ErrDecision)) {
			t.Errorf("%s: %v, want ok %v", c.name, err, c.ok)
		}
	}
	// A keyword hook-exec cannot check is no check: refused, not skipped.
	if err := checkArgs(jsontext.Value(`{"type":"object","pattern":"^a"}`), []byte(`{"args":{}}`)); !errors.Is(err, ErrDecision) {
		t.Errorf("an unknown keyword: %v", err)
	}
	// An event whose args_schema is not an object does not read.
	if _, err := ParseEnvelope(Holaryn, []byte(`{"schema_version":1,"point":"tool.before","data":{"args":{},"args_schema":"string"}}`)); !errors.Is(err, ErrInvalid) {
		t.Errorf("args_schema a string: %v", err)
	}
	e, err := ParseEnvelope(Holaryn, []byte(`{"schema_version":1,"point":"tool.before","data":{"args":{},"args_schema":`+writeFileSchema+`}}`))
	if err != nil || e.MutationCheck() != MutationSchema {
		t.Fatalf("%+v %v", e, err)
	}
	d, err := Interpret(e, 0, []byte(`{"schema_version":1,"action":"modify","mutations":{"args":{"path":"x","content":"y","extra":1}}}`), nil)
	if !errors.Is(err, ErrDecision) {
		t.Errorf("a modify that breaks the schema: %+v %v", d, err)
	}
	if none, _ := ParseEnvelope(Holaryn, []byte(`{"schema_version":1,"point":"tool.before","data":{"args":{}}}`)); none.MutationCheck() != MutationShapeOnly {
		t.Errorf("without a schema: %q", none.MutationCheck())
	}
}

func FuzzArgsSchema(f *testing.F) {
	f.Add([]byte(writeFileSchema), []byte(`{"args":{"path":"a","content":"b"}}`))
	f.Add([]byte(`{"type":["string","null"],"items":{"items":{}}}`), []byte(`{"args":[[[]]]}`))
	f.Add([]byte(`{"additionalProperties":{"type":"integer"}}`), []byte(`{"args":{"a":1e308}}`))
	f.Fuzz(func(t *testing.T, schema, mutations []byte) {
		if err := checkArgs(jsontext.Value(schema), mutations); err != nil && !errors.Is(err, ErrDecision) {
			t.Fatalf("an error of no class: %v", err)
		}
	})
}

// A schema whose member name is written with escapes is still read.
func TestArgsSchemaEscapedName(t *testing.T) {
	t.Parallel()
	e, err := ParseEnvelope(Holaryn, []byte(`{"schema_version":1,"point":"tool.before","data":{"args":{},"args\u005fschema":`+writeFileSchema+`}}`))
	if err != nil || e.MutationCheck() != MutationSchema {
		t.Fatalf("%+v %v", e, err)
	}
}
