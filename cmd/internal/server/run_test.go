package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hookexec/hook-exec/backend/engine"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/serve"
)

func TestRun(t *testing.T) {
	t.Parallel()
	sock := filepath.Join(t.TempDir(), "run", "run.sock")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{Socket: sock, Engine: engine.Options{Backend: "local"}, Pool: 0, DrainTimeout: 5 * time.Second})
	}()
	var c *serve.Client
	for deadline := time.Now().Add(10 * time.Second); c == nil; time.Sleep(20 * time.Millisecond) {
		c, _ = serve.Dial(context.Background(), sock)
		if c == nil && time.Now().After(deadline) {
			t.Fatal("Run never listened")
		}
	}
	defer c.Close()
	allow := script(t, `echo '{"schema_version":1,"action":"allow"}'`+"\n")
	resp, err := c.Run(context.Background(), serve.Request{Script: allow, Scope: "owner", Event: json.RawMessage(event)})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(resp.Decision), `{"schema_version":1,"action":"allow"}`; got != want {
		t.Errorf("decision %s, want %s", got, want)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return once its context was done")
	}
	if _, err := os.Lstat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the socket is still there after Run: %v", err)
	}
}

func TestRunRefusesANonSocket(t *testing.T) {
	t.Parallel()
	path := filepath.Join(privateTempDir(t), "file")
	os.WriteFile(path, nil, 0o600)
	if err := Run(context.Background(), Options{Socket: path, Engine: engine.Options{Backend: "local"}}); !errors.Is(err, serve.ErrNotSocket) {
		t.Errorf("Run on a regular file: %v, want serve.ErrNotSocket", err)
	}
}

// A pool is not ready before its warm-up, and stays ready while it refills
// after serving runs.
func TestPoolsReady(t *testing.T) {
	t.Parallel()
	if err := poolsReady([]executor.PoolStats{{Image: "i", Target: 2}}); err == nil {
		t.Error("a pool warming up is ready")
	}
	if err := poolsReady([]executor.PoolStats{{Image: "i", Target: 2, Warmed: true}}); err != nil {
		t.Errorf("a pool refilling after its runs: %v", err)
	}
	if err := poolsReady([]executor.PoolStats{{Image: "i", Target: 2, Ready: 1}, {Image: "j"}}); err != nil {
		t.Errorf("a pool with a sandbox ready: %v", err)
	}
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

func privateTempDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "private")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

// lockedBuffer is a log a server writes while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
