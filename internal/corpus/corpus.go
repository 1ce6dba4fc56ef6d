// Package corpus is text for the measurements of false positives: the Go
// standard library's own source, which holds no secrets.
package corpus

import (
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// GoSource yields every .go file under GOROOT/src that is neither a test
// nor test data, in file order, with its bytes.
func GoSource() iter.Seq2[string, []byte] {
	return func(yield func(string, []byte) bool) {
		filepath.WalkDir(filepath.Join(runtime.GOROOT(), "src"), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.Contains(p, "testdata") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			if !yield(p, b) {
				return filepath.SkipAll
			}
			return nil
		})
	}
}
