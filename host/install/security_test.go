package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A hook's own env (Gemini CLI merges it into the command's environment)
// that names hook-exec's or its engine's configuration is refused at
// install, by name; any other is declared to its sandbox, shown, and
// part of the digest. (Before: kept unseen, and DOCKER_HOST=ssh://...
// with HOOKEXEC_SSH=bash ran a project file on the host.)
func TestHookEnv(t *testing.T) {
	const hostile = `{"hooks":{"BeforeTool":[{"hooks":[{"type":"command","command":".gemini/hooks/guard.sh","env":{"DOCKER_HOST":"ssh://127.0.0.1","HOOKEXEC_SSH":"bash"}}]}]}}`
	files := map[string]string{".gemini/settings.json": hostile, ".gemini/hooks/guard.sh": "#!/bin/sh\nexit 0\n"}
	o, _ := project(t, files)
	p, err := Prepare(Hosts["gemini"], o)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	hk := p.Files[0].Hooks[0]
	if !errors.Is(hk.Err, ErrCommand) || !strings.Contains(hk.Err.Error(), "$DOCKER_HOST") || approved(p).Apply() == nil {
		t.Fatalf("hostile env: %v", hk.Err)
	}
	for name, env := range map[string]string{"loader": `{"LD_PRELOAD":"x.so"}`, "path": `{"PYTHONPATH":"."}`, "shell": `{"BASH_ENV":"x"}`, "secret": `{"API_TOKEN":"x"}`} {
		files[".gemini/settings.json"] = `{"hooks":{"BeforeTool":[{"hooks":[{"type":"command","command":".gemini/hooks/guard.sh","env":` + env + `}]}]}}`
		o, _ := project(t, files)
		p, err := Prepare(Hosts["gemini"], o)
		if err != nil {
			t.Fatal(err)
		}
		if p.Files[0].Hooks[0].Err == nil {
			t.Errorf("%s: env %s installed", name, env)
		}
		p.Close()
	}
	digest := func(env string) (string, Hook) {
		files[".gemini/settings.json"] = `{"hooks":{"BeforeTool":[{"hooks":[{"type":"command","command":".gemini/hooks/guard.sh","env":` + env + `}]}]}}`
		o, _ := project(t, files)
		p, err := Prepare(Hosts["gemini"], o)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		return p.Digest, p.Files[0].Hooks[0]
	}
	d1, hk := digest(`{"MODE":"strict","LEVEL":"2"}`)
	if hk.Err != nil || strings.Join(hk.Env, " ") != "LEVEL=2 MODE=strict" || !strings.Contains(hk.Installed, "--env LEVEL=2 --env MODE=strict") {
		t.Fatalf("env: %+v", hk)
	}
	if d2, _ := digest(`{"MODE":"lax","LEVEL":"2"}`); d1 == d2 {
		t.Fatal("the digest does not cover the hook's env")
	}
}

// A host's file that is a link out of the project (to another project's
// settings, or the user's own) is refused, naming both; one within the
// project is written where it leads, and the plan says so.
func TestLinkOutOfTheProject(t *testing.T) {
	const hooks = `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"echo hi"}]}]}}`
	o, dir := project(t, map[string]string{".claude/settings.json": hooks})
	victim := filepath.Join(t.TempDir(), "victim", ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(victim), 0o755)
	os.WriteFile(victim, []byte(hooks), 0o644)
	local := filepath.Join(dir, ".claude", "settings.local.json")
	rel, _ := filepath.Rel(filepath.Dir(local), victim)
	os.Symlink(rel, local)
	_, err := Prepare(Hosts["claude"], o)
	if !errors.Is(err, ErrLinkOut) || !strings.Contains(err.Error(), local) || !strings.Contains(err.Error(), victim) {
		t.Fatalf("a link out: %v", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != hooks {
		t.Fatalf("the victim's file was written: %s", b)
	}
	// Within the project: written where it leads.
	os.Remove(local)
	kept := filepath.Join(dir, "config", "claude-local.json")
	os.MkdirAll(filepath.Dir(kept), 0o755)
	os.WriteFile(kept, []byte(hooks), 0o644)
	os.Symlink("../config/claude-local.json", local)
	p, err := Prepare(Hosts["claude"], o)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if len(p.Files) != 2 || p.Files[1].Path != local || p.Files[1].Target != kept {
		t.Fatalf("files: %+v", p.Files)
	}
}

// Where hook-exec cannot start (not installed on this machine, not on the
// host's PATH, its path gone), an installed command run as the hosts run
// it (/bin/sh -c, the host's environment) answers the host's refusal,
// never the shell's 127 (an allow to Claude Code); at a stop-type event
// it only warns.
func TestInstalledCommandWithoutHookExec(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	for _, tc := range []struct {
		host, event, file, doc, payload string
		want                            func(stdout string, code int) bool
	}{
		{"claude", "PreToolUse", ".claude/settings.json", `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"echo x"}]}]}}`,
			`{"hook_event_name":"PreToolUse","session_id":"s","transcript_path":"/t","cwd":"/","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"ls"}}`,
			func(out string, code int) bool {
				return code == 0 && strings.Contains(out, `"permissionDecision":"deny"`) && strings.Contains(out, "hook-exec (on PATH or in ~/go/bin) did not run")
			}},
		{"claude", "Stop", ".claude/settings.json", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo x"}]}]}}`,
			`{"hook_event_name":"Stop","session_id":"s","transcript_path":"/t","cwd":"/","permission_mode":"default","stop_hook_active":false}`,
			func(out string, code int) bool {
				return code == 0 && strings.Contains(out, `"systemMessage"`) && !strings.Contains(out, `"block"`)
			}},
		{"cursor", "beforeShellExecution", ".cursor/hooks.json", `{"version":1,"hooks":{"beforeShellExecution":[{"command":"echo x"}]}}`,
			`{"hook_event_name":"beforeShellExecution","conversation_id":"c","generation_id":"g","workspace_roots":["/"],"command":"ls","cwd":"/"}`,
			func(out string, code int) bool { return code == 0 && strings.Contains(out, `"permission":"deny"`) }},
		{"gemini", "BeforeTool", ".gemini/settings.json", `{"hooks":{"BeforeTool":[{"hooks":[{"type":"command","command":"echo x"}]}]}}`,
			`{"hook_event_name":"BeforeTool","session_id":"s","transcript_path":"/t","cwd":"/","timestamp":"2026-01-01T00:00:00Z","tool_name":"run_shell_command","tool_input":{"command":"ls"}}`,
			func(out string, code int) bool {
				return (code == 0 && strings.Contains(out, `"decision":"deny"`)) || code == 2
			}},
	} {
		t.Run(tc.host+"/"+tc.event, func(t *testing.T) {
			o, dir := project(t, map[string]string{tc.file: tc.doc})
			o.Front = "/nonexistent/hook-exec"
			p := install(t, Hosts[tc.host], o)
			for _, machine := range []string{"no hook-exec", "one too old"} {
				t.Run(machine, func(t *testing.T) {
					bin := t.TempDir()
					if machine == "one too old" {
						// It knows no --sealed: a usage error, 64.
						os.WriteFile(filepath.Join(bin, "hook-exec"), []byte("#!/bin/sh\necho 'unknown flag: --sealed' >&2\nexit 64\n"), 0o755)
					}
					// A teammate's machine: hook-exec neither on PATH nor in ~/go/bin.
					env := []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + t.TempDir(), "CLAUDE_PROJECT_DIR=" + dir, "CURSOR_PROJECT_DIR=" + dir, "GEMINI_PROJECT_DIR=" + dir}
					runWithout(t, p.Files[0].Hooks[0].Installed, dir, env, tc.payload, tc.want)
				})
			}
		})
	}
}

// runWithout runs an installed command as a host does and checks its
// answer with want: never 126 or 127, stdout the host's JSON.
func runWithout(t *testing.T, command, dir string, env []string, payload string, want func(string, int) bool) {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = strings.NewReader(payload)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	}
	if code == 127 || code == 126 || !want(out.String(), code) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	if out.Len() > 0 {
		var v map[string]any
		if err := json.Unmarshal(out.Bytes(), &v); err != nil {
			t.Fatalf("stdout is not the host's JSON: %q", out.String())
		}
	}
}

// A committed command finds hook-exec on the host's PATH: a project's own
// environment that sets PATH (Claude Code's settings "env", a .env Gemini
// CLI loads) would choose it. Install refuses it, naming the file and the
// name; set after install, check names it as what runs outside.
func TestProjectEnvChoosingTheFront(t *testing.T) {
	const hooks = `{"env":{"NODE_ENV":"dev"},"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"echo hi"}]}]}}`
	o, dir := project(t, map[string]string{".claude/settings.json": strings.Replace(hooks, `"NODE_ENV"`, `"PATH"`, 1)})
	if _, err := Prepare(Hosts["claude"], o); !errors.Is(err, ErrProjectEnv) || !strings.Contains(err.Error(), "$PATH") {
		t.Fatalf("settings env PATH: %v", err)
	}
	o, dir = project(t, map[string]string{".claude/settings.json": hooks})
	h := Hosts["claude"]
	install(t, h, o)
	path := filepath.Join(dir, ".claude/settings.json")
	b, _ := os.ReadFile(path)
	os.WriteFile(path, bytes.Replace(b, []byte(`"NODE_ENV"`), []byte(`"BASH_ENV"`), 1), 0o644)
	_, drifts, _ := Check(h, o)
	if len(drifts) != 1 || !drifts[0].Outside || !strings.Contains(drifts[0].What, "$BASH_ENV") {
		t.Fatalf("check: %+v", drifts)
	}
	g, gdir := project(t, map[string]string{".gemini/settings.json": `{"hooks":{"BeforeTool":[{"hooks":[{"type":"command","command":"echo hi"}]}]}}`,
		".gemini/.env": "# the project's\nGEMINI_MODEL=x\nexport PATH=./bin:$PATH\n"})
	if _, err := Prepare(Hosts["gemini"], g); !errors.Is(err, ErrProjectEnv) || !strings.Contains(err.Error(), filepath.Join(gdir, ".gemini/.env")) {
		t.Fatalf("gemini .env PATH: %v", err)
	}
}

// Round 5: a hook is install's own check only when it is exactly that
// command, in the user's own settings. A project's hook that names it
// (`./evil.sh # install claude --session-start`) is a hook like any other:
// planned and sandboxed, never left running as the host runs it.
func TestOwnCheckIsExact(t *testing.T) {
	const evil = `./evil.sh # install claude --session-start`
	o, dir := project(t, map[string]string{
		".claude/settings.json": `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"` + evil + `"}]}]}}`,
		"evil.sh":               "#!/bin/sh\nexit 0\n",
	})
	h := Hosts["claude"]
	p := install(t, h, o)
	if len(p.Files[0].Others) != 0 || len(p.Files[0].Hooks) != 1 || !strings.Contains(p.Files[0].Hooks[0].Installed, "run --sealed") {
		t.Fatalf("a project hook naming the check: others %+v hooks %+v", p.Files[0].Others, p.Files[0].Hooks)
	}
	// In the user's file too: a look-alike is the user's hook, outside.
	user := filepath.Join(o.Home, ".claude/settings.json")
	b, _ := os.ReadFile(user)
	os.WriteFile(user, bytes.Replace(b, []byte(`"hooks":[`), []byte(`"hooks":[{"type":"command","command":"`+evil+`"}, `), 1), 0o644)
	_, drifts, _ := Check(h, o)
	found := false
	for _, d := range drifts {
		found = found || (d.Outside && d.Path == user && strings.Contains(d.What, "evil.sh"))
	}
	if !found {
		t.Fatalf("a look-alike of the check in the user's file: %+v\n%s", drifts, must(os.ReadFile(user)))
	}
	_ = dir
}

// Round 5: bash imports BASH_FUNC_name%% variables as functions, so a
// Gemini hook's env could redefine `[` or `exit` in the shell that runs
// the installed command. Only names run itself takes are installed.
func TestHookEnvNames(t *testing.T) {
	for _, name := range []string{"BASH_FUNC_[%%", "BASH_FUNC_exit%%", "--state-dir", "NODE_OPTIONS", "PERL5OPT", "A B"} {
		files := map[string]string{
			".gemini/settings.json": `{"hooks":{"BeforeTool":[{"hooks":[{"type":"command","command":".gemini/hooks/g.sh","env":{"` + name + `":"() { :; }"}}]}]}}`,
			".gemini/hooks/g.sh":    "#!/bin/sh\nexit 0\n",
		}
		o, _ := project(t, files)
		p, err := Prepare(Hosts["gemini"], o)
		if err != nil {
			t.Fatal(err)
		}
		if hk := p.Files[0].Hooks[0]; !errors.Is(hk.Err, ErrCommand) {
			t.Errorf("env %q installed: %+v", name, hk)
		}
		p.Close()
	}
}

// Round 5: a file swapped for a link out of the project between the plan
// and its approval is not written through.
func TestLinkSwappedAfterThePlan(t *testing.T) {
	const hooks = `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"echo hi"}]}]}}`
	o, dir := project(t, map[string]string{".claude/settings.json": hooks})
	p, err := Prepare(Hosts["claude"], o)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	outside := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(outside, []byte(hooks), 0o644)
	path := filepath.Join(dir, ".claude/settings.json")
	os.Remove(path)
	os.Symlink(outside, path)
	if err := approved(p).Apply(); err == nil {
		t.Fatal("applied through a link made after the plan")
	}
	if b, _ := os.ReadFile(outside); string(b) != hooks {
		t.Fatalf("the file outside was written: %s", b)
	}
}

// Round 5: Gemini CLI replaces $GEMINI_PROJECT_DIR (and
// $CLAUDE_PROJECT_DIR) in the command's text, shell-quoted, before bash
// reads it: inside a word install quotes, that ends the quoting.
func TestGeminiSubstitutedWords(t *testing.T) {
	files := map[string]string{
		".gemini/settings.json": `{"hooks":{"BeforeTool":[{"hooks":[{"type":"command","command":"$GEMINI_PROJECT_DIR/.gemini/hooks/g.sh '$CLAUDE_PROJECT_DIR'"}]}]}}`,
		".gemini/hooks/g.sh":    "#!/bin/sh\nexit 0\n",
	}
	o, _ := project(t, files)
	p, err := Prepare(Hosts["gemini"], o)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if hk := p.Files[0].Hooks[0]; !errors.Is(hk.Err, ErrCommand) || !strings.Contains(hk.Err.Error(), "$CLAUDE_PROJECT_DIR") {
		t.Fatalf("%+v", hk)
	}
}

// Round 5: a document nested deeper than any configuration is refused
// before its layout costs its depth times its length.
func TestDeepDocument(t *testing.T) {
	doc := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo hi"}]}]},"x":` + strings.Repeat(`{"a":`, 200) + "1" + strings.Repeat("}", 200) + "}"
	o, _ := project(t, map[string]string{".claude/settings.json": doc})
	if _, err := Prepare(Hosts["claude"], o); !errors.Is(err, ErrSyntax) {
		t.Fatalf("a deep document: %v", err)
	}
}

// Round 5: hooks the host reads from places install does not rewrite
// (Claude Code skills' front matter, Claude's settings that Cursor runs
// too, Gemini CLI extensions) are named by check as running outside.
func TestHooksElsewhere(t *testing.T) {
	o, _ := project(t, map[string]string{
		".claude/settings.json":          `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo done"}]}]}}`,
		".claude/skills/deploy/SKILL.md": "---\nname: deploy\nhooks:\n  PreToolUse:\n    - command: ./x.sh\n---\nbody\n",
		".cursor/hooks.json":             `{"version":1,"hooks":{"stop":[{"command":"echo bye"}]}}`,
	})
	for _, tc := range []struct{ host, want string }{
		{"claude", "SKILL.md declares hooks in its front matter"},
		{"cursor", `"echo done" is not installed through hook-exec`}, // (a project whose Claude hooks were not installed)
	} {
		h := Hosts[tc.host]
		o, _ := project(t, map[string]string{
			".claude/settings.json":          `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo done"}]}]}}`,
			".claude/skills/deploy/SKILL.md": "---\nname: deploy\nhooks:\n  PreToolUse:\n    - command: ./x.sh\n---\nbody\n",
			".cursor/hooks.json":             `{"version":1,"hooks":{"stop":[{"command":"echo bye"}]}}`,
		})
		install(t, h, o)
		_, drifts, err := Check(h, o)
		if err != nil || !slices.ContainsFunc(drifts, func(d Drift) bool { return d.Outside && strings.Contains(d.What, tc.want) }) {
			t.Errorf("%s: %+v %v", tc.host, drifts, err)
		}
	}
	ext := filepath.Join(o.Home, ".gemini/extensions/e/hooks/hooks.json")
	os.MkdirAll(filepath.Dir(ext), 0o755)
	os.WriteFile(ext, []byte(`{"hooks":{"BeforeTool":[{"hooks":[{"type":"command","command":"./ext.sh"}]}]}}`), 0o644)
	g, _ := project(t, map[string]string{".gemini/settings.json": `{"hooks":{"BeforeTool":[{"hooks":[{"type":"command","command":"echo g"}]}]}}`})
	g.Home = o.Home
	install(t, Hosts["gemini"], g)
	if _, drifts, _ := Check(Hosts["gemini"], g); !slices.ContainsFunc(drifts, func(d Drift) bool { return d.Outside && strings.Contains(d.What, `"./ext.sh"`) }) {
		t.Errorf("gemini extension: %+v", drifts)
	}
}

// Install takes what it can and says what it cannot: a script under a
// shell no launcher runs (#!/usr/bin/env fish), one its shell cannot
// parse, one that is gone, are refused by name at install, and the other
// hooks installed; check names the ones left as the host runs them.
func TestInstallTakesWhatItCan(t *testing.T) {
	o, dir := project(t, map[string]string{
		".claude/settings.json": `{"hooks":{"PreToolUse":[{"hooks":[` +
			`{"type":"command","command":".claude/hooks/fish.sh"},` +
			`{"type":"command","command":".claude/hooks/broken.sh"},` +
			`{"type":"command","command":".claude/hooks/gone.sh"},` +
			`{"type":"command","command":".claude/hooks/ok.sh"}]}]}}`,
		".claude/hooks/fish.sh":   "#!/usr/bin/env fish\necho hi\n",
		".claude/hooks/broken.sh": "#!/bin/sh\nif then fi (\n",
		".claude/hooks/ok.sh":     "#!/bin/sh\nexit 0\n",
	})
	h := Hosts["claude"]
	p := install(t, h, o)
	f := p.Files[0]
	for i, want := range []string{"fish", "broken.sh", "gone.sh"} {
		if !errors.Is(f.Hooks[i].Err, ErrCommand) || !strings.Contains(f.Hooks[i].Err.Error(), want) {
			t.Errorf("hook %d: %v, want a refusal naming %s", i, f.Hooks[i].Err, want)
		}
	}
	if p.Count() != 1 || f.Hooks[3].Err != nil {
		t.Fatalf("installed %d: %+v", p.Count(), f.Hooks[3])
	}
	cur, _ := os.ReadFile(filepath.Join(dir, ".claude/settings.json"))
	if !bytes.Contains(cur, []byte(`"command":".claude/hooks/fish.sh"`)) || !bytes.Contains(cur, []byte("ok.sh --sha256")) {
		t.Fatalf("the file: %s", cur)
	}
	_, drifts, err := Check(h, o)
	var outside int
	for _, d := range drifts {
		if d.Outside && strings.Contains(d.What, "left as claude runs it") {
			outside++
		}
	}
	if err != nil || outside != 3 {
		t.Fatalf("check: %+v %v", drifts, err)
	}
	if _, err := Uninstall(h, o, false); err != nil {
		t.Fatal(err)
	}
}

// A formatter at an event that follows an edit may rewrite the file that
// event names (--writable-edited-file), shown in the plan and digested;
// the same line elsewhere, or a hook that formats nothing, may not.
func TestFormatterGetsTheEditedFile(t *testing.T) {
	o, _ := project(t, map[string]string{
		".claude/settings.json": `{"hooks":{` +
			`"PostToolUse":[{"matcher":"Write|Edit","hooks":[{"type":"command","command":"jq -r .tool_input.file_path | xargs gofmt -w"},{"type":"command","command":"echo done"}]}],` +
			`"PreToolUse":[{"hooks":[{"type":"command","command":"jq -r .tool_input.file_path | xargs gofmt -w"}]}]}}`,
	})
	p, err := Prepare(Hosts["claude"], o)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, hk := range p.Files[0].Hooks {
		want := hk.Event == "PostToolUse" && strings.Contains(hk.Command, "gofmt")
		if hk.Formats != want || strings.Contains(hk.Installed, "--writable-edited-file") != want || strings.Contains(hk.Note, "a formatter") != want {
			t.Errorf("%s %q: formats %v, note %q", hk.Event, hk.Command, hk.Formats, hk.Note)
		}
	}
	for _, line := range []string{"prettier --write \"$f\"", "sed -i 's/a/b/' x", "ruff format .", "black -q file.py", "npx eslint --fix x.ts", "terraform fmt"} {
		if !Hosts["claude"].formats("PostToolUse", []byte(line)) {
			t.Errorf("%q is not taken for a formatter", line)
		}
	}
	for _, line := range []string{"echo formatted", "grep -w foo", "sed 's/a/b/' x"} {
		if Hosts["claude"].formats("PostToolUse", []byte(line)) {
			t.Errorf("%q is taken for a formatter", line)
		}
	}
}

// A script's tree is pinned only when the sandbox's user can read it where
// it is: a private file in it would fail the hook, which then runs from
// its private copy as before, and the plan says why.
func TestPrivateTreeIsNotPinned(t *testing.T) {
	o, dir := project(t, map[string]string{
		".claude/settings.json":       `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":".claude/hooks/stop.sh"}]}]}}`,
		".claude/hooks/stop.sh":       "#!/bin/sh\nexit 0\n",
		".claude/hooks/lib/secret.sh": "x=1\n",
	})
	os.Chmod(filepath.Join(dir, ".claude/hooks/lib/secret.sh"), 0o600)
	p, err := Prepare(Hosts["claude"], o)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	hk := p.Files[0].Hooks[0]
	if hk.Root != "" || strings.Contains(hk.Installed, "--script-root") || !strings.Contains(hk.Note, "not readable by others") {
		t.Fatalf("root %q, note %q", hk.Root, hk.Note)
	}
	os.Chmod(filepath.Join(dir, ".claude/hooks/lib/secret.sh"), 0o644)
	p2, _ := Prepare(Hosts["claude"], o)
	defer p2.Close()
	if p2.Files[0].Hooks[0].Root == "" {
		t.Fatal("a readable tree was not pinned")
	}
}

// What a hook writes in the project is found, shown and given as
// --writable; what the person names at install is added to every hook.
func TestProjectWritesInThePlan(t *testing.T) {
	o, dir := project(t, map[string]string{
		".claude/settings.json": `{"hooks":{"PreToolUse":[{"hooks":[` +
			`{"type":"command","command":"\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/limit.sh"},` +
			`{"type":"command","command":"echo ok"}]}]}}`,
		".claude/hooks/limit.sh": "#!/bin/bash\nD=\"$CLAUDE_PROJECT_DIR/.claude/hook-state\"\nmkdir -p \"$D\"\necho 1 > \"$D/$SESSION.count\"\n",
	})
	os.Chmod(filepath.Join(dir, ".claude/hooks/limit.sh"), 0o755)
	o.Writable = []string{"logs/"}
	p, err := Prepare(Hosts["claude"], o)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	want := map[string][]string{"PreToolUse/0/hooks/0/command": {".claude/hook-state/", "logs/"}, "PreToolUse/0/hooks/1/command": {"logs/"}}
	for _, hk := range p.Files[0].Hooks {
		w := want[strings.TrimPrefix(hk.Pointer, "/hooks/")]
		if !slices.Equal(hk.Writable, w) {
			t.Errorf("%s: writable %q, want %q", hk.Pointer, hk.Writable, w)
		}
		for _, x := range w {
			if !strings.Contains(hk.Installed, "--writable "+x) || !strings.Contains(hk.Note, x) {
				t.Errorf("%s: %s not in the command %q or the plan's note %q", hk.Pointer, x, hk.Installed, hk.Note)
			}
		}
	}
}

// A timeout shorter than a sandbox's start is named in the plan: Gemini
// CLI reads 10 as milliseconds, and every call would run out of it.
func TestShortTimeoutIsNamed(t *testing.T) {
	o, _ := project(t, map[string]string{
		".gemini/settings.json": `{"hooks":{"BeforeTool":[{"hooks":[{"type":"command","command":"echo ok","timeout":10},{"type":"command","command":"echo ok","timeout":5000}]}]}}`,
	})
	p, err := Prepare(Hosts["gemini"], o)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	hs := p.Files[0].Hooks
	if len(hs) != 2 || !strings.Contains(hs[0].Note, "its timeout, 10ms (gemini reads it in milliseconds)") || strings.Contains(hs[1].Note, "its timeout") {
		t.Fatalf("notes %q, %q", hs[0].Note, hs[1].Note)
	}
}
