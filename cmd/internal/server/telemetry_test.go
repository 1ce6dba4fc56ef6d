package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookexec/hook-exec/backend/engine"
	"github.com/hookexec/hook-exec/serve"
)

// A server with --log-format json --log-level debug and a metrics address:
// one parseable line per run and per request, none holding the event or
// the output; ping answered; the counters moved by exactly the runs made.
func TestRunLogsAndMetrics(t *testing.T) {
	t.Parallel()
	sock := filepath.Join(t.TempDir(), "run", "run.sock")
	var log lockedBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{Socket: sock, Engine: engine.Options{Backend: "local"}, DrainTimeout: 5 * time.Second,
			Log: &log, LogFormat: "json", LogLevel: -4, MetricsAddr: "127.0.0.1:0", StateDir: t.TempDir()})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	var c *serve.Client
	for deadline := time.Now().Add(10 * time.Second); c == nil; time.Sleep(20 * time.Millisecond) {
		c, _ = serve.Dial(context.Background(), sock)
		if c == nil && time.Now().After(deadline) {
			t.Fatalf("Run never listened: %s", log.String())
		}
	}
	defer c.Close()
	const inEvent, inOutput = "EVENT-BYTES-7f3a", "OUTPUT-BYTES-91bc"
	ev := strings.Replace(event, `"data":{}`, `"data":{"cmd":"`+inEvent+`"}`, 1)
	allow := script(t, `cat >/dev/null; echo '{"schema_version":1,"action":"allow","output":{"x":"`+inOutput+`"}}'`+"\n")
	deny := script(t, `cat >/dev/null; echo '{"schema_version":1,"action":"deny","reason":"no"}'`+"\n")
	for _, s := range []string{allow, deny} {
		if _, err := c.Run(context.Background(), serve.Request{Script: s, Scope: "owner", Event: json.RawMessage(ev)}); err != nil {
			t.Fatal(err)
		}
	}
	if resp, err := c.Run(context.Background(), serve.Request{Control: "ping"}); err != nil || !resp.Pong {
		t.Fatalf("ping: %+v, %v", resp, err)
	}
	var addr string
	runs, requests := map[string]int{}, 0
	for _, line := range strings.Split(strings.TrimSpace(log.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("a log line that is not JSON: %q", line)
		}
		if _, ok := rec["time"]; !ok {
			t.Errorf("a line without its time: %q", line)
		}
		if strings.Contains(line, inEvent) || strings.Contains(line, inOutput) {
			t.Errorf("a log line holds the event's or the output's bytes: %q", line)
		}
		switch rec["msg"] {
		case "metrics":
			addr, _ = rec["address"].(string)
		case "run":
			runs[rec["action"].(string)]++
		case "request":
			requests++
		}
	}
	if runs["allow"] != 1 || runs["deny"] != 1 || requests != 3 {
		t.Errorf("logged runs %v and %d requests, want one allow, one deny, and 3 requests:\n%s", runs, requests, log.String())
	}
	if addr == "" {
		t.Fatalf("no metrics address logged:\n%s", log.String())
	}
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`hookexec_runs_total{action="allow",backend="local",dialect="holaryn",point="tool.before"} 1`,
		`hookexec_runs_total{action="deny",backend="local",dialect="holaryn",point="tool.before"} 1`,
		`hookexec_server_requests_total{kind="run",outcome="ok"} 2`,
		`hookexec_server_requests_total{kind="control",outcome="ok"} 1`,
		`hookexec_run_duration_seconds_count{backend="local"} 2`,
	} {
		if !strings.Contains(string(b), want+"\n") {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if resp, err := http.Get("http://" + addr + "/readyz"); err != nil || resp.StatusCode != 200 {
		t.Errorf("/readyz: %v %v", resp, err)
	}
}
