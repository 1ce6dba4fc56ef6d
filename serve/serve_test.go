package serve

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookexec/hook-exec/backend/local"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
)

func TestRequestHook(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		req     Request
		wantErr bool
		// want is the hook's fields that are checked, by name.
		want map[string]any
	}{
		{"relative script", Request{Script: "guard.sh"}, true, nil},
		{"unknown dialect", Request{Script: "/p/guard.sh", Dialect: "klingon"}, true, nil},
		{"defaults", Request{Script: "/p/guard.sh"}, false, map[string]any{
			"ID": "guard.sh", "PluginDir": "/p", "Script": "guard.sh", "Dialect": hook.Holaryn,
		}},
		{"every field", Request{Script: "/p/g.py", HookID: "g", Dialect: "arcturn", Scope: "owner", Mode: "observational", FailurePolicy: "warn", Matcher: "bash", TimeoutMS: 1500, Image: "i:1", SHA256: "ab"}, false, map[string]any{
			"ID": "g", "Dialect": hook.Arcturn, "Scope": hook.ScopeOwner, "Mode": hook.Observational,
			"FailurePolicy": hook.PolicyWarn, "Matcher": "bash", "Timeout": 1500 * time.Millisecond, "Image": "i:1", "SHA256": "ab",
		}},
	}
	for _, tc := range tests {
		h, err := tc.req.Hook()
		if tc.wantErr {
			if !errors.Is(err, ErrRequest) {
				t.Errorf("%s: error %v, want ErrRequest", tc.name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		got := map[string]any{
			"ID": h.ID, "PluginDir": h.PluginDir, "Script": h.Script, "Dialect": h.Dialect, "Scope": h.Scope, "Mode": h.Mode,
			"FailurePolicy": h.FailurePolicy, "Matcher": h.Matcher, "Timeout": h.Timeout, "Image": h.Image, "SHA256": h.SHA256,
		}
		for field, want := range tc.want {
			if got[field] != want {
				t.Errorf("%s: %s = %v, want %v", tc.name, field, got[field], want)
			}
		}
	}
}

// server runs a Server on the local backend (owner hooks on the host).
func server(t *testing.T, drain time.Duration) (string, context.CancelFunc, <-chan error) {
	t.Helper()
	return serverLogging(t, drain, nil)
}

// serverLogging is server with the listener's log lines going to log.
func serverLogging(t *testing.T, drain time.Duration, log io.Writer) (string, context.CancelFunc, <-chan error) {
	t.Helper()
	ex, err := executor.New(executor.Options{Backend: local.New()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ex.Shutdown(context.Background()) })
	sock := filepath.Join(t.TempDir(), "run", "s.sock")
	ln, err := Listen(sock, log)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- (&Server{Executor: ex, DrainTimeout: drain}).Serve(ctx, ln) }()
	return sock, cancel, done
}

func dial(t *testing.T, sock string) *Client {
	t.Helper()
	c, err := Dial(context.Background(), sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "h.sh")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const event = `{"schema_version":1,"event_id":"e","timestamp":0,"point":"tool.before","session_id":"s","depth":0,"data":{}}`

func TestClientServer(t *testing.T) {
	t.Parallel()
	sock, stop, done := server(t, 5*time.Second)
	c := dial(t, sock)
	deny := script(t, `echo '{"schema_version":1,"action":"deny","reason":"no"}'`+"\n")
	resp, err := c.Run(context.Background(), Request{Script: deny, Scope: "owner", Event: json.RawMessage(event)})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(resp.Decision), `{"schema_version":1,"action":"deny","reason":"no"}`; got != want {
		t.Errorf("decision %s, want %s", got, want)
	}
	if resp.Trace == nil || resp.Trace.HookID != "h.sh" {
		t.Errorf("trace %+v, want one for hook h.sh", resp.Trace)
	}
	_, err = c.Run(context.Background(), Request{Script: "relative.sh", Event: json.RawMessage(event)})
	if !errors.Is(err, ErrServer) || !strings.Contains(err.Error(), "absolute") {
		t.Errorf("a relative script: error %v, want ErrServer saying absolute", err)
	}
	stop()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return with an idle client connected")
	}
}

func TestDrainIsBounded(t *testing.T) {
	t.Parallel()
	sock, stop, done := server(t, 200*time.Millisecond)
	c := dial(t, sock)
	started := filepath.Join(t.TempDir(), "started")
	slow := script(t, "echo > "+started+"\nsleep 30\n")
	go c.Run(context.Background(), Request{Script: slow, Scope: "owner", TimeoutMS: 60000, Event: json.RawMessage(event)})
	// The run is in flight once the script has written its marker.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(started); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the slow script never started")
		}
	}
	stop()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "drain") {
			t.Errorf("Serve: %v, want a drain error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve waited past its drain timeout")
	}
}

func TestClientDispatch(t *testing.T) {
	t.Parallel()
	sock, stop, _ := server(t, 5*time.Second)
	defer stop()
	c := dial(t, sock)
	deny := script(t, `cat >/dev/null; echo '{"schema_version":1,"action":"deny","reason":"session guard"}'`+"\n")
	doc := `{"schema_version":1,"id":"guard","point":"tool.before","scope":"session","handler":{"kind":"script","script":"h.sh"}}`
	resp, err := c.Run(context.Background(), Request{Point: "tool.before", SessionHooks: json.RawMessage(doc), SessionDir: filepath.Dir(deny), Event: json.RawMessage(event)})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Dispatch == nil {
		t.Fatalf("response %+v has no dispatch result", resp)
	}
	if got := resp.Dispatch.Decision.Action; got != hook.Deny {
		t.Errorf("action = %s, want deny", got)
	}
	if n := len(resp.Dispatch.Traces); n != 1 {
		t.Errorf("%d traces, want 1", n)
	}
	_, err = c.Run(context.Background(), Request{Point: "tool.before", Script: deny, Event: json.RawMessage(event)})
	if !errors.Is(err, ErrServer) || !strings.Contains(err.Error(), "not both") {
		t.Errorf("a script and a point: error %v, want ErrServer saying not both", err)
	}
	_, err = c.Run(context.Background(), Request{Point: "tool.before", SessionHooks: json.RawMessage(`{"schema_version":1,"id":"plugin:x/y"}`), SessionDir: "/", Event: json.RawMessage(event)})
	if !errors.Is(err, ErrServer) || !strings.Contains(err.Error(), "plugin namespace") {
		t.Errorf("a plugin id in session hooks: error %v, want ErrServer naming the plugin namespace", err)
	}
}

func TestRequestReadExactly(t *testing.T) {
	t.Parallel()
	s := &Server{}
	for _, line := range []string{
		`{"script":"/a.sh","Script":"/b.sh","event":{}}`,
		`{"script":"/a.sh","script":"/b.sh","event":{}}`,
		`{"script":"/a.sh","event":{},"unknown":1}`,
	} {
		if r := s.Handle(context.Background(), []byte(line)); !strings.Contains(r.Error, ErrRequest.Error()) {
			t.Errorf("%s: response %+v, want an invalid request", line, r)
		}
	}
}

// privateTempDir returns a new directory Listen accepts (t.TempDir's own is
// 0755).
func privateTempDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "private")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}
