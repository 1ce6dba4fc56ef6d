package plugin

import (
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"
)

// MaxManifestBytes bounds a plugin manifest.
const MaxManifestBytes = 64 << 10

var namePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

// ReadManifest reads a plugin's holaryn-plugin.toml and returns the name it
// gives the plugin.
func ReadManifest(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrManifest, err)
	}
	return ParseManifest(b)
}

// ParseManifest reads a manifest's name: a lowercase bare name (it becomes
// a directory and the plugin:<name>/ namespace). Other members (version,
// description, author, ...) are the plugin's own business, but none may
// differ from "name" only by case: keys are read exactly, and an ambiguous
// one is refused rather than guessed.
func ParseManifest(b []byte) (string, error) {
	if len(b) > MaxManifestBytes {
		return "", fmt.Errorf("%w: %d bytes, more than %d", ErrManifest, len(b), MaxManifestBytes)
	}
	var m map[string]any // a map keeps the keys exactly as written
	if _, err := toml.Decode(string(b), &m); err != nil {
		return "", fmt.Errorf("%w: %v", ErrManifest, err)
	}
	for k := range m {
		if k != "name" && strings.EqualFold(k, "name") {
			return "", fmt.Errorf("%w: key %q: the plugin's name is \"name\", exactly", ErrManifest, k)
		}
	}
	raw, ok := m["name"]
	if !ok {
		return "", fmt.Errorf("%w: no name", ErrManifest)
	}
	name, ok := raw.(string)
	if !ok {
		return "", fmt.Errorf("%w: name is a %T, want a string", ErrManifest, raw)
	}
	if !namePattern.MatchString(name) || strings.HasSuffix(name, ".old") {
		return "", fmt.Errorf("%w: name %q: want 1-64 lowercase letters, digits, '.', '_' or '-', starting with a letter or digit, not ending in .old", ErrManifest, name)
	}
	return name, nil
}
