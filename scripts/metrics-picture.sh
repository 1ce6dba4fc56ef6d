#!/bin/sh
# The picture in docs/operations.md, from a real run: a server on
# containerd with --metrics-addr under a mixed load (allows, denies, a
# crashing hook, a slow one; three callers at once), Debian's prometheus
# scraping it every 2 s, and its graph page taken by headless chromium.
#   scripts/metrics-picture.sh [OUT.png] [SECONDS]     (as root: apt-get)
set -eu
out=${1:-docs/images/prometheus-mixed-load.png}
secs=${2:-150}
command -v prometheus >/dev/null && command -v chromium >/dev/null ||
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends prometheus chromium fonts-dejavu-core >/dev/null
make build >/dev/null
bin=$PWD/bin/hook-exec
w=$(mktemp -d)
trap 'HOOKEXEC_SERVER= "$bin" server stop --server "$w/srv/server.sock" >/dev/null 2>&1 || :; kill "$prom" 2>/dev/null || :; wait 2>/dev/null || :; rm -rf "$w"' EXIT
mkdir -m 700 "$w/srv"
export HOOKEXEC_SERVER="$w/srv/server.sock"
"$bin" server start --server "$HOOKEXEC_SERVER" --state-dir "$w/state" --backend containerd --pool 2 --reuse --metrics-addr 127.0.0.1:9464
printf 'global:\n  scrape_interval: 2s\nscrape_configs:\n  - job_name: hook-exec\n    static_configs:\n      - targets: ["127.0.0.1:9464"]\n' >"$w/prometheus.yml"
prometheus --config.file="$w/prometheus.yml" --storage.tsdb.path="$w/prom" --web.listen-address=127.0.0.1:9090 >"$w/prom.log" 2>&1 &
prom=$!
cat >"$w/guard.sh" <<'G'
case $(cat) in *'rm -rf'*) echo '{"schema_version":1,"action":"deny","reason":"no rm -rf"}';; *) echo '{"schema_version":1,"action":"allow"}';; esac
G
printf 'cat >/dev/null; echo boom >&2; exit 3\n' >"$w/crash.sh"
printf 'cat >/dev/null; sleep 0.3; echo {\\"schema_version\\":1,\\"action\\":\\"allow\\"}\n' >"$w/slow.sh"
ev() { printf '{"schema_version":1,"event_id":"e%s","timestamp":0,"point":"tool.before","session_id":"s","depth":0,"data":{"cmd":"%s"}}' "$1" "$2"; }
call() { "$bin" run --script "$w/$1" --state-dir "$w/state" --backend containerd >/dev/null 2>&1 || :; }
lane() {
	end=$(($(date +%s) + secs))
	i=0
	while [ "$(date +%s)" -lt "$end" ]; do
		i=$((i + 1))
		case $((i % 7)) in
		0) ev $i "rm -rf /" | call guard.sh ;;
		3) ev $i ls | call crash.sh ;;
		5) ev $i ls | call slow.sh ;;
		*) ev $i ls | call guard.sh ;;
		esac
		sleep 0.$((i % 5 + 1))
	done
}
lanes=
for _ in 1 2 3; do
	lane &
	lanes="$lanes $!"
done
wait $lanes
sleep 5
url=$(python3 -c 'import urllib.parse as u
g=[("sum by (action) (rate(hookexec_runs_total[20s]))"),("histogram_quantile(0.5, sum by (le, phase) (rate(hookexec_run_phase_seconds_bucket[20s])))"),("sum by (kind) (rate(hookexec_run_failures_total[20s]))")]
q={}
for i,e in enumerate(g): q.update({f"g{i}.expr":e,f"g{i}.tab":"0",f"g{i}.range_input":"5m"})
print("http://127.0.0.1:9090/graph?"+u.urlencode(q))')
chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars --window-size=1400,2150 --virtual-time-budget=15000 --screenshot="$out" "$url" 2>/dev/null
echo "metrics-picture: $out"
