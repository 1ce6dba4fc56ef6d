package backend

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// CacheDir is hook-exec's directory in the user's cache (what Podman
// machine and Docker Desktop share with their VM, as the home directory
// is); else one of this user's own in the temporary directory.
func CacheDir() string {
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "hook-exec")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("hook-exec-%d", os.Geteuid()))
}

// PrivateDir makes dir (0700, its parents too) or checks the one there:
// a directory of this user's that no one else can write, so that nothing
// read from it (a seccomp profile handed to an engine, a cached verdict)
// can be swapped by another user.
func PrivateDir(dir string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() || fi.Mode().Perm()&0o022 != 0 || !OwnedByMe(fi) {
		return fmt.Errorf("%s is not a directory of this user's that only it can write (%v)", dir, fi.Mode())
	}
	return nil
}
