# hook-exec launcher for .sh scripts.
# (and for node scripts, run through node: see HOOKEXEC_SHELL below)
#   cold:   sh -c <this> hook-launcher N [ARG...]   stdin: N script bytes, the event, EOF
#           (each ARG is passed to the script)
#   pooled: sh -c <this> hook-launcher pool  stdin: a header line "N M [EXT]", M bytes of
#           environment (export lines hook-exec wrote), N script bytes, the event, EOF
# Exit codes of its own (with a "hook-launcher:" line on stderr):
#   121 usage, 122 missing program, 123 short script, 124 no private directory.
# A program the script calls and the image lacks fails the run (122) when the
# script calls it, not before (see HOOKEXEC_NEEDS below).
# A script's own status in 121-124 leaves as 120: those four are the launcher's.
# The script runs in its private directory, or in $HOOKEXEC_CWD when set.
fail() {
	code=$1
	shift
	printf 'hook-launcher: %s\n' "$*" >&2
	exit "$code"
}
hookexec_n=${1-}
m=0
# The arguments after the length are the script's own.
[ "$#" -gt 0 ] && shift
for p in mktemp dd wc rm; do
	command -v "$p" >/dev/null 2>&1 || fail 122 "missing program: $p (the image must provide sh, mktemp, dd, wc and rm)"
done
# HOOKEXEC_AGENT=1: a reused sandbox's agent runs this launcher and
# empties /tmp after the run itself: nothing to remove here. It made the
# private directory and the report file ahead of the run.
hookexec_agent=${HOOKEXEC_AGENT-}
hookexec_dir= hookexec_report=
if [ "$hookexec_agent" = 1 ]; then
	hookexec_dir=${HOOKEXEC_AGENT_DIR-} hookexec_report=${HOOKEXEC_AGENT_REPORT-}
fi
# HOOKEXEC_DISPOSABLE=1 (the sandbox's own environment): the sandbox is
# removed after this one run, and /tmp with it: nothing to remove here.
hookexec_disposable=${HOOKEXEC_DISPOSABLE-}
unset HOOKEXEC_AGENT HOOKEXEC_AGENT_DIR HOOKEXEC_AGENT_REPORT HOOKEXEC_DISPOSABLE
# HOOKEXEC_PRIVATE_DIR: the private directory's name, given where /tmp is
# kept between runs (its caller removes what a killed run left there).
if [ -z "$hookexec_dir" ] && [ -n "${HOOKEXEC_PRIVATE_DIR-}" ]; then
	mkdir -m 700 "$HOOKEXEC_PRIVATE_DIR" 2>/dev/null || fail 124 "cannot create the private directory $HOOKEXEC_PRIVATE_DIR"
	hookexec_dir=$HOOKEXEC_PRIVATE_DIR
fi
unset HOOKEXEC_PRIVATE_DIR
if [ -z "$hookexec_dir" ]; then
	hookexec_dir=$(mktemp -d 2>/dev/null) || fail 124 "cannot create a private directory with mktemp -d"
fi
# The report: a file beside the private directory for dd's count of what
# it read of the script, made ahead by a pooled launcher in a sandbox of
# its own (a builtin read of it replaces a wc on the way to the run).
if [ -z "$hookexec_report" ] && [ "$hookexec_n" = pool ] && [ "$hookexec_disposable" = 1 ]; then
	hookexec_report=$(mktemp 2>/dev/null) || hookexec_report=
fi
# The launcher's own programs are found on the PATH it started with, not
# one the run's environment sets.
hookexec_path=$PATH
# cat feeds the script a pipe of the launcher's own (below), where the
# image has one.
hookexec_cat=
command -v cat >/dev/null 2>&1 && hookexec_cat=1
hookexec_standins=
cleanup() {
	cd / || :
	[ "$hookexec_agent" = 1 ] || [ "$hookexec_disposable" = 1 ] && return
	PATH=$hookexec_path rm -rf "$hookexec_dir" ${hookexec_standins:+"$hookexec_standins"} 2>/dev/null
	if [ -e "$hookexec_dir" ] || { [ -n "$hookexec_standins" ] && [ -e "$hookexec_standins" ]; }; then
		# The script removed its own permissions; chmod is optional in an image.
		PATH=$hookexec_path chmod -R u+rwx "$hookexec_dir" ${hookexec_standins:+"$hookexec_standins"} 2>/dev/null
		PATH=$hookexec_path rm -rf "$hookexec_dir" ${hookexec_standins:+"$hookexec_standins"} 2>/dev/null
	fi
}
# readn N FILE copies exactly N bytes of stdin to FILE, never one byte of
# the event after them: dd's one block of N bytes with iflag=fullblock
# (each read(2) asks for what is still missing, so a few reads in all),
# else dd bs=1 (one read(2) per byte: thousands for a script, each a
# round trip to gVisor's kernel under runsc). dd's report goes to stderr.
# HOOKEXEC_DD_FULLBLOCK=1: the reused sandbox's agent probed dd already.
hookexec_fullblock=
if [ "${HOOKEXEC_DD_FULLBLOCK-}" = 1 ] || dd if=/dev/null of=/dev/null iflag=fullblock 2>/dev/null; then
	hookexec_fullblock=1
fi
unset HOOKEXEC_DD_FULLBLOCK
readn() {
	if [ -n "$hookexec_fullblock" ]; then
		dd bs="$1" count=1 iflag=fullblock of="$2"
	else
		dd bs=1 count="$1" of="$2"
	fi
}
# A pooled launcher has done all of the above before its run comes: the
# header is the first thing it waits for.
if [ "$hookexec_n" = pool ]; then
	# read takes one byte at a time from a pipe: it never reads past the line.
	IFS=' ' read -r hookexec_n m HOOKEXEC_EXT || {
		cleanup
		fail 123 "short header"
	}
fi
case $hookexec_n:$m in
:* | *: | *[!0-9:]*)
	cleanup
	fail 121 "usage: the script's length and the environment's lines must be decimal counts, got '$hookexec_n' '$m'"
	;;
esac
# HOOKEXEC_EXT (cold: the environment's; pooled: the header's third
# word): the private copy's extension, which node reads (.mjs is a module);
# without it, .sh.
hookexec_ext=${HOOKEXEC_EXT:-.sh}
case $hookexec_ext in
.sh | .js | .mjs | .cjs) ;;
*)
	cleanup
	fail 121 "usage: HOOKEXEC_EXT must be .sh, .js, .mjs or .cjs, got '$hookexec_ext'"
	;;
esac
# The environment block (pooled): m lines of export, read with the builtin
# (a newline in a value is written as $hookexec_nl), no dd and no file.
hookexec_nl='
'
hookexec_env= hookexec_i=0
while [ "$hookexec_i" -lt "$m" ]; do
	IFS= read -r hookexec_line || {
		cleanup
		fail 123 "short environment: read $hookexec_i of $m lines"
	}
	hookexec_env=$hookexec_env$hookexec_line$hookexec_nl
	hookexec_i=$((hookexec_i + 1))
done
# The script, checked whole: by dd's own count of what it read where there
# is a report file ("1+0 records in": one whole block), else by wc.
hookexec_script=$hookexec_dir/hook$hookexec_ext
hookexec_whole=
if [ "$hookexec_n" -eq 0 ]; then
	: >"$hookexec_script"
	hookexec_whole=1
elif [ -n "$hookexec_report" ]; then
	readn "$hookexec_n" "$hookexec_script" 2>"$hookexec_report"
	hookexec_records=1
	[ -n "$hookexec_fullblock" ] || hookexec_records=$hookexec_n
	IFS=+ read -r hookexec_full hookexec_part <"$hookexec_report"
	case $hookexec_full+$hookexec_part in
	"$hookexec_records+0 records in"*) hookexec_whole=1 ;;
	[0-9]*+[0-9]*" records in"*) ;;
	*) hookexec_report= ;; # a dd that reports otherwise: wc decides
	esac
else
	readn "$hookexec_n" "$hookexec_script" 2>/dev/null
fi
if [ -z "$hookexec_whole" ] && [ -z "$hookexec_report" ]; then
	hookexec_got=$(wc -c <"$hookexec_script" 2>/dev/null)
	[ "$((hookexec_got + 0))" -ne "$hookexec_n" ] || hookexec_whole=1
fi
if [ -z "$hookexec_whole" ]; then
	cleanup
	fail 123 "short script: read fewer than its $hookexec_n bytes"
fi
# Evaluated last: what the block sets cannot change how the script is
# read, and it cannot set the launcher's own variables (hookexec_*: a
# hook's environment may not use that prefix).
[ "$m" -eq 0 ] || eval "$hookexec_env"
# HOOKEXEC_CWD: where the host's contract starts the hook (its event's
# cwd, mounted); without it, the private directory.
cwd=${HOOKEXEC_CWD-}
# HOOKEXEC_SHELL: the interpreter the script's #! line (or its extension)
# names (checked by hook-exec: sh, bash, dash, ash with one option word,
# or node); without it, sh.
shell=${HOOKEXEC_SHELL:-sh}
flags=${HOOKEXEC_SHELL_FLAGS-}
needs=${HOOKEXEC_NEEDS-}
hookexec_needs_now=${HOOKEXEC_NEEDS_NOW-}
hookexec_standin=${HOOKEXEC_STAND_IN:-/usr/lib/hook-exec/missing}
# HOOKEXEC_SCRIPT_PATH: the script's own file in its pinned tree, mounted
# read-only (checked by hook-exec): it runs from there, beside its files.
hookexec_as=${HOOKEXEC_SCRIPT_PATH-}
# HOOKEXEC_HOME_DIR: the directory the host keeps in the user's home
# (.claude, a plain name checked by hook-exec): it exists, empty, in the
# sandbox's home, as on any machine the host runs on.
hookexec_home_dir=${HOOKEXEC_HOME_DIR-}
unset HOOKEXEC_CWD HOOKEXEC_SHELL HOOKEXEC_SHELL_FLAGS HOOKEXEC_EXT HOOKEXEC_NEEDS HOOKEXEC_NEEDS_NOW HOOKEXEC_STAND_IN HOOKEXEC_DISPOSABLE HOOKEXEC_SCRIPT_PATH HOOKEXEC_HOME_DIR
[ -z "$hookexec_home_dir" ] || [ -z "${HOME-}" ] || [ -d "$HOME/$hookexec_home_dir" ] || PATH=$hookexec_path mkdir -p "$HOME/$hookexec_home_dir" 2>/dev/null || :
command -v "$shell" >/dev/null 2>&1 || {
	cleanup
	fail 122 "missing program: $shell (the script's #! line names it)"
}
# HOOKEXEC_NEEDS: the programs the script calls and does not look for
# itself (plain names, checked by hook-exec), looked up on the PATH the
# script will have. A guard whose jq is missing would swallow the failure
# inside $(...) and allow everything; one that calls gofmt only for a
# commit must still answer for everything else. So each one the image
# lacks gets a stand-in (the image's, linked by its name into a directory
# of ours last on the PATH): called, it records its name, and
# the run fails here after the script, naming it, whatever the script's
# status. Where there can be no stand-in (an image without one, no mkdir
# or ln, or HOOKEXEC_NEEDS_NOW=1: the script sets a PATH of its own, which
# would lose it) the run fails before the script starts, as it always did.
hookexec_missing=
for p in $needs; do
	command -v "$p" >/dev/null 2>&1 || hookexec_missing="$hookexec_missing $p"
done
if [ -n "$hookexec_missing" ]; then
	if [ "$hookexec_needs_now" != 1 ] && [ -x "$hookexec_standin" ] && PATH=$hookexec_path mkdir "$hookexec_dir.missing" "$hookexec_dir.missing/bin" 2>/dev/null; then
		hookexec_standins=$hookexec_dir.missing
		for p in $hookexec_missing; do
			PATH=$hookexec_path ln -s "$hookexec_standin" "$hookexec_standins/bin/$p" 2>/dev/null || {
				hookexec_needs_now=1
				break
			}
		done
	else
		hookexec_needs_now=1
	fi
	if [ "$hookexec_needs_now" = 1 ]; then
		cleanup
		for p in $hookexec_missing; do break; done
		fail 122 "missing program: $p (the script calls it; use an image that provides it)"
	fi
	PATH=$PATH:$hookexec_standins/bin
fi
if [ -n "$hookexec_as" ]; then
	cd "${cwd:-$hookexec_dir}" || {
		cleanup
		fail 124 "cannot enter the working directory ${cwd:-$hookexec_dir}"
	}
	set -- "$hookexec_as" "$@"
elif [ -n "$cwd" ]; then
	cd "$cwd" || {
		cleanup
		fail 124 "cannot enter the working directory $cwd"
	}
	set -- "$hookexec_dir/hook$hookexec_ext" "$@"
else
	cd "$hookexec_dir" || {
		cleanup
		fail 124 "cannot enter the private directory"
	}
	set -- "./hook$hookexec_ext" "$@"
fi
# The script's stdin is a pipe, as a host hands its hooks one, fed by cat
# from the launcher's: that is a FIFO (the channel's), and a script that
# opens /dev/stdin again ("$(</dev/stdin)", cat /dev/stdin, node's
# readFileSync('/dev/stdin')) would open the FIFO anew and wait for a
# writer long gone, where a pipe opens again at once. cat is killed once
# the script has ended: what the script left holding its stdin (a daemon it
# started) must not keep the run waiting on an event nobody reads. Its pid
# is in a file beside the private directory.
if [ -n "$hookexec_cat" ]; then
	hookexec_feeder=$hookexec_dir.feeder
	# The shell's own word on the killed feeder ("Killed") goes to
	# /dev/null; the script's stderr is the run's (fd 4).
	exec 4>&2
	{
		# shellcheck disable=SC2016,SC2086 # the inner $$ is the feeder's; one option word, or none
		PATH=$hookexec_path sh -c 'echo "$$" >"$1" && exec cat' sh "$hookexec_feeder" 2>&4 | {
			"$shell" $flags "$@" 2>&4 4>&-
			hookexec_st=$?
			IFS= read -r hookexec_fpid <"$hookexec_feeder" 2>/dev/null && PATH=$hookexec_path kill -9 "$hookexec_fpid" 2>/dev/null
			exit "$hookexec_st"
		}
	} 2>/dev/null
	status=$?
	exec 4>&-
	PATH=$hookexec_path rm -f "$hookexec_feeder"
else
	# shellcheck disable=SC2086 # one option word, or none
	"$shell" $flags "$@"
	status=$?
fi
# A stand-in called: the script met a program the image lacks.
if [ -n "$hookexec_standins" ] && [ -s "$hookexec_standins/called" ]; then
	IFS= read -r hookexec_called <"$hookexec_standins/called" || :
	case " $hookexec_missing " in
	*" $hookexec_called "*) ;;
	*) for hookexec_called in $hookexec_missing; do break; done ;;
	esac
	cleanup
	fail 122 "missing program: $hookexec_called (the script called it; use an image that provides it)"
fi
cleanup
case $status in 12[1-4]) status=120 ;; esac
exit "$status"
