#!/bin/sh
# Puts the shells the launcher tests run (dash, busybox) into DIR, extracted
# from Debian's packages with apt-get download + dpkg-deb -x: no root, no
# installation. python3 and bash come from the host; when python3 is
# missing and we are root, it is installed.
set -eu
dir=${1:?usage: testtools.sh DIR}
mkdir -p "$dir"
need=
[ -x "$dir/bin/dash" ] || need="$need dash"
[ -x "$dir/bin/busybox" ] || need="$need busybox-static"
if [ -n "$need" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	# shellcheck disable=SC2086
	if ! (cd "$tmp" && apt-get download -q $need >/dev/null 2>"$tmp/err"); then
		cat "$tmp/err" >&2
		echo "testtools: apt-get download$need failed; run apt-get update once on a fresh machine" >&2
		exit 1
	fi
	for deb in "$tmp"/*.deb; do
		dpkg-deb -x "$deb" "$dir"
	done
fi
if ! command -v python3 >/dev/null 2>&1; then
	if [ "$(id -u)" = 0 ]; then
		apt-get install -y -q python3 >/dev/null
	else
		echo "testtools: the launcher tests need python3 (apt-get install python3)" >&2
		exit 1
	fi
fi
"$dir/bin/dash" -c 'exit 0'
"$dir/bin/busybox" true
