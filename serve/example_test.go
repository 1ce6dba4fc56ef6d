package serve_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/hookexec/hook-exec/backend/local"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/serve"
)

// A host asks a running `hook-exec serve --socket PATH` for a decision:
// one Request per run, the script by its absolute path, the event as JSON.
// For the example, a Server runs in this process on the local backend
// (owner hooks on the host, no sandbox); a real server keeps sandboxes
// started ahead on a container engine.
func ExampleClient_Run() {
	dir, err := os.MkdirTemp("", "hook-exec-serve") // private: mode 0700
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "serve.sock")
	stop := startServer(sock)
	defer stop()

	guard := filepath.Join(dir, "guard.sh")
	err = os.WriteFile(guard, []byte(`case $(cat) in
*'rm -rf'*) echo '{"schema_version":1,"action":"deny","reason":"refusing a recursive rm"}' ;;
*) echo '{"schema_version":1,"action":"allow"}' ;;
esac
`), 0o644)
	if err != nil {
		log.Fatal(err)
	}
	event := `{"schema_version":1,"event_id":"e1","point":"tool.before","session_id":"s1","depth":0,
"data":{"tool_name":"bash","args":{"command":"rm -rf /tmp/scratch"}}}`

	ctx := context.Background()
	c, err := serve.Dial(ctx, sock)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	resp, err := c.Run(ctx, serve.Request{Script: guard, Event: json.RawMessage(event)})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(resp.Decision))
	fmt.Println("hook:", resp.Trace.HookID, "failure:", resp.Trace.Failure)
	// Output:
	// {"schema_version":1,"action":"deny","reason":"refusing a recursive rm"}
	// hook: guard.sh failure: <nil>
}

// startServer serves runs on sock until stop is called.
func startServer(sock string) (stop func()) {
	ex, err := executor.New(executor.Options{Backend: local.New()})
	if err != nil {
		log.Fatal(err)
	}
	ln, err := serve.Listen(sock, nil)
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- (&serve.Server{Executor: ex}).Serve(ctx, ln) }()
	return func() {
		cancel()
		if err := <-done; err != nil {
			log.Print(err)
		}
		ex.Shutdown(context.Background())
	}
}
