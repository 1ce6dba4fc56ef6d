//go:build unix

package executor

import "syscall"

// owner is a file's owning user and group.
type owner struct{ Uid, Gid uint32 }

// ownerOf returns who owns path.
func ownerOf(path string) (owner, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return owner{}, err
	}
	return owner{st.Uid, st.Gid}, nil
}
