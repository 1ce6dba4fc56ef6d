//go:build unix

package engineenv

import (
	"os"
	"syscall"
)

// owner is the uid that owns the file of info.
func owner(info os.FileInfo) int {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}

// openNoFollow opens path for reading, refusing a link at its last part.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
}
