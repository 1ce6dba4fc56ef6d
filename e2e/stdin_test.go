package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookexec/hook-exec/hook"
)

// TestStdinOpenedAgain: hooks that read the event by opening /dev/stdin
// again, as hooks often do (bash's "$(</dev/stdin)", node's
// readFileSync('/dev/stdin'), Python's open('/dev/stdin'), cat
// /dev/stdin), get the event, as on the host, where the hook's stdin is a
// pipe: they do not wait for the FIFO the sandbox's stdin comes through
// until the timeout. On both engines, in a process of its own and through
// a server's pool.
func TestStdinOpenedAgain(t *testing.T) {
	t.Parallel()
	scripts := map[string]string{
		"bash.sh": "#!/bin/bash\ninput=\"$(</dev/stdin)\"\ncase $input in *'rm -rf'*) echo \"bash read ${#input} bytes: no rm -rf\" >&2; exit 2;; esac\n",
		"cat.sh":  "#!/bin/sh\ninput=$(cat /dev/stdin)\ncase $input in *'rm -rf'*) echo 'cat read it: no rm -rf' >&2; exit 2;; esac\n",
		"node.js": "#!/usr/bin/env node\nconst e = JSON.parse(require('fs').readFileSync('/dev/stdin', 'utf8'));\n" +
			"if (e.tool_input.command.includes('rm -rf')) { process.stderr.write('node read it: no rm -rf'); process.exit(2); }\n",
		"python.py": "#!/usr/bin/env python3\nimport json, sys\ne = json.load(open('/dev/stdin'))\n" +
			"if 'rm -rf' in e['tool_input']['command']:\n    sys.stderr.write('python read it: no rm -rf')\n    sys.exit(2)\n",
	}
	for _, backend := range []string{"docker", "containerd"} {
		for _, via := range []string{"process", "server"} {
			t.Run(backend+"/"+via, func(t *testing.T) {
				t.Parallel()
				eng := engineFor(t, backend)
				timeout := hookTimeout(t, eng)
				dir := hostDir(t)
				for name, body := range scripts {
					if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
						t.Fatal(err)
					}
				}
				env := []string{"HOOKEXEC_BACKEND=" + backend, "HOOKEXEC_STATE_DIR=" + hostDir(t), "HOOKEXEC_SERVER=off"}
				var flags []string
				if via == "server" {
					s := startServer(t, eng) // its pool: the pooled launcher's path
					env, flags = []string{"HOOKEXEC_SERVER=" + s.sock}, s.engineFlags()
				}
				for name := range scripts {
					for _, command := range []string{"rm -rf build", "ls"} {
						payload := fmt.Appendf(nil, `{"session_id":"s1","transcript_path":"","cwd":%q,"permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":%q},"tool_use_id":"t1"}`, dir, command)
						r := hookExec(t, payload, env, append([]string{"run", "--dialect", "claude", "--script", filepath.Join(dir, name),
							"--workspace", dir, "--timeout", timeout.String()}, flags...)...)
						r.wantCode(t, 0)
						e, err := hook.ParseEnvelope(hook.Claude, payload)
						if err != nil {
							t.Fatal(err)
						}
						d, err := hook.Interpret(e, r.code, []byte(r.stdout), []byte(r.stderr))
						if err != nil {
							t.Fatalf("%s: the answer %q: %v", name, r.stdout, err)
						}
						switch {
						case command == "ls" && d.Action != hook.Allow:
							t.Errorf("%s on %q: %s %q, want allow (stderr %q)", name, command, d.Action, d.Reason, r.stderr)
						case command != "ls" && (d.Action != hook.Deny || !strings.Contains(d.Reason, "no rm -rf")):
							t.Errorf("%s on %q: %s %q, want the hook's own deny (stderr %q)", name, command, d.Action, d.Reason, r.stderr)
						}
					}
				}
			})
		}
	}
}
