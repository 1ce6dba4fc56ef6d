//go:build unix

package main

import (
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

// runCore becomes hook-exec-core with the same command line; when a server
// had read some of stdin before it failed, the core runs as a child
// instead, given stdin (those bytes first, then the rest).
func runCore(core string, args, env []string, stdin io.Reader) {
	argv := append([]string{core}, args...)
	if stdin == nil {
		err := syscall.Exec(core, argv, env)
		fail(err)
	}
	cmd := exec.Command(core, args...)
	cmd.Env = env
	cmd.Stdin = stdin
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	go func() {
		for s := range sigs {
			cmd.Process.Signal(s)
		}
	}()
	exitAs(cmd.Wait())
}
