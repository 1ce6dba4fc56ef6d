//go:build !unix

package docker

import "io/fs"

// mine is true where files have no owner uid to check.
func mine(fs.FileInfo) bool { return true }

// nprocLimit is Podman's own fallback nproc limit.
func nprocLimit() int64 { return 32768 }
