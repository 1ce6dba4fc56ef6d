#!/bin/sh
# usage: prepare.sh apt|engine|runsc|crun|sshd|podman|rootless|k8s ...
# What `make test` (and `make demo`) need before anything builds, on a
# fresh machine with Go and a Docker Engine installed, .ci/run or not:
#   apt     apt's package lists, for `apt-get download` (the reference images
#           and the launcher tests' shells): refreshed when they cannot
#           resolve a package and we are root;
#   engine  a running engine: dockerd started when it is installed but not
#           running and we are root;
#   runsc   gVisor for --runtime runsc on both engines: Debian's runsc
#           installed when missing, then `hook-exec runtime setup runsc`
#           (containerd's wrapper; Docker's daemon.json, reloaded only when
#           it changed), as root. Needs bin/hook-exec.
#   crun    crun for --runtime crun on both engines: Debian's crun installed
#           when missing, then `hook-exec runtime setup crun` (Docker's
#           daemon.json), as root. Needs bin/hook-exec.
#   sshd    Debian's openssh-server, whose sshd the remote-engine pass
#           starts on loopback (its own config and keys; the package's
#           service is neither started nor enabled), installed when
#           missing, as root.
#   podman  Debian's podman, whose `podman system service` the Podman pass
#           starts on a socket of its own (rootful, runc; the package's
#           units neither started nor enabled), installed when missing, as
#           root.
#   rootless what the rootless Docker pass starts a rootless dockerd with
#           (docker.io's dockerd-rootless.sh): Debian's rootlesskit,
#           slirp4netns and uidmap installed when missing, the account
#           hookexec-rootless with subordinate ids in /etc/subuid and
#           /etc/subgid, and /dev/net/tun opened to it (0666, udev's usual
#           mode; slirp4netns needs it), as root.
#   k8s     what the Kubernetes test cluster runs and does not build
#           (scripts/k8s-cluster.sh): containerd with its CRI plugin, ctr,
#           curl, openssl, ip; Debian's packages installed when missing, as
#           root.
# Anything it cannot provide it names, and exits non-zero.
set -eu
want_apt=false
want_engine=false
runtimes=
want_ssh=false
want_podman=false
want_rootless=false
want_k8s=false
for a in "$@"; do
	case $a in
	apt) want_apt=true ;;
	engine) want_engine=true ;;
	runsc | crun) runtimes="$runtimes $a" ;;
	sshd) want_ssh=true ;;
	podman) want_podman=true ;;
	rootless) want_rootless=true ;;
	k8s) want_k8s=true ;;
	*) echo "usage: prepare.sh apt|engine|runsc|crun|sshd|podman|rootless|k8s ..." >&2; exit 64 ;;
	esac
done
root=false
[ "$(id -u)" = 0 ] && root=true
# As .ci/run sets it: a terminal's `make test` asks nothing either.
export DEBIAN_FRONTEND="${DEBIAN_FRONTEND:-noninteractive}"

# install_quietly UNIT... -- PACKAGE...: Debian's packages for a test pass,
# not as services: policy-rc.d keeps their daemons from starting now, and
# their UNITs are disabled at boot (systemd, sysvinit), so that no sshd or
# API socket is left listening after a reboot.
install_quietly() {
	units=
	while [ "$1" != -- ]; do
		units="$units $1"
		shift
	done
	shift
	own_policy=false
	if ! [ -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod 755 /usr/sbin/policy-rc.d
		own_policy=true
	fi
	rc=0
	apt-get install -y -qq --no-install-recommends "$@" >/dev/null || rc=$?
	if $own_policy; then rm -f /usr/sbin/policy-rc.d; fi
	[ "$rc" = 0 ] || return "$rc"
	for u in $units; do
		if command -v systemctl >/dev/null 2>&1; then systemctl disable --quiet "$u" >/dev/null 2>&1 || true; fi
		if [ -e "/etc/init.d/${u%.service}" ] && command -v update-rc.d >/dev/null 2>&1; then
			update-rc.d "${u%.service}" disable >/dev/null 2>&1 || true
		fi
	done
}

if $want_apt; then
	for p in apt-get dpkg-deb; do
		command -v "$p" >/dev/null 2>&1 || {
			echo "prepare: $p is needed (a Debian host) to build the images and test tools from Debian's packages" >&2
			exit 1
		}
	done
	if [ -z "$(apt-get download --print-uris busybox-static 2>/dev/null)" ]; then
		if $root; then
			echo "prepare: apt cannot resolve packages yet: apt-get update"
			apt-get update -qq
		else
			echo "prepare: apt cannot resolve packages: run 'apt-get update' once as root" >&2
			exit 1
		fi
	fi
fi

if $want_engine && ! docker info >/dev/null 2>&1; then
	if command -v dockerd >/dev/null 2>&1 && $root; then
		log=${TMPDIR:-/tmp}/hookexec-dockerd.log
		echo "prepare: the Docker Engine is installed but not running: starting dockerd (log $log)"
		nohup dockerd >"$log" 2>&1 </dev/null &
		i=0
		until docker info >/dev/null 2>&1; do
			i=$((i + 1))
			if [ "$i" -gt 60 ]; then
				echo "prepare: dockerd did not answer within 60s" >&2
				tail -n 30 "$log" >&2 || :
				exit 1
			fi
			sleep 1
		done
	else
		echo "prepare: no Docker Engine answers (docker info) and none can be started here: install and start one (the e2e suites and the images need it)" >&2
		exit 1
	fi
fi

for rt in $runtimes; do
	if ! $root; then
		echo "prepare: $rt is set up as root (sudo bin/hook-exec runtime setup $rt); the $rt suites skip without it" >&2
		continue
	fi
	if ! command -v "$rt" >/dev/null 2>&1; then
		echo "prepare: installing Debian's $rt"
		# Optional: without it, its suites skip (or fail under
		# HOOKEXEC_REQUIRE_ENGINE=1) saying so; the rest of make test runs.
		apt-get install -y -qq "$rt" >/dev/null || { echo "prepare: $rt could not be installed; its suites will say so" >&2; continue; }
	fi
	./bin/hook-exec runtime setup "$rt" | sed 's/^/prepare: /'
done

if $want_ssh && ! [ -x /usr/sbin/sshd ] && ! $root; then
	echo "prepare: the remote-engine pass needs Debian's openssh-server (apt-get install openssh-server, as root); it skips without it" >&2
elif $want_ssh && ! [ -x /usr/sbin/sshd ]; then
	echo "prepare: installing Debian's openssh-server (its service neither started nor enabled)"
	install_quietly ssh.service ssh.socket -- openssh-server
fi

if $want_podman && ! command -v podman >/dev/null 2>&1; then
	if ! $root; then
		echo "prepare: the Podman pass needs Debian's podman (apt-get install podman, as root); it skips without it" >&2
	else
		echo "prepare: installing Debian's podman (its services neither started nor enabled: the pass starts its own)"
		install_quietly podman.socket podman.service podman-restart.service podman-auto-update.timer podman-auto-update.service -- podman
	fi
fi

if $want_rootless && ! $root; then
	echo "prepare: the rootless Docker pass needs root to set up (make rootless, as root); it skips without it" >&2
elif $want_rootless; then
	missing=
	for pair in rootlesskit:rootlesskit slirp4netns:slirp4netns newuidmap:uidmap; do
		command -v "${pair%%:*}" >/dev/null 2>&1 || missing="$missing ${pair#*:}"
	done
	if [ -n "$missing" ]; then
		echo "prepare: installing Debian's$missing for the rootless Docker pass"
		# shellcheck disable=SC2086
		apt-get install -y -qq --no-install-recommends $missing >/dev/null
	fi
	id hookexec-rootless >/dev/null 2>&1 || useradd -m -s /bin/sh hookexec-rootless
	for f in /etc/subuid /etc/subgid; do
		touch "$f"
		# A range of its own, past every other's, where useradd gave none.
		if ! grep -q '^hookexec-rootless:' "$f"; then
			line=$(awk -F: 'BEGIN { e = 100000 } NF == 3 && $2 + $3 > e { e = $2 + $3 } END { print "hookexec-rootless:" e ":65536" }' "$f")
			echo "$line" >>"$f"
		fi
	done
	if [ -c /dev/net/tun ]; then chmod 666 /dev/net/tun; fi
fi

if $want_k8s; then
	missing=
	for pair in containerd:containerd ctr:containerd curl:curl openssl:openssl ip:iproute2; do
		command -v "${pair%%:*}" >/dev/null 2>&1 || missing="$missing ${pair#*:}"
	done
	if [ -n "$missing" ]; then
		if ! $root; then
			echo "prepare: the Kubernetes test cluster needs Debian's$missing (apt-get install$missing, as root)" >&2
			exit 1
		fi
		echo "prepare: installing Debian's$missing for the Kubernetes test cluster"
		# shellcheck disable=SC2086
		apt-get install -y -qq $missing >/dev/null
	fi
fi
