package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/launcher"
)

// FuzzPlan reads any bytes as a host's configuration: no panic, and a
// rewrite is still a document its host reads, with the same members.
func FuzzPlan(f *testing.F) {
	f.Add([]byte(claudeSettings))
	f.Add([]byte(`{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"jq . | cat"}]}]}}`))
	f.Add([]byte(`{"version":1,"hooks":{"stop":[{"command":"echo \"x\" # c"}]}}`))
	f.Add([]byte("{/* c */\"hooks\":{\"BeforeTool\":[{\"matcher\":\"x\",\"hooks\":[{\"type\":\"command\",\"command\":\"a|b\"} // c\n]}]}}"))
	f.Add([]byte(`{"hooks":{"PreToolUse":[{"matcher":"^Bash$","hooks":[{"type":"command","command":"python3 \"$(git rev-parse --show-toplevel)/.codex/hooks/p.py\"","timeout":5}]}]}}`))
	f.Add([]byte(`{"hooks":{"pre_run_command":[{"command":"bin/guard.sh","show_output":true,"working_directory":"."}]}}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		for _, name := range HostNames() {
			h := Hosts[name]
			dir := t.TempDir()
			o := Options{Settings: Project, ProjectDir: dir, Home: dir, StateDir: filepath.Join(dir, "state"), Front: "/usr/bin/hook-exec"}
			path := filepath.Join(dir, h.ProjectFiles[0])
			os.MkdirAll(filepath.Dir(path), 0o755)
			if err := os.WriteFile(path, doc, 0o644); err != nil {
				t.Fatal(err)
			}
			p, err := Prepare(h, o)
			if err != nil || len(p.Files) == 0 {
				continue
			}
			out := p.Files[0].Rewritten
			if h.Comments {
				if out, err = blankComments(out); err != nil {
					t.Fatalf("%s: the rewrite's comments do not read: %v", name, err)
				}
			}
			if !jsontext.Value(out).IsValid() {
				t.Fatalf("%s: the rewrite is not JSON:\n%s", name, out)
			}
			for _, hk := range p.Files[0].Hooks {
				if hk.Err == nil && !strings.Contains(string(p.Files[0].Rewritten), hk.SHA256) {
					t.Fatalf("%s: %s not rewritten", name, hk.Pointer)
				}
			}
		}
	})
}

// FuzzPluginManifest reads any bytes as a plugin's manifest (a plugin's
// author writes it): no panic, and every hooks file it names is inside
// the plugin.
func FuzzPluginManifest(f *testing.F) {
	f.Add([]byte(`{"name": "fmt", "hooks": {"PostToolUse": [{"hooks": [{"type": "command", "command": "x"}]}]}}`))
	f.Add([]byte(`{"name": "p", "hooks": "./hooks/extra.json"}`))
	f.Add([]byte(`{"hooks": ["./a.json", "../../x.json"]}`))
	f.Add([]byte(`{"hooks": 3}`))
	f.Fuzz(func(t *testing.T, manifest []byte) {
		root := t.TempDir()
		os.MkdirAll(filepath.Join(root, ".claude-plugin"), 0o755)
		if err := os.WriteFile(filepath.Join(root, ".claude-plugin", "plugin.json"), manifest, 0o644); err != nil {
			t.Fatal(err)
		}
		files, err := pluginHooksFiles(root)
		if err != nil {
			return
		}
		for _, p := range files {
			if rel, err := filepath.Rel(root, p); err != nil || !filepath.IsLocal(rel) {
				t.Fatalf("hooks file %s is outside the plugin %s", p, root)
			}
		}
	})
}

// FuzzLayout reads any bytes as a document install edits in place: no
// panic, and cutting any element leaves a document that still reads, with
// one element fewer in that container and every other byte kept.
func FuzzLayout(f *testing.F) {
	f.Add([]byte(claudeSettings))
	f.Add([]byte(`{"a": [1, {"b": 2}], "c": {}}`))
	f.Add([]byte("{\n  \"hooks\": {\"x\": [ {\"command\": \"a\", \"failClosed\": true} ]}\n}"))
	f.Add([]byte(`[[], [1], {"": null}]`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		els, err := layout(doc)
		if err != nil {
			return
		}
		for ptr, e := range els {
			if e.Start > e.Value || e.Value >= e.End || e.End > int64(len(doc)) {
				t.Fatalf("%q: spans %+v", ptr, e)
			}
			if ptr == "" {
				continue
			}
			out, err := applyEdits(doc, []edit{cut(els, ptr)})
			if err != nil {
				t.Fatal(err)
			}
			after, err := layout(out)
			if err != nil {
				t.Fatalf("cutting %q of %s leaves %s: %v", ptr, doc, out, err)
			}
			if n, m := len(els[ptr.Parent()].Kids), len(after[ptr.Parent()].Kids); m != n-1 {
				t.Fatalf("cutting %q of %s leaves %d elements of %d: %s", ptr, doc, m, n, out)
			}
		}
	})
}

// FuzzUndo reads any bytes as a settings file edited after install: no
// panic, and what undo makes of it reads and holds no installed command.
func FuzzUndo(f *testing.F) {
	h := Hosts["claude"]
	rec := &record{Rewrites: []rewrite{{Installed: "/opt/hook-exec run --dialect claude x", Was: `"echo done"`}}}
	f.Add([]byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/opt/hook-exec run --dialect claude x"}]}]}}`))
	f.Add([]byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/opt/hook-exec run --dialect claude y"}]}]}}`))
	f.Add([]byte(`{"enabledPlugins":{"a@b":true},"hooks":{"Stop":[{"hooks":[{"command":"/opt/hook-exec run --dialect claude x","type":"command"},{"type":"command","command":"echo new"}]}]}}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		out, err := undo(h, doc, rec)
		if err != nil {
			return
		}
		if !jsontext.Value(out).IsValid() {
			t.Fatalf("undo of %s is not JSON: %s", doc, out)
		}
		added, err := addedHooks(h, Options{}, "", out, rec)
		if err != nil {
			t.Fatal(err)
		}
		if all := must(addedHooks(h, Options{}, "", out, nil)); len(added) != len(all) {
			t.Fatalf("undo of %s left an installed command: %s", doc, out)
		}
		if len(added) != len(must(addedHooks(h, Options{}, "", doc, nil))) {
			t.Fatalf("undo of %s lost a hook: %s", doc, out)
		}
	})
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// FuzzCommittedRecord: a clone's committed side record and settings are a
// repository's bytes. Reading them never panics; a record that reads gives
// an original that is the file without install's commands (undo), which
// uninstall would write, and that still reads as the host's JSON; and a
// project's .env and a skill's front matter read without panic.
func FuzzCommittedRecord(f *testing.F) {
	installed := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"hookexec=x; run"}]}]}}`
	f.Add([]byte(`{"version":1,"file":"settings.json","installed_sha256":"","original_sha256":"","rewrites":[{"installed":"hookexec=x; run","was":"\"echo one\""}]}`), []byte(installed))
	f.Add([]byte(`{"version":1,"file":"settings.json","rewrites":[]}`), []byte(`{}`))
	f.Add([]byte(`{"version":1,"file":"settings.json","rewrites":[{"installed":"a","was":"\"b\"","added":"failClosed"}],"inline":["../../x"]}`), []byte(`{"hooks":{"Stop":[{"hooks":[{"command":"a","failClosed":true}]}]}}`))
	f.Fuzz(func(t *testing.T, side, doc []byte) {
		h := Hosts["claude"]
		dir := t.TempDir()
		path := filepath.Join(dir, ".claude", "settings.json")
		os.MkdirAll(filepath.Join(dir, ".claude", "hook-exec"), 0o755)
		os.WriteFile(path, doc, 0o644)
		os.WriteFile(sideFile(path), side, 0o644)
		rec, err := sideRecord(h, path)
		if err != nil || rec == nil {
			return
		}
		if _, _, err := parseLayout(h, rec.original); err != nil {
			t.Fatalf("the original undo made of a committed file does not read: %v\n%s", err, rec.original)
		}
		dotEnvNames(doc)
		frontMatter(doc)
	})
}

// FuzzProjectWrites: whatever a script says, what install lets it write
// is a path a --writable entry may name (inside the project, no host's
// configuration, no git), and reading it never panics.
func FuzzProjectWrites(f *testing.F) {
	f.Add([]byte("STATE_DIR=\"${CLAUDE_PROJECT_DIR:-.}/.claude/hook-state\"\nmkdir -p \"$STATE_DIR\"\necho 1 > \"$STATE_DIR/$ID.count\"\n"), false)
	f.Add([]byte("R=\"$(git rev-parse --show-toplevel)\"\nL=\"$R/rules/audit.log\"\nmkdir -p \"$(dirname \"$L\")\"\necho x >> \"$L\"\n"), false)
	f.Add([]byte("echo x > ../../etc/passwd\necho y >> .claude/../.git/config\n"), false)
	f.Add([]byte("LOG = os.getenv(\"X\", \"gemini.log\")\nopen(LOG, \"a\")\n"), true)
	f.Add([]byte("root = os.environ.get(\"CLAUDE_PROJECT_DIR\")\nopen(os.path.join(root, \"..\", \"x\"), \"w\")\n"), true)
	f.Fuzz(func(t *testing.T, b []byte, py bool) {
		lang := launcher.Shell
		if py {
			lang = launcher.Python
		}
		for _, w := range projectWrites(lang, b) {
			if err := hook.CheckWritable(w); err != nil {
				t.Fatalf("%q: %v", w, err)
			}
		}
	})
}

// FuzzDevcontainer: a project's devcontainer.json, whatever it holds,
// names an image reference or none, and never panics install.
func FuzzDevcontainer(f *testing.F) {
	f.Add([]byte("// c\n{\"name\": \"go\", /* x */ \"image\": \"mcr.microsoft.com/devcontainers/go:1\",}\n"))
	f.Add([]byte(`{"image": "a:1", "image": "b:1"}`))
	f.Add([]byte(`{"build": {"dockerfile": "Dockerfile"}, "image": "--privileged"}`))
	f.Add([]byte(`{"image": "x,}"}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		image, err := imageOf("devcontainer.json", doc)
		if err == nil && image != "" && !imageRef.MatchString(image) {
			t.Fatalf("%q is not an image reference", image)
		}
	})
}
