#!/bin/sh
# Example guard: deny a tool.before event whose command contains "rm -rf",
# allow everything else. Plain POSIX sh: the reference image has busybox.
event=$(cat)
case $event in
*'rm -rf'*)
	printf '{"schema_version":1,"action":"deny","reason":"refusing a recursive rm"}\n'
	;;
*)
	printf '{"schema_version":1,"action":"allow"}\n'
	;;
esac
