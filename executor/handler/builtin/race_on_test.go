//go:build race

package builtin

// raceBuild: the measurements over the Go source tree run in a build
// without the race detector (make test runs them so); they are single
// goroutine, and -race makes them minutes long.
const raceBuild = true
