package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookexec/hook-exec/hook"
)

// TestDispatchWebhookSpecialPurposeRefused: `hook-exec dispatch` with one
// webhook hook per special-purpose destination (issue 31), run in a
// network namespace of its own with no route (unshare -n), so nothing it
// dials can leave the machine. Each is a webhook_error naming the address
// class that refused it; the public controls pass the guard and fail only
// at the connection, which shows the namespace had no route.
func TestDispatchWebhookSpecialPurposeRefused(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("e2e: builds and runs the CLI; skipped with -short")
	}
	if out, err := exec.Command("unshare", "-n", "true").CombinedOutput(); err != nil {
		t.Skipf("unshare -n is not available here (%v: %s): the test needs a namespace with no route", err, out)
	}
	const refused = "webhook destination refused"
	cases := []struct {
		host  string
		wants []string // in the failure's message; nil: a public control
	}{
		{"[64:ff9b::a9fe:a9fe]", []string{"embeds 169.254.169.254", "IPv4-IPv6 Translation", "Link Local"}},
		{"[2002:a9fe:a9fe::1]", []string{"embeds 169.254.169.254", "6to4", "Link Local"}},
		{"[::a9fe:a9fe]", []string{"embeds 169.254.169.254", "IPv4-compatible", "Link Local"}},
		{"[2001:0:a9fe:a9fe::1]", []string{"embeds 169.254.169.254", "TEREDO", "Link Local"}},
		{"[64:ff9b:1::a00:1]", []string{"IPv4-IPv6 Translation (local-use)", "RFC 8215"}},
		{"198.18.0.1", []string{"Benchmarking", "RFC 2544"}},
		{"0.1.2.3", []string{"This network", "0.0.0.0/8"}},
		{"240.0.0.1", []string{"Reserved", "240.0.0.0/4"}},
		{"192.0.0.170", []string{"NAT64/DNS64 Discovery"}},
		{"[fec0::1]", []string{"Site-Local (deprecated)", "RFC 3879"}},
		{"93.184.216.34", nil},
		{"[2606:4700::1111]", nil},
	}
	var defs []string
	for i, c := range cases {
		defs = append(defs, fmt.Sprintf(`{"schema_version":1,"id":"wh%d","point":"tool.before","scope":"session","order":%d,"failure_policy":"continue","handler":{"kind":"webhook","url":"https://%s/h"}}`, i, i, c.host))
	}
	session := filepath.Join(t.TempDir(), "session.json")
	if err := os.WriteFile(session, []byte("["+strings.Join(defs, ",")+"]"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("unshare", "-n", cli(t), "dispatch", "tool.before", "--backend", "local",
		"--session-hooks", session, "--state-dir", t.TempDir())
	cmd.Stdin = bytes.NewReader(writeEventFor("/w", "sess_special", "a.md"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("dispatch: %v (stdout %q, stderr %q)", err, stdout.String(), stderr.String())
	}
	var out dispatchOut
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("dispatch stdout is not a result: %q (stderr %q)", stdout.String(), stderr.String())
	}
	traces := map[string]hook.Trace{}
	for _, tr := range out.Traces {
		traces[tr.HookID] = tr
	}
	for i, c := range cases {
		tr, ok := traces[fmt.Sprintf("wh%d", i)]
		if !ok {
			t.Errorf("%s: no trace (traces %+v)", c.host, out.Traces)
			continue
		}
		f := tr.Failure
		if f == nil || f.Kind != hook.FailWebhook {
			t.Errorf("%s: failure %+v, want %s", c.host, f, hook.FailWebhook)
			continue
		}
		addr := strings.Trim(c.host, "[]")
		if c.wants == nil {
			// The kernel answers at once in a namespace without a
			// route: ENETUNREACH (IPv4), EADDRNOTAVAIL (IPv6).
			if strings.Contains(f.Message, refused) || !strings.Contains(f.Message, "dial tcp "+c.host+":443: connect:") {
				t.Errorf("public %s: %q, want past the guard and refused by the namespace's kernel", addr, f.Message)
			}
			continue
		}
		var lacks []string
		for _, w := range append([]string{refused, addr}, c.wants...) {
			if !strings.Contains(f.Message, w) {
				lacks = append(lacks, w)
			}
		}
		if len(lacks) > 0 {
			t.Errorf("%s: %q lacks %q", addr, f.Message, lacks)
		}
	}
}
