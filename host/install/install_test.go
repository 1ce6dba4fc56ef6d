package install

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/hookexec/hook-exec/scriptpin"
)

// project makes a project directory holding files (relative path -> content).
func project(t *testing.T, files map[string]string) (Options, string) {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "proj")
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return Options{Settings: Project, ProjectDir: dir, Home: filepath.Join(root, "home"), StateDir: filepath.Join(root, "state"),
		Front: "/opt/hook-exec"}, dir
}

const claudeSettings = `{
  // not JSON: Claude reads plain JSON; this file has no comment
  "permissions": {"allow": ["Bash(ls:*)"]},
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          { "type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/guard.sh", "timeout": 30 },
          { "type": "command", "command": "jq -r '.tool_input.command' | grep -q 'rm -rf' && exit 2 || exit 0" }
        ]
      }
    ],
    "Stop": [ { "hooks": [ { "type": "prompt", "prompt": "Is the work done?" } ] } ],
    "PostToolUse": [ { "matcher": "Edit|Write", "hooks": [ { "type": "command", "command": "python3 .claude/hooks/fmt.py --fast" } ] } ]
  }
}
`

func TestInstallRoundTrip(t *testing.T) {
	settings := strings.Replace(claudeSettings, "  // not JSON: Claude reads plain JSON; this file has no comment\n", "", 1)
	o, dir := project(t, map[string]string{
		".claude/settings.json":  settings,
		".claude/hooks/guard.sh": "#!/bin/bash\nexit 0\n",
		".claude/hooks/fmt.py":   "import sys\n",
	})
	h := Hosts["claude"]
	p, err := Prepare(h, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	if len(p.Files) != 1 || len(p.Files[0].Hooks) != 3 || len(p.Files[0].Others) != 1 {
		t.Fatalf("plan: %+v", p.Files)
	}
	f := p.Files[0]
	byPtr := map[string]Hook{}
	for _, hk := range f.Hooks {
		byPtr[hk.Pointer] = hk
	}
	guard := byPtr["/hooks/PreToolUse/0/hooks/0/command"]
	if guard.Inline || guard.Script != filepath.Join(dir, ".claude/hooks/guard.sh") || guard.Timeout.Seconds() != 30 {
		t.Fatalf("guard: %+v", guard)
	}
	if !strings.Contains(guard.Installed, "--timeout 28s") || !strings.Contains(guard.Installed, `--workspace "$CLAUDE_PROJECT_DIR"`) ||
		!strings.HasPrefix(guard.Installed, `hookexec=$(command -v hook-exec || echo "$HOME/go/bin/hook-exec"); if [ -x "$hookexec" ]; then "$hookexec" run --sealed --dialect claude --scope project `) ||
		!strings.Contains(guard.Installed, ` --script "$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh `) || strings.Contains(guard.Installed, dir) {
		t.Fatalf("guard's command: %s", guard.Installed)
	}
	inline := byPtr["/hooks/PreToolUse/0/hooks/1/command"]
	if !inline.Inline || string(inline.Body) != "#!/bin/bash\njq -r '.tool_input.command' | grep -q 'rm -rf' && exit 2 || exit 0\n" {
		t.Fatalf("inline: %+v", inline)
	}
	fmtHook := byPtr["/hooks/PostToolUse/0/hooks/0/command"]
	if fmtHook.Matcher != "Edit|Write" || len(fmtHook.Args) != 1 || fmtHook.Args[0] != "--fast" || !strings.Contains(fmtHook.Installed, "--arg --fast") {
		t.Fatalf("fmt: %+v", fmtHook)
	}
	if err := approved(p).Apply(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, ".claude/settings.json")
	got, _ := os.ReadFile(path)
	// Only the command strings changed: the layout around them is kept.
	if !strings.Contains(string(got), `"permissions": {"allow": ["Bash(ls:*)"]},`) || !strings.Contains(string(got), `"timeout": 30 }`) {
		t.Fatalf("rewritten file lost its layout:\n%s", got)
	}
	if b, err := os.ReadFile(inline.Script); err != nil || string(b) != string(inline.Body) {
		t.Fatalf("inline script: %q %v", b, err)
	}
	if n, drifts, err := Check(h, o); err != nil || n != 1 || len(drifts) != 0 {
		t.Fatalf("check after install: %d %v %v", n, drifts, err)
	}
	// Installing again re-plans from the original: the same file.
	p2, err := Prepare(h, o)
	if err != nil || !p2.Files[0].Reinstall || p2.Digest != p.Digest {
		t.Fatalf("reinstall plan: %v %+v", err, p2)
	}
	// A pinned script that changes is drift, named with how to approve it
	// again; so is the hook beside it, whose tree it is part of.
	os.WriteFile(filepath.Join(dir, ".claude/hooks/guard.sh"), []byte("#!/bin/bash\necho changed\n"), 0o755)
	_, drifts, _ := Check(h, o)
	if len(drifts) != 2 || drifts[1].Pointer != guard.Pointer || !strings.Contains(drifts[1].What, "guard.sh changed since approval") ||
		drifts[0].Pointer != fmtHook.Pointer || !strings.Contains(drifts[0].What, "a file beside") || !strings.Contains(drifts[0].What, "hook-exec install claude") {
		t.Fatalf("drift: %+v", drifts)
	}
	restored, err := Uninstall(h, o, false)
	if err != nil || len(restored) != 1 {
		t.Fatalf("uninstall: %v %v", restored, err)
	}
	if got, _ := os.ReadFile(path); string(got) != settings {
		t.Fatalf("not restored byte for byte:\n%s", got)
	}
	if _, err := os.Stat(filepath.Dir(inline.Script)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("install's record left: %v", err)
	}
}

func TestCommandsThatCannotInstall(t *testing.T) {
	o, _ := project(t, map[string]string{
		".claude/settings.json": `{"hooks":{"PreToolUse":[{"hooks":[
			{"type":"command","command":"python3 .claude/hooks/noext"},
			{"type":"command","command":".claude/hooks/missing.sh"},
			{"type":"command","command":""}]}]}}`,
		".claude/hooks/noext": "print(1)\n",
	})
	p, err := Prepare(Hosts["claude"], o)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"#! line", "missing.sh", "empty"} {
		if e := p.Files[0].Hooks[i].Err; e == nil || !errors.Is(e, ErrCommand) || !strings.Contains(e.Error(), want) {
			t.Errorf("hook %d: %v, want %q", i, e, want)
		}
	}
	if err := approved(p).Apply(); err == nil {
		t.Fatal("a plan with a hook it cannot install was applied")
	}
}

func TestUserScope(t *testing.T) {
	o, _ := project(t, nil)
	o.Settings = User
	os.MkdirAll(filepath.Join(o.Home, ".claude"), 0o755)
	os.WriteFile(filepath.Join(o.Home, ".claude/settings.json"), []byte(`{"hooks":{"PreToolUse":[{"hooks":[
		{"type":"command","command":"~/.claude/hooks/g.sh"},
		{"type":"command","command":"$CLAUDE_PROJECT_DIR/.claude/hooks/g.sh"},
		{"type":"command","command":"cat | $CLAUDE_PROJECT_DIR/x"}]}]}}`), 0o644)
	os.MkdirAll(filepath.Join(o.Home, ".claude/hooks"), 0o755)
	os.WriteFile(filepath.Join(o.Home, ".claude/hooks/g.sh"), []byte("exit 0\n"), 0o755)
	p, err := Prepare(Hosts["claude"], o)
	if err != nil {
		t.Fatal(err)
	}
	hs := p.Files[0].Hooks
	if hs[0].Err != nil || hs[0].Script != filepath.Join(o.Home, ".claude/hooks/g.sh") || !strings.Contains(hs[0].Installed, "--scope owner") {
		t.Fatalf("home script: %+v", hs[0])
	}
	for _, hk := range hs[1:] {
		if hk.Err == nil || !strings.Contains(hk.Err.Error(), "CLAUDE_PROJECT_DIR") {
			t.Fatalf("a project-relative hook at user scope: %+v", hk)
		}
	}
}

func TestParseCall(t *testing.T) {
	vars := map[string]string{"CLAUDE_PROJECT_DIR": "/p"}
	for line, want := range map[string]string{
		`"$CLAUDE_PROJECT_DIR"/.claude/hooks/a.sh`: "|/p/.claude/hooks/a.sh|",
		`${CLAUDE_PROJECT_DIR}/a.py x 'y z'`:       "|/p/a.py|x,y z",
		`python3 ./a.py`:                           "python3|./a.py|",
		`/usr/bin/python3 ./a.py`:                  "python3|./a.py|",
		`~/h/a.sh`:                                 "|/home/u/h/a.sh|",
		`node a\ b/c.js`:                           "node|a b/c.js|",
		`npx foo`:                                  "nil",
		`bash -c 'x'`:                              "nil",
		`a.sh`:                                     "nil",
		`./a.sh | tee x`:                           "nil",
		`./a.sh > x`:                               "nil",
		`X=1 ./a.sh`:                               "nil",
		`./a.sh $OTHER`:                            "nil",
		`./*.sh`:                                   "nil",
		`./a.sh; ./b.sh`:                           "nil",
		`$(pwd)/a.sh`:                              "nil",
	} {
		c := parseCall(line, vars, "/home/u")
		got := "nil"
		if c != nil {
			got = c.Interp + "|" + c.Path + "|" + strings.Join(c.Args, ",")
		}
		if got != want {
			t.Errorf("%s: %s, want %s", line, got, want)
		}
	}
}

func TestBlankComments(t *testing.T) {
	in := "{\n // a \"comment\"\n \"a\": \"x // not a comment\", /* b\n c */ \"b\": 1}\n"
	out, err := blankComments([]byte(in))
	if err != nil || len(out) != len(in) || strings.Contains(string(out), "// a") || !strings.Contains(string(out), "x // not a comment") ||
		strings.Count(string(out), "\n") != strings.Count(in, "\n") {
		t.Fatalf("%q %v", out, err)
	}
	if _, err := blankComments([]byte("{ /* open")); !errors.Is(err, ErrSyntax) {
		t.Fatal(err)
	}
}

func TestCursorAndGemini(t *testing.T) {
	cursorDoc := `{
  "version": 1,
  "hooks": {
    "beforeShellExecution": [ { "command": ".cursor/hooks/guard.sh", "matcher": "rm", "timeout": 10, "failClosed": true } ],
    "stop": [ { "type": "prompt", "prompt": "done?" } ]
  }
}
`
	geminiDoc := `{
  // project hooks
  "hooks": {
    "BeforeTool": [
      { "matcher": "run_shell_command", /* the shell */
        "hooks": [ { "type": "command", "name": "guard", "command": "$GEMINI_PROJECT_DIR/.gemini/hooks/guard.sh", "timeout": 5000 } ] }
    ]
  }
}
`
	o, dir := project(t, map[string]string{
		".cursor/hooks.json": cursorDoc, ".cursor/hooks/guard.sh": "#!/bin/sh\nexit 0\n",
		".gemini/settings.json": geminiDoc, ".gemini/hooks/guard.sh": "#!/bin/sh\nexit 0\n",
	})
	for name, want := range map[string]struct {
		timeout, workspace string
		doc                string
	}{
		"cursor": {"--timeout 8s", ` --workspace "$CURSOR_PROJECT_DIR"`, cursorDoc},
		"gemini": {"--timeout 3s", " --workspace $GEMINI_PROJECT_DIR", geminiDoc},
	} {
		h := Hosts[name]
		p, err := Prepare(h, o)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Files) != 1 || len(p.Files[0].Hooks) != 1 || p.Files[0].Hooks[0].Err != nil {
			t.Fatalf("%s: %+v", name, p.Files)
		}
		hk := p.Files[0].Hooks[0]
		if hk.Script != filepath.Join(dir, "."+name+"/hooks/guard.sh") || !strings.Contains(hk.Installed, want.timeout) ||
			!strings.Contains(hk.Installed, want.workspace+"; s=$?") || !strings.Contains(hk.Installed, "--dialect "+name) {
			t.Fatalf("%s: %+v", name, hk)
		}
		if err := approved(p).Apply(); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, h.ProjectFiles[0])
		got, _ := os.ReadFile(path)
		if name == "gemini" && (!strings.Contains(string(got), "// project hooks") || !strings.Contains(string(got), "/* the shell */")) {
			t.Fatalf("gemini's comments lost:\n%s", got)
		}
		if name == "cursor" && (strings.Count(string(got), `"failClosed"`) != 1 || len(p.Files[0].Others) != 1) {
			t.Fatalf("cursor:\n%s %+v", got, p.Files[0].Others)
		}
		if _, err := Uninstall(h, o, false); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); string(got) != want.doc {
			t.Fatalf("%s not restored:\n%s", name, got)
		}
	}
	// Cursor runs the user's hooks in ~/.cursor: a relative path is there.
	o.Settings = User
	os.MkdirAll(filepath.Join(o.Home, ".cursor/hooks"), 0o755)
	os.WriteFile(filepath.Join(o.Home, ".cursor/hooks.json"), []byte(`{"version":1,"hooks":{"stop":[{"command":"./hooks/s.sh"}]}}`), 0o644)
	os.WriteFile(filepath.Join(o.Home, ".cursor/hooks/s.sh"), []byte("exit 0\n"), 0o755)
	p, err := Prepare(Hosts["cursor"], o)
	if err != nil || p.Err() != nil || p.Files[0].Hooks[0].Script != filepath.Join(o.Home, ".cursor/hooks/s.sh") {
		t.Fatalf("cursor user hook: %v %+v", err, p)
	}
	// A Cursor hook that does not say failClosed gets it: a hook-exec killed
	// at Cursor's timeout is then a refusal, not Cursor's allow.
	if got := string(p.Files[0].Rewritten); !strings.HasSuffix(got, `, "failClosed": true}]}}`) || !jsontext.Value(got).IsValid() {
		t.Fatalf("cursor rewrite without failClosed: %s", got)
	}
}

// A file edited while its plan was shown is not replaced: the edit is
// kept, nothing is installed.
func TestApplyRefusesAnEditSincePrepare(t *testing.T) {
	settings := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "jq -r .tool_input.command"}]}]}}`
	o, dir := project(t, map[string]string{".claude/settings.json": settings})
	p, err := Prepare(Hosts["claude"], o)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	edited := strings.Replace(settings, "jq -r", "jq -rc", 1)
	path := filepath.Join(dir, ".claude/settings.json")
	os.WriteFile(path, []byte(edited), 0o644)
	if err := approved(p).Apply(); err == nil || !strings.Contains(err.Error(), "changed since the plan was made") {
		t.Fatalf("applied over an edit: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != edited {
		t.Fatalf("the edit is lost: %s", b)
	}
	if n, _, _ := Check(Hosts["claude"], o); n != 0 {
		t.Fatalf("%d files installed", n)
	}
}

// A project's devcontainer.json names its image as the specification
// reads it (comments, a trailing comma), by the exact key; anything else
// is no image, or an error naming the file.
func TestDevcontainerImage(t *testing.T) {
	for body, want := range map[string]string{
		"// the team's\n{\n  \"name\": \"go\",\n  /* toolchain */ \"image\": \"mcr.microsoft.com/devcontainers/go:1-1.22\",\n  \"features\": {},\n}\n": "mcr.microsoft.com/devcontainers/go:1-1.22",
		`{"build": {"dockerfile": "Dockerfile"}}`: "",
		`{"Image": "x:1"}`:                        "",
		`{"image": "a:1", "image": "b:1"}`:        "error",
		`{"image": "--privileged"}`:               "error",
		`{"image": "a b"}`:                        "error",
		`{"image": 3}`:                            "error",
		`["image"]`:                               "error",
		`{"image": "repo@sha256:` + strings.Repeat("a", 64) + `"}`: "repo@sha256:" + strings.Repeat("a", 64),
	} {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, ".devcontainer"), 0o755)
		os.WriteFile(filepath.Join(dir, ".devcontainer/devcontainer.json"), []byte(body), 0o644)
		got, err := DevcontainerImage(dir)
		if want == "error" {
			if err == nil || !strings.Contains(err.Error(), "devcontainer.json") {
				t.Errorf("%q: %q %v, want an error naming the file", body, got, err)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", body, got, err, want)
		}
	}
	if got, err := DevcontainerImage(t.TempDir()); got != "" || err != nil {
		t.Errorf("no devcontainer: %q %v", got, err)
	}
}

// The project's image runs the project's own hooks, never a plugin's, and
// --image wins over it.
func TestImageFor(t *testing.T) {
	o := Options{Settings: Project, ProjectImage: "dev:1"}
	if got := imageFor(o, &File{}); got != "dev:1" {
		t.Errorf("project file: %q", got)
	}
	if got := imageFor(o, &File{Plugin: &Plugin{}}); got != "" {
		t.Errorf("plugin file: %q", got)
	}
	o.Image = "chosen:2"
	if got := imageFor(o, &File{Plugin: &Plugin{}}); got != "chosen:2" {
		t.Errorf("--image: %q", got)
	}
	if got := imageFor(Options{Settings: User, ProjectImage: "dev:1"}, &File{}); got != "" {
		t.Errorf("user scope: %q", got)
	}
}

// Codex: its reference's form of a project hook (the script found with
// git, an interpreter before it) is pinned and rewritten, the rewritten
// command finds the project the same way, and hooks in config.toml, which
// install does not rewrite, are named as running outside the sandbox.
func TestCodex(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: Codex's commands find the project with git")
	}
	doc := `{
  "hooks": {
    "PreToolUse": [
      { "matcher": "Bash",
        "hooks": [ { "type": "command", "command": "/usr/bin/python3 \"$(git rev-parse --show-toplevel)/.codex/hooks/policy.py\"", "timeout": 30, "statusMessage": "Checking Bash command" } ] }
    ]
  }
}
`
	o, dir := project(t, map[string]string{
		".codex/hooks.json": doc, ".codex/hooks/policy.py": "#!/usr/bin/env python3\nimport sys\n",
		".codex/config.toml": "model = \"gpt-5-codex\"\n\n[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = \"command\"\ncommand = \"./notify.sh\"\n",
	})
	h := Hosts["codex"]
	// Not a repository: the command's git finds no project; refused.
	if p, err := Prepare(h, o); err != nil || p.Files[0].Hooks[0].Err == nil || !strings.Contains(p.Files[0].Hooks[0].Err.Error(), "not the project") {
		t.Fatalf("outside a repository: %v %+v", err, p.Files[0].Hooks)
	}
	// A repository whose top is above the project: refused, the script
	// Codex would run is another.
	if out, err := exec.Command("git", "init", "-q", filepath.Dir(dir)).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	if p, err := Prepare(h, o); err != nil || p.Files[0].Hooks[0].Err == nil {
		t.Fatalf("below the repository's top: %v %+v", err, p.Files[0].Hooks)
	}
	os.RemoveAll(filepath.Join(filepath.Dir(dir), ".git"))
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	p, err := Prepare(h, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Files) != 1 || len(p.Files[0].Hooks) != 1 || p.Files[0].Hooks[0].Err != nil {
		t.Fatalf("%+v", p.Files)
	}
	hk := p.Files[0].Hooks[0]
	if hk.Script != filepath.Join(dir, ".codex/hooks/policy.py") || !strings.Contains(hk.Installed, "--timeout 28s") ||
		!strings.Contains(hk.Installed, `"$(git rev-parse --show-toplevel)"/.codex/hooks/policy.py`) ||
		!strings.Contains(hk.Installed, ` --workspace "$(git rev-parse --show-toplevel)"; s=$?`) || !strings.Contains(hk.Installed, "--dialect codex") {
		t.Fatalf("%+v", hk)
	}
	// Codex runs it with the login shell, fish too: the command is /bin/sh's,
	// in quotes fish reads alike (no backslash before a backslash or a
	// quote), and without hook-exec it refuses by exit 2.
	inner, ok := h.unshell(hk.Installed)
	if !strings.HasPrefix(hk.Installed, "/bin/sh -c '") || !ok || strings.Contains(inner, `\\`) || strings.Contains(inner, `\'`) {
		t.Fatalf("not handed to /bin/sh in fish-proof quotes: %s", hk.Installed)
	}
	shells := []string{"bash"}
	if _, err := exec.LookPath("fish"); err == nil {
		shells = append(shells, "fish")
	}
	for _, sh := range shells {
		run := exec.Command(sh, "-lc", hk.Installed)
		run.Dir, run.Env = dir, []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir()}
		var stderr strings.Builder
		run.Stderr = &stderr
		var ee *exec.ExitError
		if err := run.Run(); !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(stderr.String(), "did not run, so this PreToolUse hook did not run") {
			t.Fatalf("%s -lc without hook-exec: %v, stderr %q", sh, err, stderr.String())
		}
	}
	if err := approved(p).Apply(); err != nil {
		t.Fatal(err)
	}
	_, drifts, err := Check(h, o)
	if err != nil {
		t.Fatal(err)
	}
	var toml bool
	for _, d := range drifts {
		toml = toml || (d.Outside && d.Path == filepath.Join(dir, ".codex/config.toml"))
	}
	if !toml {
		t.Errorf("config.toml's hooks are not named: %+v", drifts)
	}
	if _, err := Uninstall(h, o, false); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, ".codex/hooks.json")); string(got) != doc {
		t.Fatalf("not restored:\n%s", got)
	}
	// In the user's file, the command names each project's script: refused.
	u := o
	u.Settings = User
	os.MkdirAll(filepath.Join(o.Home, ".codex"), 0o755)
	os.WriteFile(filepath.Join(o.Home, ".codex/hooks.json"), []byte(doc), 0o644)
	if p, err := Prepare(h, u); err != nil || p.Files[0].Hooks[0].Err == nil || !strings.Contains(p.Files[0].Hooks[0].Err.Error(), "without --user") {
		t.Fatalf("user scope: %v %+v", err, p.Files[0].Hooks)
	}
	for _, cfg := range []string{"[hooks]\n", "[ hooks.PreToolUse ]\n", "  [[hooks.Stop]]\n", "hooks.PreToolUse = []\n",
		"hooks = { Stop = [] }\n", "['hooks'.Stop]\n", "x = \n"} {
		if !tomlHooks([]byte("\xef\xbb\xbfx = 1\n" + cfg)) {
			t.Errorf("%q is not taken for hooks", cfg)
		}
	}
	for _, cfg := range []string{"[hooksmith]\n", "# [hooks]\n", "name = \"[hooks]\"\n", "[features]\nhooks = true\n"} {
		if tomlHooks([]byte(cfg)) {
			t.Errorf("%q is taken for hooks", cfg)
		}
	}
}

// Windsurf: its hooks are the event's list itself, with no timeout; the
// rewritten command names the workspace as Cascade runs it (its root), and
// a hook that runs elsewhere (working_directory) is refused, not run in
// the wrong place.
func TestWindsurf(t *testing.T) {
	doc := `{
  "hooks": {
    "pre_run_command": [
      { "command": "bin/run-hook.sh validate-env", "show_output": true },
      { "command": "./guard.sh", "working_directory": "tools" }
    ]
  }
}
`
	o, dir := project(t, map[string]string{
		".windsurf/hooks.json": doc, "bin/run-hook.sh": "#!/bin/bash\nexit 0\n", "tools/guard.sh": "#!/bin/sh\nexit 0\n",
	})
	h := Hosts["windsurf"]
	p, err := Prepare(h, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Files) != 1 || len(p.Files[0].Hooks) != 2 {
		t.Fatalf("%+v", p.Files)
	}
	run, elsewhere := p.Files[0].Hooks[0], p.Files[0].Hooks[1]
	if run.Err != nil || run.Script != filepath.Join(dir, "bin/run-hook.sh") || !strings.Contains(run.Installed, "--dialect windsurf") ||
		!strings.Contains(run.Installed, ` --workspace "$PWD"; s=$?`) || !strings.Contains(run.Installed, "--timeout 58s") {
		t.Fatalf("%+v", run)
	}
	if elsewhere.Err == nil || !strings.Contains(elsewhere.Err.Error(), "working_directory") {
		t.Fatalf("a hook run in tools/: %+v", elsewhere)
	}
	// The system's file, merged first by Cascade, is named by the check,
	// never written.
	o.SystemRoot = t.TempDir()
	system := filepath.Join(o.SystemRoot, "etc/windsurf/hooks.json")
	os.MkdirAll(filepath.Dir(system), 0o755)
	sysDoc := `{"hooks":{"pre_user_prompt":[{"command":"python3 /opt/policy/prompt.py"}]}}`
	os.WriteFile(system, []byte(sysDoc), 0o644)
	if err := approved(p).Apply(); err != nil {
		t.Fatal(err)
	}
	_, drifts, err := Check(h, o)
	if err != nil {
		t.Fatal(err)
	}
	var named bool
	for _, d := range drifts {
		named = named || (d.Outside && d.Path == system && strings.Contains(d.What, "the system's file"))
	}
	if !named {
		t.Errorf("the system's hooks are not named: %+v", drifts)
	}
	if got, _ := os.ReadFile(system); string(got) != sysDoc {
		t.Errorf("the system's file was written: %s", got)
	}
}

// Copilot reads every .json of .github/hooks; a hook's Unix command is its
// "bash" (else its "command"), its timeout timeoutSec, and the installed
// command names the event its camelCase payload does not.
func TestCopilot(t *testing.T) {
	guard := `{
  "version": 1,
  "hooks": {
    "preToolUse": [
      { "type": "command", "bash": "./scripts/guard.sh", "powershell": "./scripts/guard.ps1", "cwd": ".", "env": { "GUARD_MODE": "block" }, "timeoutSec": 10 },
      { "type": "command", "powershell": "./scripts/guard.ps1" },
      { "type": "command", "exec": "./scripts/guard.sh", "args": ["--strict"] },
      { "type": "command", "command": "./scripts/guard.sh", "cwd": "scripts" },
      { "type": "command", "bash": "./scripts/guard.sh", "env": { "LIST": "${PWD}/list.txt" } }
    ]
  }
}
`
	audit := `{"version":1,"hooks":{"sessionEnd":[{"type":"command","command":".github/hooks/audit.sh","timeout":5}],"postToolUse":[{"type":"http","url":"https://example.com/h"}]}}`
	o, dir := project(t, map[string]string{
		".github/hooks/guard.json": guard, ".github/hooks/audit.json": audit, ".github/hooks/audit.sh": "#!/bin/bash\nexit 0\n",
		".github/hooks/blocklist.json": `{"blocked": ["rm"]}`,
		"scripts/guard.sh":             "#!/bin/sh\nexit 0\n", ".github/hooks/README.md": "not a hooks file\n",
	})
	h := Hosts["copilot"]
	p, err := Prepare(h, o)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	// blocklist.json is read as a hooks file too, and holds none.
	if len(p.Files) != 3 || filepath.Base(p.Files[0].Path) != "audit.json" || filepath.Base(p.Files[2].Path) != "guard.json" || len(p.Files[1].Hooks) != 0 {
		t.Fatalf("files %+v", p.Files)
	}
	auditF, guardF := p.Files[0], p.Files[2]
	if len(guardF.Hooks) != 3 || len(guardF.Others) != 2 || len(auditF.Hooks) != 1 || len(auditF.Others) != 1 {
		t.Fatalf("guard: %+v %+v; audit: %+v %+v", guardF.Hooks, guardF.Others, auditF.Hooks, auditF.Others)
	}
	bash, sub := guardF.Hooks[0], guardF.Hooks[1]
	if bash.Err != nil || bash.Pointer != "/hooks/preToolUse/0/bash" || bash.Script != filepath.Join(dir, "scripts/guard.sh") ||
		!strings.Contains(bash.Installed, " --point preToolUse ") || !strings.Contains(bash.Installed, "--timeout 8s") ||
		!strings.Contains(bash.Installed, "--env GUARD_MODE=block") || !strings.Contains(bash.Installed, "--hook-id copilot:guard:preToolUse:0 ") {
		t.Fatalf("bash hook %+v", bash)
	}
	if sub.Err == nil || !strings.Contains(sub.Err.Error(), "cwd") {
		t.Errorf("a hook run in scripts/: %+v", sub)
	}
	// Copilot expands the variables of an env value; the sandbox would get
	// it as written.
	if expands := guardF.Hooks[2]; expands.Err == nil || !strings.Contains(expands.Err.Error(), "$LIST") {
		t.Errorf("an env value naming a variable: %+v", expands)
	}
	for i, want := range []string{"powershell", "exec"} {
		if !strings.Contains(guardF.Others[i].Why, want) {
			t.Errorf("other %d: %+v, want it to say %s", i, guardF.Others[i], want)
		}
	}
	// The audit script lives beside the hooks files, which install
	// rewrites: they are no part of its tree's digest; the data file beside
	// them (no hooks in it) is.
	if a := auditF.Hooks[0]; a.Err != nil || a.Root != filepath.Join(dir, ".github/hooks") || !slices.Equal(a.RootOthers, []string{"audit.json", "guard.json", "hook-exec"}) ||
		!strings.Contains(a.Installed, "--script-root-other audit.json --script-root-other guard.json --script-root-other hook-exec") || !strings.Contains(a.Installed, "--timeout 3s") {
		t.Fatalf("audit hook %+v", a)
	}
	if err := approved(p).Apply(); err != nil {
		t.Fatal(err)
	}
	// install's own sessionStart hook, in a hooks file of its own in the
	// user's ~/.copilot/hooks (Copilot reads every file there).
	check := filepath.Join(o.Home, ".copilot/hooks/hook-exec.json")
	var own struct {
		Version int `json:"version"`
		Hooks   struct {
			SessionStart []struct {
				Type string `json:"type"`
				Bash string `json:"bash"`
			} `json:"sessionStart"`
		} `json:"hooks"`
	}
	if b, err := os.ReadFile(check); err != nil || jsonv2.Unmarshal(b, &own) != nil || own.Version != 1 || len(own.Hooks.SessionStart) != 1 ||
		!strings.Contains(own.Hooks.SessionStart[0].Bash, "install copilot --sealed --session-start") {
		t.Errorf("install's own check: %+v %v", own, err)
	}
	if d, err := scriptpin.ScriptTreeDigest(filepath.Join(dir, ".github/hooks"), auditF.Hooks[0].RootOthers...); err != nil || d.String() != auditF.Hooks[0].RootSHA256 {
		t.Errorf("the tree after install: %s %v, want the pinned %s", d, err, auditF.Hooks[0].RootSHA256)
	}
	// A hooks file added since is named by the check, and so is an exec
	// hook (Copilot runs it, without a command install rewrites).
	os.WriteFile(filepath.Join(dir, ".github/hooks/new.json"), []byte(`{"version":1,"hooks":{"preToolUse":[{"bash":"curl x | sh"},{"exec":"/bin/sh","args":["-c","curl y | sh"]}]}}`), 0o644)
	_, drifts, err := Check(h, o)
	if err != nil {
		t.Fatal(err)
	}
	var named, exec bool
	for _, d := range drifts {
		named = named || (d.Outside && strings.HasSuffix(d.Path, "new.json") && strings.Contains(d.What, "curl x | sh"))
		exec = exec || (d.Outside && strings.HasSuffix(d.Path, "new.json") && strings.Contains(d.What, "/bin/sh"))
	}
	if !named || !exec {
		t.Errorf("a hooks file added since is not named (%v), or its exec hook (%v): %+v", named, exec, drifts)
	}
	os.Remove(filepath.Join(dir, ".github/hooks/new.json"))
	// An installed entry moved to another event's list answers as that
	// event's: named.
	os.WriteFile(filepath.Join(dir, ".github/hooks/audit.json"), []byte(`{"version":1,"hooks":{"agentStop":[{"bash":`+string(jsontext.Value(mustQuote(guardF.Hooks[0].Installed)))+`}]}}`), 0o644)
	if _, drifts, _ := Check(h, o); !slices.ContainsFunc(drifts, func(d Drift) bool { return d.Outside && strings.HasSuffix(d.Path, "audit.json") }) {
		t.Errorf("an installed entry moved to agentStop is not named: %+v", drifts)
	}
	os.WriteFile(filepath.Join(dir, ".github/hooks/audit.json"), auditF.Rewritten, 0o644)
	// A hooks file removed since install: uninstall --force puts it back
	// from its record.
	os.Remove(filepath.Join(dir, ".github/hooks/audit.json"))
	if _, err := Uninstall(h, o, false); !errors.Is(err, ErrDrifted) {
		t.Errorf("uninstall of a removed file: %v, want ErrDrifted", err)
	}
	if _, err := Uninstall(h, o, true); err != nil {
		t.Fatal(err)
	}
	if _, err := Uninstall(h, o, false); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"guard.json": guard, "audit.json": audit} {
		if got, _ := os.ReadFile(filepath.Join(dir, ".github/hooks", name)); string(got) != want {
			t.Errorf("%s not restored:\n%s", name, got)
		}
	}
	if _, err := os.Stat(check); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the last uninstall left install's own check: %v", err)
	}
}

// Codex bounds SessionEnd and Interrupt hooks apart: "SessionEnd and
// Interrupt default to 1 second and allow at most 3" (its hooks reference,
// newest copy read 2026-12-06).
func TestCodexShortEvents(t *testing.T) {
	doc := `{"hooks":{"SessionEnd":[{"hooks":[{"type":"command","command":".codex/hooks/end.sh"}]}],` +
		`"Interrupt":[{"hooks":[{"type":"command","command":".codex/hooks/end.sh","timeout":10}]}],` +
		`"Stop":[{"hooks":[{"type":"command","command":".codex/hooks/end.sh"}]}]}}`
	o, _ := project(t, map[string]string{".codex/hooks.json": doc, ".codex/hooks/end.sh": "#!/bin/sh\nexit 0\n"})
	p, err := Prepare(Hosts["codex"], o)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	want := map[string]time.Duration{"SessionEnd": time.Second, "Interrupt": 3 * time.Second, "Stop": 600 * time.Second}
	for _, hk := range p.Files[0].Hooks {
		if hk.Err != nil || hk.Timeout != want[hk.Event] {
			t.Errorf("%s: timeout %v (%v), want %v", hk.Event, hk.Timeout, hk.Err, want[hk.Event])
		}
	}
	if len(p.Files[0].Hooks) != 3 {
		t.Fatalf("%+v", p.Files[0].Hooks)
	}
}

// Cline's hooks are executable files named by their event: install keeps
// each one's bytes beside it (the pinned script, run from the same
// directory) and writes a wrapper in its place, its mode kept; uninstall
// puts the bytes back and removes the copy.
func TestClineHookFiles(t *testing.T) {
	pre := "#!/bin/bash\nsource \"$(dirname \"$0\")/lib.sh\"\njq -r '.preToolUse.toolName' | grep -q write && echo '{\"cancel\":true,\"errorMessage\":\"no\"}' || echo '{\"cancel\":false}'\n"
	start := "#!/usr/bin/env node\nprocess.stdout.write(JSON.stringify({cancel: false}))\n"
	o, dir := project(t, map[string]string{
		".clinerules/hooks/PreToolUse": pre, ".clinerules/hooks/TaskStart": start, ".clinerules/hooks/TaskComplete": "#!/bin/sh\nexit 0\n",
		".clinerules/hooks/lib.sh": "log() { :; }\n", ".clinerules/hooks/NotAnEvent": "#!/bin/sh\n",
	})
	hooks := filepath.Join(dir, ".clinerules/hooks")
	os.Chmod(filepath.Join(hooks, "PreToolUse"), 0o750)
	os.Chmod(filepath.Join(hooks, "TaskStart"), 0o755)
	os.Chmod(filepath.Join(hooks, "NotAnEvent"), 0o755)
	h := Hosts["cline"]
	p, err := Prepare(h, o)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if len(p.Files) != 3 || p.Err() != nil || p.Count() != 3 {
		t.Fatalf("files %+v, err %v", p.Files, p.Err())
	}
	for _, f := range p.Files {
		switch filepath.Base(f.Path) {
		case "TaskComplete":
			// Cline's CLI runs it (with bash), its VS Code extension not.
			if len(f.Hooks) != 1 || !strings.Contains(f.Hooks[0].Note, "skips it") {
				t.Errorf("a file that is not executable: %+v", f)
			}
		case "PreToolUse":
			hk := f.Hooks[0]
			if hk.Script != filepath.Join(hooks, ".PreToolUse.hook-exec") || hk.Root != hooks || !strings.Contains(hk.Installed, "--dialect cline") ||
				!strings.Contains(hk.Installed, "--hook-id cline:PreToolUse:PreToolUse ") || !strings.Contains(hk.Installed, "--timeout 28s") ||
				!strings.Contains(hk.Installed, `--script "$(dirname "$0")"/.PreToolUse.hook-exec`) || !strings.Contains(hk.Installed, "--max-output-bytes 1048576") {
				t.Fatalf("PreToolUse %+v", hk)
			}
		}
	}
	if err := approved(p).Apply(); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(hooks, "PreToolUse"))
	installed, ok := wrapped(got)
	if !ok || !strings.Contains(installed, " run --sealed --dialect cline ") {
		t.Fatalf("the wrapper:\n%s", got)
	}
	if fi, _ := os.Stat(filepath.Join(hooks, "PreToolUse")); fi.Mode().Perm() != 0o750 {
		t.Errorf("the wrapper's mode %v, want the hook's 0750", fi.Mode().Perm())
	}
	if b, _ := os.ReadFile(filepath.Join(hooks, ".PreToolUse.hook-exec")); string(b) != pre {
		t.Errorf("the copy %q", b)
	}
	// The tree the installed command pins is the directory as it is now.
	var pin Hook
	for _, f := range p.Files {
		if filepath.Base(f.Path) == "PreToolUse" {
			pin = f.Hooks[0]
		}
	}
	if d, err := scriptpin.ScriptTreeDigest(hooks, pin.RootOthers...); err != nil || d.String() != pin.RootSHA256 {
		t.Errorf("the tree after install: %s %v, want %s", d, err, pin.RootSHA256)
	}
	if _, drifts, err := Check(h, o); err != nil || len(drifts) != 0 {
		t.Errorf("check after install: %+v %v", drifts, err)
	}
	// A hook file added since runs outside the sandbox: named.
	os.WriteFile(filepath.Join(hooks, "UserPromptSubmit"), []byte("#!/bin/sh\necho '{}'\n"), 0o755)
	_, drifts, err := Check(h, o)
	if err != nil || len(drifts) != 1 || !drifts[0].Outside || !strings.HasSuffix(drifts[0].Path, "UserPromptSubmit") {
		t.Errorf("a hook file added since: %+v %v", drifts, err)
	}
	os.Remove(filepath.Join(hooks, "UserPromptSubmit"))
	// Reinstall plans from the originals, not the wrappers.
	p2, err := Prepare(h, o)
	if err != nil || p2.Count() != 3 || p2.Digest != p.Digest {
		t.Fatalf("reinstall: %v %d %s %s", err, p2.Count(), p2.Digest, p.Digest)
	}
	p2.Close()
	if _, err := Uninstall(h, o, false); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"PreToolUse": pre, "TaskStart": start} {
		b, _ := os.ReadFile(filepath.Join(hooks, name))
		fi, _ := os.Stat(filepath.Join(hooks, name))
		if string(b) != want {
			t.Errorf("%s not restored: %q", name, b)
		}
		if name == "PreToolUse" && fi.Mode().Perm() != 0o750 {
			t.Errorf("%s's mode %v", name, fi.Mode().Perm())
		}
		if _, err := os.Stat(filepath.Join(hooks, "."+name+".hook-exec")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s's copy left: %v", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(hooks, "hook-exec")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the side directory left: %v", err)
	}
}

// Cline's CLI runs hook files of .cline/hooks too, which install does not
// rewrite: the check names them.
func TestClineElsewhere(t *testing.T) {
	o, dir := project(t, map[string]string{".cline/hooks/PreToolUse.sh": "#!/bin/sh\necho '{}'\n", ".cline/hooks/notes.sh": "#!/bin/sh\n",
		".cline/hooks/posttooluse.py": "print('{}')\n"}) // its CLI runs it, executable or not
	os.Chmod(filepath.Join(dir, ".cline/hooks/PreToolUse.sh"), 0o755)
	os.Chmod(filepath.Join(dir, ".cline/hooks/notes.sh"), 0o755)
	_, drifts, err := Check(Hosts["cline"], o)
	if err != nil || len(drifts) != 2 || !drifts[0].Outside || !strings.HasSuffix(drifts[0].Path, "PreToolUse.sh") || !strings.HasSuffix(drifts[1].Path, "posttooluse.py") {
		t.Errorf("drifts %+v %v", drifts, err)
	}
}

func mustQuote(s string) []byte {
	b, _ := jsontext.AppendQuote(nil, s)
	return b
}

// A project whose path holds a glob's characters is still found: its
// hooks files are globbed below it, not through it.
func TestGlobUnderAPatternPath(t *testing.T) {
	base := filepath.Join(t.TempDir(), "proj[1]*")
	os.MkdirAll(filepath.Join(base, ".github/hooks"), 0o755)
	os.WriteFile(filepath.Join(base, ".github/hooks/h.json"), []byte(`{"version":1,"hooks":{}}`), 0o644)
	o := Options{Settings: Project, ProjectDir: base}
	if got := Hosts["copilot"].files(o); len(got) != 1 || got[0] != filepath.Join(base, ".github/hooks/h.json") {
		t.Errorf("files %q", got)
	}
}

// The hook files Cline's two runners find: a .sh one in any case is
// wrapped, one its CLI runs in another language and a link are named, not
// rewritten; an edit made in a hook's copy is approved by the next
// install and kept by uninstall unless --force.
func TestClineHookFileKinds(t *testing.T) {
	o, dir := project(t, map[string]string{
		".clinerules/hooks/pretooluse.sh": "#!/bin/sh\necho '{\"cancel\":false}'\n",
		".clinerules/hooks/TaskStart.py":  "import json\nprint(json.dumps({'cancel': False}))\n",
		"scripts/prompt.sh":               "#!/bin/sh\necho '{}'\n",
	})
	hooks := filepath.Join(dir, ".clinerules/hooks")
	os.Symlink("../../scripts/prompt.sh", filepath.Join(hooks, "UserPromptSubmit"))
	h := Hosts["cline"]
	p, err := Prepare(h, o)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	got := map[string]Hook{}
	for _, f := range p.Files {
		got[filepath.Base(f.Path)] = f.Hooks[0]
	}
	if hk := got["pretooluse.sh"]; hk.Err != nil || hk.Event != "PreToolUse" {
		t.Errorf("pretooluse.sh: %+v", hk)
	}
	if hk := got["TaskStart.py"]; hk.Err == nil || !strings.Contains(hk.Err.Error(), "extension") {
		t.Errorf("TaskStart.py: %+v", hk)
	}
	if hk := got["UserPromptSubmit"]; hk.Err == nil || !strings.Contains(hk.Err.Error(), "link") {
		t.Errorf("a link: %+v", hk)
	}
	if err := approved(p).Apply(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "scripts/prompt.sh")); string(b) != "#!/bin/sh\necho '{}'\n" {
		t.Errorf("the file a link leads to was rewritten: %s", b)
	}
	_, drifts, err := Check(h, o)
	if err != nil {
		t.Fatal(err)
	}
	var outside []string
	for _, d := range drifts {
		if d.Outside {
			outside = append(outside, filepath.Base(d.Path))
		}
	}
	if slices.Sort(outside); !slices.Equal(outside, []string{"TaskStart.py", "UserPromptSubmit"}) {
		t.Errorf("outside the sandbox: %q (%+v)", outside, drifts)
	}
	// The hook edited in its copy: uninstall keeps it, install approves it.
	edited := "#!/bin/sh\necho '{\"cancel\":true,\"errorMessage\":\"edited\"}'\n"
	os.WriteFile(filepath.Join(hooks, ".pretooluse.sh.hook-exec"), []byte(edited), 0o644)
	if _, err := Uninstall(h, o, false); !errors.Is(err, ErrDrifted) || !strings.Contains(err.Error(), "edited") {
		t.Fatalf("uninstall over an edited copy: %v", err)
	}
	p2, err := Prepare(h, o)
	if err != nil {
		t.Fatal(err)
	}
	defer p2.Close()
	for _, f := range p2.Files {
		if filepath.Base(f.Path) == "pretooluse.sh" && (!f.Edited || string(f.Original) != edited) {
			t.Errorf("reinstall does not take the edit: %+v", f)
		}
	}
	if err := approved(p2).Apply(); err != nil {
		t.Fatal(err)
	}
	if _, err := Uninstall(h, o, false); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(hooks, "pretooluse.sh")); string(b) != edited {
		t.Errorf("uninstall after the approved edit: %s", b)
	}
}
