package hook

import (
	"fmt"
	"slices"
	"strings"
)

// Points are Holaryn's hook points (schema version 1), in the order a
// session meets them. A normal tool call reaches tool.before and then its
// more specific file or command boundary.
var Points = []string{
	"session.start",
	"prompt.before",
	"tool.before",
	"file.before_write",
	"command.before",
	"tool.after",
	"file.after_write",
	"command.after",
	"approval.requested",
	"integration.before",
	"integration.after",
	"run.completed",
	"session.end",
}

// CheckPoint refuses a point outside the vocabulary.
func CheckPoint(p string) error {
	if !slices.Contains(Points, p) {
		return fmt.Errorf("%w: unknown hook point %q: use one of %s", ErrInvalid, p, strings.Join(Points, ", "))
	}
	return nil
}
