//go:build unix

package backend

import (
	"io/fs"
	"os"
	"syscall"
)

// OwnedByMe says whether fi is owned by this process's effective user.
func OwnedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}
