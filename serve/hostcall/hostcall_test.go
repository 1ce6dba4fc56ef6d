package hostcall

import (
	"testing"

	"github.com/hookexec/hook-exec/internal/tracestore"
)

func TestSocket(t *testing.T) {
	tests := []struct {
		env   map[string]string
		want  string
		named bool
		err   bool
	}{
		{env: map[string]string{"HOOKEXEC_SERVER": "/x/s.sock", "XDG_RUNTIME_DIR": "/run/user/1"}, want: "/x/s.sock", named: true},
		{env: map[string]string{"HOOKEXEC_SERVER": "off", "XDG_RUNTIME_DIR": "/run/user/1"}, want: "", named: true},
		{env: map[string]string{"HOOKEXEC_SERVER": "rel.sock"}, named: true, err: true},
		{env: map[string]string{"XDG_RUNTIME_DIR": "/run/user/1", "HOME": "/h"}, want: "/run/user/1/hook-exec/server.sock"},
		{env: map[string]string{"XDG_RUNTIME_DIR": "relative", "HOME": "/h"}, want: "/h/.local/state/hook-exec/server/server.sock"},
		{env: map[string]string{"HOOKEXEC_STATE_DIR": "/st", "HOME": "/h"}, want: "/st/server/server.sock"},
		{env: map[string]string{"XDG_STATE_HOME": "/xs", "HOME": "/h"}, want: "/xs/hook-exec/server/server.sock"},
		{env: map[string]string{}, err: true},
	}
	for _, tc := range tests {
		got, named, err := Socket(func(k string) string { return tc.env[k] })
		if got != tc.want || named != tc.named || (err != nil) != tc.err {
			t.Errorf("%v: %q, named %v, err %v; want %q, named %v, err %v", tc.env, got, named, err, tc.want, tc.named, tc.err)
		}
	}
}

// StateDir must be the trace store's: a server is started for, and
// found in, the state directory every command uses.
func TestStateDirIsTheTraceStores(t *testing.T) {
	for _, env := range []map[string]string{
		{"HOOKEXEC_STATE_DIR": "/st", "XDG_STATE_HOME": "/xs", "HOME": "/h"},
		{"XDG_STATE_HOME": "/xs", "HOME": "/h"},
		{"HOME": "/h"},
	} {
		for _, k := range []string{"HOOKEXEC_STATE_DIR", "XDG_STATE_HOME", "HOME"} {
			t.Setenv(k, env[k])
		}
		want, err := tracestore.DefaultDir()
		if err != nil {
			t.Fatal(err)
		}
		if got, err := StateDir(func(k string) string { return env[k] }); got != want || err != nil {
			t.Errorf("%v: %q, %v; the trace store's is %q", env, got, err, want)
		}
	}
}
