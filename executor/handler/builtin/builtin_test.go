package builtin

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/internal/corpus"
)

func event(t *testing.T, ws string, args map[string]any) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"schema_version": 1, "event_id": "e1", "point": "file.before_write", "session_id": "s1",
		"workspace": ws, "depth": 0, "data": map[string]any{"tool_name": "write_file", "category": "fs.write", "args": args}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestForbiddenRule(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		path string
		fold bool
		deny bool
	}{
		{".env", false, true},
		{".env.local", false, true},
		{".env.production.local", false, true},
		{"config/.env", false, true},
		{".envrc", false, false},
		{"env", false, false},
		{"docs/.env.md/notes", false, false}, // .env.md is a directory here, not the file written
		{".git/config", false, true},
		{".git", false, true},
		{"sub/.git/hooks/pre-commit", false, true},
		{".github/workflows/ci.yml", false, false},
		{".gitignore", false, false},
		{".ssh/id_ed25519", false, true},
		{"home/.ssh/config", false, true},
		{"aws-credentials.json", false, true},
		{"credentials", false, true},
		{"config/credentials/db.yml", false, true},
		{"my-private-key.pem", false, true},
		{"private-keys/x", false, true},
		{"privatekey.pem", false, false},
		{"notes.md", false, false},
		{"src/main.go", false, false},
		{"/etc/passwd", false, false},
		{"/home/u/.ssh/authorized_keys", false, true},
		// The Windows and macOS readings.
		{".ENV", false, false},
		{".ENV", true, true},
		{".Env.Local", true, true},
		{".env.", true, true},
		{".env ", true, true},
		{".env. . ", true, true},
		{".env::$DATA", true, true},
		{".env:stream", true, true},
		{".GIT/config", true, true},
		{".SSH/ID_RSA", true, true},
		{"AWS-CREDENTIALS.JSON", true, true},
		{"My-Private-Key.PEM", true, true},
		{"CREDEN~1", true, true},
		{"CREDEN~1.JSO", true, true},
		{"ENV~1", true, true},
		{"GIT~1/config", true, true},
		{"PRIVAT~2.PEM", true, true},
		{"README~1.MD", true, false},
		{"C:/proj/.env", true, true},
		{"notes.md", true, false},
	} {
		if got := ForbiddenRule(tc.path, tc.fold) != ""; got != tc.deny {
			t.Errorf("ForbiddenRule(%q, fold %v) = %q, want deny %v", tc.path, tc.fold, ForbiddenRule(tc.path, tc.fold), tc.deny)
		}
	}
}

func TestForbiddenPathOnTheFileReached(t *testing.T) {
	t.Parallel()
	// The workspace's own folder is named credentials: ordinary files in
	// it are allowed, by their path from the workspace root.
	root := t.TempDir()
	ws := filepath.Join(root, "credentials")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(ws, "docs"), 0o755))
	must(os.MkdirAll(filepath.Join(ws, ".git"), 0o755))
	must(os.Symlink(".env", filepath.Join(ws, "harmless.txt")))         // dangling: the write would create .env
	must(os.Symlink(".git/config", filepath.Join(ws, "cfg")))           // a link into .git
	must(os.Symlink(filepath.Join(ws, "docs"), filepath.Join(ws, "d"))) // a link to an ordinary directory
	must(os.Symlink("/home/u/.ssh", filepath.Join(ws, "keys")))         // dangling, outside
	must(os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755))
	must(os.Symlink(".git/hooks", filepath.Join(ws, "h"))) // h/.. is .git
	must(os.Symlink("loop2", filepath.Join(ws, "loop")))
	must(os.Symlink("loop", filepath.Join(ws, "loop2")))
	must(os.Symlink("/proc/self/cwd/.git", filepath.Join(ws, "g"))) // the agent's cwd: the workspace
	// Attack round 2: hard links carry no forbidden name, and write the file.
	must(os.WriteFile(filepath.Join(ws, ".env"), []byte("A=1\n"), 0o644))
	must(os.Link(filepath.Join(ws, ".env"), filepath.Join(ws, "notes.txt")))
	// Second reader: a chain of 40 links of long targets, each hop tens of
	// readlinks: a walk that would take seconds per path.
	long := strings.Repeat("docs/../", 500)
	must(os.Symlink(long+"docs", filepath.Join(ws, "l40")))
	for i := 39; i >= 0; i-- {
		must(os.Symlink(long+fmt.Sprintf("l%d", i+1), filepath.Join(ws, fmt.Sprintf("l%d", i))))
	}
	many := make([]string, 300)
	for i := range many {
		many[i] = "l0/a.md"
	}
	for _, tc := range []struct {
		name string
		args map[string]any
		deny bool
	}{
		{"ordinary file in a workspace named credentials", map[string]any{"path": "notes.md"}, false},
		{"absolute path inside the workspace", map[string]any{"file_path": filepath.Join(ws, "docs", "a.md")}, false},
		{".env by text", map[string]any{"path": ".env"}, true},
		{".. folded into .git", map[string]any{"path": "docs/../.git/config"}, true},
		{".. out of the workspace into credentials", map[string]any{"path": "../credentials/x"}, false},
		{"dangling link to .env", map[string]any{"path": "harmless.txt"}, true},
		{"link into .git", map[string]any{"path": "cfg"}, true},
		{".. after a link goes up from its target", map[string]any{"file_path": "h/../config"}, true},
		{"link to an ordinary directory", map[string]any{"path": "d/readme.md"}, false},
		{"dangling link outside to .ssh", map[string]any{"path": "keys/id_rsa"}, true},
		{"a list of paths", map[string]any{"paths": []string{"a.md", "b/.env.local"}}, true},
		{"output_path", map[string]any{"output_path": ".ssh/x"}, true},
		{"outputFile", map[string]any{"outputFile": "secrets/private-key.pem"}, true},
		{"destination", map[string]any{"destination": "dist/app.js"}, false},
		{"content is not a path", map[string]any{"path": "a.md", "content": ".env"}, false},
		{"Windows separators", map[string]any{"path": `config\.env`}, true},
		{"the agent's cwd through /proc", map[string]any{"path": "/proc/self/cwd/.git/config"}, true},
		{"the agent's root through /proc", map[string]any{"path": "/proc/thread-self/root" + ws + "/h/../config"}, true},
		{"a link through /proc/self/cwd", map[string]any{"path": "g/config"}, true},
		{"an ordinary file through /proc/self/cwd", map[string]any{"path": "/proc/self/cwd/docs/a.md"}, false},
		{"a link loop: where it leads is in doubt", map[string]any{"path": "loop/x"}, true},
		{"another process's cwd is in doubt", map[string]any{"path": "/proc/1/cwd/notes.md"}, true},
		{"an open file of the agent's is in doubt", map[string]any{"path": "/proc/self/fd/7"}, true},
		// Every name tools give a path, and the shapes they give it in.
		{"dst", map[string]any{"dst": ".env"}, true},
		{"output", map[string]any{"output": ".git/config"}, true},
		{"pathname", map[string]any{"pathname": ".ssh/id_rsa"}, true},
		{"location", map[string]any{"location": "aws-credentials.json"}, true},
		{"target_file", map[string]any{"target_file": ".env.local"}, true},
		{"absolute_path", map[string]any{"absolute_path": filepath.Join(ws, ".env")}, true},
		{"notebook_path", map[string]any{"notebook_path": ".git/x.ipynb"}, true},
		{"a file: URI", map[string]any{"uri": "file://" + ws + "/.env"}, true},
		{"a file: URI, percent-encoded", map[string]any{"url": "file://localhost" + ws + "/%2Eenv"}, true},
		{"a file: URI in a path argument", map[string]any{"file_path": "file:///home/u/.ssh/config"}, true},
		{"a web URL is no file", map[string]any{"url": "https://example.com/.env"}, false},
		{"a file: URI of an ordinary file", map[string]any{"uri": "file://" + ws + "/docs/a.md"}, false},
		{"an object in a list of files", map[string]any{"files": []any{map[string]any{"name": "a.md"}, map[string]any{"name": ".env", "content": "A=1"}}}, true},
		{"objects in a list of ordinary files", map[string]any{"files": []any{map[string]any{"name": "a.md", "content": ".env"}}}, false},
		{"a name elsewhere is no path", map[string]any{"name": ".env", "attachments": []any{map[string]any{"name": ".env"}}}, false},
		// Attack round 2 and the second reader.
		{"a hard link to .env", map[string]any{"file_path": "notes.txt"}, true},
		{"a NUL ends the path", map[string]any{"file_path": ".env\x00.txt"}, true},
		{"new_name", map[string]any{"old_name": "a.md", "new_name": ".env"}, true},
		{"saveAs", map[string]any{"saveAs": ".git/config"}, true},
		{"link", map[string]any{"link": ".ssh/authorized_keys"}, true},
		{"a chain too long to follow is in doubt", map[string]any{"path": "l0/a.md"}, true},
		{"more paths than are followed", map[string]any{"paths": many}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Run(context.Background(), "forbidden-path", []byte(`{"fold":false}`), event(t, ws, tc.args), Env{})
			if err != nil {
				t.Fatal(err)
			}
			if got := d.Action == hook.Deny; got != tc.deny {
				t.Errorf("decision %+v, want deny %v", d, tc.deny)
			}
		})
	}
}

func TestSecretScan(t *testing.T) {
	t.Parallel()
	key := "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	d, err := Run(context.Background(), "secret-scan", nil, event(t, "/w", map[string]any{"path": "a.env", "content": "line one\nTOKEN=" + key}), Env{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Action != hook.RequestApproval {
		t.Errorf("action %s, want request_approval", d.Action)
	}
	if !strings.Contains(d.Reason, "args.content, line 2") || !strings.Contains(d.Reason, "GitHub") {
		t.Errorf("reason %q does not name the kind and the place", d.Reason)
	}
	if strings.Contains(d.Reason, key) {
		t.Errorf("reason %q holds the secret", d.Reason)
	}
	d, _ = Run(context.Background(), "secret-scan", []byte(`{"action":"deny"}`), event(t, "/w", map[string]any{"command": "curl -H 'X: Zq8vT2mXk9LpW4rYb7NcH3sGd6FjQ1uEa5Vy0RtK'"}), Env{})
	if d.Action != hook.Deny || !strings.Contains(d.Reason, "high-entropy token") {
		t.Errorf("entropy: decision %+v, want deny naming a high-entropy token", d)
	}
	d, _ = Run(context.Background(), "secret-scan", nil, event(t, "/w", map[string]any{"content": "func main() {\n\tfmt.Println(\"hello\")\n}\n"}), Env{})
	if d.Action != hook.Allow {
		t.Errorf("ordinary code: decision %+v, want allow", d)
	}
	if err := Check("secret-scan", []byte(`{"action":"modify"}`), hook.Blocking); err == nil {
		t.Error("an action other than request_approval or deny accepted")
	}
	if err := Check("secret-scan", []byte(`{"Action":"deny"}`), hook.Blocking); err == nil {
		t.Error("an option of another case accepted")
	}
}

// TestSecretScanNamesKinds: a proposed file holding one of the newer
// kinds is held for approval with exactly that kind and line, once, even
// where an assignment names the same secret.
func TestSecretScanNamesKinds(t *testing.T) {
	t.Parallel()
	b64 := "LwV6fEpOzY9iHsR2bAlKvU5eDoNyX8hGrQ1a/kJuT4dCnMxW7gIjZ3+c0Bm"
	for _, tc := range []struct{ kind, content string }{
		{"Docker Hub access token", "DOCKER_PAT=dckr_pat_" + b64[:27]},
		{"Azure storage account key", "AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=a;AccountKey=" + b64 + b64[:27] + "=="},
		{"Hugging Face token", "HF_TOKEN=hf_" + "LwhSDoZKvgRCnYJufQBmXItePAlWHsdOzk"},
		{"Slack webhook URL", "SLACK_URL=https://hooks.slack.com/services/" + strings.ReplaceAll(b64[:44], "/", "x")},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			t.Parallel()
			d, err := Run(context.Background(), "secret-scan", nil, event(t, "/w", map[string]any{"path": "a.env", "content": "# deploy\n" + tc.content}), Env{})
			if err != nil {
				t.Fatal(err)
			}
			if want := "proposed secret: " + tc.kind + " in args.content, line 2"; d.Action != hook.RequestApproval || d.Reason != want {
				t.Errorf("decision %s %q, want request_approval %q", d.Action, d.Reason, want)
			}
		})
	}
}

// TestSecretScanFalsePositives measures the scan on the first 600 files of
// the Go standard library's source (no secrets, many long identifiers and encoded test
// vectors kept out: testdata and _test files); the rate is in docs/configuration.md.
func TestSecretScanFalsePositives(t *testing.T) {
	if testing.Short() || raceBuild {
		t.Skip("a measurement over the Go source tree: run without -race and -short (make test does)")
	}
	files, flagged := 0, 0
	var examples []string
	for p, b := range corpus.GoSource() {
		files++
		args, _ := json.Marshal(map[string]string{"content": string(b)})
		if f := Scan(args, true); len(f) > 0 {
			flagged++
			if len(examples) < 5 {
				examples = append(examples, fmt.Sprintf("%s: %s", filepath.Base(p), f[0].Kind))
			}
		}
		if files >= 600 {
			break
		}
	}
	if files < 600 {
		t.Skipf("only %d Go source files under GOROOT/src", files)
	}
	rate := float64(flagged) / float64(files)
	t.Logf("secret-scan flagged %d of %d Go standard library files (%.2f%%): %q", flagged, files, 100*rate, examples)
	if rate > 0.02 {
		t.Errorf("flagged %.2f%% of ordinary source files, more than 2%%", 100*rate)
	}
}

func TestAuditAndNotification(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	ev := event(t, "/w", map[string]any{"path": "a.md", "content": "password=hunter2"})
	d, err := Run(context.Background(), "audit", nil, ev, Env{StateDir: state})
	if err != nil || d.Action != hook.Allow {
		t.Fatalf("audit: %+v %v", d, err)
	}
	b, err := os.ReadFile(filepath.Join(state, "audit", "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var rec AuditRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatalf("audit line %q: %v", b, err)
	}
	if rec.SchemaVersion != AuditSchemaVersion || rec.Point != "file.before_write" || rec.EventID != "e1" {
		t.Errorf("audit record %+v", rec)
	}
	if strings.Contains(string(b), "hunter2") {
		t.Errorf("the audit log holds a secret: %s", b)
	}
	out := filepath.Join(t.TempDir(), "notes.log")
	opts := fmt.Sprintf(`{"message":"{{.point}} by {{.data.tool_name}}: token=abc123secret","to":"file","path":%q}`, out)
	if err := Check("notification", []byte(opts), hook.Blocking); err == nil {
		t.Error("a blocking notification accepted")
	}
	if _, err := Run(context.Background(), "notification", []byte(opts), ev, Env{}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(out)
	if want := "file.before_write by write_file: token=" + hook.Redacted + "\n"; string(got) != want {
		t.Errorf("notification %q, want %q", got, want)
	}
}

func FuzzForbiddenRule(f *testing.F) {
	for _, s := range []string{".env", "a/.git/b", "CREDEN~1.JSO", ".env::$DATA", "notes.md", "x/private-key"} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, p string, fold bool) {
		rule := ForbiddenRule(p, fold)
		// Folding only adds readings: what is forbidden exactly stays so.
		if !fold && rule != "" && ForbiddenRule(p, true) == "" {
			t.Fatalf("%q forbidden exactly (%s) but not folded", p, rule)
		}
	})
}

func FuzzCheckOptions(f *testing.F) {
	f.Add("secret-scan", []byte(`{"action":"deny"}`))
	f.Add("notification", []byte(`{"message":"{{.point}}","to":"file","path":"/tmp/x"}`))
	f.Add("forbidden-path", []byte(`{"fold":true,"Fold":false}`))
	f.Fuzz(func(t *testing.T, name string, options []byte) {
		err := Check(name, options, hook.Observational)
		if err == nil && !slices.Contains(Names, name) {
			t.Fatalf("unknown builtin %q accepted", name)
		}
	})
}

// TestForbiddenPathInDoubtSaysWhy: a deny for a path whose end cannot be
// told names the argument and the cause.
func TestForbiddenPathInDoubtSaysWhy(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	if err := os.Symlink("loop", filepath.Join(ws, "loop")); err != nil {
		t.Fatal(err)
	}
	deep := map[string]any{"path": "a.md"}
	for range 40 {
		deep = map[string]any{"x": deep}
	}
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"path": "loop/x"}, "cannot tell which file path (loop/x) reaches: resolve " + ws + "/loop/x: " + hook.ErrLinkLoop.Error()},
		{map[string]any{"path": "/proc/1/cwd/notes.md"}, "cannot tell which file path (/proc/1/cwd/notes.md) reaches: resolve /proc/1/cwd/notes.md: " + hook.ErrProcLink.Error()},
		{deep, "cannot tell every path the call names: " + hook.ErrArgs.Error() + ": x" + strings.Repeat(".x", 32) + " is more than 32 levels deep"},
	} {
		d, err := Run(context.Background(), "forbidden-path", nil, event(t, ws, tc.args), Env{})
		if err != nil {
			t.Fatal(err)
		}
		if d.Action != hook.Deny || d.Reason != "forbidden path: "+tc.want {
			t.Errorf("decision %+v, want deny: %s", d, tc.want)
		}
	}
}
