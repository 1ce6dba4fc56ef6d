package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/launcher"
)

// preToolUseAnswer is a PreToolUse answer's decision and reason.
func preToolUseAnswer(t *testing.T, r cliResult) (decision, reason string) {
	t.Helper()
	if strings.TrimSpace(r.stdout) == "" {
		return "", "" // no answer: the call goes on
	}
	var out struct {
		Specific struct {
			Decision string `json:"permissionDecision"`
			Reason   string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("answer %q: %v (stderr %s)", r.stdout, err, r.stderr)
	}
	return out.Specific.Decision, out.Specific.Reason
}

// Missing programs are judged when called: a guard on hook-sh (busybox, no
// jq) that calls jq only for a commit answers for everything else, and is
// refused as missing_program naming jq when it reaches it; a guard whose
// missing jq feeds `grep -q ... && exit 2 || exit 0` is refused, never
// allowed. The issue's own: a guard that calls gofmt (no reference image
// has it) only for a commit.
func TestLastMileMissingProgramWhenCalled(t *testing.T) {
	t.Parallel()
	engine(t)
	commitGuard := scriptFile(t, "commit_guard.sh", `#!/bin/sh
input=$(cat)
case $input in
*'git commit'*)
	cmd=$(printf '%s' "$input" | jq -r '.tool_input.command')
	case $cmd in *--no-verify*) echo "no --no-verify" >&2; exit 2 ;; esac
	;;
esac
exit 0
`)
	pipeGuard := scriptFile(t, "rm_guard.sh", "#!/bin/sh\njq -r '.tool_input.command' | grep -q 'rm -rf' && exit 2 || exit 0\n")
	gofmtGuard := scriptFile(t, "gofmt_guard.sh", `#!/bin/bash
input=$(cat)
cmd=$(jq -r '.tool_input.command' <<<"$input")
if [[ $cmd == *"git commit"* ]]; then
	[ -z "$(gofmt -l . 2>/dev/null)" ] || { echo "run gofmt first" >&2; exit 2; }
fi
exit 0
`)
	bash := func(command string) []byte {
		return claudeEvent("PreToolUse", "Bash", map[string]any{"command": command}, "")
	}
	for _, backend := range []string{"docker", "containerd"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			hookSh := engineFor(t, backend).refs[launcher.Shell]
			for _, c := range []struct {
				name, script, image, command string
				missing                      string // "": the script's own answer counts
			}{
				{"jq not reached", commitGuard, hookSh, "ls", ""},
				{"jq reached", commitGuard, hookSh, "git commit -m x", "jq"},
				{"jq into grep -q && exit 2 || exit 0", pipeGuard, hookSh, "rm -rf /", "jq"},
				{"jq into grep -q, nothing to block", pipeGuard, hookSh, "ls", "jq"},
				{"gofmt not reached", gofmtGuard, "", "ls -la", ""},
				{"gofmt reached", gofmtGuard, "", "git commit -m x", "gofmt"},
			} {
				t.Run(c.name, func(t *testing.T) {
					t.Parallel()
					args := []string{"run", "--backend", backend, timeoutFlag(t, backend), "--dialect", "claude", "--script", c.script, "--trace", "-"}
					if c.image != "" {
						args = append(args, "--image", c.image)
					}
					r := hookExec(t, bash(c.command), nil, args...)
					tr := traceLine(r.stderr)
					decision, reason := preToolUseAnswer(t, r)
					if c.missing == "" {
						if decision != "" || !strings.Contains(tr, `"failure":null`) {
							t.Fatalf("answer %q (%s), trace %s: want the script's own allow", r.stdout, reason, tr)
						}
						return
					}
					if decision != "deny" || !strings.Contains(reason, `missing "`+c.missing+`"`) {
						t.Errorf("answer %q: want a deny naming the missing %s", r.stdout, c.missing)
					}
					wantIn(t, "trace", tr, `"kind":"missing_program"`)
					wantIn(t, "trace", tr, `image is missing \"`+c.missing+`\" (the script called it`)
				})
			}
		})
	}
}

// The pooled and the reused sandboxes judge a missing program as a new one
// does: the run that calls it is refused naming it, the one that does not
// answers, whichever sandbox serves it (a reused one after a run that
// answered: it keeps no stand-in or record of the run before).
func TestLastMileMissingProgramPooledAndReused(t *testing.T) {
	t.Parallel()
	guard := `ev=$(cat)
case $ev in
*'git commit'*)
	printf '%s' "$ev" | jq -r .data.args.command | grep -q 'rm' && { echo '{"schema_version":1,"action":"deny","reason":"rm"}'; exit 0; }
	;;
esac
echo '{"schema_version":1,"action":"allow","reason":"ran"}'
`
	for _, eng := range engines(t) {
		for _, mode := range []string{"pooled", "reused"} {
			t.Run(eng.name+"/"+mode, func(t *testing.T) {
				t.Parallel()
				opts := executor.Options{Backend: eng.b, Pool: 1,
					DefaultImage: func(_ context.Context, l launcher.Lang) (string, error) { return eng.refs[l], nil }}
				if mode == "reused" {
					opts.Pool, opts.Reuse = 0, true
				}
				ex, err := executor.New(opts)
				if err != nil {
					t.Fatal(err)
				}
				defer ex.Shutdown(context.Background())
				h := writeScript(t, launcher.Shell, guard)
				h.Image = eng.refs[launcher.Shell] // busybox: no jq
				h.Timeout = hookTimeout(t, eng)
				served := map[string]bool{}
				for i := 0; i < 12 && (!served["ls"] || !served["git commit -m rm"]); i++ {
					// A run that failed retires its reused sandbox: two that
					// answer first.
					for _, command := range []string{"ls", "ls", "git commit -m rm"} {
						r, err := ex.Run(context.Background(), h, toolEvent(command))
						if err != nil {
							t.Fatal(err)
						}
						tr := r.Trace
						if command == "ls" {
							if tr.Failure != nil || r.Decision.Action != hook.Allow || r.Decision.Reason != "ran" {
								t.Fatalf("%s (pooled %v, reused %v): failure %+v, decision %+v: want the script's allow", command, tr.Pooled, tr.Reused, tr.Failure, r.Decision)
							}
						} else if tr.Failure == nil || tr.Failure.Kind != hook.FailMissingProgram || !strings.Contains(tr.Failure.Message, `"jq"`) || r.Decision.Action == hook.Allow {
							t.Fatalf("%s (pooled %v, reused %v): failure %+v, decision %+v: want missing_program naming jq", command, tr.Pooled, tr.Reused, tr.Failure, r.Decision)
						}
						if (mode == "pooled" && tr.Pooled) || (mode == "reused" && tr.Reused) {
							served[command] = true
						}
					}
					if !served["ls"] || !served["git commit -m rm"] {
						time.Sleep(hookTimeout(t, eng) / 10)
					}
				}
				if !served["ls"] || !served["git commit -m rm"] {
					t.Errorf("not every case ran in a %s sandbox: %v", mode, served)
				}
			})
		}
	}
}
