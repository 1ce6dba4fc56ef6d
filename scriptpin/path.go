package scriptpin

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// splitRel checks a script path as a handler names it and returns its
// components. It never touches the file system.
func splitRel(rel string) ([]string, error) {
	if rel == "" {
		return nil, fmt.Errorf("empty script path: %w", ErrNotRegular)
	}
	if strings.IndexByte(rel, 0) >= 0 {
		return nil, fmt.Errorf("%q has a NUL byte: %w", rel, ErrNotRegular)
	}
	if filepath.IsAbs(rel) || strings.HasPrefix(rel, "/") || strings.HasPrefix(rel, `\`) {
		return nil, fmt.Errorf("%q: %w", rel, ErrAbsolute)
	}
	var parts []string
	for _, p := range strings.FieldsFunc(filepath.ToSlash(rel), func(r rune) bool { return r == '/' }) {
		switch p {
		case ".":
			continue
		case "..":
			return nil, fmt.Errorf("%q: %w", rel, ErrEscape)
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("%q: %w", rel, ErrNotRegular)
	}
	return parts, nil
}

var errNotDir = errors.New("not a directory")

// CheckPath applies the rules of a script path as a handler names it
// (relative, no ".." component, naming a file) without touching the file
// system: what Read and Load refuse before they open anything.
func CheckPath(rel string) error {
	_, err := splitRel(rel)
	return err
}
