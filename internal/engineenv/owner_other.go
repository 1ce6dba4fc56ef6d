//go:build !unix

package engineenv

import "os"

// owner: files have no uid here; os.Getuid is -1 too.
func owner(os.FileInfo) int { return -1 }

func openNoFollow(path string) (*os.File, error) { return os.Open(path) }
