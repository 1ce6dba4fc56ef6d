#!/bin/sh
# hook-exec's stand-in for a program a hook's script calls and its image
# lacks. The .sh launcher links it, by that program's name, into
# DIR/bin (DIR: a directory of its own beside the run's private one, in
# /tmp), last on the script's PATH; the reference images have it at
# /usr/lib/hook-exec/missing. Called, it records its name in DIR/called,
# which the launcher reads when the script ends: the run then fails as a
# missing program naming it, whatever the script's own status (a guard
# whose jq is missing never allows). It answers as a shell does for a
# program it cannot find: 127, and a line on stderr.
name=${0##*/}
dir=${0%/*}
printf '%s\n' "$name" >>"${dir%/*}/called" 2>/dev/null
printf 'hook-launcher: missing program: %s\n' "$name" >&2
exit 127
