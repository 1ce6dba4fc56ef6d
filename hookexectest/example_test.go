package hookexectest_test

import (
	"testing"

	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/hookexectest"
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
