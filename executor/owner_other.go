//go:build !unix

package executor

import (
	"errors"
	"os"
)

// owner is a file's owning user and group.
type owner struct{ Uid, Gid uint32 }

// ownerOf has no uid:gid to give where files have no unix owner: a
// read-write workspace, which runs the hook as its owner, needs a unix host.
func ownerOfInfo(os.FileInfo) (owner, error) {
	return owner{}, errors.New("files have no unix owner here")
}

func linksOf(os.FileInfo) (uint64, error) {
	return 0, errors.New("no link count here")
}

func ownerOf(string) (owner, error) {
	return owner{}, errors.New("a read-write workspace runs the hook as its owner's uid:gid, which only a unix host has")
}

// noFollow: where there are no such flags, the Lstat before each open
// is the check.
const noFollow = 0
