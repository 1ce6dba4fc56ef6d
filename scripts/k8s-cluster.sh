#!/bin/sh
# usage: k8s-cluster.sh build|up|down|env
# A real single-node Kubernetes cluster on this machine, for the Kubernetes
# backend's e2e suites (`make e2e-k8s`), made only of parts the registries
# here serve and torn down leaving nothing:
#   build  kube-apiserver, kube-scheduler, kubelet, crictl, the CNI plugins
#          (loopback, and cni-nowhere: an interface and no way out) and the
#          pause program, from the tools module (e2e/kubernetes/tools)
#          into bin/k8s (kept between runs); etcd from Debian's etcd-server,
#          extracted with apt-get download + dpkg-deb;
#   up     etcd, the apiserver (token auth, AlwaysAllow, on 127.0.0.1), the
#          scheduler, a containerd of its own (Debian's, CRI plugin on) with
#          the pause image and hook-exec's reference images imported from
#          Docker, a CNI network that gives each pod an interface and no
#          route, and the kubelet; waits for the node to be Ready;
#   down   every pod sandbox removed through CRI, then every process stopped,
#          every mount under the state directory undone, the pods' cgroups
#          (when this cluster made kubepods) and the directory gone;
#   env    prints the KUBECONFIG line for a shell.
# As root (the kubelet and containerd need it). State: $HOOKEXEC_K8S_STATE
# (default /var/lib/hookexec-k8s).
set -eu
cd "$(dirname "$0")/.."
repo=$(pwd)
bin=$repo/bin/k8s
state=${HOOKEXEC_K8S_STATE:-/var/lib/hookexec-k8s}
sock=$state/containerd/containerd.sock
token_file=$state/token
export PATH="$PATH:/usr/local/go/bin"

# Ports of its own, clear of a cluster the machine may already run.
etcd_port=12379
api_port=16443
kubelet_port=10350

log() { echo "k8s-cluster: $*"; }
die() {
	echo "k8s-cluster: $*" >&2
	for f in "$state"/logs/*.log; do
		[ -f "$f" ] || continue
		echo "--- last lines of $f" >&2
		tail -n 25 "$f" >&2
	done
	exit 1
}

build() {
	mkdir -p "$bin/cni"
	stamp=$(cat e2e/kubernetes/tools/go.sum e2e/kubernetes/tools/*/main.go | sha256sum | cut -c1-16)
	if [ "$(cat "$bin/.stamp" 2>/dev/null)" != "$stamp" ]; then
		log "building kube-apiserver, kube-scheduler, kubelet, crictl and the CNI plugins (a cold build takes about 15 minutes on 2 cores)"
		(
			cd e2e/kubernetes/tools
			CGO_ENABLED=0 go build -trimpath -o "$bin/" \
				k8s.io/kubernetes/cmd/kube-apiserver \
				k8s.io/kubernetes/cmd/kube-scheduler \
				k8s.io/kubernetes/cmd/kubelet \
				sigs.k8s.io/cri-tools/cmd/crictl \
				./pause
			CGO_ENABLED=0 go build -trimpath -o "$bin/cni/" \
				github.com/containernetworking/plugins/plugins/main/loopback \
				./cni-nowhere
		)
		echo "$stamp" >"$bin/.stamp"
	fi
	if [ ! -x "$bin/etcd" ]; then
		tmp=$(mktemp -d)
		(cd "$tmp" && apt-get download -q etcd-server >/dev/null) || {
			rm -rf "$tmp"
			die "apt-get download etcd-server failed (run apt-get update once)"
		}
		dpkg-deb -x "$tmp"/etcd-server_*.deb "$tmp/x"
		cp "$tmp/x/usr/bin/etcd" "$bin/etcd"
		rm -rf "$tmp"
	fi
	for p in containerd ctr openssl docker; do
		command -v $p >/dev/null 2>&1 || die "$p is needed"
	done
}

# start NAME CMD...: a daemon in the background, its pid and log in $state.
start() {
	name=$1
	shift
	nohup "$@" >"$state/logs/$name.log" 2>&1 </dev/null &
	echo $! >"$state/pids/$name"
}

# wait_for DAEMON WHAT SECONDS CMD...: until CMD succeeds, while DAEMON runs.
wait_for() {
	daemon=$1 what=$2 limit=$3
	shift 3
	i=0
	until "$@" >/dev/null 2>&1; do
		i=$((i + 1))
		kill -0 "$(cat "$state/pids/$daemon")" 2>/dev/null || die "$daemon exited before $what came up"
		[ "$i" -le "$((limit * 5))" ] || die "$what did not come up within ${limit}s"
		sleep 0.2
	done
}

kubectl_get() { # kubectl_get PATH: GET on the apiserver with the admin token
	curl -fsS --cacert "$state/pki/apiserver.crt" -H "@$state/pki/auth-header" "https://127.0.0.1:$api_port$1"
}

kubectl_patch() { # kubectl_patch PATH JSON: a merge patch
	curl -fsS --cacert "$state/pki/apiserver.crt" -H "@$state/pki/auth-header" \
		-X PATCH -H 'Content-Type: application/merge-patch+json' --data "$2" "https://127.0.0.1:$api_port$1"
}

up() {
	[ "$(id -u)" = 0 ] || die "up needs root (the kubelet and containerd)"
	build
	command -v curl >/dev/null 2>&1 || die "curl is needed"
	if [ -f "$state/pids/kubelet" ] && kill -0 "$(cat "$state/pids/kubelet")" 2>/dev/null; then
		log "already up ($state)"
		return
	fi
	down_quiet
	# An up that fails on the way leaves nothing either.
	trap 'echo "k8s-cluster: up failed: taking down what it started" >&2; down_quiet' EXIT
	mkdir -p "$state/logs" "$state/pids" "$state/pki" "$state/cni" "$state/containerd" "$state/kubelet"
	chmod 700 "$state"
	# What the kubelet, containerd and the CNI make outside the state
	# directory (the pods' cgroups under kubepods in every hierarchy, the
	# containers' log links, the CNI's cache, network namespaces): down
	# removes what did not exist before.
	for d in /sys/fs/cgroup/kubepods /sys/fs/cgroup/*/kubepods; do
		if [ -d "$d" ]; then touch "$state/kubepods-existed"; fi
	done
	for d in /var/log/containers /var/log/pods /var/lib/cni /run/netns; do
		if [ ! -e "$d" ]; then echo "$d" >>"$state/made-dirs"; fi
	done

	# Keys: the apiserver's serving certificate (its own CA in the
	# kubeconfig), the service-account signing key, one admin token.
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=hookexec-apiserver \
		-addext "subjectAltName=IP:127.0.0.1,DNS:localhost" \
		-keyout "$state/pki/apiserver.key" -out "$state/pki/apiserver.crt" 2>/dev/null
	openssl genrsa -out "$state/pki/sa.key" 2048 2>/dev/null
	openssl rsa -in "$state/pki/sa.key" -pubout -out "$state/pki/sa.pub" 2>/dev/null
	head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$token_file"
	printf '%s,admin,admin,system:masters\n' "$(cat "$token_file")" >"$state/pki/tokens.csv"
	# curl reads the header from a file: a token in its arguments is in ps.
	printf 'Authorization: Bearer %s\n' "$(cat "$token_file")" >"$state/pki/auth-header"
	# The kubelet takes only the apiserver's client certificate, from a CA
	# of this cluster's own: it listens on the host's address.
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=hookexec-kubelet-ca \
		-keyout "$state/pki/kubelet-ca.key" -out "$state/pki/kubelet-ca.crt" 2>/dev/null
	openssl req -newkey rsa:2048 -nodes -subj /CN=kube-apiserver \
		-keyout "$state/pki/apiserver-kubelet.key" -out "$state/pki/apiserver-kubelet.csr" 2>/dev/null
	openssl x509 -req -in "$state/pki/apiserver-kubelet.csr" -CA "$state/pki/kubelet-ca.crt" \
		-CAkey "$state/pki/kubelet-ca.key" -CAcreateserial -days 2 -out "$state/pki/apiserver-kubelet.crt" 2>/dev/null
	cat >"$state/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: hookexec
  cluster:
    server: https://127.0.0.1:$api_port
    certificate-authority: $state/pki/apiserver.crt
users:
- name: admin
  user:
    token: $(cat "$token_file")
contexts:
- name: hookexec
  context: {cluster: hookexec, user: admin}
current-context: hookexec
EOF
	chmod 600 "$state/kubeconfig"

	start etcd "$bin/etcd" --name hookexec --data-dir "$state/etcd" \
		--listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
		--listen-peer-urls http://127.0.0.1:12380 --initial-advertise-peer-urls http://127.0.0.1:12380 \
		--initial-cluster hookexec=http://127.0.0.1:12380
	wait_for etcd etcd 30 curl -fsS "http://127.0.0.1:$etcd_port/health"

	start apiserver "$bin/kube-apiserver" --etcd-servers "http://127.0.0.1:$etcd_port" \
		--bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$api_port" \
		--tls-cert-file "$state/pki/apiserver.crt" --tls-private-key-file "$state/pki/apiserver.key" \
		--token-auth-file "$state/pki/tokens.csv" --anonymous-auth=false --authorization-mode AlwaysAllow \
		--service-account-issuer https://kubernetes.default.svc --service-account-key-file "$state/pki/sa.pub" \
		--service-account-signing-key-file "$state/pki/sa.key" --service-cluster-ip-range 10.96.0.0/24 \
		--allow-privileged=false --kubelet-preferred-address-types InternalIP \
		--endpoint-reconciler-type none \
		--kubelet-client-certificate "$state/pki/apiserver-kubelet.crt" --kubelet-client-key "$state/pki/apiserver-kubelet.key"
	wait_for apiserver kube-apiserver 90 kubectl_get /readyz

	start scheduler "$bin/kube-scheduler" --kubeconfig "$state/kubeconfig" --leader-elect=false \
		--bind-address 127.0.0.1 --secure-port 10359

	# The CNI network: an interface with one /32 address and no route, its
	# peer down on the host, so that no packet can leave a pod (this kernel
	# may have no dummy links).
	cat >"$state/cni/10-hookexec.conflist" <<EOF
{"cniVersion": "1.0.0", "name": "hookexec-none", "plugins": [
  {"type": "cni-nowhere", "address": "10.255.255.1/32"}
]}
EOF
	cat >"$state/containerd/config.toml" <<EOF
version = 2
root = "$state/containerd/root"
state = "$state/containerd/state"
[grpc]
  address = "$sock"
[ttrpc]
  address = "$sock.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = "$state/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  # A containerd in a container may lack CAP_SYS_RESOURCE: the kubelet's
  # oom_score_adj of -998 for a sandbox then fails runc's setup ("can't get
  # final child's PID from pipe"); no score below containerd's own.
  restrict_oom_score_adj = true
  sandbox_image = "docker.io/hookexec/pause:1"
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "$bin/cni"
    conf_dir = "$state/cni"
EOF
	start containerd containerd --config "$state/containerd/config.toml"
	wait_for containerd containerd 30 ctr --address "$sock" version

	# The pause image, and hook-exec's images from Docker, into the CRI's
	# namespace: the pods use them with imagePullPolicy Never.
	mkdir -p "$state/pause"
	cp "$bin/pause" "$state/pause/pause"
	tar -C "$state/pause" -c pause | docker import -c 'ENTRYPOINT ["/pause"]' - hookexec/pause:1 >/dev/null
	# The newest image of each repository alone (docker lists the newest
	# first), as the Docker backend picks: a machine that built the
	# reference images again keeps the older ones, and the pods could not
	# tell which to run.
	refs=$(docker images --format '{{.Repository}}:{{.Tag}}' | grep '^hookexec/' | awk -F: '!seen[$1]++' || :)
	# shellcheck disable=SC2086
	docker save $refs | ctr --address "$sock" -n k8s.io images import - >/dev/null ||
		die "importing the images into the cluster's containerd failed"

	# The sandboxes' seccomp profile, where the kubelet finds Localhost ones.
	mkdir -p "$state/kubelet/root/seccomp"
	"$repo/bin/hook-exec" k8s seccomp-profile >"$state/kubelet/root/seccomp/hook-exec.json" ||
		die "bin/hook-exec k8s seccomp-profile failed (make build first)"
	# The kubelet refuses a loopback node address; the apiserver reaches it
	# (for pods/attach) at the host's own address, the one it listens on.
	node_ip=$(ip -4 route get 1.1.1.1 2>/dev/null | sed -n 's/.* src \([0-9.]*\).*/\1/p')
	[ -n "$node_ip" ] || node_ip=$(hostname -I | cut -d' ' -f1)
	[ -n "$node_ip" ] || die "no IPv4 address of this host for the node"
	cat >"$state/kubelet/config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
containerRuntimeEndpoint: unix://$sock
address: $node_ip
port: $kubelet_port
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10348
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: false}
  x509: {clientCAFile: $state/pki/kubelet-ca.crt}
authorization: {mode: AlwaysAllow}
enableSystemLogHandler: false
podLogsDir: $state/logs/pods
failCgroupV1: false
cgroupDriver: cgroupfs
cgroupsPerQOS: true
enforceNodeAllocatable: []
failSwapOn: false
podPidsLimit: 64
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: "0%", nodefs.available: "0%", imagefs.available: "0%", nodefs.inodesFree: "0%"}
maxPods: 110
EOF
	start kubelet "$bin/kubelet" --config "$state/kubelet/config.yaml" --kubeconfig "$state/kubeconfig" \
		--hostname-override hookexec-node --node-ip "$node_ip" --root-dir "$state/kubelet/root" \
		--cert-dir "$state/kubelet/pki"
	wait_for kubelet "a Ready node" 90 node_ready
	# No controller manager here takes off the taint a node registers with.
	kubectl_patch /api/v1/nodes/hookexec-node '{"spec":{"taints":null}}' >/dev/null ||
		die "could not take the not-ready taint off the node"
	trap - EXIT
	log "up: KUBECONFIG=$state/kubeconfig"
}

node_ready() {
	kubectl_get /api/v1/nodes/hookexec-node | grep -q '"type": "Ready",[^}]*"status": "True"' ||
		kubectl_get /api/v1/nodes/hookexec-node | tr -d ' \n' | grep -q '"type":"Ready","status":"True"'
}

stop() { # stop NAME: SIGTERM, then SIGKILL after 10 s
	f=$state/pids/$1
	[ -f "$f" ] || return 0
	pid=$(cat "$f")
	if kill "$pid" 2>/dev/null; then
		i=0
		while kill -0 "$pid" 2>/dev/null; do
			i=$((i + 1))
			[ "$i" -lt 50 ] || { kill -9 "$pid" 2>/dev/null || :; break; }
			sleep 0.2
		done
	fi
	rm -f "$f"
}

down_quiet() {
	[ -d "$state" ] || return 0
	stop kubelet
	stop scheduler
	if [ -S "$sock" ] && [ -x "$bin/crictl" ]; then
		# Every pod sandbox, with its containers and its network namespace.
		"$bin/crictl" -r "unix://$sock" rmp -af >/dev/null 2>&1 || :
		for id in $(ctr --address "$sock" -n k8s.io tasks ls -q 2>/dev/null); do
			ctr --address "$sock" -n k8s.io tasks kill -s SIGKILL "$id" >/dev/null 2>&1 || :
			ctr --address "$sock" -n k8s.io tasks delete -f "$id" >/dev/null 2>&1 || :
		done
	fi
	stop containerd
	# Shims of this containerd that outlived it.
	for p in $(pgrep -f "containerd-shim.*-address $sock" || :); do
		kill -9 "$p" 2>/dev/null || :
	done
	stop apiserver
	stop etcd
	# Mounts below the state directory, deepest first.
	awk -v s="$state" '$2 == s || index($2, s "/") == 1 { print $2 }' /proc/self/mounts | sort -r |
		while read -r m; do umount -l "$m" 2>/dev/null || :; done
	if [ ! -f "$state/kubepods-existed" ]; then
		for d in /sys/fs/cgroup/kubepods /sys/fs/cgroup/*/kubepods; do
			[ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} + 2>/dev/null || :
		done
	fi
	if [ -f "$state/made-dirs" ]; then
		while read -r d; do rm -rf "$d"; done <"$state/made-dirs"
	fi
	rm -rf "$state"
}

case ${1:-} in
build) build ;;
up) up ;;
down)
	down_quiet
	log "down: nothing left in $state"
	;;
env) echo "export KUBECONFIG=$state/kubeconfig" ;;
*)
	echo "usage: k8s-cluster.sh build|up|down|env" >&2
	exit 64
	;;
esac
