# hook-exec agent: a sandbox's init when it is reused for further runs of
# the same pinned hook (Options.Reuse).
#   /usr/lib/hook-exec/sh -c <this> hook-agent LAUNCHER LAUNCHER_SOURCE [CHANNEL]
#     LAUNCHER: sh (the .sh launcher, also for js) or py (the .py launcher)
#     CHANNEL: a directory with the FIFOs rin, rout and rerr (see below)
# It first checks that no process of a run could change it: it must not be
# dumpable (its /proc/1/mem, /proc/1/environ closed to processes of its
# uid), which it is when the sh it runs under cannot be read by that uid
# (the reference images' /usr/lib/hook-exec/sh, busybox mode 0711). Then
# it writes "ready".
# Each run, on stdin: a line "NONCE LEN CAP", then LEN bytes: the pooled
# launcher's input (header, environment, script, event). It runs the
# pooled launcher on them, stdout and stderr to files, then:
#   1. kills every other process of the sandbox (kill -9 -1 from init)
#      until none is left;
#   2. answers "NONCE STATUS OUTLEN ERRLEN OOMKILLS", then at most CAP+1
#      bytes of the run's stdout and of its stderr;
# With CHANNEL, the frame is "NONCE 0 0" and nothing follows it: the run's
# stdin is CHANNEL/rin (the host writes the launcher's input and closes
# it), its stdout and stderr CHANNEL/rout and CHANNEL/rerr (the host counts
# and caps them; they end when the last process of the run has), and the
# answer is "NONCE STATUS 0 0 OOMKILLS". No dd, wc or cat per run. The
# host sends that frame ahead of the run (after "ready", after "clean"),
# so the launcher starts and waits, prepared, for the run's input on rin.
#   3. empties /tmp, /dev/shm and /dev/mqueue, and checks that no process,
#      no file there, no SysV IPC object, no unix socket and no descriptor
#      but 0, 1 and 2 is left, and that its own limits, nice value,
#      scheduling and affinity are as they were at its start; answers
#      "NONCE clean" or "NONCE doubt WHY".
# The nonce is hook-exec's, new for each run and never where a process of
# the run can read it: bytes a run writes into the agent's stdout
# (/proc/1/fd/1) cannot pass for an answer.
trap '' HUP INT QUIT TERM USR1 USR2 PIPE ALRM
launcher=${1-}
src=${2-}
io=${3-}
case $launcher in
sh | py) ;;
*)
	echo "hook-agent: usage: LAUNCHER must be sh or py"
	exit 121
	;;
esac
if (: </proc/1/environ) 2>/dev/null; then
	echo "hook-agent: dumpable: the sh it runs under can be read by the sandbox's user (make it mode 0711)"
	exit 121
fi
# The helpers set variables rather than print: a command substitution is
# a process of its own, which others would count.
# oomkills sets ooms to the sandbox's OOM kills so far.
oomkills() {
	ooms=0
	for f in /sys/fs/cgroup/memory/memory.oom_control /sys/fs/cgroup/memory.events; do
		[ -r "$f" ] || continue
		while read -r k v; do
			[ "$k" = oom_kill ] && ooms=$v
		done <"$f"
		return
	done
}
# others sets left to the number of processes beside this one.
others() {
	left=0
	for p in /proc/[0-9]*; do
		[ "$p" = /proc/1 ] || [ ! -e "$p" ] || left=$((left + 1))
	done
}
# empty reports whether a directory holds nothing.
empty() {
	for f in "$1"/* "$1"/.[!.]* "$1"/..?*; do
		[ -e "$f" ] || [ -L "$f" ] && return 1
	done
	return 0
}
wipe() {
	rm -rf /tmp/* /tmp/.[!.]* /tmp/..?* /dev/shm/* /dev/shm/.[!.]* /dev/shm/..?* /dev/mqueue/* /dev/mqueue/.[!.]* /dev/mqueue/..?* 2>/dev/null
	for dir in /tmp /dev/shm /dev/mqueue; do
		if [ -d "$dir" ] && ! empty "$dir"; then
			# A directory the run took its own permissions from.
			chmod -R u+rwx "$dir"/* "$dir"/.[!.]* "$dir"/..?* 2>/dev/null
			rm -rf "$dir"/* "$dir"/.[!.]* "$dir"/..?* 2>/dev/null
		fi
	done
}
# snapshot sets snap to what a process of a run could change of this init
# without reading its memory: its resource limits (prlimit), nice value
# (setpriority), scheduling policy and priority (sched_setscheduler), CPU
# and memory-node affinity and OOM score adjustment. The sandbox's seccomp
# profile refuses those calls on another process; a change all the same
# retires the sandbox, or it would carry into every later run.
snapshot() {
	snap=
	while IFS= read -r l; do snap="$snap|$l"; done </proc/1/limits
	read -r stat </proc/1/stat
	# The fields after the command's name: the state is field 3, so field
	# N is argument N-2 (nice 19, rt_priority 40, policy 41).
	set -- ${stat##*) }
	snap="$snap|nice=${17}|rtprio=${38}|policy=${39}"
	while IFS=: read -r k v; do
		case $k in Cpus_allowed_list | Mems_allowed_list) snap="$snap|$k=$v" ;; esac
	done </proc/1/status
	read -r adj </proc/1/oom_score_adj
	snap="$snap|adj=$adj"
}
# short reports whether a file has at most one line (a header).
short() {
	n=0
	while IFS= read -r _; do n=$((n + 1)); done <"$1"
	[ "$n" -le 1 ]
}
# verify sets verdict to "clean" or "doubt WHY".
verify() {
	others
	if [ "$left" -gt 0 ]; then
		verdict="doubt a process is left"
		return
	fi
	snapshot
	if [ "$snap" != "$snap0" ]; then
		verdict="doubt the agent's limits, nice value, scheduling or affinity changed"
		return
	fi
	for dir in /tmp /dev/shm /dev/mqueue; do
		if [ -d "$dir" ] && ! empty "$dir"; then
			verdict="doubt $dir is not empty"
			return
		fi
	done
	for f in /proc/sysvipc/shm /proc/sysvipc/msg /proc/sysvipc/sem; do
		if [ -r "$f" ] && ! short "$f"; then
			verdict="doubt a SysV IPC object is left (${f#/proc/sysvipc/})"
			return
		fi
	done
	if [ -r /proc/net/unix ] && ! short /proc/net/unix; then
		verdict="doubt a unix socket is left"
		return
	fi
	for f in /proc/1/fd/*; do
		case ${f#/proc/1/fd/} in
		0 | 1 | 2) ;;
		*)
			if [ -e "$f" ]; then
				verdict="doubt descriptor ${f#/proc/1/fd/} is open"
				return
			fi
			;;
		esac
	done
	verdict=clean
}
# send writes at most $2 bytes of file $1 to stdout.
send() {
	[ "$2" -gt 0 ] || return 0
	dd if="$1" bs="$2" count=1 iflag=fullblock 2>/dev/null
}
# The launcher's dd probe, once for every run.
fullblock=0
dd if=/dev/null of=/dev/null iflag=fullblock 2>/dev/null && fullblock=1
# A run's files: fixed names in /tmp, which the reset empties; a run that
# swaps one for a link or anything but a regular file is caught below.
# Over a channel: its FIFOs.
in=/tmp/.hook-agent.in out=/tmp/.hook-agent.out err=/tmp/.hook-agent.err
[ -z "$io" ] || in=$io/rin out=$io/rout err=$io/rerr
# nextdir makes the next run's private directory and report file (the .sh
# launcher's): while the sandbox waits, not while a run does.
nextdir() {
	dir= report=
	[ "$launcher" = sh ] || return 0
	dir=$(mktemp -d 2>/dev/null) && report=$(mktemp 2>/dev/null) || dir=
}
snapshot
snap0=$snap
nextdir
echo ready
while IFS=' ' read -r nonce len cap; do
	case $nonce:$len:$cap in
	*[!0-9a-f:]* | :* | *::* | *:) exit 121 ;;
	esac
	cd / || exit 124
	if [ -n "$io" ]; then
		:
	elif [ "$len" -gt 0 ]; then
		dd bs="$len" count=1 iflag=fullblock of="$in" 2>/dev/null
	else
		: >"$in"
	fi
	oomkills
	before=$ooms
	# The run in a subshell that forgets the nonce and restores the signals
	# this shell ignores (an ignored signal stays ignored across exec: a
	# hook would run deaf to SIGPIPE and SIGTERM). The .sh launcher is
	# evaluated there rather than started as another sh.
	if [ "$launcher" = py ]; then
		(
			unset nonce
			trap - HUP INT QUIT TERM USR1 USR2 PIPE ALRM
			exec python -I -S -c "$src" pool
		) <"$in" >"$out" 2>"$err"
	else
		(
			unset nonce
			trap - HUP INT QUIT TERM USR1 USR2 PIPE ALRM
			HOOKEXEC_AGENT=1 HOOKEXEC_DD_FULLBLOCK=$fullblock HOOKEXEC_AGENT_DIR=$dir HOOKEXEC_AGENT_REPORT=$report
			set -- pool
			eval "$src"
		) <"$in" >"$out" 2>"$err"
	fi
	status=$?
	# Every process of the run ends (init's kill -9 -1 spares only init);
	# one forking as it is killed may leave a child: again, bounded. The
	# killed are this init's children now: a command substitution makes
	# the shell wait, which reaps them. A loaded machine needs a moment for
	# the dying: after the first tries, a pause between them.
	tries=0
	others
	while [ "$left" -gt 0 ] && [ "$tries" -lt 200 ]; do
		kill -9 -1 2>/dev/null
		_=$(:)
		tries=$((tries + 1))
		[ "$tries" -lt 20 ] || sleep 0.01
		others
	done
	oomkills
	oom=$((ooms - before))
	outlen=0 errlen=0
	# A process that would not end leaves the verdict in doubt (the
	# sandbox is retired), not the run: what it could still write is its
	# own run's output.
	if [ -n "$io" ]; then
		:
	elif [ -f "$out" ] && [ ! -L "$out" ] && [ -f "$err" ] && [ ! -L "$err" ]; then
		{
			read -r outlen _
			read -r errlen _
		} <<EOF
$(wc -c "$out" "$err")
EOF
	else
		status=125 # the run swapped its output files for something else
	fi
	outlen=$((outlen + 0)) errlen=$((errlen + 0))
	printf '%s %s %s %s %s\n' "$nonce" "$status" "$outlen" "$errlen" "$oom"
	if [ -n "$io" ]; then
		:
	elif [ "$outlen" -le "$cap" ] && [ "$errlen" -le "$cap" ]; then
		[ $((outlen + errlen)) -eq 0 ] || cat "$out" "$err"
	else
		send "$out" "$(((outlen < cap + 1) ? outlen : cap + 1))"
		send "$err" "$(((errlen < cap + 1) ? errlen : cap + 1))"
	fi
	wipe
	verify
	if [ "$verdict" = clean ]; then
		nextdir
		[ -n "$dir" ] || [ "$launcher" != sh ] || verdict="doubt mktemp -d failed"
	fi
	printf '%s %s\n' "$nonce" "$verdict"
done
