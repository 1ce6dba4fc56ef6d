//go:build !unix

package main

import (
	"errors"
	"os"
	"os/exec"
)

// runCore runs hook-exec-core with the same command line and streams and
// exits with its status.
func runCore(core string, args, env []string, _ []byte) {
	cmd := exec.Command(core, args...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		os.Exit(0)
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		os.Exit(ee.ExitCode())
	}
	fail(err)
}
