// Command hook-exec runs agent lifecycle hooks in an isolating container
// sandbox and prints one decision. Each subcommand turns its flags into an
// options struct and makes one package call.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/klog/v2"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/backend/engine"
	"github.com/hookexec/hook-exec/cmd/internal/hookrun"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/internal/engineenv"
)

// Exit statuses of the CLI contract.
const (
	exitOK     = 0
	exitFail   = 1   // a command other than run failed
	exitDeny   = 2   // run: the final action is deny
	exitUsage  = 64  // a usage error, on every command
	exitEngine = 125 // a command other than run: the engine cannot be reached or refuses
	exitSignal = 130 // a second interrupt cut the drain short
)

// stdio carries the streams a command uses.
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

func main() {
	// client-go reports through klog, on stderr, the attach streams the
	// kubernetes backend ends on purpose (a kill, a drain): not this
	// program's output, which a host may parse.
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	// As the front does: an installed command's engine and state are its
	// user's, never what the host's environment says.
	if err := engineenv.SealProcess(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "hook-exec: %v: the hook was not run\n", err)
		os.Exit(exitDeny)
	}
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		cancel() // the first signal starts a bounded drain
		s := <-sigs
		fmt.Fprintf(os.Stderr, "hook-exec: %v again: exiting without waiting for the drain\n", s)
		os.Exit(exitSignal)
	}()
	code := execute(ctx, os.Args[1:], stdio{os.Stdin, os.Stdout, os.Stderr})
	cancel()
	os.Exit(code)
}

// execute runs one command line and returns its exit status.
func execute(ctx context.Context, args []string, io stdio) int {
	return executeOn(ctx, args, io, &globals{})
}

// executeOn is execute on g (see newRootOf).
func executeOn(ctx context.Context, args []string, io stdio, g *globals) int {
	in := &recorder{r: io.in}
	io.in = in
	root := newRootOf(io, g)
	args = longFlagsWithOneDash(root, args)
	root.SetArgs(args)
	target, _, findErr := root.Find(args)
	if findErr == nil {
		_, in.on = hostCommands[target.CommandPath()]
	}
	// Help asked of a command a host runs is no answer: it goes to stderr
	// and is a refusal (the event on stdin is read first to tell the host).
	helpForHost := findErr == nil && wantsHelp(args) && hostRun(target.CommandPath(), args, in)
	if helpForHost {
		target.SetOut(io.err)
	}
	var cmd *cobra.Command
	var err error
	if findErr == nil {
		err = flagAsValue(target, args)
	}
	if err != nil {
		cmd = target
	} else {
		cmd, err = root.ExecuteContextC(ctx)
	}
	code := report(cmd, err, io.err)
	defer g.startWanted(io.err) // the answer is out
	switch {
	case code == exitUsage:
		return refuse(cmd, args, code, err, in, io)
	case helpForHost && helpAsked(cmd):
		return refuse(cmd, args, code, errors.New("help was asked for: no hook ran"), in, io)
	}
	return code
}

// exitError ends a command with a status; err, when set, is printed as one
// line on stderr.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageError is a wrong command line: exit 64.
func usageError(format string, a ...any) error {
	return &exitError{exitUsage, fmt.Errorf(format, a...)}
}

// failure is a command (not run) that failed: 125 when the engine cannot be
// reached or refuses, 1 otherwise.
func failure(err error) error {
	if errors.Is(err, backend.ErrEngine) {
		return &exitError{exitEngine, err}
	}
	return &exitError{exitFail, err}
}

// decided maps the end of a command that answers with a decision: a usage
// error (64), another error (1), else the decision's own status: 2 for
// deny, 3 for request_approval where the command has that status, 0.
func decided(err error, action hook.Action, approvalCode int) error {
	var ue *hookrun.UsageError
	switch {
	case errors.As(err, &ue):
		return &exitError{exitUsage, ue.Err}
	case err != nil:
		return &exitError{exitFail, err}
	case action == hook.Deny:
		return &exitError{code: exitDeny}
	case action == hook.RequestApproval && approvalCode != 0:
		return &exitError{code: approvalCode}
	}
	return nil
}

// engineCall maps the error of a package call that opened an engine: a
// backend that cannot do what was asked is a usage error, the rest failures.
func engineCall(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, engine.ErrUnknownBackend), errors.Is(err, engine.ErrNoImages), errors.Is(err, engine.ErrNoSandboxes),
		errors.Is(err, backend.ErrNotIsolated), errors.Is(err, backend.ErrRuntime):
		return &exitError{exitUsage, err}
	}
	return failure(err)
}

// oneLine is cobra's own error on one line: its suggestion ("Did you mean
// this?" and the names under it) after a semicolon.
func oneLine(err error) error {
	head, suggest, ok := strings.Cut(err.Error(), "\n\nDid you mean this?\n")
	if !ok {
		return errors.New(strings.Join(strings.Fields(err.Error()), " "))
	}
	return fmt.Errorf("%s; did you mean %s?", head, strings.Join(strings.Fields(suggest), ", "))
}

// report prints what ended a command and returns its exit status. An error
// that is not an exitError comes from cobra itself (an unknown command, a
// wrong number of arguments): a usage error.
func report(cmd *cobra.Command, err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	path := "hook-exec"
	if cmd != nil {
		path = cmd.CommandPath()
	}
	var ee *exitError
	if !errors.As(err, &ee) {
		ee = &exitError{exitUsage, oneLine(err)}
	}
	if ee.err == nil {
		return ee.code
	}
	// An error can quote a document, a plugin's file or a hook's output:
	// one line, escaped.
	msg := esc(ee.err.Error())
	if ee.code == exitUsage {
		fmt.Fprintf(stderr, "%s: %s (see '%s --help')\n", path, msg, path)
	} else {
		fmt.Fprintf(stderr, "%s: %s\n", path, msg)
	}
	return ee.code
}

// longFlagsWithOneDash rewrites -name to --name for every long flag the
// command tree knows: the CLI's first parser (Go's flag package) accepted
// both spellings, and hosts' configurations may carry either.
func longFlagsWithOneDash(root *cobra.Command, args []string) []string {
	names := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) { names[f.Name] = true })
		c.PersistentFlags().VisitAll(func(f *pflag.Flag) { names[f.Name] = true })
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	out := make([]string, len(args))
	copy(out, args)
	for i, a := range out {
		if a == "--" {
			break
		}
		if len(a) < 3 || a[0] != '-' || a[1] == '-' {
			continue
		}
		name, _, _ := strings.Cut(a[1:], "=")
		if len(name) > 1 && names[name] {
			out[i] = "-" + a
		}
	}
	return out
}

// flagAsValue refuses a flag that takes a value followed by another flag
// of the command (`--matcher --trace -`): the parser would take the second
// flag's name for the first one's value, and a guard whose matcher is
// "--trace" matches no tool and never runs.
func flagAsValue(c *cobra.Command, args []string) error {
	c.InitDefaultHelpFlag() // -h and --help are flags too (cobra adds them late)
	lookup := func(a string) *pflag.Flag {
		switch {
		case strings.HasPrefix(a, "--") && len(a) > 2:
			name, _, _ := strings.Cut(a[2:], "=")
			if f := c.Flags().Lookup(name); f != nil {
				return f
			}
			return c.InheritedFlags().Lookup(name)
		case len(a) == 2 && a[0] == '-' && a[1] != '-':
			if f := c.Flags().ShorthandLookup(a[1:]); f != nil {
				return f
			}
			return c.InheritedFlags().ShorthandLookup(a[1:])
		}
		return nil
	}
	seen := map[string]string{}
	for i := 0; i+1 < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		f := lookup(a)
		if f != nil && f.Name == "dialect" {
			// Two hosts' dialects: the parser keeps the last, the host is
			// the first's (or the other way): neither may be guessed.
			v, given := strings.CutPrefix(a, "--dialect=")
			if !given && i+1 < len(args) {
				v = args[i+1]
			}
			if prev, ok := seen[f.Name]; ok && prev != v {
				return usageError("--dialect given twice, %s and %s: give one", prev, v)
			}
			seen[f.Name] = v
		}
		if f == nil || strings.Contains(a, "=") || f.NoOptDefVal != "" {
			continue // not a flag, a value given with =, or a boolean
		}
		// "--" too: the parser would take it for the value, and what
		// follows for flags again (--trace -- -h asks for help).
		if next := lookup(args[i+1]); next != nil || args[i+1] == "--" {
			return usageError("flag %s needs a value, and %s is a flag: give %s a value (or %s=%s if that is the value)", a, args[i+1], a, a, args[i+1])
		}
		i++ // its value
	}
	return nil
}
