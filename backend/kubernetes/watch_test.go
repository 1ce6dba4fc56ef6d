package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/hookexec/hook-exec/backend"
)

// fakeAPI is an API server of a test's own (httptest) for one pod: a GET
// of the pod answers what get says; each watch streams the next batch of
// events, then stays open until the client goes.
type fakeAPI struct {
	mu      sync.Mutex
	get     func() (status int, body string)
	batches [][]string // each watch's events, JSON
	watches int
	gets    int
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/api/v1/namespaces/hookexec/pods" && r.URL.Path != "/api/v1/namespaces/hookexec/pods/p" {
		http.NotFound(w, r)
		return
	}
	f.mu.Lock()
	if r.URL.Query().Get("watch") != "true" {
		f.gets++
		status, body := f.get()
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprint(w, body)
		return
	}
	var events []string
	if f.watches < len(f.batches) {
		events = f.batches[f.watches]
	}
	f.watches++
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	for _, e := range events {
		fmt.Fprintln(w, e)
		w.(http.Flusher).Flush()
	}
	if len(events) > 0 && strings.Contains(events[len(events)-1], `"ERROR"`) {
		return // the server ends a watch after its error
	}
	<-r.Context().Done()
}

// pod is the pod's JSON at resource version rv with its container in
// state (a containerStatuses state object), and the pod's own status
// members (reason ...).
func pod(rv, state, podStatus string) string {
	if podStatus != "" {
		podStatus += ","
	}
	return fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","resourceVersion":%q},"spec":{"containers":[{"name":%q,"image":"img"}]},"status":{%s"containerStatuses":[{"name":%q,"image":"img","imageID":"","ready":false,"restartCount":0,"state":%s}]}}`,
		rv, containerName, podStatus, containerName, state)
}

func event(typ, object string) string { return fmt.Sprintf(`{"type":%q,"object":%s}`, typ, object) }

const (
	running      = `{"running":{}}`
	forbiddenGet = `{"apiVersion":"v1","kind":"Status","status":"Failure","reason":"Forbidden","code":403,"message":"pods \"p\" is forbidden"}`
	notFound     = `{"apiVersion":"v1","kind":"Status","status":"Failure","reason":"NotFound","code":404,"message":"pods \"p\" not found"}`
	tooOld       = `{"apiVersion":"v1","kind":"Status","status":"Failure","reason":"Expired","code":410,"message":"too old resource version"}`
)

func terminated(code int, reason string) string {
	return fmt.Sprintf(`{"terminated":{"exitCode":%d,"reason":%q}}`, code, reason)
}

// watched starts the watch of pod p against f, from resource version rv
// ("": from a GET); killed says hook-exec's kill deleted it.
func watched(t *testing.T, f *fakeAPI, rv string, killed bool) *startedPod {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	cfg := &rest.Config{Host: srv.URL}
	a, err := newAPI(cfg)
	if err != nil {
		t.Fatal(err)
	}
	life, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	p := &startedPod{b: &Backend{api: a, cfg: cfg, o: Options{Namespace: "hookexec"}}, name: "p", life: life, cancel: cancel,
		exited: make(chan backend.Exit, 1), running: make(chan struct{}), failed: make(chan struct{}), killed: killed}
	go p.watch(rv)
	return p
}

// exitOf waits for the watch's exit (the test's deadline bounds it).
func exitOf(t *testing.T, p *startedPod) backend.Exit {
	t.Helper()
	select {
	case e := <-p.exited:
		return e
	case <-time.After(30 * time.Second):
		t.Fatal("the watch reported no exit")
		return backend.Exit{}
	}
}

// The watch state machine against an API server: the container's exit
// through the events, an OOM kill, a deletion (hook-exec's kill, or
// someone else's), a watch that ends in an error (read again from a GET),
// the API refusing to let hook-exec follow its pod, an image that cannot
// be pulled, and the backstop deadline.
func TestWatch(t *testing.T) {
	t.Parallel()
	t.Run("runs, then exits", func(t *testing.T) {
		t.Parallel()
		f := &fakeAPI{batches: [][]string{{event("MODIFIED", pod("6", running, "")), event("MODIFIED", pod("7", terminated(3, "Error"), ""))}}}
		p := watched(t, f, "5", false)
		if e := exitOf(t, p); e.Err != nil || e.Code != 3 {
			t.Errorf("exit %+v, want code 3", e)
		}
		select {
		case <-p.running:
		default:
			t.Error("running not closed")
		}
	})
	t.Run("oom", func(t *testing.T) {
		t.Parallel()
		f := &fakeAPI{batches: [][]string{{event("MODIFIED", pod("6", terminated(137, "OOMKilled"), ""))}}}
		p := watched(t, f, "5", false)
		if e := exitOf(t, p); e.Code != 137 {
			t.Errorf("exit %+v, want 137", e)
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if !p.oom {
			t.Error("an OOMKilled container is not the run's OOM")
		}
	})
	t.Run("deleted after the kill", func(t *testing.T) {
		t.Parallel()
		f := &fakeAPI{batches: [][]string{{event("MODIFIED", pod("6", running, "")), event("DELETED", pod("7", running, ""))}}}
		p := watched(t, f, "5", true)
		if e := exitOf(t, p); e.Err != nil || e.Code != backend.KilledExitCode {
			t.Errorf("exit %+v, want the kill's %d", e, backend.KilledExitCode)
		}
	})
	t.Run("deleted by someone else", func(t *testing.T) {
		t.Parallel()
		f := &fakeAPI{batches: [][]string{{event("DELETED", pod("6", running, ""))}}}
		p := watched(t, f, "5", false)
		if e := exitOf(t, p); !errors.Is(e.Err, backend.ErrEngine) || !strings.Contains(e.Err.Error(), "someone else") {
			t.Errorf("exit %+v, want an engine error naming someone else", e)
		}
	})
	t.Run("a watch's error is read again from now", func(t *testing.T) {
		t.Parallel()
		f := &fakeAPI{batches: [][]string{{event("ERROR", tooOld)}}, get: func() (int, string) { return 200, pod("9", terminated(0, "Completed"), "") }}
		p := watched(t, f, "5", false)
		if e := exitOf(t, p); e.Err != nil || e.Code != 0 {
			t.Errorf("exit %+v, want 0 from the GET after the error", e)
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.gets == 0 {
			t.Error("no GET after the watch's error")
		}
	})
	t.Run("gone before the first GET", func(t *testing.T) {
		t.Parallel()
		f := &fakeAPI{get: func() (int, string) { return 404, notFound }}
		p := watched(t, f, "", true)
		if e := exitOf(t, p); e.Code != backend.KilledExitCode {
			t.Errorf("exit %+v, want the kill's", e)
		}
	})
	t.Run("forbidden", func(t *testing.T) {
		t.Parallel()
		f := &fakeAPI{get: func() (int, string) { return 403, forbiddenGet }}
		p := watched(t, f, "", false)
		if e := exitOf(t, p); !errors.Is(e.Err, backend.ErrEngine) {
			t.Errorf("exit %+v, want an engine error at once", e)
		}
		select {
		case <-p.failed:
			if !errors.Is(p.startErr, backend.ErrEngine) {
				t.Errorf("start error %v, want ErrEngine", p.startErr)
			}
		default:
			t.Error("the pod is not failed")
		}
	})
	t.Run("image cannot be pulled", func(t *testing.T) {
		t.Parallel()
		f := &fakeAPI{batches: [][]string{{event("MODIFIED", pod("6", `{"waiting":{"reason":"ErrImageNeverPull","message":"not present"}}`, ""))}}}
		p := watched(t, f, "5", false)
		select {
		case <-p.failed:
			if !errors.Is(p.startErr, backend.ErrImageNotFound) {
				t.Errorf("start error %v, want ErrImageNotFound", p.startErr)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the pod never failed")
		}
	})
	t.Run("the backstop deadline", func(t *testing.T) {
		t.Parallel()
		f := &fakeAPI{batches: [][]string{{event("MODIFIED", pod("6", terminated(137, "Error"), `"reason":"DeadlineExceeded","message":"past its deadline"`))}}}
		p := watched(t, f, "5", false)
		if e := exitOf(t, p); !errors.Is(e.Err, backend.ErrEngine) || !strings.Contains(e.Err.Error(), "activeDeadlineSeconds") {
			t.Errorf("exit %+v, want the deadline's engine error", e)
		}
	})
}
