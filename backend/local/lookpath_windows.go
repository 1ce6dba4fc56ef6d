package local

import (
	"fmt"
	"os"
	"strings"
)

// lookPath resolves a program name against the sanitized PATH, not the
// process's own, the way Windows' program search does (windowsCandidates):
// a file has no execute bit there, its extension (PATHEXT) makes it a
// program. A name with a path in it is left to exec, which adds PATHEXT's
// extensions itself.
func lookPath(name, path, workdir string) (string, error) {
	if strings.ContainsAny(name, `/\:`) {
		return name, nil
	}
	for _, p := range windowsCandidates(name, path, workdir, os.Getenv("USERPROFILE"), os.Getenv("PATHEXT")) {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", fmt.Errorf("exec: %q: executable file not found in %%PATH%%", name)
}
