package hook

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// refusedNames are files a hook must never write back: the hosts' own
// hook and tool configuration, and the environment Gemini CLI loads (a hook
// that rewrote them would run the next hook, or a server, outside any
// sandbox). Compared case-folded: on macOS and Windows, Settings.json is
// settings.json.
var refusedNames = map[string]bool{"settings.json": true, "settings.local.json": true, "hooks.json": true, ".mcp.json": true, "mcp.json": true, ".env": true}

// hostDirs are the hosts' own directories (and those of the tools around
// them): a hook's state may be in one, never one of them whole, nor in
// their hooks.
var hostDirs = map[string]bool{".claude": true, ".cursor": true, ".gemini": true, ".vscode": true, ".github": true, ".devcontainer": true}

// plainName is a name a Writable path is made of.
var plainName = regexp.MustCompile(`^[A-Za-z0-9._-]*[A-Za-z0-9_-]$`)

// RefusedName reports whether a file of that name never goes back from a
// hook's writable copy (a host's configuration, git's files).
func RefusedName(name string) bool {
	return !plainName.MatchString(name) || strings.EqualFold(name, ".git") || refusedNames[strings.ToLower(name)]
}

// CheckWritable applies the rules of a Writable entry, by its name alone:
// a clean path inside the workspace of plain names (a file system that
// folds case, normalises Unicode or has short names cannot make another
// name of a refused one), none of git's, no host's configuration, nothing
// in a host's hooks directory; a directory (a trailing slash) is not a
// host's own directory whole.
func CheckWritable(rel string) error {
	dir := strings.HasSuffix(rel, "/")
	rel = strings.TrimSuffix(rel, "/")
	if rel == "" || !filepath.IsLocal(rel) || filepath.Clean(rel) != rel {
		return errors.New("not a clean path inside the workspace")
	}
	parts := strings.Split(rel, string(filepath.Separator))
	for _, p := range parts {
		if !plainName.MatchString(p) {
			return fmt.Errorf("%q is not a plain name (letters, digits, '.', '_', '-'; not ending in '.')", p)
		}
		if strings.EqualFold(p, ".git") {
			return errors.New("git's files stay read-only")
		}
	}
	host := hostDirs[strings.ToLower(parts[0])]
	switch {
	case !dir && refusedNames[strings.ToLower(parts[len(parts)-1])]:
		return errors.New("a host's hook or tool configuration stays read-only")
	case host && dir && (len(parts) == 1 || strings.EqualFold(parts[1], "hooks")):
		return errors.New("a host's own directory, or its hooks, stays read-only: name the directory the hook keeps its state in")
	case host && len(parts) > 2 && strings.EqualFold(parts[1], "hooks"):
		return errors.New("a host's hooks directory stays read-only")
	}
	return nil
}
