package docker

import (
	"context"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moby/moby/client"
)

// A removal whose connection to a remote engine fails is tried again a
// while (over ssh, one ssh process of many can fail to connect while the
// engine is there): an engine that answers a second later removes the
// sandbox. A local engine that cannot be reached is not waited for
// (e2e TestEngineLostMidRun).
func TestRemoveRetriesAFailedConnection(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens: connections are refused
	b, err := New(client.WithHost("tcp://"+addr), client.WithAPIVersion("1.41"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var removed atomic.Bool
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete && strings.HasSuffix(r.URL.Path, "/containers/hookexec-gone") {
			removed.Store(true)
			w.WriteHeader(http.StatusNoContent)
			return
		}
		w.WriteHeader(http.StatusNotFound)
	})}
	defer srv.Close()
	go func() {
		time.Sleep(time.Second)
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Error(err)
			return
		}
		srv.Serve(l)
	}()
	if err := b.remove(context.Background(), "hookexec-gone"); err != nil {
		t.Fatalf("remove: %v, want the removal once the engine answers", err)
	}
	if !removed.Load() {
		t.Error("the engine was never asked to remove the container")
	}
}

// A local engine that cannot be reached is not waited for: the answer
// does not wait on it, and the next process's sweep removes what is left.
func TestRemoveGivesUpOnALocalEngineGone(t *testing.T) {
	b, err := New(client.WithHost("unix://"+t.TempDir()+"/gone.sock"), client.WithAPIVersion("1.41"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	begin := time.Now()
	err = b.remove(context.Background(), "hookexec-x")
	if !client.IsErrConnectionFailed(err) {
		t.Fatalf("remove: %v, want the failed connection", err)
	}
	if took := time.Since(begin); took >= connectRetry {
		t.Errorf("remove took %v: it waited for a local engine that is gone", took)
	}
}
