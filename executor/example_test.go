package executor_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/hookexec/hook-exec/backend/engine"
	"github.com/hookexec/hook-exec/backend/local"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
)

// A guard that denies a recursive rm, in Holaryn's dialect: one JSON
// decision on stdout.
const guard = `case $(cat) in
*'rm -rf'*) echo '{"schema_version":1,"action":"deny","reason":"refusing a recursive rm"}' ;;
*) echo '{"schema_version":1,"action":"allow"}' ;;
esac
`

const event = `{"schema_version":1,"event_id":"e1","point":"tool.before","session_id":"s1","depth":0,
"data":{"tool_name":"bash","args":{"command":"rm -rf /tmp/scratch"}}}`

// Run one hook on one event and read the final decision. The local
// backend runs the owner's own hooks on the host, isolating nothing (a
// plugin's or a project's hook is refused there): it keeps this example
// free of any engine. See New's example for a sandbox.
func Example() {
	dir, err := os.MkdirTemp("", "hook")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "guard.sh"), []byte(guard), 0o644); err != nil {
		log.Fatal(err)
	}

	ex, err := executor.New(executor.Options{Backend: local.New()})
	if err != nil {
		log.Fatal(err)
	}
	defer ex.Shutdown(context.Background())

	h := hook.Hook{ID: "guard", PluginDir: dir, Script: "guard.sh", Timeout: 10 * time.Second}
	res, err := ex.Run(context.Background(), h, []byte(event))
	if err != nil {
		log.Fatal(err) // a definition that cannot run at all
	}
	fmt.Println(res.Decision.Action, "-", res.Decision.Reason)
	fmt.Println("failure:", res.Trace.Failure)
	// Output:
	// deny - refusing a recursive rm
	// failure: <nil>
}

// An executor whose hooks run in the hardened container sandbox: the engine
// --backend names (docker here), and its reference image for each script
// language. Every failure of a run ends in a decision through the hook's
// failure policy: Run's error is only for a definition that cannot run at
// all, or an executor that is shut down.
func ExampleNew_sandbox() {
	ctx := context.Background()
	eng, err := engine.Open(ctx, engine.Options{Backend: "docker", Sweep: true})
	if err != nil {
		log.Fatal(err)
	}
	defer eng.Close()
	ex, err := executor.New(executor.Options{
		Backend:      eng.Backend(),
		DefaultImage: eng.DefaultImage,
		OnTrace:      func(tr hook.Trace) { fmt.Println(tr.HookID, tr.Image, tr.DurationMS) },
	})
	if err != nil {
		log.Fatal(err)
	}
	defer ex.Shutdown(ctx)

	h := hook.Hook{ID: "guard", PluginDir: "plugin/hooks", Script: "guard.sh", Timeout: 10 * time.Second}
	res, err := ex.Run(ctx, h, []byte(event))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Decision.Action)
}
