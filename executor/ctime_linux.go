//go:build linux

package executor

import (
	"io/fs"
	"syscall"
	"time"
)

// changed is when a file's inode last changed (ctime): a hook can set a
// file's mtime back, never its ctime.
func changed(fi fs.FileInfo) time.Time {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(st.Ctim.Sec, st.Ctim.Nsec)
	}
	return fi.ModTime()
}
