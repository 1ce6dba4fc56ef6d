package plugin

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookexec/hook-exec/host/registry"
)

const manifest = "name = \"acme\"\nversion = \"1.0.0\"\ndescription = \"guards\"\n"

const guardHooks = `[{"schema_version":1,"id":"guard","point":"tool.before","mode":"blocking","handler":{"kind":"script","script":"hooks/guard.sh"}}]`

// source writes a plugin directory: the manifest, hooks.json and files.
func source(t *testing.T, hooks string, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	all := map[string]string{ManifestFile: manifest, HooksFile: hooks, "hooks/guard.sh": "cat >/dev/null\necho '{\"schema_version\":1,\"action\":\"allow\"}'\n"}
	for k, v := range files {
		all[k] = v
	}
	for name, body := range all {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestConsentLifecycle(t *testing.T) {
	state := t.TempDir()
	src := source(t, guardHooks, nil)
	name, info, err := Install(state, src)
	if err != nil {
		t.Fatal(err)
	}
	if name != "acme" {
		t.Errorf("name = %q, want the manifest's", name)
	}
	if info.State != Pending {
		t.Errorf("state after install = %s, want pending", info.State)
	}
	approved, _, err := Sources(state)
	if err != nil {
		t.Fatal(err)
	}
	if len(approved) != 0 {
		t.Error("a pending plugin's hooks are loaded")
	}
	if _, err := Enable(state, "acme", strings.Repeat("0", 64)); !errors.Is(err, ErrChanged) {
		t.Errorf("enable with another digest: err = %v, want ErrChanged", err)
	}
	info, err = Enable(state, "acme", info.Digest)
	if err != nil {
		t.Fatal(err)
	}
	if info.State != Approved {
		t.Errorf("state after enable = %s, want approved", info.State)
	}
	approved, _, _ = Sources(state)
	if len(approved) != 1 {
		t.Fatalf("%d approved documents, want 1", len(approved))
	}
	snap, err := registry.Take(registry.Sources{Plugins: approved})
	if err != nil {
		t.Fatal(err)
	}
	e := snap.Lookup("plugin:acme/guard")
	if e == nil {
		t.Fatal("the approved hook is not in the snapshot")
	}
	if e.BaseDir != Dir(state, "acme") {
		t.Errorf("scripts run from %s, want the installed copy %s", e.BaseDir, Dir(state, "acme"))
	}
	if e.Def.Handler.SHA256 != info.Scripts["hooks/guard.sh"] {
		t.Errorf("handler pinned to %q, want the script's hash %s", e.Def.Handler.SHA256, info.Scripts["hooks/guard.sh"])
	}

	// An edit of the installed script pauses the plugin.
	if err := os.WriteFile(filepath.Join(Dir(state, "acme"), "hooks/guard.sh"), []byte("exit 0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	info, _ = Inspect(state, "acme")
	if info.State != Changed {
		t.Errorf("state after a script edit = %s, want changed", info.State)
	}
	approved, paused, _ := Sources(state)
	if len(approved) != 0 || len(paused) != 1 {
		t.Errorf("after an edit: %d approved, %d paused, want 0 and 1", len(approved), len(paused))
	}
	// Reinstalling the original keeps the consent: approved again.
	if _, info, err = Install(state, src); err != nil {
		t.Fatal(err)
	}
	if info.State != Approved {
		t.Errorf("state after reinstalling the approved content = %s, want approved", info.State)
	}
	if err := Disable(state, "acme"); err != nil {
		t.Fatal(err)
	}
	if info, _ = Inspect(state, "acme"); info.State != Disabled {
		t.Errorf("state after disable = %s", info.State)
	}
	if approved, _, _ = Sources(state); len(approved) != 0 {
		t.Error("a disabled plugin's hooks are loaded")
	}
}

func TestPluginRules(t *testing.T) {
	for _, tc := range []struct {
		name, hooks string
		files       map[string]string
		rule        string
	}{
		{"namespaced id", `{"schema_version":1,"id":"plugin:acme/guard","point":"tool.before","handler":{"kind":"script","script":"hooks/guard.sh"}}`, nil, "plugin namespace"},
		{"env", `{"schema_version":1,"id":"g","point":"tool.before","handler":{"kind":"script","script":"hooks/guard.sh","env":{"MODE":"x"}}}`, nil, "environment variables"},
		{"webhook", `{"schema_version":1,"id":"g","point":"tool.before","handler":{"kind":"webhook","url":"https://example.com"}}`, nil, "webhook"},
		{"image", `{"schema_version":1,"id":"g","point":"tool.before","handler":{"kind":"script","script":"hooks/guard.sh","image":"x"}}`, nil, "image"},
		{"owner scope", `{"schema_version":1,"id":"g","point":"tool.before","scope":"global","handler":{"kind":"script","script":"hooks/guard.sh"}}`, nil, "scope"},
		{"CRLF shell script", guardHooks, map[string]string{"hooks/guard.sh": "echo hi\r\n"}, "CRLF"},
		{"bash syntax in a script sh runs", guardHooks, map[string]string{"hooks/guard.sh": "x=$(cat)\nif [[ $x == *rm* ]]; then exit 2; fi\n"}, "hooks/guard.sh: shell syntax: sh cannot run this script: line 2: [[ is a bash feature"},
		{"script outside the plugin", `{"schema_version":1,"id":"g","point":"tool.before","handler":{"kind":"script","script":"../guard.sh"}}`, nil, ".."},
		{"missing script", `{"schema_version":1,"id":"g","point":"tool.before","handler":{"kind":"script","script":"hooks/none.sh"}}`, nil, "none.sh"},
		{"non-finite number", `{"schema_version":1,"id":"g","point":"tool.before","timeout_seconds":1e400,"handler":{"kind":"script","script":"hooks/guard.sh"}}`, nil, "timeout_seconds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			state := t.TempDir()
			_, info, err := Install(state, source(t, tc.hooks, tc.files))
			if err != nil {
				t.Fatal(err)
			}
			if info.State != NotLoaded {
				t.Fatalf("state = %s, want not-loaded", info.State)
			}
			if !errors.Is(info.Problem, ErrRule) {
				t.Errorf("problem %v is not ErrRule", info.Problem)
			}
			if !strings.Contains(info.Problem.Error(), tc.rule) {
				t.Errorf("problem %q does not name the rule (%s)", info.Problem, tc.rule)
			}
			if _, err := Enable(state, "acme", info.Digest); !errors.Is(err, ErrRule) {
				t.Errorf("enable of a document that is not loaded: err = %v, want ErrRule", err)
			}
		})
	}
}

func TestInstallRefusesLinks(t *testing.T) {
	src := source(t, guardHooks, nil)
	if err := os.Symlink("/etc/passwd", filepath.Join(src, "hooks", "passwd")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Install(t.TempDir(), src); !errors.Is(err, ErrRule) {
		t.Errorf("install of a plugin with a link: err = %v, want ErrRule", err)
	}
}

func TestStateFilesArePrivate(t *testing.T) {
	state := t.TempDir()
	_, info, err := Install(state, source(t, guardHooks, nil))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Enable(state, "acme", info.Digest); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{stateFile(state), Dir(state, "acme"), filepath.Join(Dir(state, "acme"), HooksFile)} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm()&0o022 != 0 {
			t.Errorf("%s is writable by others: %v", p, fi.Mode())
		}
	}
}

func TestParseManifest(t *testing.T) {
	if name, err := ParseManifest([]byte(manifest)); err != nil || name != "acme" {
		t.Errorf("ParseManifest = %q, %v", name, err)
	}
	for doc, what := range map[string]string{
		"version = \"1\"\n":                  "no name",
		"name = 3\n":                         "a string",
		"name = \"Acme Tools\"\n":            "lowercase",
		"name = \"acme\"\nNAME = \"evil\"\n": "exactly",
		"name = \"acme\"\nname = \"b\"\n":    "", // TOML refuses a repeated key
		"name = \"../x\"\n":                  "lowercase",
	} {
		_, err := ParseManifest([]byte(doc))
		if !errors.Is(err, ErrManifest) {
			t.Errorf("%q: err = %v, want ErrManifest", doc, err)
			continue
		}
		if !strings.Contains(err.Error(), what) {
			t.Errorf("%q: error %q does not say %q", doc, err, what)
		}
	}
}

func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(manifest))
	f.Add([]byte("name = \"acme\"\n[hooks]\nx = 1\n"))
	f.Add([]byte("NAME = \"x\"\nname = \"y\"\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		name, err := ParseManifest(b)
		if err != nil {
			if !errors.Is(err, ErrManifest) {
				t.Fatalf("error of another class: %v", err)
			}
			return
		}
		if !namePattern.MatchString(name) || filepath.Base(name) != name {
			t.Fatalf("accepted name %q", name)
		}
	})
}
