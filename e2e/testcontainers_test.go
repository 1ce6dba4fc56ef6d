package e2e

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/hookexectest"
	"github.com/hookexec/hook-exec/hookexectest/tcsandbox"
	"github.com/hookexec/hook-exec/launcher"
	"github.com/hookexec/hook-exec/sandbox"
)

// TestPluginAuthorSuite is written as a plugin author would write it: a
// testcontainers-go container hardened like a hook sandbox, and the
// author's guard script run through hook-exec itself.
func TestPluginAuthorSuite(t *testing.T) {
	t.Parallel()
	_, refs := engine(t)
	ctx := context.Background()

	probe := `printf 'uid=%s ' "$(id -u)"
if (echo x >/probe) 2>/dev/null; then printf 'root=rw '; else printf 'root=ro '; fi
if [ "$(wc -l </proc/net/route)" -gt 1 ]; then printf 'net=yes '; else printf 'net=none '; fi
grep CapEff /proc/self/status`
	ctr, err := testcontainers.Run(ctx, refs[launcher.Shell],
		testcontainers.WithCmd("sh", "-c", probe),
		tcsandbox.Customize(),
		testcontainers.WithWaitStrategy(wait.ForExit()),
	)
	testcontainers.CleanupContainer(t, ctr)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := ctr.Logs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	logs, _ := io.ReadAll(rc)
	rc.Close()
	out := string(logs)
	for _, want := range []string{"uid=65534 root=ro net=none", "CapEff:\t0000000000000000"} {
		if !strings.Contains(out, want) {
			t.Errorf("the container is not hardened: logs %q lack %q", out, want)
		}
	}
	labels, err := ctr.Inspect(ctx)
	if err != nil {
		t.Fatalf("inspect: %v", err)
	}
	if got := labels.Config.Labels[sandbox.LabelManaged]; got != "true" {
		t.Errorf("label %s = %q, want %q", sandbox.LabelManaged, got, "true")
	}

	deny := hookexectest.RunHook(t, "testdata/guard.sh", toolEvent("rm -rf /"))
	allow := hookexectest.RunHook(t, "testdata/guard.sh", toolEvent("ls"))
	if deny.Decision.Action != hook.Deny {
		t.Errorf("guard on rm -rf: action = %q, want %q", deny.Decision.Action, hook.Deny)
	}
	if deny.Decision.Reason != "recursive rm" {
		t.Errorf("guard on rm -rf: reason = %q, want %q", deny.Decision.Reason, "recursive rm")
	}
	if allow.Decision.Action != hook.Allow {
		t.Errorf("guard on ls: action = %q, want %q", allow.Decision.Action, hook.Allow)
	}
	obs := hookexectest.RunHook(t, "testdata/guard.sh", toolEvent("ls"), func(h *hook.Hook) { h.Mode = hook.Observational })
	if !obs.Async {
		t.Error("observational run: async = false, want true")
	}
	if obs.Trace.FinalAction != hook.Allow {
		t.Errorf("observational run: final action = %q, want %q", obs.Trace.FinalAction, hook.Allow)
	}
	if obs.Trace.ExitCode == nil {
		t.Error("observational run: exit code = nil, want the script's")
	}
}
