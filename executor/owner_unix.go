//go:build unix

package executor

import (
	"errors"
	"os"
	"syscall"
)

// owner is a file's owning user and group.
type owner struct{ Uid, Gid uint32 }

// ownerOfInfo returns who owns the file fi describes.
func ownerOfInfo(fi os.FileInfo) (owner, error) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return owner{}, errors.New("no owner in the file's status")
	}
	return owner{st.Uid, st.Gid}, nil
}

// linksOf returns how many names the file fi describes has.
func linksOf(fi os.FileInfo) (uint64, error) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, errors.New("no link count in the file's status")
	}
	return uint64(st.Nlink), nil
}

// ownerOf returns who owns path.
func ownerOf(path string) (owner, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return owner{}, err
	}
	return owner{st.Uid, st.Gid}, nil
}

// noFollow are the open flags that refuse a link at a path's end and
// never block on a FIFO.
const noFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
