package registry

import (
	"bytes"
	stdjson "encoding/json"
	"fmt"
	"io"
	"slices"
	"testing"
)

// members reads a document with the standard library's token stream, an
// independent exact reader: every object's member names by exact name, at
// every depth (paths as /0/handler ...); a duplicate name is an error.
func members(b []byte) (map[string][]string, error) {
	d := stdjson.NewDecoder(bytes.NewReader(b))
	out := map[string][]string{}
	var walk func(path string) error
	walk = func(path string) error {
		tok, err := d.Token()
		if err != nil {
			return err
		}
		switch tok {
		case stdjson.Delim('{'):
			seen := map[string]bool{}
			for d.More() {
				k, err := d.Token()
				if err != nil {
					return err
				}
				name := k.(string)
				if seen[name] {
					return fmt.Errorf("duplicate %q at %s", name, path)
				}
				seen[name] = true
				out[path] = append(out[path], name)
				if err := walk(path + "/" + name); err != nil {
					return err
				}
			}
			_, err := d.Token()
			return err
		case stdjson.Delim('['):
			for i := 0; d.More(); i++ {
				if err := walk(fmt.Sprintf("%s/%d", path, i)); err != nil {
					return err
				}
			}
			_, err := d.Token()
			return err
		}
		return nil
	}
	if err := walk(""); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("data after the value")
	}
	return out, nil
}

var (
	definitionMembers = []string{"schema_version", "id", "name", "description", "point", "scope", "scope_key", "enabled", "mode", "order",
		"timeout_seconds", "max_output_bytes", "max_concurrency", "failure_policy", "filters", "handler"}
	filterMembers  = []string{"tools", "categories", "paths", "sessions", "data"}
	handlerMembers = []string{"kind", "script", "sha256", "image", "command", "url", "headers", "builtin", "env"}
)

// FuzzParseDifferential: whatever Parse accepts, the independent reader
// reads without a duplicate, and finds only the contract's member names,
// exactly, where each belongs.
func FuzzParseDifferential(f *testing.F) {
	f.Add([]byte(seedExample))
	f.Add([]byte(`[{"schema_version":1,"id":"a","point":"tool.before","scope":"session","filters":{"paths":["p/**"],"data":{"K":1}},"handler":{"kind":"script","script":"a.sh"}}]`))
	f.Add([]byte(`{"schema_version":1,"id":"a","ID":"b","point":"tool.before","scope":"global","handler":{"kind":"script","script":"a.sh"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		defs, err := Parse(b)
		if err != nil {
			return
		}
		m, err := members(b)
		if err != nil {
			t.Fatalf("accepted what the independent reader refuses (%v): %q", err, b)
		}
		prefix := ""
		if bytes.HasPrefix(bytes.TrimSpace(b), []byte("[")) {
			prefix = "/0"
		}
		for i := range defs {
			p := prefix
			if prefix != "" {
				p = fmt.Sprintf("/%d", i)
			}
			for path, allowed := range map[string][]string{p: definitionMembers, p + "/filters": filterMembers, p + "/handler": handlerMembers} {
				for _, name := range m[path] {
					if !slices.Contains(allowed, name) {
						t.Fatalf("accepted member %q at %s: %q", name, path, b)
					}
				}
			}
		}
	})
}
