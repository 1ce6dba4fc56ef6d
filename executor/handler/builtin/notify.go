package builtin

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/hookexec/hook-exec/executor/handler/webhook"
	"github.com/hookexec/hook-exec/hook"
)

type notifyOptions struct {
	// Message is a text/template over the event ({{.point}},
	// {{.data.tool_name}} ...), at most 4 KiB, run under the bounds in
	// message.go; at most 1 KiB is delivered, redacted.
	Message string `json:"message"`
	// To is stderr (the default), file or webhook.
	To   string `json:"to,omitzero"`
	Path string `json:"path,omitzero"` // file: an absolute path
	URL  string `json:"url,omitzero"`  // webhook: under the webhook rules
}

const maxMessage = 1 << 10

func (o notifyOptions) check() error {
	if o.Message == "" {
		return fmt.Errorf("%w: notification needs a message", ErrOptions)
	}
	if _, err := parseMessage(o.Message, &budget{ctx: context.Background()}); err != nil {
		return fmt.Errorf("%w: message: %v", ErrOptions, err)
	}
	switch o.To {
	case "", "stderr":
	case "file":
		if !filepath.IsAbs(o.Path) {
			return fmt.Errorf("%w: a file notification names an absolute path", ErrOptions)
		}
	case "webhook":
		if _, err := webhook.CheckURL(o.URL); err != nil {
			return fmt.Errorf("%w: %v", ErrOptions, err)
		}
	default:
		return fmt.Errorf("%w: to %q: use stderr, file or webhook", ErrOptions, o.To)
	}
	return nil
}

// notify delivers the message and allows.
func notify(ctx context.Context, ev *eventView, o notifyOptions, env Env) (*hook.Decision, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	msg, err := render(ctx, o.Message, ev, maxSteps)
	if err != nil {
		return nil, fmt.Errorf("message: %w", err)
	}
	msg = hook.Redact(strings.TrimSpace(msg))
	switch o.To {
	case "", "stderr":
		if env.Log != nil {
			env.Log.Info("notification", "message", msg, "point", ev.Point, "session", ev.SessionID)
		}
	case "file":
		f, err := os.OpenFile(o.Path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, err
		}
		if _, err := fmt.Fprintln(f, msg); err != nil {
			f.Close()
			return nil, err
		}
		if err := f.Close(); err != nil {
			return nil, err
		}
	case "webhook":
		w := env.Webhook
		w.URL, w.Headers = o.URL, nil
		body, _ := json.Marshal(map[string]string{"message": msg, "point": ev.Point, "event_id": ev.EventID})
		if _, err := webhook.Post(ctx, w, body); err != nil {
			return nil, err
		}
	}
	return allow(), nil
}

// render executes the message over the event, in this goroutine, within
// ctx and steps; what is written past maxMessage stops it and is not
// delivered.
func render(ctx context.Context, message string, ev *eventView, steps int64) (string, error) {
	tmpl, err := parseMessage(message, &budget{ctx: ctx, maxSteps: steps})
	if err != nil {
		return "", err
	}
	var fields map[string]any
	raw, _ := json.Marshal(ev)
	json.Unmarshal(raw, &fields)
	w := &messageWriter{max: maxMessage}
	switch err := tmpl.Execute(w, fields); {
	case errors.Is(err, errMessageFull):
		return strings.ToValidUTF8(string(w.b), ""), nil // cut, maybe in a rune
	case err != nil:
		return "", err
	}
	return string(w.b), nil
}
