// Command hook-exec is hook-exec's front: the program a host runs for
// every hook call. A host command (run, dispatch, arcturn hooks run,
// bernstein hooks run) is first handed to the user's hook-exec server,
// which answers it with sandboxes started ahead; every other command, and a
// call no server takes, runs in hook-exec-core, the program beside this one
// that holds every command and the engines' clients. This one holds
// neither, so that a call a server answers costs a small process's start.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/hookexec/hook-exec/internal/engineenv"
	"github.com/hookexec/hook-exec/serve/hostcall"
)

// coreName is the program beside this one that runs every command.
const coreName = "hook-exec-core"

// frontEnv tells hook-exec-core what became of the server asked first:
// "none" answered (the call may start one), it "declined" the call, or it
// "failed" it.
const frontEnv = "HOOKEXEC_FRONT"

// exitRefuse ends a call this program cannot hand on at all: 2 is a
// refusal to every host that reads exit statuses (Claude Code's block,
// hook-exec run's deny), never a silent allow.
const exitRefuse = 2

func main() {
	args := os.Args[1:]
	// An installed command's engine and state are its user's, never what
	// the host's environment (a project's settings) says.
	if err := engineenv.SealProcess(args); err != nil {
		fail(err)
	}
	exe, err := os.Executable()
	if err != nil {
		fail(fmt.Errorf("find %s: %w", coreName, err))
	}
	core := filepath.Join(filepath.Dir(exe), coreName)
	env := os.Environ()
	var stdin io.Reader
	if sock, ok := serverFor(args); ok {
		var marker string
		marker, stdin = call(sock, args)
		env = append(env, frontEnv+"="+marker)
	}
	runCore(core, args, env, stdin)
}

// exitAs exits as the core run as a child ended (err from its Wait).
func exitAs(err error) {
	var ee *exec.ExitError
	switch {
	case err == nil:
		os.Exit(0)
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		os.Exit(ee.ExitCode())
	}
	fail(err)
}

// fail says why on stderr and refuses.
func fail(err error) {
	fmt.Fprintf(os.Stderr, "hook-exec: %v: the hook was not run\n", err)
	os.Exit(exitRefuse)
}

// serverFor is the socket a command line would be handed to, if it is a
// host command's (the server declines any other) and nothing turns the
// server off.
func serverFor(args []string) (string, bool) {
	host, named := false, ""
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "--":
			i = len(args)
		case "run", "dispatch":
			host = true
		case "--no-server", "-no-server", "-h", "--help", "-help", "help":
			return "", false
		case "--server", "-server":
			if i+1 < len(args) {
				named = args[i+1]
			}
		default:
			if v, ok := cutFlag(a, "server"); ok {
				named = v
			}
		}
	}
	if !host || !clientSupported {
		return "", false
	}
	if named != "" {
		return named, filepath.IsAbs(named)
	}
	sock, _, err := hostcall.Socket(os.Getenv)
	return sock, err == nil && sock != ""
}

// cutFlag is the value of --name=V or -name=V.
func cutFlag(a, name string) (string, bool) {
	for _, p := range []string{"--" + name + "=", "-" + name + "="} {
		if len(a) > len(p) && a[:len(p)] == p {
			return a[len(p):], true
		}
	}
	return "", false
}

// call hands the command line to the server on sock. It exits with the
// server's answer; otherwise it returns what became of the server and,
// when the call read any of stdin, the stdin the core is to have: what the
// server read, then the rest (nil: stdin untouched).
func call(sock string, args []string) (string, io.Reader) {
	cwd, err := os.Getwd()
	if err != nil {
		return "failed", nil
	}
	c := hostcall.Command{Argv: args, Cwd: cwd, Env: hostcall.EnvOf(os.LookupEnv), StdinTTY: isTerminal(os.Stdin)}
	exit, err := hostcall.Call(sock, c, os.Stdin, os.Stdout, os.Stderr)
	var ce *hostcall.CallError
	switch {
	case err == nil:
		os.Exit(exit)
	case errors.Is(err, hostcall.ErrNoServer):
		return "none", nil
	case errors.Is(err, hostcall.ErrDeclined):
		return "declined", nil
	case errors.Is(err, hostcall.ErrNotOwn):
		fmt.Fprintf(os.Stderr, "hook-exec: warning: %v: the call runs in its own process\n", err)
		return "failed", nil
	case errors.As(err, &ce):
		if len(ce.Read) == 0 && ce.Rest == nil {
			return "failed", nil
		}
		rest := ce.Rest
		if rest == nil {
			rest = os.Stdin
		}
		return "failed", io.MultiReader(bytes.NewReader(ce.Read), rest)
	default: // the answer could not be written
		fail(err)
	}
	return "", nil
}
