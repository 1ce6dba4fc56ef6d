package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// version describes this binary: the module version, the commit it was
// built from (the vcs settings `go build` records) and the Go toolchain.
func version() string {
	v, commit, when := "(devel)", "unknown", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			v = bi.Main.Version
		}
		modified := false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if modified {
			commit += " (modified)"
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "hook-exec:\n")
	fmt.Fprintf(&b, " Version:     %s\n", v)
	fmt.Fprintf(&b, " Git commit:  %s\n", commit)
	if when != "" {
		fmt.Fprintf(&b, " Commit time: %s\n", when)
	}
	fmt.Fprintf(&b, " Go version:  %s\n", runtime.Version())
	fmt.Fprintf(&b, " OS/Arch:     %s/%s\n", runtime.GOOS, runtime.GOARCH)
	return b.String()
}

func newVersionCmd(io stdio) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and Go version of this binary",
		Long:  "Print hook-exec's module version, the commit it was built from and the Go toolchain that built it. 'hook-exec -v' and 'hook-exec --version' print the same.",
		Example: `  hook-exec version
  hook-exec -v`,
		Args:        noArgs,
		Annotations: map[string]string{annotEnv: envNone, annotExit: "  0    always\n  64   usage error"},
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprint(io.out, version())
			return err
		},
	}
}
