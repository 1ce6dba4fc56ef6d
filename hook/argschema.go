package hook

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// Seed 000: "Every mutation is schema checked." A holaryn event may carry
// its tool's argument schema beside the arguments (data.args_schema, a
// JSON Schema object); a modify's new args must then satisfy it. Without
// one, a mutation is checked for its shape only (an object, of the members
// the point allows), and the trace says so (Trace.MutationCheck).

// The values of Trace.MutationCheck.
const (
	MutationSchema    = "args_schema"
	MutationShapeOnly = "shape only: the event carries no data.args_schema"
)

// maxEnum bounds an enum's values: each item of a long array is compared
// with each of them.
const maxEnum = 256

// maxSchemaDepth bounds how deeply a schema (and the value checked
// against it) nest: both are untrusted.
const maxSchemaDepth = 32

// argsSchemaOf is the event data's args_schema, nil for none. One that is
// present and not an object is an error: a schema that cannot be read
// checks nothing.
func argsSchemaOf(data jsontext.Value) (jsontext.Value, error) {
	if data.Kind() != '{' || !bytes.Contains(data, []byte(`"args_schema"`)) && !bytes.Contains(data, []byte(`\u`)) {
		return nil, nil // no schema (nor a name written with escapes): the data is not decoded again for it
	}
	m, err := object(data)
	if err != nil {
		return nil, nil // the data's own reader says what is wrong with it
	}
	raw, ok := m["args_schema"]
	if !ok {
		return nil, nil
	}
	switch raw.Kind() {
	case 't':
		return nil, nil // true: any args, nothing to check
	case '{', 'f':
		return raw, nil
	}
	return nil, fmt.Errorf("%w: data.args_schema must be a JSON Schema (an object or a boolean)", ErrInvalid)
}

// checkArgs checks a modify's mutations (their args) against schema.
func checkArgs(schema jsontext.Value, mutations []byte) error {
	m, err := object(mutations)
	if err != nil {
		return fmt.Errorf("%w: mutations: %w", ErrDecision, err)
	}
	args, ok := m["args"]
	if !ok {
		return nil
	}
	c := &checker{enums: map[string][]string{}}
	if err := c.conforms(schema, args, "args", 0); err != nil {
		return fmt.Errorf("%w: the modified args do not fit the tool's data.args_schema: %w", ErrDecision, err)
	}
	return nil
}

// conforms checks v against the JSON Schema keywords tools' argument
// schemas use: type, properties, required, additionalProperties (false,
// or a schema), items, enum, const, minimum, maximum, minLength,
// maxLength, minItems, maxItems. Another keyword is an error: a check the
// schema asks for and this one cannot make is no check.
func (c *checker) conforms(schema, v jsontext.Value, at string, depth int) error {
	if depth > maxSchemaDepth {
		return fmt.Errorf("%s: nested more than %d deep", at, maxSchemaDepth)
	}
	if schema.Kind() == 't' {
		return nil // true: anything
	}
	if schema.Kind() == 'f' {
		return fmt.Errorf("%s: no value is allowed", at)
	}
	s, err := object(schema)
	if err != nil {
		return fmt.Errorf("%s: the schema is not an object: %w", at, err)
	}
	for k := range s {
		if !slices.Contains(schemaKeywords, k) {
			return fmt.Errorf("%s: the schema's keyword %q is not one hook-exec checks", at, k)
		}
	}
	if raw, ok := s["anyOf"]; ok {
		var alts []jsontext.Value
		if err := unmarshal(raw, &alts); err != nil || len(alts) == 0 {
			return fmt.Errorf("%s: anyOf must be a list of schemas", at)
		}
		if !slices.ContainsFunc(alts, func(alt jsontext.Value) bool { return c.conforms(alt, v, at, depth+1) == nil }) {
			return fmt.Errorf("%s: fits none of its anyOf", at)
		}
	}
	if raw, ok := s["type"]; ok {
		if err := typeMatches(raw, v); err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
	}
	if raw, ok := s["enum"]; ok {
		vals, err := c.enum(raw)
		if err != nil {
			return fmt.Errorf("%s: enum: %w", at, err)
		}
		if !slices.Contains(vals, canonical(v)) {
			return fmt.Errorf("%s: not one of its enum", at)
		}
	}
	if raw, ok := s["const"]; ok && canonical(raw) != canonical(v) {
		return fmt.Errorf("%s: not its const", at)
	}
	switch v.Kind() {
	case '{':
		return c.objectConforms(s, v, at, depth)
	case '[':
		return c.arrayConforms(s, v, at, depth)
	case '"':
		var str string
		unmarshal(v, &str)
		n := float64(len([]rune(str)))
		return bounds(s, at, n, "minLength", "maxLength")
	case '0':
		var f float64
		if err := unmarshal(v, &f); err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
		return bounds(s, at, f, "minimum", "maximum")
	}
	return nil
}

// schemaKeywords are the keywords conforms checks, and the annotations
// it may pass over (description, format: a format is an annotation unless
// a validator is asked to assert it).
var schemaKeywords = []string{"type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf",
	"minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems", "description", "title", "default", "examples", "$schema",
	"format", "deprecated", "readOnly", "writeOnly"}

func typeMatches(raw, v jsontext.Value) error {
	var types []string
	if raw.Kind() == '"' {
		var t string
		unmarshal(raw, &t)
		types = []string{t}
	} else if err := unmarshal(raw, &types); err != nil {
		return fmt.Errorf("type: %w", err)
	}
	kind := map[jsontext.Kind]string{'{': "object", '[': "array", '"': "string", '0': "number", 't': "boolean", 'f': "boolean", 'n': "null"}[v.Kind()]
	for _, t := range types {
		if t == kind || (t == "integer" && kind == "number" && isInteger(v)) {
			return nil
		}
	}
	return fmt.Errorf("is a %s, not %s", kind, strings.Join(types, " or "))
}

func isInteger(v jsontext.Value) bool {
	var f float64
	return unmarshal(v, &f) == nil && f == math.Trunc(f)
}

func (c *checker) objectConforms(s map[string]jsontext.Value, v jsontext.Value, at string, depth int) error {
	m, err := object(v)
	if err != nil {
		return fmt.Errorf("%s: %w", at, err)
	}
	var props map[string]jsontext.Value
	if raw, ok := s["properties"]; ok {
		if err := unmarshal(raw, &props); err != nil {
			return fmt.Errorf("%s: properties: %w", at, err)
		}
	}
	if raw, ok := s["required"]; ok {
		var req []string
		if err := unmarshal(raw, &req); err != nil {
			return fmt.Errorf("%s: required: %w", at, err)
		}
		for _, k := range req {
			if _, ok := m[k]; !ok {
				return fmt.Errorf("%s: has no %q, which the schema requires", at, k)
			}
		}
	}
	extra, hasExtra := s["additionalProperties"]
	for _, k := range slices.Sorted(maps.Keys(m)) {
		sub, ok := props[k]
		switch {
		case ok:
		case hasExtra && extra.Kind() == 'f':
			return fmt.Errorf("%s: has %q, which the schema does not allow", at, k)
		case hasExtra:
			sub = extra
		default:
			continue
		}
		if err := c.conforms(sub, m[k], at+"."+k, depth+1); err != nil {
			return err
		}
	}
	return nil
}

func (c *checker) arrayConforms(s map[string]jsontext.Value, v jsontext.Value, at string, depth int) error {
	var items []jsontext.Value
	if err := unmarshal(v, &items); err != nil {
		return fmt.Errorf("%s: %w", at, err)
	}
	if err := bounds(s, at, float64(len(items)), "minItems", "maxItems"); err != nil {
		return err
	}
	if raw, ok := s["items"]; ok {
		for i, it := range items {
			if err := c.conforms(raw, it, fmt.Sprintf("%s[%d]", at, i), depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// bounds checks n against the schema's lower and upper keywords.
func bounds(s map[string]jsontext.Value, at string, n float64, lower, upper string) error {
	for _, k := range []string{lower, upper} {
		raw, ok := s[k]
		if !ok {
			continue
		}
		var b float64
		if err := unmarshal(raw, &b); err != nil {
			return fmt.Errorf("%s: %s: %w", at, k, err)
		}
		if (k == lower && n < b) || (k == upper && n > b) {
			return fmt.Errorf("%s: %v is out of its %s %v", at, n, k, b)
		}
	}
	return nil
}

// checker checks values against one schema, each enum of it read once.
type checker struct {
	enums map[string][]string
}

// enum is an enum's values, canonical, read once per checker.
func (c *checker) enum(raw jsontext.Value) ([]string, error) {
	if vals, ok := c.enums[string(raw)]; ok {
		return vals, nil
	}
	var items []jsontext.Value
	if err := unmarshal(raw, &items); err != nil {
		return nil, err
	}
	if len(items) > maxEnum {
		return nil, fmt.Errorf("%d values, more than %d", len(items), maxEnum)
	}
	vals := make([]string, len(items))
	for i, it := range items {
		vals[i] = canonical(it)
	}
	c.enums[string(raw)] = vals
	return vals, nil
}

// canonical is a JSON value's canonical form (members in order), "" for
// one that has none.
func canonical(v jsontext.Value) string {
	cv := v.Clone()
	if cv.Canonicalize() != nil {
		return ""
	}
	return string(cv)
}
