// Package builtin holds the reviewed in-process handlers: they read
// the event and decide, with no process and no sandbox. Each takes its own
// options object from the definition, read exactly.
//
//   - forbidden-path denies writes to .env and .env.* files, anything under
//     .git or .ssh, and names containing credentials or private-key, judged
//     on the file the write would reach;
//   - secret-scan finds secrets in what a call would write or run and asks
//     for approval (or denies), naming the kind and place, never the secret;
//   - audit appends a redacted, versioned record of the event to an audit
//     log in the state directory, and allows;
//   - notification delivers a short message to the error output, a file or
//     a webhook; observational by nature. Its message is a template run in
//     this process under a step budget, the hook's context and size bounds
//     (message.go).
package builtin

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/hookexec/hook-exec/executor/handler/webhook"
	"github.com/hookexec/hook-exec/hook"
)

// Names are the builtins.
var Names = []string{"audit", "forbidden-path", "notification", "secret-scan"}

var (
	// ErrUnknown: no builtin has the name.
	ErrUnknown = errors.New("unknown builtin")
	// ErrOptions: a builtin's options object does not read.
	ErrOptions = errors.New("invalid builtin options")
	// ErrUntrusted: a builtin's options are refused for a project or
	// plugin hook.
	ErrUntrusted = errors.New("refused for a project or plugin hook")
)

// Env is what builtins may use beside the event.
type Env struct {
	// StateDir holds the audit log.
	StateDir string
	// Log gets notifications sent to the error output.
	Log *slog.Logger
	// Webhook carries the resolver and roots notification webhooks use.
	Webhook webhook.Options
}

// Check reads a builtin's options exactly (unknown or duplicate members
// refused) and says whether the builtin exists.
func Check(name string, options jsontext.Value, mode hook.Mode) error {
	switch name {
	case "forbidden-path":
		var o forbiddenOptions
		return readOptions(options, &o)
	case "secret-scan":
		var o scanOptions
		if err := readOptions(options, &o); err != nil {
			return err
		}
		return o.check()
	case "audit":
		var o auditOptions
		return readOptions(options, &o)
	case "notification":
		if mode != hook.Observational {
			return fmt.Errorf("%w: notification is observational by nature: set mode observational", ErrOptions)
		}
		var o notifyOptions
		if err := readOptions(options, &o); err != nil {
			return err
		}
		return o.check()
	}
	return fmt.Errorf("%w %q: use one of %v", ErrUnknown, name, Names)
}

func readOptions(b jsontext.Value, v any) error {
	if len(b) == 0 {
		return nil
	}
	if err := json.Unmarshal(b, v, json.RejectUnknownMembers(true)); err != nil {
		return fmt.Errorf("%w: %v", ErrOptions, err)
	}
	return nil
}

// CheckUntrusted says why a builtin with these options may not run for a
// project or plugin hook, nil when it may: such a hook's builtin touches
// nothing outside hook-exec's own state (a notification only to the error
// output), and its message has no loop an attack needs
// (checkUntrustedMessage).
func CheckUntrusted(name string, options jsontext.Value) error {
	if name != "notification" {
		return nil
	}
	var o notifyOptions
	if err := readOptions(options, &o); err != nil {
		return err
	}
	if o.To != "" && o.To != "stderr" {
		return fmt.Errorf("%w: a notification may only go to the error output: a file or a webhook would be written or reached from the host, outside the isolated backend", ErrUntrusted)
	}
	if err := checkUntrustedMessage(o.Message); err != nil {
		return fmt.Errorf("%w: message: %v", ErrUntrusted, err)
	}
	return nil
}

// Run runs a builtin on an event (checked before: hook.ParseEvent).
func Run(ctx context.Context, name string, options jsontext.Value, event []byte, env Env) (*hook.Decision, error) {
	var ev eventView
	if err := json.Unmarshal(event, &ev); err != nil {
		return nil, fmt.Errorf("event: %w", err)
	}
	switch name {
	case "forbidden-path":
		var o forbiddenOptions
		if err := readOptions(options, &o); err != nil {
			return nil, err
		}
		return forbiddenPath(&ev, o)
	case "secret-scan":
		var o scanOptions
		if err := readOptions(options, &o); err != nil {
			return nil, err
		}
		return secretScan(&ev, o)
	case "audit":
		var o auditOptions
		if err := readOptions(options, &o); err != nil {
			return nil, err
		}
		return audit(&ev, event, o, env)
	case "notification":
		var o notifyOptions
		if err := readOptions(options, &o); err != nil {
			return nil, err
		}
		return notify(ctx, &ev, o, env)
	}
	return nil, fmt.Errorf("%w %q", ErrUnknown, name)
}

// eventView is what builtins read of an event of the default dialect.
type eventView struct {
	EventID   string                    `json:"event_id"`
	Point     string                    `json:"point"`
	SessionID string                    `json:"session_id"`
	Workspace string                    `json:"workspace"`
	Data      map[string]jsontext.Value `json:"data"`
}

func allow() *hook.Decision { return &hook.Decision{SchemaVersion: 1, Action: hook.Allow} }
