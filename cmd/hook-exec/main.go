// Command hook-exec runs agent lifecycle hooks in an isolating container
// sandbox and prints one decision. Each subcommand turns its flags into an
// options struct and makes one package call.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// Exit statuses of the CLI contract.
const (
	exitOK    = 0
	exitFail  = 1 // a command other than run failed
	exitDeny  = 2 // run: the final action is deny
	exitUsage = 64
)

// stdio carries the streams a command uses.
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

type command struct {
	name, summary string
	run           func(ctx context.Context, args []string, io stdio) int
}

func commands() []command {
	return []command{
		{"run", "run one hook script in a sandbox and print its decision", cmdRun},
		{"demo", "run the example guard hook on two events", cmdDemo},
		{"images", "build or list the reference images (images build | images list)", cmdImages},
		{"image", "check that an image provides the launcher's programs (image check IMAGE)", cmdImage},
		{"gc", "remove sandboxes that a dead hook-exec left behind", cmdGC},
		{"traces", "print stored traces, newest first", cmdTraces},
		{"serve", "answer hook runs over a local socket, with sandboxes started ahead", cmdServe},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := dispatch(ctx, os.Args[1:], stdio{os.Stdin, os.Stdout, os.Stderr})
	stop()
	os.Exit(code)
}

func dispatch(ctx context.Context, args []string, io stdio) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(io.err)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, args[1:], io)
		}
	}
	fmt.Fprintf(io.err, "hook-exec: unknown command %q\n", args[0])
	usage(io.err)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: hook-exec COMMAND [flags]\n\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
}

// parseFlags parses flags that may come before or after positional
// arguments, as `image check IMAGE --json` wants.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// newFlagSet returns a flag set that reports errors and not os.Exit.
func newFlagSet(name string, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("hook-exec "+name, flag.ContinueOnError)
	fs.SetOutput(w)
	fs.StringVar(&containerdAddress, "containerd-address", "", "containerd socket (default $HOOKEXEC_CONTAINERD_ADDRESS, then the usual sockets)")
	return fs
}

func usageErr(w io.Writer, format string, a ...any) int {
	fmt.Fprintf(w, "hook-exec: "+format+"\n", a...)
	return exitUsage
}

func flagErr(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	return exitUsage
}

// multiFlag collects a repeatable flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
