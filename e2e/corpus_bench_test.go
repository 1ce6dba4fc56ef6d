package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/host/install"
)

// corpusBenchRow is one public hook, installed, as a host feels it.
type corpusBenchRow struct {
	Entry   string  `json:"entry"`
	Case    string  `json:"case"`
	What    string  `json:"what"`
	Runs    int     `json:"runs"`
	HostP50 float64 `json:"host_p50_ms"`
	P50     float64 `json:"installed_p50_ms"`
	P99     float64 `json:"installed_p99_ms"`
	Ratio   float64 `json:"ratio_p50_to_host"`
	// NoTreeP50 is the same installed command without its pinned tree
	// (--script-root): what the tree adds to a call is P50 - NoTreeP50.
	NoTreeP50 float64 `json:"installed_without_tree_p50_ms,omitempty"`
	// Pooled is how many of the server's runs of the hook took a sandbox
	// started ahead, of Served.
	Pooled int `json:"pooled_runs"`
	Served int `json:"served_runs"`
}

// hookIDWord is an installed command's hook id.
var hookIDWord = regexp.MustCompile(`--hook-id '?([^ ']+)'?`)

// scriptRootWords are the words of a script's pinned tree in an
// installed command.
var scriptRootWords = regexp.MustCompile(` --script-root '[^']*' --script-root-sha256 [0-9a-f]+| --script-root [^ ]+ --script-root-sha256 [0-9a-f]+`)

// BenchmarkCorpusInstalled (`make bench`) runs public hooks of the corpus
// as a host runs them once `hook-exec install` rewrote them, through the
// user's server on Docker (pooled: started by the first call, as a
// user's is): a kit whose script sources a lib/ tree
// (pinned whole), a formatter (the edited file writable, its own
// sandbox), a git context hook. Each round runs the host's own command,
// then the installed one (and, for the kit, the installed one without its
// tree), interleaved; it prints medians and ratios to the host's run and
// writes bench/corpus.json. HOOKEXEC_BENCH_RUNS sets the rounds (20).
func BenchmarkCorpusInstalled(b *testing.B) {
	engs := engines(b)
	runs := 20
	if n, err := strconv.Atoi(os.Getenv("HOOKEXEC_BENCH_RUNS")); err == nil && n > 0 {
		runs = n
	}
	// The user's server as installed hooks start it: the first call
	// starts it on the socket install pinned, with the call's own
	// (sealed) environment, and the next calls are handed to it.
	state, home := hostDir(b), hostDir(b)
	sock := filepath.Join(b.TempDir(), "srv", "s.sock")
	b.Cleanup(func() { hookExec(b, nil, nil, "server", "stop", "--server", sock).wantCode(b, 0) })
	picks := []struct{ entry, cse, what string }{
		{"claude-claude-kit", "git-reset-hard-blocked", "a kit with a lib/ tree"},
		{"claude-rocketchat-electron", "post-edit-yml-no-formatter-called", "a formatter (--writable-edited-file)"},
		{"claude-claude-sandbox-template", "sessionstart-branch-context", "a git context hook"},
	}
	type prepared struct {
		row                     corpusBenchRow
		dir                     string
		env                     []string
		host, installed, noTree string
		payload                 []byte
		hostLat, lat, noTreeLat []time.Duration
	}
	var all []*prepared
	for _, pk := range picks {
		p := &prepared{row: corpusBenchRow{Entry: pk.entry, Case: pk.cse, What: pk.what}}
		src := filepath.Join(corpusDir, pk.entry)
		p.dir = filepath.Join(hostDir(b), "project")
		copyTree(b, filepath.Join(src, "project"), p.dir, executables(b, filepath.Join(src, "SOURCE")))
		transcript := filepath.Join(hostDir(b), "transcript.jsonl")
		os.WriteFile(transcript, []byte(`{"type":"user","message":{"role":"user","content":"hello"}}`+"\n"), 0o600)
		var cases []corpusCase
		raw, err := os.ReadFile(filepath.Join(src, "cases.json"))
		if err == nil {
			err = json.Unmarshal(raw, &cases)
		}
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range cases {
			if c.Name == pk.cse {
				p.payload = bytes.ReplaceAll(bytes.ReplaceAll(c.Payload, []byte("$PROJECT"), []byte(p.dir)), []byte("$TRANSCRIPT"), []byte(transcript))
				setFiles(b, p.dir, c.Files)
			}
		}
		if p.payload == nil {
			b.Fatalf("%s has no case %s", pk.entry, pk.cse)
		}
		h := install.Hosts["claude"]
		plan, err := install.Prepare(h, install.Options{Settings: install.Project, ProjectDir: p.dir, Home: home, StateDir: hostDir(b), Front: "/usr/bin/hook-exec"})
		if err != nil {
			b.Fatal(err)
		}
		plan.Close()
		p.env = []string{"HOOKEXEC_BACKEND=" + engs[0].name, "HOOKEXEC_STATE_DIR=" + state, "HOOKEXEC_SERVER=" + sock, "CLAUDE_PROJECT_DIR=" + p.dir, "HOME=" + home}
		hookExec(b, nil, p.env, "install", "claude", "--project", p.dir, "--yes").wantCode(b, 0)
		e, err := hook.ParseEnvelope(h.Dialect, p.payload)
		if err != nil {
			b.Fatal(err)
		}
		for _, f := range plan.Files {
			for _, hk := range f.Hooks {
				if p.host == "" && hk.Event == e.Point && h.Dialect.Host().Matches(hk.Matcher, e) {
					p.host = hk.Command
					p.installed = stringAt(b, readConfig(b, h, f.Path), hk.Pointer)
				}
			}
		}
		if p.host == "" {
			b.Fatalf("%s: no hook selected by %s", pk.entry, pk.cse)
		}
		if scriptRootWords.MatchString(p.installed) {
			p.noTree = scriptRootWords.ReplaceAllString(p.installed, "")
		}
		all = append(all, p)
	}
	timed := func(p *prepared, command string) time.Duration {
		t0 := time.Now()
		r := hostRun(b, p.dir, p.env, command, p.payload)
		took := time.Since(t0)
		if r.code != 0 && r.code != 2 {
			b.Fatalf("%s: %q exit %d: %s%s", p.row.Entry, command, r.code, r.stdout, r.stderr)
		}
		return took
	}
	// Two calls each first: the server's pools grow to the shapes.
	for range 2 {
		for _, p := range all {
			timed(p, p.host)
			timed(p, p.installed)
		}
	}
	// A pause after every call: a pool's refill is not charged to the
	// next one; the tree's and the treeless command take turns first.
	pause := func() { time.Sleep(300 * time.Millisecond) }
	b.ResetTimer()
	for i := range runs {
		for _, p := range all {
			p.hostLat = append(p.hostLat, timed(p, p.host))
			pause()
			if p.noTree != "" && i%2 == 1 {
				p.noTreeLat = append(p.noTreeLat, timed(p, p.noTree))
				pause()
			}
			p.lat = append(p.lat, timed(p, p.installed))
			pause()
			if p.noTree != "" && i%2 == 0 {
				p.noTreeLat = append(p.noTreeLat, timed(p, p.noTree))
				pause()
			}
		}
	}
	b.StopTimer()
	traces := (&testServer{state: state}).traces(b)
	var rows []corpusBenchRow
	fmt.Printf("\n%-32s %-38s %8s %8s %8s %8s %10s %8s\n", "corpus hook, installed", "what", "host ms", "p50 ms", "p99 ms", "vs host", "tree ms", "pooled")
	for _, p := range all {
		r := p.row
		r.Runs, r.HostP50, r.P50, r.P99 = len(p.lat), ms(pct(p.hostLat, 50)), ms(pct(p.lat, 50)), ms(pct(p.lat, 99))
		r.Ratio = r.P50 / r.HostP50
		tree := "-"
		if len(p.noTreeLat) > 0 {
			r.NoTreeP50 = ms(pct(p.noTreeLat, 50))
			tree = fmt.Sprintf("%+.1f", r.P50-r.NoTreeP50)
		}
		if m := hookIDWord.FindStringSubmatch(p.installed); m != nil {
			for _, tr := range traces {
				if tr.HookID == m[1] {
					r.Served++
					if tr.Pooled {
						r.Pooled++
					}
				}
			}
		}
		fmt.Printf("%-32s %-38s %8.1f %8.1f %8.1f %7.1fx %10s %4d/%-3d\n", r.Entry, r.What, r.HostP50, r.P50, r.P99, r.Ratio, tree, r.Pooled, r.Served)
		rows = append(rows, r)
	}
	js, _ := json.MarshalIndent(map[string]any{"rows": rows, "backend": engs[0].name,
		"note": "ratio_p50_to_host = p50 of the installed command (through the user's server, pooled) / p50 of the host's own command, in the same rounds; tree ms = p50 with the pinned tree - p50 of the same command without it"}, "", "  ")
	os.MkdirAll(filepath.Join("..", "bench"), 0o755)
	if err := os.WriteFile(filepath.Join("..", "bench", "corpus.json"), append(js, '\n'), 0o644); err != nil {
		b.Error(err)
	}
}
