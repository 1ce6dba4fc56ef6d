package hostcall

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
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
		{env: map[string]string{"XDG_RUNTIME_DIR": "relative", "HOME": "/h"}, want: "/tmp/hook-exec-" + strconv.Itoa(os.Getuid()) + "/server.sock"},
		// One per user, whatever the state directory.
		{env: map[string]string{"HOOKEXEC_STATE_DIR": "/st", "HOME": "/h"}, want: "/tmp/hook-exec-" + strconv.Itoa(os.Getuid()) + "/server.sock"},
		// Not $TMPDIR, which a sealed command does not see.
		{env: map[string]string{"XDG_STATE_HOME": "/xs", "TMPDIR": "/t"}, want: "/tmp/hook-exec-" + strconv.Itoa(os.Getuid()) + "/server.sock"},
	}
	for _, tc := range tests {
		got, named, err := Socket(func(k string) string { return tc.env[k] })
		if got != tc.want || named != tc.named || (err != nil) != tc.err {
			t.Errorf("%v: %q, named %v, err %v; want %q, named %v, err %v", tc.env, got, named, err, tc.want, tc.named, tc.err)
		}
	}
}

// A host writes its event and closes stdin: the event and its end go in
// one answer to the server's first ask, not two.
func TestEventAndEndInOneAnswer(t *testing.T) {
	defer func(g time.Duration) { eofGrace = g }(eofGrace)
	eofGrace = time.Minute // the end is there at once; never waited for here
	sock := filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	chunks := make(chan []string, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		r := bufio.NewReader(conn)
		r.ReadBytes('\n') // the command
		var got []string
		for {
			conn.Write([]byte(`{"read":{"max":65536}}` + "\n"))
			line, err := r.ReadBytes('\n')
			if err != nil {
				break
			}
			got = append(got, string(bytes.TrimSpace(line)))
			if bytes.Contains(line, []byte(`"eof":true`)) {
				break
			}
		}
		chunks <- got
		conn.Write([]byte(`{"result":{"exit":0}}` + "\n"))
	}()
	if _, err := Call(sock, Command{Cwd: "/"}, strings.NewReader(`{"event":1}`), io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	want := `{"data":"eyJldmVudCI6MX0=","eof":true}`
	if got := <-chunks; len(got) != 1 || got[0] != want {
		t.Errorf("answers %q, want one: %s", got, want)
	}
}
