package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// FuzzPlan reads any bytes as a host's configuration: no panic, and a
// rewrite is still a document its host reads, with the same members.
func FuzzPlan(f *testing.F) {
	f.Add([]byte(claudeSettings))
	f.Add([]byte(`{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"jq . | cat"}]}]}}`))
	f.Add([]byte(`{"version":1,"hooks":{"stop":[{"command":"echo \"x\" # c"}]}}`))
	f.Add([]byte("{/* c */\"hooks\":{\"BeforeTool\":[{\"matcher\":\"x\",\"hooks\":[{\"type\":\"command\",\"command\":\"a|b\"} // c\n]}]}}"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		for _, name := range HostNames() {
			h := Hosts[name]
			dir := t.TempDir()
			o := Options{Scope: Project, ProjectDir: dir, Home: dir, StateDir: filepath.Join(dir, "state"), Command: []string{"hook-exec"}}
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
