package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/hookexec/hook-exec/backend/engine"
	"github.com/hookexec/hook-exec/cmd/internal/hookrun"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/serve"
	"github.com/hookexec/hook-exec/serve/hostcall"
)

// What the user's server runs of the command lines clients hand it: a
// host command, run as the client's own process would run it (its
// environment and engine the server's, its paths made absolute in its
// working directory), or declined, and the client runs it itself.

// callRunner runs the command lines clients hand to the server whose
// command line is own: each as the client's own process would run it, on
// the executors the server lends (sh), or declined.
func callRunner(own *globals) func(*hookrun.Shared) serve.CommandRunner {
	return func(sh *hookrun.Shared) serve.CommandRunner {
		mine, err := own.engineIdentity()
		env := hostcall.EnvOf(os.LookupEnv)
		return func(ctx context.Context, c hostcall.Command, stdin *serve.Stdin, stdout, stderr io.Writer) (int, error) {
			if err != nil {
				return 0, &hostcall.DeclinedError{Reason: err.Error()}
			}
			args, why := admitCall(c, env, mine)
			if why != "" {
				return 0, &hostcall.DeclinedError{Reason: why}
			}
			g := &globals{shared: sh}
			return executeOn(ctx, args, stdio{stdin, stdout, stderr}, g), nil
		}
	}
}

// admitCall says why a server whose environment is env and whose engine
// identity is mine would not run c as c's own process would (""), and
// gives c's command line with every relative path flag made absolute in
// c's working directory.
func admitCall(c hostcall.Command, env map[string]string, mine string) ([]string, string) {
	for _, k := range hostcall.Env {
		if c.Env[k] != env[k] {
			return nil, fmt.Sprintf("the call's $%s is not the server's", k)
		}
	}
	if !filepath.IsAbs(c.Cwd) {
		return nil, "the call names no absolute working directory"
	}
	g := &globals{}
	root := newRootOf(stdio{in: strings.NewReader(""), out: io.Discard, err: io.Discard}, g)
	args := longFlagsWithOneDash(root, c.Argv)
	target, rest, err := root.Find(args)
	if err != nil {
		return nil, "not a command: " + err.Error()
	}
	if _, ok := hostCommands[target.CommandPath()]; !ok {
		return nil, target.CommandPath() + " is not a host command"
	}
	if wantsHelp(args) || flagAsValue(target, args) != nil {
		return nil, "help, or a flag without its value: the call's own process answers it"
	}
	target.ParseFlags(nil) // merges the parents' persistent flags
	args = absPaths(target, args, c.Cwd)
	if _, rest, err = root.Find(args); err != nil {
		return nil, "not a command: " + err.Error()
	}
	if err := target.ParseFlags(rest); err != nil {
		return nil, "flags: " + err.Error()
	}
	id, err := g.engineIdentity()
	if err != nil {
		return nil, err.Error()
	}
	if id != mine {
		return nil, fmt.Sprintf("the call's engine is not the server's (%s; the server's %s)", id, mine)
	}
	f := target.Flags()
	switch {
	case engine.Name(g.backend) == "local":
		return nil, "the local backend runs in the caller's environment"
	case f.Lookup("mode") != nil && f.Lookup("mode").Value.String() == string(hook.Observational):
		return nil, "an observational run's trace comes after its answer"
	case f.Lookup("max-event-bytes") != nil && f.Lookup("max-event-bytes").Value.String() != fmt.Sprint(executor.DefaultMaxEventBytes):
		return nil, "--max-event-bytes other than the default"
	}
	return args, ""
}

// pathAnnotations mark the flags that name files or directories
// (cobra's MarkFlagFilename and MarkFlagDirname).
var pathAnnotations = []string{cobra.BashCompFilenameExt, cobra.BashCompSubdirsInDir}

func isPathFlag(f *pflag.Flag) bool {
	for _, a := range pathAnnotations {
		if _, ok := f.Annotations[a]; ok {
			return true
		}
	}
	return false
}

// absPaths rewrites args so that every path flag of c that is given, or
// whose default is, a relative path is an absolute one in cwd: a server
// runs calls of many working directories, none of them its own.
func absPaths(c *cobra.Command, args []string, cwd string) []string {
	abs := func(p string) string {
		if p == "" || p == "-" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(cwd, p)
	}
	lookup := func(name string) *pflag.Flag {
		if f := c.Flags().Lookup(name); f != nil {
			return f
		}
		return c.InheritedFlags().Lookup(name)
	}
	out := slices.Clone(args)
	given := map[string]bool{}
	end := len(out)
	for i := 0; i < len(out); i++ {
		a := out[i]
		if a == "--" {
			end = i
			break
		}
		name, val, hasVal := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if !strings.HasPrefix(a, "--") {
			continue
		}
		f := lookup(name)
		if f == nil {
			continue
		}
		given[f.Name] = true
		switch {
		case !isPathFlag(f):
			if !hasVal && f.NoOptDefVal == "" {
				i++ // its value
			}
		case hasVal:
			out[i] = "--" + name + "=" + abs(val)
		case i+1 < len(out):
			out[i+1] = abs(out[i+1])
			i++
		}
	}
	var defaults []string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if isPathFlag(f) && f.Value.Type() == "string" && !given[f.Name] && f.DefValue != "" && f.DefValue != "-" && !filepath.IsAbs(f.DefValue) {
			defaults = append(defaults, "--"+f.Name+"="+abs(f.DefValue))
		}
	})
	return slices.Concat(out[:end], defaults, out[end:])
}

// The flags of the host commands that name files or directories.
func markPaths(c *cobra.Command, names ...string) {
	for _, n := range names {
		f := c.Flags().Lookup(n)
		if f == nil {
			f = c.PersistentFlags().Lookup(n)
		}
		if f == nil {
			panic("markPaths: no flag " + n + " on " + c.Name())
		}
		if f.Annotations == nil {
			f.Annotations = map[string][]string{}
		}
		f.Annotations[cobra.BashCompFilenameExt] = nil
	}
}
