#!/bin/sh
# Puts the shells the launcher tests run (dash, busybox) into DIR, extracted
# from Debian's packages with apt-get download + dpkg-deb -x: no root, no
# installation. python3, jq, node, git and bash come from the host; when one
# of the first four is missing and we are root, it is installed.
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
# python3 for the launcher tests; jq, node, git and perl for the corpus's
# hooks, which the differential test runs on the host too.
for tool in python3:python3 jq:jq node:nodejs git:git perl:perl-base; do
	cmd=${tool%%:*} pkg=${tool#*:}
	command -v "$cmd" >/dev/null 2>&1 && continue
	if [ "$(id -u)" = 0 ]; then
		apt-get install -y -q "$pkg" >/dev/null
	else
		echo "testtools: the tests need $cmd (apt-get install $pkg)" >&2
		exit 1
	fi
done
"$dir/bin/dash" -c 'exit 0'
"$dir/bin/busybox" true
