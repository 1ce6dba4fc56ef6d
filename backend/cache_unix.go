//go:build unix

package backend

import (
	"io/fs"
	"os"
	"syscall"
)

// ownedByMe says whether fi is owned by this process's effective user.
func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}
