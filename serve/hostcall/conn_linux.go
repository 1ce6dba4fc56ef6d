package hostcall

import (
	"fmt"
	"os"
	"syscall"
)

// dial connects to the unix socket at path without the net package (the
// front stays a static binary with few inits): a server whose backlog is
// full, like one that is not there, is none (the connect does not wait).
func dial(path string) (*os.File, error) {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC|syscall.SOCK_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), path), nil // non-blocking: the runtime's poller reads it
}

// checkOwn checks that the process listening at the other end of c is of
// this user (SO_PEERCRED): a socket another user put in place would
// otherwise answer for this user's hooks.
func checkOwn(c *os.File) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var cred *syscall.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return err
	}
	if credErr != nil {
		return credErr
	}
	if int(cred.Uid) != os.Getuid() {
		return fmt.Errorf("it is uid %d's (pid %d), not uid %d's", cred.Uid, cred.Pid, os.Getuid())
	}
	return nil
}
