//go:build !unix

package docker

// nprocLimit is Podman's own fallback nproc limit.
func nprocLimit() int64 { return 32768 }

// noFollow: no such open flag here.
const noFollow = 0
