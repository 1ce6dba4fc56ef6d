package e2e

import (
	"bytes"
	"context"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/launcher"
)

// trivial hooks: read the event, allow.
var trivial = map[launcher.Lang]struct{ script, baseline string }{
	launcher.Shell: {
		script:   "cat >/dev/null\n" + shAllow + "\n",
		baseline: `cat >/dev/null; printf '{"schema_version":1,"action":"allow"}\n'`,
	},
	launcher.Python: {
		script:   "import sys\nsys.stdin.read()\n" + pyAllow + "\n",
		baseline: "import sys\nsys.stdin.read()\n" + pyAllow,
	},
}

// BenchmarkTrivialHook runs a trivial hook end to end through hook-exec,
// cold on Docker and cold on containerd, interleaved with the naive host's
// baseline, `docker run --rm -i --network none` on the same image, and
// reports the medians, p90s and each path's ratio to the baseline.
func BenchmarkTrivialHook(b *testing.B) {
	engs := engines(b)
	refs := engs[0].refs
	exs := []*executor.Executor{newExecutor(b, engs[0].b, engs[0].refs), newExecutor(b, engs[1].b, engs[1].refs)}
	for _, lang := range []launcher.Lang{launcher.Shell, launcher.Python} {
		b.Run(string(lang), func(b *testing.B) {
			tc := trivial[lang]
			h := writeScript(b, lang, tc.script)
			event := toolEvent("ls")
			argv := []string{"run", "--rm", "-i", "--network", "none", "--entrypoint", "sh", refs[lang], "-c", tc.baseline}
			if lang == launcher.Python {
				argv = []string{"run", "--rm", "-i", "--network", "none", "--entrypoint", "python", refs[lang], "-c", tc.baseline}
			}
			var base []time.Duration
			paths := make([][]time.Duration, len(exs))
			b.ResetTimer()
			for range b.N {
				start := time.Now()
				cmd := exec.Command("docker", argv...)
				cmd.Stdin = bytes.NewReader(event)
				out, err := cmd.Output()
				if err != nil {
					b.Fatalf("baseline: %v", err)
				}
				if !bytes.Contains(out, []byte(`"allow"`)) {
					b.Fatalf("baseline: output %q lacks %q", out, `"allow"`)
				}
				base = append(base, time.Since(start))

				for i, ex := range exs {
					start = time.Now()
					r, err := ex.Run(context.Background(), h, event)
					if err != nil {
						b.Fatalf("hook-exec on %s: %v", engs[i].name, err)
					}
					if r.Decision.Action != hook.Allow {
						b.Fatalf("hook-exec on %s: action = %q, want %q", engs[i].name, r.Decision.Action, hook.Allow)
					}
					if r.Trace.Failure != nil {
						b.Fatalf("hook-exec on %s: failure = %+v, want none", engs[i].name, r.Trace.Failure)
					}
					paths[i] = append(paths[i], time.Since(start))
				}
			}
			b.StopTimer()
			b.ReportMetric(ms(pct(base, 50)), "baseline-p50-ms")
			b.ReportMetric(ms(pct(base, 90)), "baseline-p90-ms")
			for i, d := range paths {
				n := engs[i].name
				b.ReportMetric(ms(pct(d, 50)), n+"-p50-ms")
				b.ReportMetric(ms(pct(d, 90)), n+"-p90-ms")
				b.ReportMetric(ms(pct(d, 50))/ms(pct(base, 50)), n+"-ratio-p50")
				b.ReportMetric(ms(pct(d, 90))/ms(pct(base, 90)), n+"-ratio-p90")
			}
		})
	}
}

func pct(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	i := (len(s) - 1) * p / 100
	return s[i]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
