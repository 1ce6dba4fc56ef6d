package install

import (
	"testing"

	"github.com/hookexec/hook-exec/launcher"
)

// The forms public hooks keep state in /tmp with (a counter, a marker, a
// start time for a later hook), and the temporary files of one run, which
// need no kept /tmp.
func TestKeepsTmp(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		lang   launcher.Lang
		script string
		want   bool
	}{
		// mattpollak/context-flow's counter.
		{launcher.Shell, `SESSION_ID=$(jq -r .session_id)
COUNTER_FILE="${TMPDIR:-/tmp}/context-flow-${SESSION_ID}.count"
echo "$COUNT" > "$COUNTER_FILE"`, true},
		// OmniNode's markers, tested and touched.
		{launcher.Shell, `WARNED_FILE="/tmp/omniclaude-warned-${SESSION_ID}"
if [[ -f "$WARNED_FILE" ]]; then exit 0; fi
touch "$WARNED_FILE"`, true},
		// A PostToolUse hook reads what a PreToolUse one wrote.
		{launcher.Shell, `START=$(cat "/tmp/sre-latency-tool-start-$TID")`, true},
		{launcher.Shell, `[ -f /tmp/.claude-skills-marker ] && exit 0`, true},
		{launcher.Shell, `date +%s > "$TMPDIR/claude-tool-start-${ID}"`, true},
		// A run's own files.
		{launcher.Shell, `tmp=$(mktemp); echo x > "$tmp"; rm -f "$tmp"`, false},
		{launcher.Shell, `out=$(mktemp /tmp/hook.XXXXXX); jq . > "$out"`, false},
		{launcher.Shell, `echo x > /tmp/hook.$$; rm /tmp/hook.$$`, false},
		{launcher.Shell, `F="/tmp/x-$RANDOM"; echo > "$F"`, false},
		{launcher.Shell, `cd /tmp || true; find /tmp -name x -mmin +60`, false},
		{launcher.Shell, `echo ok > /dev/null; echo "$TMPDIR"`, false},
		{launcher.Shell, "((((", false},
		// The home directory is /tmp in the images: written there, kept.
		{launcher.Shell, `mkdir -p "$HOME/.cache/kit"; touch ~/.cache/kit/warned`, true},
		{launcher.Shell, `echo "$(date) $cmd" >> "$HOME/.claude/hooks.log"`, true},
		{launcher.Shell, `cfg=$(cat "$HOME/.config/tool.json" 2>/dev/null)`, false},
		{launcher.Python, `under("/tmp", ".scratch")  # a policy's data`, false},
		{launcher.Shell, `case "$f" in /tmp/*) exit 0 ;; esac`, false},
		{launcher.Shell, `[[ $f == /tmp/* ]] && exit 0`, false},
		{launcher.Shell, `echo "/tmp/foo is fine"`, false},
		{launcher.Shell, `d="${XDG_CACHE_HOME:-$HOME/.cache}/kit"; mkdir -p "$d"`, true},
		{launcher.Shell, `echo 1 > "${XDG_RUNTIME_DIR:-/tmp}/kit.lock"`, true},
		{launcher.Python, `if fnmatch(p, "/tmp/*"): sys.exit(0)`, false},
		{launcher.Python, "# state lives in '/tmp/x'\nprint(1)", false},
		{launcher.Python, `path = '/tmp/' + sid`, true},
		{launcher.Python, "log = os.path.expanduser('~/.claude/guard.log')\nwith open(log, 'a') as f: f.write(x)", true},
		{launcher.Python, "cfg = os.path.expanduser('~/.config/x.json')\nprint(json.load(open(cfg)))", false},
		{launcher.Node, "const DIRS = ['/tmp/', '/var/tmp/'];", false},
		{launcher.Node, "const LOG = path.join(process.env.HOME || '/tmp', '.claude', 'hooks-logs');\nfs.mkdirSync(LOG, {recursive: true});", true},
		{launcher.Python, `("stubtool clean /tmp/x", "silent"),`, false},
		// Python: a literal path, tempfile.gettempdir(), TMPDIR.
		{launcher.Python, `retry_dir = Path(tempfile.gettempdir()) / f"claude-stop-{os.getuid()}"`, true},
		{launcher.Python, `open("/tmp/claude-warned-" + sid, "w").write("1")`, true},
		{launcher.Python, `base = Path("/tmp") / "hook-state"`, true},
		{launcher.Python, `d = os.environ.get("TMPDIR", "/tmp")`, true},
		{launcher.Python, `with tempfile.NamedTemporaryFile() as f: f.write(b"x")`, false},
		{launcher.Python, `print(json.dumps({"ok": True}))`, false},
		// Node: os.tmpdir(), a literal path.
		{launcher.Node, "const f = path.join(os.tmpdir(), `counter-${sid}`);", true},
		{launcher.Node, `fs.writeFileSync('/tmp/hook-state.json', s)`, true},
		{launcher.Node, `console.log(JSON.stringify({}))`, false},
	} {
		if got := keepsTmp(c.lang, []byte(c.script)); got != c.want {
			t.Errorf("%s %q: keepsTmp = %v, want %v", c.lang, c.script, got, c.want)
		}
	}
}

// FuzzScriptReads: what install reads of a script's text (what it writes
// in the project, what it keeps in /tmp) never panics, whatever the bytes.
func FuzzScriptReads(f *testing.F) {
	f.Add("sh", `COUNTER_FILE="${TMPDIR:-/tmp}/c-${SESSION_ID}.count"; echo 1 > "$COUNTER_FILE"`)
	f.Add("sh", `LOG="$CLAUDE_PROJECT_DIR/.claude/audit.log"; mkdir -p "$(dirname "$LOG")"; echo x >> "$LOG"`)
	f.Add("sh", `x=$(mktemp); echo > "$x" ${a:-${b:-/tmp}}`)
	f.Add("py", `open(os.path.join(os.environ.get("CLAUDE_PROJECT_DIR", "."), "log.txt"), "a")`)
	f.Add("py", `Path(tempfile.gettempdir()) / "x"`)
	f.Add("js", "fs.writeFileSync(`/tmp/${id}`, s)")
	f.Fuzz(func(t *testing.T, lang, script string) {
		l := launcher.Lang(lang)
		projectWrites(l, []byte(script))
		keepsTmp(l, []byte(script))
	})
}
