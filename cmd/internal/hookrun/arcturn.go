package hookrun

import (
	"context"
	"fmt"
	"io"

	"github.com/hookexec/hook-exec/backend/engine"
	"github.com/hookexec/hook-exec/cmd/internal/stack"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/host/arcturn"
)

// ArcturnOptions are one event through the layered Arcturn configs.
type ArcturnOptions struct {
	Home, Project string
	Payload       []byte
	// Shell is Arcturn's $SHELL, which it runs a command hook with.
	Shell          string
	Engine         engine.Options
	StateDir       string
	Stdout, Stderr io.Writer
	Shared         *Shared // the server running this call (nil: none)
}

// Arcturn runs the payload's event through every layer's hooks and writes
// the decision as Arcturn reads it: {"decision", "reason"} on stdout, a
// deny's reason and every failure let through on stderr. A config or a
// payload that cannot be read is a deny (arcturn.Refusal), not an error:
// Arcturn would read any exit status but 2 as "go ahead".
func Arcturn(ctx context.Context, o ArcturnOptions) (*arcturn.Result, error) {
	hooks, err := arcturn.Discover(o.Home, o.Project)
	if err != nil {
		return answerArcturn(o, arcturn.Refusal(err))
	}
	stateDir, err := StateDir(o.StateDir)
	if err != nil {
		return nil, usage(err)
	}
	c, err := o.Shared.begin(callKept, func() (*stack.Stack, error) {
		return openStack(ctx, o.Engine, stateDir, o.Stderr, keptOptions(executor.Options{}, stateDir))
	})
	if err != nil {
		return nil, err
	}
	defer c.end(stack.DefaultDrain)
	res, err := arcturn.Run(c.warnTo(ctx, o.Stderr), c.Executor, hooks, o.Project, o.Shell, o.Payload)
	if err != nil {
		return nil, usage(err)
	}
	return answerArcturn(o, res)
}

// answerArcturn writes a chain's result as Arcturn reads it.
func answerArcturn(o ArcturnOptions, res *arcturn.Result) (*arcturn.Result, error) {
	for _, w := range res.Warnings {
		fmt.Fprintf(o.Stderr, "hook-exec: warning: %s\n", w)
	}
	ans, err := hook.Arcturn.Host().Answer("", res.Decision, nil)
	if err == nil {
		_, err = o.Stdout.Write(ans.Stdout)
	}
	if ans.Stderr != "" {
		fmt.Fprintln(o.Stderr, ans.Stderr)
	}
	return res, err
}
