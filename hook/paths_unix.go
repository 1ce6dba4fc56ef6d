//go:build unix

package hook

import (
	"os"
	"syscall"
)

// hardLinked reports whether p is a regular file with more than one name.
func hardLinked(p string) bool {
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Nlink > 1
}
