// Package examples carries the example hook that `hook-exec demo` runs: a
// guard that denies "rm -rf" at tool.before, and two events for it.
package examples

import "embed"

// FS holds guard.sh and events/*.json.
//
//go:embed guard.sh events/*.json
var FS embed.FS
