package main

import (
	"io"
	"slices"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/hookexec/hook-exec/cmd/internal/termtext"
	"github.com/hookexec/hook-exec/host/registry"
)

// esc is how every string read from a document, a plugin, the state or a
// hook's output reaches the terminal: control, bidi and other invisible
// characters escaped (termtext.Escape), so that what is shown is what runs.
var esc = termtext.Escape

// asIs leaves a string for JSON output, which writeJSON escapes whole.
func asIs(s string) string { return s }

// handlerText is a handler as inspect, list and dry-run show it: its kind,
// then what consent covers. A command's argv is a JSON array: joined by
// spaces, ["a b"] and ["a", "b"] would look the same. A builtin's options
// are its compact JSON. str escapes the other strings (esc for a terminal,
// asIs for JSON output); the JSON parts are escaped either way with
// termtext.EscapeJSON, which keeps their values.
func handlerText(h registry.Handler, str func(string) string) string {
	s := str(h.Kind) + ":"
	switch h.Kind {
	case registry.KindCommand:
		// A []string always marshals; the registry reads documents as UTF-8.
		argv, _ := json.Marshal(h.Command, jsontext.AllowInvalidUTF8(true))
		return s + string(termtext.EscapeJSON(argv))
	case registry.KindBuiltin:
		s += str(h.Builtin)
		if len(h.Options) > 0 {
			opts := slices.Clone(h.Options)
			if opts.Compact() != nil {
				return s + " " + str(string(h.Options)) // shown as it is, never left out
			}
			s += " " + string(termtext.EscapeJSON(opts))
		}
		return s
	case registry.KindScript:
		return s + str(h.Script)
	}
	return s // a webhook's URL can hold a secret: not shown
}

// writeJSON writes one JSON text and a newline, with the runes a terminal
// would act on or hide escaped (termtext.EscapeJSON; the values stay).
func writeJSON(w io.Writer, b []byte) error {
	_, err := w.Write(append(termtext.EscapeJSON(b), '\n'))
	return err
}

// hookText is a definition's handler as handlerText shows it, and the
// loosening it asks for: the workspace read-write.
func hookText(d *registry.Definition, str func(string) string) string {
	s := handlerText(d.Handler, str)
	if d.WorkspaceAccess == registry.ReadWrite {
		s += " (workspace read-write)"
	}
	return s
}
