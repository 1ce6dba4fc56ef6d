package hostcall

import (
	"fmt"
	"net"
	"os"
	"syscall"
)

// checkOwn checks that the process listening at the other end of c is of
// this user (SO_PEERCRED): a socket another user put in place would
// otherwise answer for this user's hooks.
func checkOwn(c *net.UnixConn) error {
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
