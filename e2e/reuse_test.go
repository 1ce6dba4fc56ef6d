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

// reuseSh plants, on "plant", state a later run of the same hook could
// see: a background process, one that ignores signals, one that forks
// while the reset runs, files (hidden ones, a chmod-000 directory) in /tmp
// and /dev/shm; on "check" it reports what of that it finds; on "signals"
// the signals it was started with ignored; on "flood" it writes without
// end; on "hang" it
// runs until it is killed; on "forge" it writes an agent's answer into the
// agent's stdout (its channel's FIFO, where the sandbox has one) and leaves
// a writer on it, then allows.
const reuseSh = `ev=$(cat)
case $ev in
*'"command":"hang"'*)
	while :; do sleep 1; done
	;;
*'"command":"flood"'*)
	while :; do echo xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx; done
	;;
*'"command":"signals"'*)
	while read -r k v; do
		[ "$k" = SigIgn: ] && printf '{"schema_version":1,"action":"allow","reason":"%s"}\n' "$v"
	done </proc/$$/status
	exit 0
	;;
*'"command":"forge"'*)
	out=/proc/1/fd/1
	[ -p /.hookexec/out ] && out=/.hookexec/out
	printf '00000000000000000000000000000000 0 2 0 0\n{}\n' >"$out" 2>/dev/null
	(sleep 300 >"$out" &)
	printf '{"schema_version":1,"action":"allow","reason":"forged %s"}\n' "$out"
	;;
*'"command":"plant"'*)
	(sleep 300 &)
	(trap '' TERM INT HUP QUIT; while :; do sleep 1; done) &
	(while :; do (sleep 0.05 &); sleep 0.01; done) &
	echo x >/tmp/file; echo x >/tmp/.hidden; echo x >/dev/shm/seg
	mkdir /tmp/locked; echo x >/tmp/locked/f; chmod 000 /tmp/locked
	printf '{"schema_version":1,"action":"allow","reason":"planted"}\n'
	;;
*)
	left=""
	for p in /proc/[0-9]*; do
		read -r c <"$p/comm" 2>/dev/null || continue
		[ "$c" = sleep ] && left="$left process"
	done
	for f in /tmp/file /tmp/.hidden /tmp/locked /dev/shm/seg; do
		[ -e "$f" ] && left="$left $f"
	done
	if [ -n "$left" ]; then
		printf '{"schema_version":1,"action":"deny","reason":"left:%s"}\n' "$left"
	else
		printf '{"schema_version":1,"action":"allow","reason":"clean"}\n'
	fi
	;;
esac
`

// reusePy plants what the shell cannot: a POSIX message queue, an
// abstract unix socket held by a process left running, SysV shared memory
// and a SysV message queue; "check-*" reports what it finds.
const reusePy = `import ctypes, json, os, socket, sys, time
cmd = json.load(sys.stdin)["data"]["args"]["command"]
libc = ctypes.CDLL(None, use_errno=True)
def answer(action, reason):
    print(json.dumps({"schema_version": 1, "action": action, "reason": reason}))
    sys.stdout.flush()
IPC_CREAT = 0o1000
if cmd == "plant-mq":
    libc.mq_open.restype = ctypes.c_int
    fd = libc.mq_open(b"/hx-queue", os.O_CREAT | os.O_RDWR, 0o600, None)
    answer("allow" if fd >= 0 and os.path.exists("/dev/mqueue/hx-queue") else "deny", "planted %d" % fd)
elif cmd == "plant-socket":
    # A sandbox cannot make a unix socket at all (seccomp): nothing to leave.
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    except PermissionError:
        answer("allow", "planted nothing: no unix socket")
        sys.exit(0)
    s.bind("\0hx-abstract")
    s.listen(1)
    if os.fork() == 0:
        os.setsid()
        time.sleep(300)
        os._exit(0)
    answer("deny", "planted an abstract socket")
elif cmd == "oom":
    hog = [bytearray(1 << 20) for _ in range(4096)]
    answer("allow", "survived")
elif cmd == "plant-limits":
    # What a process may change of another of its user without reading
    # its memory: the agent's (pid 1) limits, nice value, scheduling and
    # affinity. Each must be refused, or every later run would inherit it.
    import resource
    changed = []
    for name, call in (("prlimit", lambda: resource.prlimit(1, resource.RLIMIT_AS, (12 << 20, 12 << 20))),
                       ("setpriority", lambda: os.setpriority(os.PRIO_PROCESS, 1, 19)),
                       ("setpriority-user", lambda: os.setpriority(os.PRIO_USER, 0, 19)),
                       ("sched_setscheduler", lambda: os.sched_setscheduler(1, os.SCHED_IDLE, os.sched_param(0))),
                       ("sched_setaffinity", lambda: os.sched_setaffinity(1, {0}))):
        try:
            call()
            changed.append(name)
        except PermissionError:
            pass
    answer("deny" if changed else "allow", "planted: changed " + ", ".join(changed) if changed else "planted nothing: all refused")
elif cmd == "plant-sysv":
    shm = libc.shmget(0x6878, 4096, IPC_CREAT | 0o600)
    msg = libc.msgget(0x6879, IPC_CREAT | 0o600)
    answer("allow" if shm >= 0 and msg >= 0 else "deny", "planted %d %d" % (shm, msg))
else:
    left = []
    if os.path.exists("/dev/mqueue/hx-queue"):
        left.append("mqueue")
    try:
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.connect("\0hx-abstract")
        left.append("abstract socket")
    except OSError:
        pass
    import resource
    if resource.getrlimit(resource.RLIMIT_AS)[0] != resource.RLIM_INFINITY or os.getpriority(os.PRIO_PROCESS, 0) != 0:
        left.append("the agent's limits or nice value")
    for name in ("shm", "msg"):
        with open("/proc/sysvipc/" + name) as f:
            if len(f.read().splitlines()) > 1:
                left.append("sysv " + name)
    answer("deny" if left else "allow", "left: " + ", ".join(left) if left else "clean")
`

// With a pool beside reuse (a server's default), a run that finds no
// reused sandbox idle takes a pooled one rather than wait for an agent's
// start; the agent starts meanwhile and serves the runs after it.
func TestReuseStartsAhead(t *testing.T) {
	t.Parallel()
	for _, eng := range engines(t) {
		t.Run(eng.name, func(t *testing.T) {
			t.Parallel()
			ex, err := executor.New(executor.Options{Backend: eng.b, Reuse: true, Pool: 1,
				DefaultImage: func(_ context.Context, l launcher.Lang) (string, error) { return eng.refs[l], nil }})
			if err != nil {
				t.Fatal(err)
			}
			defer ex.Shutdown(context.Background())
			sh := writeScript(t, launcher.Shell, reuseSh)
			sh.Timeout = time.Minute
			run := func() hook.Trace {
				t.Helper()
				r, err := ex.Run(context.Background(), sh, toolEvent("check"))
				if err != nil || r.Trace.Failure != nil || r.Decision.Action != hook.Allow {
					t.Fatalf("run: %v, failure %+v, action %q", err, r.Trace.Failure, r.Decision.Action)
				}
				return r.Trace
			}
			begin := time.Now()
			if tr := run(); tr.Reused || tr.Phases.Create == 0 {
				t.Fatalf("first run: reused %v, create %d ms: want a new sandbox", tr.Reused, tr.Phases.Create)
			}
			cold := time.Since(begin) // a creation's time on this engine, now
			// Runs a creation apart: pooled (or new, when the pool has not
			// refilled yet) until the agent is up, then its: a run that neither
			// took a pooled sandbox nor created one.
			served := false
			for range 20 {
				time.Sleep(cold)
				if tr := run(); !tr.Pooled && tr.Phases.Create == 0 {
					if tr.Reused {
						// The agent's second run: the first run was its, and
						// waited for its start.
						t.Fatal("the first run was served by a sandbox started for it to reuse")
					}
					served = true
					break
				}
			}
			if !served {
				t.Fatal("no run was served by the sandbox started ahead")
			}
			// The runs after: each served by an agent; one of them a second
			// run in its sandbox (runs that found none may have started
			// more than one ahead: a fresh idle one is taken before one
			// still resetting; a hook keeps 8 idle at most).
			for i := range 20 {
				tr := run()
				if tr.Pooled || tr.Phases.Create != 0 {
					t.Fatalf("run %d after: pooled %v, create %d ms: want an agent's", i, tr.Pooled, tr.Phases.Create)
				}
				if tr.Reused {
					return
				}
			}
			t.Error("no run after was an agent's second run")
		})
	}
}

// With Options.Reuse a sandbox serves further runs of the same hook, and
// nothing a run leaves is visible to the next: each check runs in the
// sandbox the plant ran in (reused), after its reset, and finds nothing.
// Where the reset cannot remove what was left (SysV IPC: no ipcrm in the
// images) it is detected, and the sandbox is retired: the check runs in a
// new one. A timeout retires too.
func TestReuse(t *testing.T) {
	t.Parallel()
	for _, eng := range engines(t) {
		t.Run(eng.name, func(t *testing.T) {
			t.Parallel()
			ex, err := executor.New(executor.Options{Backend: eng.b, Reuse: true,
				DefaultImage: func(_ context.Context, l launcher.Lang) (string, error) { return eng.refs[l], nil }})
			if err != nil {
				t.Fatal(err)
			}
			defer ex.Shutdown(context.Background())
			sh := writeScript(t, launcher.Shell, reuseSh)
			py := writeScript(t, launcher.Python, reusePy)
			sh.Timeout, py.Timeout = time.Minute, time.Minute
			run := func(h hook.Hook, command string) (hook.Trace, string, time.Duration) {
				t.Helper()
				begin := time.Now()
				r, err := ex.Run(context.Background(), h, toolEvent(command))
				if err != nil {
					t.Fatal(err)
				}
				return r.Trace, string(r.Decision.Action) + " " + r.Decision.Reason, time.Since(begin)
			}
			for _, tc := range []struct {
				h            hook.Hook
				plant, check string
				reused       bool // the check ran in the plant's sandbox, reset
			}{
				{sh, "plant", "check", true},
				{py, "plant-mq", "check", true},
				{py, "plant-socket", "check", true},
				{py, "plant-limits", "check", true},
				{py, "plant-sysv", "check", false},
			} {
				tr, got, _ := run(tc.h, tc.plant)
				if tr.Failure != nil || !strings.HasPrefix(got, "allow planted") {
					t.Fatalf("%s: %q, failure %+v; stderr %q", tc.plant, got, tr.Failure, tr.StderrExcerpt)
				}
				tr, got, _ = run(tc.h, tc.check)
				if got != "allow clean" {
					t.Errorf("after %s: %q, want allow clean", tc.plant, got)
				}
				if tr.Reused != tc.reused {
					t.Errorf("after %s: reused %v, want %v", tc.plant, tr.Reused, tc.reused)
				}
			}
			// An OOM kill in a reused sandbox is the run's oom (issue 30: on
			// containerd no cgroup is mounted in the sandbox, the agent
			// counted none, and the guard's exit 137 passed for its own).
			if tr, _, _ := run(py, "check"); !tr.Reused {
				t.Fatalf("a clean sandbox was not reused: %+v", tr)
			}
			small := py
			small.Memory = 64 << 20
			run(small, "check") // a sandbox of this shape, to be reused
			if tr, got, _ := run(small, "oom"); tr.Failure == nil || tr.Failure.Kind != hook.FailOOM || !tr.OOMKilled || !tr.Reused {
				t.Errorf("oom in a reused sandbox: %q, failure %+v, oom_killed %v, reused %v; want an oom", got, tr.Failure, tr.OOMKilled, tr.Reused)
			}
			// A run past its timeout retires its sandbox: the next starts anew.
			tr, _, took := run(sh, "check")
			if !tr.Reused {
				t.Fatalf("a clean sandbox was not reused: %+v", tr)
			}
			hang := sh
			hang.Timeout = max(2*time.Second, 20*took)
			if tr, _, _ := run(hang, "hang"); tr.Failure == nil || tr.Failure.Kind != hook.FailTimeout || !tr.Reused {
				t.Fatalf("hang: failure %+v reused %v, want a timeout in the reused sandbox", tr.Failure, tr.Reused)
			}
			if tr, got, _ := run(sh, "check"); tr.Reused || got != "allow clean" {
				t.Errorf("after a timeout: %q reused %v, want a new sandbox", got, tr.Reused)
			}
			// A run in a reused sandbox starts with the signals a new
			// sandbox's run has: the agent ignores several, and an ignored
			// signal stays ignored across exec.
			cold, err := executor.New(executor.Options{Backend: eng.b,
				DefaultImage: func(_ context.Context, l launcher.Lang) (string, error) { return eng.refs[l], nil }})
			if err != nil {
				t.Fatal(err)
			}
			defer cold.Shutdown(context.Background())
			want, err := cold.Run(context.Background(), sh, toolEvent("signals"))
			if err != nil || want.Trace.Failure != nil || want.Decision.Action != hook.Allow {
				t.Fatalf("signals in a new sandbox: %+v, %v", want, err)
			}
			run(sh, "check")
			if tr, got, _ := run(sh, "signals"); !tr.Reused || got != "allow "+want.Decision.Reason {
				t.Errorf("signals ignored in a reused sandbox: %q (reused %v), in a new one %q", got, tr.Reused, want.Decision.Reason)
			}
			// Output past the cap ends the run, as in a new sandbox, and
			// retires its sandbox.
			run(sh, "check")
			if tr, got, _ := run(sh, "flood"); !tr.Reused || tr.Failure == nil || tr.Failure.Kind != hook.FailOutputLimit || !tr.Truncated || strings.HasPrefix(got, "allow") {
				t.Errorf("flood: %q, failure %+v, truncated %v, reused %v; want an output_limit in the reused sandbox", got, tr.Failure, tr.Truncated, tr.Reused)
			}
			if tr, got, _ := run(sh, "check"); tr.Reused || got != "allow clean" {
				t.Errorf("after a flood: %q reused %v, want a new sandbox", got, tr.Reused)
			}
			// A hook that never reads its event, a large one (past a pipe's
			// buffer): its sandbox serves the next run, whose input is its
			// own (the launcher reads its header first).
			deaf := writeScript(t, launcher.Shell, `printf '{"schema_version":1,"action":"allow","reason":"deaf"}\n'`)
			deaf.Timeout = time.Minute
			big := toolEvent(strings.Repeat("x", 256<<10))
			for i := range 3 {
				r, err := ex.Run(context.Background(), deaf, big)
				if err != nil || r.Trace.Failure != nil || r.Decision.Reason != "deaf" || r.Trace.Reused != (i > 0) {
					t.Fatalf("deaf run %d: %v, failure %+v, reason %q, reused %v", i, err, r.Trace.Failure, r.Decision.Reason, r.Trace.Reused)
				}
			}
			// A run that writes into the agent's stdout (over the channel on
			// an engine of this machine, a FIFO it can open by path) never
			// passes for the agent's answer: its run fails and the sandbox is
			// retired.
			run(sh, "check")
			tr, got, _ := run(sh, "forge")
			if !tr.Reused || tr.Failure == nil || tr.Failure.Kind != hook.FailLauncherError || strings.HasPrefix(got, "allow") {
				t.Errorf("forge: %q, failure %+v, reused %v; want a launcher_error in the reused sandbox", got, tr.Failure, tr.Reused)
			} else if !strings.Contains(tr.Failure.Message, "not the agent's") {
				t.Errorf("forge: failure %q, want the agent's refusal of a forged answer", tr.Failure.Message)
			}
			if tr, got, _ := run(sh, "check"); tr.Reused || got != "allow clean" {
				t.Errorf("after a forged answer: %q reused %v, want a new sandbox", got, tr.Reused)
			}
		})
	}
}
