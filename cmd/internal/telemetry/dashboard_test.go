package telemetry

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookexec/hook-exec/hook"
)

// exported is every metric name the server exports (a histogram's series
// each): those a run counted, and those read at each scrape.
func exported(t *testing.T) map[string]bool {
	t.Helper()
	m := New(func() Source { return Source{Backend: "docker"} })
	m.Observe(hook.Trace{Backend: "docker", FinalAction: hook.Deny, Failure: &hook.Failure{Kind: hook.FailTimeout}, Phases: &hook.Phases{}, Pooled: true, Reused: true})
	m.Request("run", "ok")
	fams, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range fams {
		n := f.GetName()
		names[n] = true
		if f.GetType().String() == "HISTOGRAM" {
			names[n+"_bucket"], names[n+"_sum"], names[n+"_count"] = true, true, true
		}
	}
	descs := make(chan *prometheus.Desc, 32)
	(&state{}).Describe(descs)
	close(descs)
	fq := regexp.MustCompile(`fqName: "([a-z_]+)"`)
	for d := range descs {
		names[fq.FindStringSubmatch(d.String())[1]] = true
	}
	return names
}

// Every query of the dashboard under docs/ names metrics the server
// exports, and it has a panel for each family of ours.
func TestDashboardQueriesExportedMetrics(t *testing.T) {
	b, err := os.ReadFile("../../../docs/grafana/hook-exec.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatal(err)
	}
	names := exported(t)
	metric := regexp.MustCompile(`hookexec_[a-z_]+`)
	used := map[string]bool{}
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			found := metric.FindAllString(tg.Expr, -1)
			if len(found) == 0 {
				t.Errorf("panel %q: query %q names no hook-exec metric", p.Title, tg.Expr)
			}
			for _, n := range found {
				if !names[n] {
					t.Errorf("panel %q: query names %s, which the server does not export", p.Title, n)
				}
				used[strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(n, "_bucket"), "_sum"), "_count")] = true
			}
		}
	}
	for n := range names {
		if strings.HasPrefix(n, "hookexec_") && !strings.HasSuffix(n, "_bucket") && !strings.HasSuffix(n, "_sum") && !strings.HasSuffix(n, "_count") && !used[n] {
			t.Errorf("the dashboard shows nothing of %s", n)
		}
	}
}
