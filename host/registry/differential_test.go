package registry

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/hookexec/hook-exec/internal/jsonoracle"
)

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
	for _, seed := range fuzzSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		defs, err := Parse(b)
		if err != nil {
			return
		}
		_, m, err := jsonoracle.Read(b)
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
