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
		hookexectest.Sandbox(),
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
	if !strings.Contains(out, "uid=65534 root=ro net=none") || !strings.Contains(out, "CapEff:\t0000000000000000") {
		t.Fatalf("the container is not hardened: %q", out)
	}
	labels, err := ctr.Inspect(ctx)
	if err != nil || labels.Config.Labels[sandbox.LabelManaged] != "true" {
		t.Fatalf("managed label missing: %v", err)
	}

	deny := hookexectest.RunHook(t, "testdata/guard.sh", toolEvent("rm -rf /"))
	allow := hookexectest.RunHook(t, "testdata/guard.sh", toolEvent("ls"))
	if deny.Decision.Action != hook.DenyAction || deny.Decision.Reason != "recursive rm" || allow.Decision.Action != hook.Allow {
		t.Fatalf("guard: %+v / %+v", deny.Decision, allow.Decision)
	}
	obs := hookexectest.RunHook(t, "testdata/guard.sh", toolEvent("ls"), func(h *hook.Hook) { h.Mode = hook.Observational })
	if !obs.Async || obs.Trace.FinalAction != hook.Allow || obs.Trace.ExitCode == nil {
		t.Fatalf("observational run: %+v", obs)
	}
}
