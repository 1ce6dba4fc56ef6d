//go:build unix

package containerd

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// systemDirs are where a runtime binary is looked for: never the caller's
// PATH, which a user can point at a program of theirs that containerd, as
// root, would then run as every sandbox's runtime.
var systemDirs = []string{"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"}

// systemLookPath finds name (or checks an absolute path) among systemDirs,
// and accepts it only when root owns it and every directory above it and
// no one else can write to any of them.
func systemLookPath(name string) (string, error) {
	if filepath.IsAbs(name) {
		return name, rootOwned(name)
	}
	for _, d := range systemDirs {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, rootOwned(p)
		}
	}
	return "", fmt.Errorf("%q is in none of %v", name, systemDirs)
}

func rootOwned(path string) error {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return err
	}
	for p := real; ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok || st.Uid != 0 || fi.Mode().Perm()&0o022 != 0 {
			return fmt.Errorf("%s (for %s) is not root's alone: containerd would run it as root", p, path)
		}
		if p == "/" {
			return nil
		}
	}
}
