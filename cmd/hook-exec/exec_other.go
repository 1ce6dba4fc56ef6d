//go:build !unix

package main

import (
	"io"
	"os"
	"os/exec"
)

// runCore runs hook-exec-core with the same command line and streams and
// exits with its status.
func runCore(core string, args, env []string, stdin io.Reader) {
	cmd := exec.Command(core, args...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if stdin != nil {
		cmd.Stdin = stdin
	}
	exitAs(cmd.Run())
}
