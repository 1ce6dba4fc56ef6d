package e2e

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// freeAddr is a loopback address no listener holds now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// scrapeMetrics reads the samples of /metrics: name{labels} -> value.
func scrapeMetrics(t *testing.T, addr string) map[string]float64 {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	out := map[string]float64{}
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("a sample that does not read: %q", line)
		}
		out[line[:i]] = v
	}
	return out
}

// A real server's /metrics during a mixed run on each engine: the counters
// moved by exactly the runs made, by action and failure kind, the phase
// histograms counted each run, and the pool is back to its size after.
func TestServerMetrics(t *testing.T) {
	t.Parallel()
	for _, eng := range engines(t) {
		t.Run(eng.name, func(t *testing.T) {
			t.Parallel()
			addr := freeAddr(t)
			s := startServer(t, eng, "--metrics-addr", addr)
			dir := t.TempDir()
			write := func(name, body string) string {
				p := filepath.Join(dir, name)
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
				return p
			}
			guard := write("guard.sh", "case $(cat) in *'rm -rf'*) echo '{\"schema_version\":1,\"action\":\"deny\",\"reason\":\"no rm\"}';; *) echo '{\"schema_version\":1,\"action\":\"allow\"}';; esac\n")
			crash := write("crash.sh", "cat >/dev/null; echo boom >&2; exit 3\n")
			runs := []struct {
				script string
				event  []byte
				code   int
			}{
				{guard, toolEvent("ls"), 0}, {guard, toolEvent("ls -l"), 0}, {guard, toolEvent("pwd"), 0},
				{guard, toolEvent("rm -rf /"), 2}, {guard, toolEvent("rm -rf ~"), 2},
				{crash, toolEvent("ls"), 2},
			}
			for i, r := range runs {
				got := s.run(t, r.event, "run", "--script", r.script)
				if got.code != r.code {
					t.Fatalf("run %d: exit %d, want %d: %s", i, got.code, r.code, got.stderr)
				}
			}
			m := scrapeMetrics(t, addr)
			series := func(name string, labels ...string) string {
				var kv []string
				for i := 0; i < len(labels); i += 2 {
					kv = append(kv, fmt.Sprintf("%s=%q", labels[i], labels[i+1]))
				}
				return name + "{" + strings.Join(kv, ",") + "}"
			}
			want := map[string]float64{
				series("hookexec_runs_total", "action", "allow", "backend", eng.name, "dialect", "holaryn", "point", "tool.before"): 3,
				series("hookexec_runs_total", "action", "deny", "backend", eng.name, "dialect", "holaryn", "point", "tool.before"):  3,
				series("hookexec_run_failures_total", "backend", eng.name, "kind", "exit_nonzero"):                                  1,
				series("hookexec_run_duration_seconds_count", "backend", eng.name):                                                  6,
				series("hookexec_run_phase_seconds_count", "backend", eng.name, "phase", "stream"):                                  6,
				series("hookexec_server_requests_total", "kind", "command", "outcome", "ok"):                                        6,
			}
			for k, v := range want {
				if m[k] != v {
					t.Errorf("%s = %v, want %v", k, m[k], v)
				}
			}
			if pooled := m[series("hookexec_runs_pooled_total", "backend", eng.name)]; pooled < 1 {
				t.Errorf("no run took a pooled sandbox (%v)", pooled)
			}
			// The pool refills after its runs: ready comes back to its target
			// (bounded by the runs' own durations, measured above).
			bound := time.Now().Add(time.Duration(6*m[series("hookexec_run_duration_seconds_sum", "backend", eng.name)]*float64(time.Second)) + 30*time.Second)
			for {
				m = scrapeMetrics(t, addr)
				ready, target := 0.0, 0.0
				for k, v := range m {
					switch {
					case strings.HasPrefix(k, "hookexec_pool_ready_sandboxes{"):
						ready += v
					case strings.HasPrefix(k, "hookexec_pool_target_sandboxes{"):
						target += v
					}
				}
				// Nothing else is held once the runs are over: the sandboxes
				// alive are the pool's.
				if target >= 2 && ready == target && m[series("hookexec_sandboxes", "backend", eng.name)] == ready {
					break
				}
				if time.Now().After(bound) {
					t.Fatalf("the pool has %v of %v sandboxes ready after its runs, the server holds %v", ready, target, m[series("hookexec_sandboxes", "backend", eng.name)])
				}
				time.Sleep(100 * time.Millisecond)
			}
			resp, err := http.Get("http://" + addr + "/readyz")
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Errorf("/readyz with the engine up and the pool warm: %v %v", resp, err)
			}
			// server status says the same of its pools and admission.
			st := hookExec(t, nil, nil, "server", "status", "--server", s.sock)
			if st.code != 0 || !strings.Contains(st.stdout, "admission  limit ") || !regexp.MustCompile(`(?m)^warm +\S+: (\d+) of (\d+) ready`).MatchString(st.stdout) {
				t.Errorf("server status: exit %d:\n%s", st.code, st.stdout)
			}
		})
	}
}
