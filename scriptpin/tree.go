package scriptpin

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// Bounds of a tree digest: a plugin's tree, not a checkout.
const (
	MaxTreeEntries = 10000
	MaxTreeBytes   = 256 << 20
)

// ErrTree is the class of trees that cannot be pinned.
var ErrTree = errors.New("plugin tree")

// TreeDigest is the SHA-256 of a directory's whole content: every entry's
// path (relative, slash-separated, in lexical order), kind, mode and, for
// a file, its bytes; for a link, its target. A change to any file, a file
// added, removed or renamed, a mode changed changes it.
func TreeDigest(dir string) (Digest, error) { return treeDigest(dir, nil) }

// ScriptTreeDigest is TreeDigest of a script's tree (the directory a hook
// reads its neighbours from) without what a hook writes beside itself as
// it runs (Written): its log, a lock, a cache; and without the entries of
// its top level that others names (the host's hooks files beside the
// script, which install rewrites, and install's records). Everything else
// is pinned.
func ScriptTreeDigest(dir string, others ...string) (Digest, error) {
	return treeDigest(dir, func(rel, name string, isDir bool) bool {
		return Written(name, isDir) || (rel == name && slices.Contains(others, name))
	})
}

// Written reports whether an entry of a script's tree, by its name, is one
// hooks write beside themselves as they run (a hook appending to
// hooks.log in its own directory): *.log, *.pid, *.lock, *.tmp, *.swp,
// .DS_Store, __pycache__, *.pyc. Nothing a script loads by name.
func Written(name string, dir bool) bool {
	if dir {
		return name == "__pycache__"
	}
	if name == ".DS_Store" {
		return true
	}
	switch filepath.Ext(name) {
	case ".log", ".pid", ".lock", ".tmp", ".swp", ".pyc":
		return true
	}
	return false
}

func treeDigest(dir string, skip func(rel, name string, dir bool) bool) (Digest, error) {
	h := sha256.New()
	files, total := 0, int64(0)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if skip != nil && rel != "." && skip(filepath.ToSlash(rel), d.Name(), d.IsDir()) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if files++; files > MaxTreeEntries {
			return fmt.Errorf("%w: %s has more than %d entries", ErrTree, dir, MaxTreeEntries)
		}
		fmt.Fprintf(h, "%q %v\n", filepath.ToSlash(rel), fi.Mode())
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			t, err := os.Readlink(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "-> %q\n", t)
		case fi.Mode().IsRegular():
			if total += fi.Size(); total > MaxTreeBytes {
				return fmt.Errorf("%w: %s holds more than %d bytes", ErrTree, dir, MaxTreeBytes)
			}
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			n, err := io.Copy(h, f)
			f.Close()
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "\n%d\n", n)
		}
		return nil
	})
	var d Digest
	if err != nil {
		return d, err
	}
	copy(d[:], h.Sum(nil))
	return d, nil
}
