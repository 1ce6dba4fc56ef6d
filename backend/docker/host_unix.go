//go:build unix

package docker

import "golang.org/x/sys/unix"

// nprocLimit is the nproc limit a Podman sandbox asks for: Podman's own
// fallback where it cannot raise its limits (32768, measured: Podman 4.3
// as root without CAP_SYS_RESOURCE), at most this process's hard limit,
// which a rootless Podman of the same user shares.
func nprocLimit() int64 {
	const fallback = 32768
	var r unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NPROC, &r); err != nil || r.Max > fallback {
		return fallback
	}
	return int64(r.Max)
}

// noFollow opens a path without following a final link.
const noFollow = unix.O_NOFOLLOW
