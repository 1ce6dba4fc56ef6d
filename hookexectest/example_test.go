package hookexectest_test

import (
	"context"
	"log"
	"testing"

	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/hookexectest"
	"github.com/hookexec/hook-exec/sandbox"
)

// In a plugin's test suite: run the plugin's guard on an event in the real
// sandbox on the local Docker engine, and check its decision and trace.
func ExampleRunHook() {
	testGuardDeniesRecursiveRm := func(t *testing.T) {
		event := []byte(`{"schema_version":1,"event_id":"e1","point":"tool.before","session_id":"s1","depth":0,
"data":{"tool_name":"bash","args":{"command":"rm -rf /tmp/scratch"}}}`)
		res := hookexectest.RunHook(t, "hooks/guard.sh", event)
		if res.Decision.Action != hook.Deny {
			t.Errorf("decision %s, want deny", res.Decision.Action)
		}
		if res.Trace.Failure != nil {
			t.Errorf("the run failed: %s: %s", res.Trace.Failure.Kind, res.Trace.Failure.Message)
		}
	}
	_ = testGuardDeniesRecursiveRm // func TestGuardDeniesRecursiveRm(t *testing.T) in the suite
}

// Any testcontainers-go container, hardened as a hook's sandbox is: no
// network, a read-only root, no capabilities, user 65534, the same limits
// and seccomp profile. Sandbox options change it as they change a hook's.
func ExampleSandbox() {
	ctx := context.Background()
	ctr, err := testcontainers.Run(ctx, "my/hook-image:1",
		testcontainers.WithCmd("sh", "-c", "id -u"),
		hookexectest.Sandbox(sandbox.WithLimits(64<<20, 16, 5e8)), // 64 MiB, 16 pids, half a CPU
		testcontainers.WithWaitStrategy(wait.ForExit()),
	)
	defer testcontainers.TerminateContainer(ctr)
	if err != nil {
		log.Fatal(err)
	}
}
