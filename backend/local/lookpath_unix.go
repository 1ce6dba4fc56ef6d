//go:build unix

package local

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// lookPath resolves a program name against the sanitized PATH, not the
// process's own; a relative entry that remains resolves in workdir.
func lookPath(name, path, workdir string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(workdir, dir)
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("exec: %q: executable file not found in $PATH", name)
}
