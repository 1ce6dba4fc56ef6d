package main

import (
	"strings"
	"testing"

	"github.com/hookexec/hook-exec/serve/hostcall"
)

// The front hands every host command to the server (the core's list,
// hostcall.Commands, which the core's own test holds to its commands),
// and no other.
func TestServerForHostCommands(t *testing.T) {
	if !clientSupported {
		t.Skip("no server client on this system")
	}
	const sock = "/run/user/1/hook-exec/server.sock"
	for _, c := range hostcall.Commands {
		args := append(strings.Fields(c), "--server", sock)
		if got, ok := serverFor(args); !ok || got != sock {
			t.Errorf("%q: handed to %q, %v; want %s", c, got, ok, sock)
		}
	}
	for _, c := range []string{"install claude", "images build", "traces", "hook list"} {
		if _, ok := serverFor(append(strings.Fields(c), "--server", sock)); ok {
			t.Errorf("%q handed to the server", c)
		}
	}
}
