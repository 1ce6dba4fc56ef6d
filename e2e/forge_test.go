package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/launcher"
)

// forgeSh tries to forge its own exit status (issue 44, item 6) through
// what a process of the sandbox's user may do to another of that user
// that is dumpable (through /proc; ptrace is not needed). It looks for a
// per-run secret (the channel's token, a reused sandbox's agent's nonce)
// in every other process's environ, cmdline and writable mappings of mem,
// and with each 32-hex-digit string it finds claims "exit 0": on the
// status FIFO and through the wrapper's descriptor of it (/proc/1/fd/3)
// for a run of its own sandbox, in the agent's stdout for a reused one.
// It also opens the memory of pid 1 and of its launcher for writing:
// where that opens, a hook can rewrite the status on its way out (the
// launcher's last line, exit "$status", is still unparsed in its memory
// while the hook runs). Then it exits 3. On stderr it says what it found,
// which FIFOs it could open and whose memory. With the event's command
// "prime" it only allows (a reused sandbox's first run).
const forgeSh = `ev=$(cat)
case $ev in *'"command":"prime"'*)
	printf '{"schema_version":1,"action":"allow"}\n'
	exit 0
	;;
esac
: >/tmp/seen
for p in /proc/[0-9]*; do
	[ "${p#/proc/}" = "$$" ] && continue
	tr '\0' '\n' 2>/dev/null <"$p/environ" >>/tmp/seen
	tr '\0' '\n' 2>/dev/null <"$p/cmdline" >>/tmp/seen
	while read -r range perms _; do
		case $perms in rw*) ;; *) continue ;; esac
		start=$((0x${range%-*})) end=$((0x${range#*-}))
		dd if="$p/mem" bs=4096 skip=$((start / 4096)) count=$(((end - start) / 4096)) >>/tmp/seen 2>/dev/null
	done 2>/dev/null <"$p/maps"
done
tr -c '0-9a-f' '\n' </tmp/seen | grep -o '[0-9a-f]\{32\}' | sort -u >/tmp/found
n=$(wc -l </tmp/found)
mem=
for p in 1 "$PPID"; do
	(: <>"/proc/$p/mem") 2>/dev/null && mem="$mem $p"
done
opened=
if [ -p /.hookexec/rin ]; then
	# A reused sandbox's agent: its answer is "NONCE STATUS 0 0 OOMKILLS".
	if [ "$n" -gt 0 ]; then
		while read -r c; do printf '%s 0 0 0 0\n' "$c"; done </tmp/found >/.hookexec/out && opened="$opened out"
	fi
elif [ -p /.hookexec/status ]; then
	for f in /.hookexec/status /proc/1/fd/3; do
		{ while read -r c; do printf '%s 0\n' "$c"; done </tmp/found >"$f"; } 2>/dev/null && opened="$opened $f"
	done
fi
echo "forge: $n candidates; opened:${opened:- none}; memory open to writes:${mem:- none}" >&2
exit 3
`

// A hook cannot forge its own exit status: whatever it reads of the
// sandbox's other processes and writes into the channel's FIFOs, its run
// is traced with the status it exited with (3), on both engines, in a
// sandbox of its own (cold, pooled) and in a reused one.
func TestForgedStatus(t *testing.T) {
	t.Parallel()
	for _, eng := range engines(t) {
		reuse, err := executor.New(executor.Options{Backend: eng.b, Reuse: true,
			DefaultImage: func(_ context.Context, l launcher.Lang) (string, error) { return eng.refs[l], nil }})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { reuse.Shutdown(context.Background()) })
		for _, mode := range []struct {
			name string
			ex   *executor.Executor
		}{{"cold", caseExecutor(t, eng, 0)}, {"pooled", caseExecutor(t, eng, 2)}, {"reused", reuse}} {
			t.Run(eng.name+"/"+mode.name, func(t *testing.T) {
				t.Parallel()
				h := writeScript(t, launcher.Shell, forgeSh)
				h.Timeout = time.Minute
				if mode.name == "reused" {
					r, err := mode.ex.Run(context.Background(), h, toolEvent("prime"))
					if err != nil || r.Trace.Failure != nil {
						t.Fatalf("prime: %v, failure %+v", err, r.Trace.Failure)
					}
				}
				r, err := mode.ex.Run(context.Background(), h, toolEvent("forge"))
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("stderr: %s", r.Trace.StderrExcerpt)
				if r.Trace.ExitCode == nil || *r.Trace.ExitCode != 3 {
					t.Errorf("exit code = %s, want 3: the hook forged its status (stderr %q)", exitCodeOf(r.Trace.ExitCode), r.Trace.StderrExcerpt)
				}
				if r.Trace.Failure == nil || r.Trace.Failure.Kind != hook.FailExitNonzero {
					t.Errorf("failure %+v, want %s", r.Trace.Failure, hook.FailExitNonzero)
				}
				if mode.name == "reused" && !r.Trace.Reused {
					t.Errorf("the forging run was not served by a reused sandbox")
				}
				// Nothing of the sandbox's readable holds a secret of the run's,
				// the status FIFO is the wrapper's alone, and neither the
				// wrapper's (or agent's) memory nor the launcher's is the
				// hook's to write.
				if !strings.Contains(r.Trace.StderrExcerpt, "forge: 0 candidates; opened: none; memory open to writes: none") {
					t.Errorf("stderr %q, want no candidate found, no FIFO opened, no memory open to writes", r.Trace.StderrExcerpt)
				}
				assertGone(t, r.Trace.ExecutionID)
			})
		}
	}
}
