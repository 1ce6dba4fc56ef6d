//go:build !unix

package main

import (
	"os"
	"os/exec"
)

// runCore runs hook-exec-core with the same command line and streams and
// exits with its status.
func runCore(core string, args, env []string, _ []byte) {
	cmd := exec.Command(core, args...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	exitAs(cmd.Run())
}
