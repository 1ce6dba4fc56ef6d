package scriptpin

import (
	"errors"
	"testing"

	"github.com/hookexec/hook-exec/launcher"
)

func TestCheckShebang(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		want       launcher.Lang
		err        error
	}{
		{"guard", "#!/bin/bash\nexit 0\n", launcher.Shell, nil},
		{"guard", "#!/usr/bin/env python3\nprint()\n", launcher.Python, nil},
		{"guard.sh", "echo no shebang needed\n", launcher.Shell, nil},
		{"guard", "#!/usr/bin/env node\n", launcher.Node, nil},
		{"guard.mjs", "import fs from 'node:fs'\n", launcher.Node, nil},
		{"guard.cjs", "#!/usr/bin/env node\r\nrequire('fs')\r\n", launcher.Node, nil},
		{"guard", "#!/usr/bin/env ruby\n", "", ErrExtension},
		// No #! line: the host's shell runs it (run-hook.cmd polyglots).
		{"run-hook.cmd", ": << 'CMDBLOCK'\n@echo off\nCMDBLOCK\nexec bash \"$0.sh\"\n", launcher.Shell, nil},
		{"guard", "", "", ErrExtension},
		{"guard", "#!/bin/sh\r\nexit 0\r\n", "", ErrCRLF},
		{"guard.js", "#!/bin/sh\nexit 0\n", launcher.Shell, nil},
	}
	for _, tc := range tests {
		got, err := CheckShebang(tc.name, []byte(tc.body))
		if !errors.Is(err, tc.err) || got != tc.want {
			t.Errorf("%s %q: %q %v, want %q %v", tc.name, tc.body, got, err, tc.want, tc.err)
		}
	}
}

// A file's first line decides how it runs: it must answer for any bytes.
func FuzzCheckShebang(f *testing.F) {
	f.Add("guard", []byte("#!/usr/bin/env bash\n"))
	f.Add("g.py", []byte("#!/bin/sh\n"))
	f.Fuzz(func(t *testing.T, name string, b []byte) {
		lang, err := CheckShebang(name, b)
		if err == nil && lang != launcher.Shell && lang != launcher.Python && lang != launcher.Node {
			t.Fatalf("language %q", lang)
		}
	})
}
