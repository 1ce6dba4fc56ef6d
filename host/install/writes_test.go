package install

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hookexec/hook-exec/launcher"
)

// What a script writes in the project, as hooks write it; and what is not
// the project's (the host's /tmp, a descriptor, a comparison, a host's
// configuration) is never named.
func TestProjectWrites(t *testing.T) {
	for _, tc := range []struct {
		name string
		lang launcher.Lang
		body string
		want []string
	}{
		{"rate limiter's counters", launcher.Shell, `PROJECT_DIR="${CLAUDE_PROJECT_DIR:-.}"
STATE_DIR="${PROJECT_DIR}/.claude/hook-state"
mkdir -p "$STATE_DIR" 2>/dev/null || true
STATE_FILE="${STATE_DIR}/tool-calls-${SESSION_ID}.count"
echo "$N" > "$STATE_FILE"
`, []string{".claude/hook-state/"}},
		{"audit log at git's top level", launcher.Shell, `REPO_ROOT="$(git rev-parse --show-toplevel 2>/dev/null || echo "")"
AUDIT_LOG="$REPO_ROOT/rules/audit.log"
mkdir -p "$(dirname "$AUDIT_LOG")"
echo "[$TS] blocked" >> "$AUDIT_LOG"
`, []string{"rules/audit.log"}},
		{"relative log and tee", launcher.Shell, "echo hi >> .claude/errors.log\njq . | tee -a logs/events.jsonl >/dev/null\n", []string{".claude/errors.log", "logs/events.jsonl"}},
		{"project variable, a name built at run time", launcher.Shell, `touch "$CLAUDE_PROJECT_DIR/.cursor/state/$ID.seen"` + "\n", []string{".cursor/state/"}},
		{"not the project's", launcher.Shell, `exec 2>/dev/null
echo x > /tmp/state
echo x >&2
[[ "$a" > "$b" ]] && echo "a > b"
cat <<END > "$TMPFILE"
END
echo x > "$HOME/.claude/log"
echo x > ~/log.txt
echo x > .claude/settings.json
echo x > .claude/hooks/guard.sh
echo x > .git/config
mkdir -p "$CLAUDE_PROJECT_DIR"
`, nil},
		{"not the project's either", launcher.Shell, `echo x > ../sibling.log
echo x > "$CLAUDE_PROJECT_DIR/../other/x.log"
echo x > "${CLAUDE_PROJECT_DIR:+/tmp}/c.log"
echo x > "${CLAUDE_PROJECT_DIR%/*}/up.log"
echo x > "$CLAUDE_PROJECT_DIR/src/evil.py"
echo x > "$CLAUDE_PROJECT_DIR/.claude/skills/x/SKILL.md"
echo x > "$CLAUDE_PROJECT_DIR/logs/$x/../../.claude"
cd /tmp
echo x > state.json
`, nil},
		{"a script nested past reading", launcher.Shell, strings.Repeat("(", 100000) + "\necho x > a.log\n", nil},
		{"python root forms", launcher.Python, `import os
open(os.path.join(os.getcwd(), "logs", "x.log"), "a")
open(os.path.join(os.environ["CLAUDE_PROJECT_DIR"], "y.log"), "a")
`, []string{"logs/x.log", "y.log"}},
		{"python log by getenv's default", launcher.Python, `import os
LOG_FILE = os.getenv("GEMINI_LOG_FILE", "gemini.log")
with open(LOG_FILE, "a", encoding="utf-8") as f:
    f.write(x)
`, []string{"gemini.log"}},
		{"python path under the project", launcher.Python, `import os
from pathlib import Path
root = os.environ.get("CLAUDE_PROJECT_DIR", os.getcwd())
log = os.path.join(root, ".claude", "audit.jsonl")
open(log, "a").write(line)
state = Path(root) / ".claude" / "state.json"
state.write_text("{}")
os.makedirs(os.path.join(root, "logs"), exist_ok=True)
failures = os.path.join(root, "memory/failures.jsonl")
os.makedirs(os.path.dirname(failures), exist_ok=True)
with open(failures, "a") as f:
    pass
`, []string{".claude/audit.jsonl", ".claude/state.json", "logs/", "memory/failures.jsonl"}},
		{"python reads and the host's /tmp", launcher.Python, `with open("pyproject.toml", "rb") as f:
    pass
open("/tmp/x.log", "a")
open(os.path.expanduser("~/.claude/x"), "w")
`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := projectWrites(tc.lang, []byte(tc.body)); !slices.Equal(got, tc.want) {
				t.Errorf("%q, want %q", got, tc.want)
			}
		})
	}
}

// A path the project holds as the other kind (a file where a directory is
// named, a link on the way) is no entry: every run would refuse it.
func TestFitsProject(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "memory"), 0o755)
	os.WriteFile(filepath.Join(dir, "memory/failures.jsonl"), nil, 0o644)
	os.Symlink(t.TempDir(), filepath.Join(dir, "out"))
	for w, want := range map[string]bool{
		"memory/failures.jsonl":  true,
		"memory/":                true,
		"memory/new/":            true,
		"memory/failures.jsonl/": false,
		"memory":                 false,
		"out/x.log":              false,
		"out/":                   false,
		"logs/app.log":           true,
	} {
		if got := fitsProject(dir, w); got != want {
			t.Errorf("%s: %v, want %v", w, got, want)
		}
	}
}
