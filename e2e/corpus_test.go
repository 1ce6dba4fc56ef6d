package e2e

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/host/install"
)

// corpusDir holds public hook configurations: each entry a project tree
// (project/) or a Claude Code plugin (plugin/, installed for the project
// as Claude installs one) copied byte for byte from a public repository at
// a commit its SOURCE names, and cases.json, the payloads its host sends
// ($PROJECT is the project's directory, $TRANSCRIPT a transcript file).
const corpusDir = "testdata/corpus"

type corpusCase struct {
	Name string `json:"name"`
	// Event is the event the hook's configuration names, for a host whose
	// payload does not (Copilot's camelCase events).
	Event   string          `json:"event"`
	Payload json.RawMessage `json:"payload"`
	// Files are written into the project before the case (a hook's own
	// state); Transcript is the transcript's content.
	Files      map[string]string `json:"files"`
	Transcript string            `json:"transcript"`
}

// TestHostCorpus is the differential test of install: every public
// configuration of the corpus installed with `hook-exec install HOST
// --yes`, each case driven through every hook its host would call (its
// event and matcher), and each hook's decision, reason and context
// compared with the same hook run directly on the host, as the host runs
// it (its command line under bash, in the project, the payload on stdin);
// then uninstalled, byte for byte. On both engines.
func TestHostCorpus(t *testing.T) {
	t.Parallel()
	engine(t)
	// The hooks run on the host too: a program missing there would make
	// the host's side a failure, not the answer to compare with.
	for _, p := range []string{"bash", "jq", "python3", "node", "git", "perl"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Fatalf("the corpus's hooks run on the host, which has no %s: run `make testtools` (as root it installs it), or apt-get install it", p)
		}
	}
	all, err := os.ReadDir(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	var entries []fs.DirEntry
	for _, e := range all {
		if e.IsDir() {
			entries = append(entries, e)
		}
	}
	if len(entries) < 20 {
		t.Fatalf("the corpus has %d configurations, want at least 20", len(entries))
	}
	for _, backend := range []string{"docker", "containerd"} {
		for _, ent := range entries {
			name := ent.Name()
			t.Run(backend+"/"+name, func(t *testing.T) {
				t.Parallel()
				runCorpusEntry(t, backend, name)
			})
		}
	}
}

func runCorpusEntry(t *testing.T, backend, name string) {
	hostName, _, _ := strings.Cut(name, "-")
	h := install.Hosts[hostName]
	if h == nil {
		t.Fatalf("%s: no host %q", name, hostName)
	}
	src := filepath.Join(corpusDir, name)
	dir := filepath.Join(hostDir(t), "project")
	exec := executables(t, filepath.Join(src, "SOURCE"))
	if _, err := os.Stat(filepath.Join(src, "project")); err == nil {
		copyTree(t, filepath.Join(src, "project"), dir, exec)
	} else {
		os.MkdirAll(filepath.Join(dir, ".claude"), 0o755)
	}
	if len(h.ProjectCommands) > 0 {
		gitInit(t, dir) // the host finds the project with git (Codex)
	}
	home := hostDir(t) // where the hosts keep transcripts and plugins, and hook-exec takes them from
	// A plugin, installed for the project as Claude Code installs one: a
	// directory of its cache, listed in installed_plugins.json.
	var pluginRoot string
	if _, err := os.Stat(filepath.Join(src, "plugin")); err == nil {
		pluginRoot = filepath.Join(home, ".claude/plugins/cache/corpus", name, "1.0.0")
		copyTree(t, filepath.Join(src, "plugin"), pluginRoot, exec)
		list := fmt.Sprintf(`{"version": 2, "plugins": {%q: [{"scope": "project", "projectPath": %q, "installPath": %q, "version": "1.0.0"}]}}`, name+"@corpus", dir, pluginRoot)
		os.WriteFile(filepath.Join(home, ".claude/plugins/installed_plugins.json"), []byte(list), 0o600)
	}
	var cases []corpusCase
	b, err := os.ReadFile(filepath.Join(src, "cases.json"))
	if err == nil {
		err = json.Unmarshal(b, &cases)
	}
	if err != nil || len(cases) == 0 {
		t.Fatalf("%s/cases.json: %v", src, err)
	}
	transcript := filepath.Join(home, "transcript.jsonl")

	// The hooks as the host reads them, before install.
	plan, err := install.Prepare(h, install.Options{Settings: install.Project, ProjectDir: dir, Home: home,
		StateDir: hostDir(t), Front: "/usr/bin/hook-exec"})
	if err != nil {
		t.Fatal(err)
	}
	plan.Close()
	if err := plan.Err(); err != nil {
		t.Fatalf("a hook of the corpus cannot install: %v", err)
	}
	originals := map[string][]byte{}
	for _, f := range plan.Files {
		originals[f.Path] = f.Original
	}
	// A state directory of its own: install pins this backend there.
	env := []string{"HOOKEXEC_BACKEND=" + backend, "HOME=" + home, "HOOKEXEC_STATE_DIR=" + hostDir(t)}
	for _, v := range h.ProjectVars {
		env = append(env, v+"="+dir)
	}
	r := hookExec(t, nil, env, "install", h.Name, "--project", dir, "--yes")
	r.wantCode(t, 0)

	ran := 0
	for _, c := range cases {
		payload := bytes.ReplaceAll(bytes.ReplaceAll(c.Payload, []byte("$PROJECT"), []byte(dir)), []byte("$TRANSCRIPT"), []byte(transcript))
		e, err := hook.ParseAt(h.Dialect, c.Event, payload)
		if err != nil {
			t.Fatalf("case %q: the payload does not read: %v", c.Name, err)
		}
		content := cmp.Or(c.Transcript, `{"type":"user","message":{"role":"user","content":"hello"}}`+"\n")
		os.WriteFile(transcript, []byte(content), 0o600)
		for _, f := range plan.Files {
			var installed any
			if len(h.HookFiles) == 0 {
				installed = readConfig(t, h, f.Path)
			}
			hostEnv := env
			if f.Plugin != nil {
				hostEnv = append(slices.Clone(env), "CLAUDE_PLUGIN_ROOT="+pluginRoot)
			}
			for _, hk := range f.Hooks {
				if hk.Event != e.Point || !h.Dialect.Host().Matches(hk.Matcher, e) {
					continue
				}
				ran++
				// The host sets the hook's own env (Copilot's, Gemini
				// CLI's) for its command, installed or not.
				hostEnv := append(slices.Clone(hostEnv), hk.Env...)
				// Each side starts from the case's files (a hook's own state),
				// and must leave them as the other did.
				setFiles(t, dir, c.Files)
				var wrapper []byte
				if installed == nil {
					// A hook file (Cline's): the host runs the original in
					// its place, the wrapper there now.
					wrapper, _ = os.ReadFile(f.Path)
					os.WriteFile(f.Path, f.Original, 0)
				}
				host := hostRun(t, dir, hostEnv, hk.Command, payload)
				if wrapper != nil {
					os.WriteFile(f.Path, wrapper, 0)
				}
				hostAfter := stateOf(dir, c.Files)
				setFiles(t, dir, c.Files)
				want, werr := hook.Interpret(e, host.code, []byte(host.stdout), []byte(host.stderr))
				// A hook file (Cline's) is run by its path, the wrapper now.
				command := hk.Command
				if installed != nil {
					command = stringAt(t, installed, hk.Pointer)
				}
				sandboxed := hostRun(t, dir, append(slices.Clone(env), hk.Env...), command, payload)
				if after := stateOf(dir, c.Files); !maps.Equal(after, hostAfter) {
					t.Errorf("case %q, %s: the hook's files after the sandboxed run %q, after the host's %q", c.Name, hk.Pointer, after, hostAfter)
				}
				got, gerr := hook.Interpret(e, sandboxed.code, []byte(sandboxed.stdout), []byte(sandboxed.stderr))
				if werr != nil {
					// The host's own reading would be a failure (an answer it
					// cannot read): the sandboxed run must refuse, never allow.
					if gerr != nil || (got.Action != hook.Deny && e.CanBlock) {
						t.Errorf("case %q, %s: on the host a failure (%v); sandboxed %+v %v", c.Name, hk.Pointer, werr, got, gerr)
					}
					continue
				}
				if gerr != nil {
					t.Fatalf("case %q, %s: the sandboxed answer %q does not read: %v", c.Name, hk.Pointer, sandboxed.stdout, gerr)
				}
				if got.Action != want.Action || got.Reason != want.Reason || contextOf(*got) != contextOf(*want) {
					t.Errorf("case %q, %s (%s):\n sandboxed %s %q context %q (stdout %q stderr %q)\n host      %s %q context %q (exit %d, stdout %q, stderr %q)",
						c.Name, hk.Pointer, hk.Command, got.Action, got.Reason, contextOf(*got), sandboxed.stdout, sandboxed.stderr,
						want.Action, want.Reason, contextOf(*want), host.code, host.stdout, host.stderr)
				}
			}
		}
		for rel := range c.Files {
			os.Remove(filepath.Join(dir, rel)) // the next case starts without them
		}
	}
	if ran == 0 {
		t.Fatalf("no case of %s selects a hook", name)
	}
	r = hookExec(t, nil, env, "uninstall", h.Name, "--project", dir)
	r.wantCode(t, 0)
	for path, want := range originals {
		if got, _ := os.ReadFile(path); !bytes.Equal(got, want) {
			t.Errorf("uninstall did not restore %s byte for byte", path)
		}
	}
}

// stateOf is what the project holds at each of the case's files ("" and
// absent are told apart by ok).
func stateOf(dir string, files map[string]string) map[string]string {
	out := map[string]string{}
	for rel := range files {
		if b, err := os.ReadFile(filepath.Join(dir, rel)); err == nil {
			out[rel] = string(b)
		}
	}
	return out
}

// setFiles writes the case's files into the project.
func setFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for rel, body := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// contextOf is the context a host's answer gives the model.
func contextOf(d hook.Decision) string {
	return hook.ClaudeOf(d).Context + hook.CursorOf(d).Context + hook.CopilotOf(d).Context
}

// readConfig is a host's file as its host reads it (comments blanked).
func readConfig(t testing.TB, h *install.Target, path string) any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if h.Comments {
		b = stripComments(b)
	}
	var v any
	if err := jsonv2.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

// stripComments drops // and /* */ comments outside strings.
func stripComments(b []byte) []byte {
	var out []byte
	in := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case in:
			out = append(out, c)
			if c == '\\' && i+1 < len(b) {
				i++
				out = append(out, b[i])
			} else if c == '"' {
				in = false
			}
		case c == '"':
			in = true
			out = append(out, c)
		case c == '/' && i+1 < len(b) && b[i+1] == '/':
			for i < len(b) && b[i] != '\n' {
				i++
			}
			out = append(out, '\n')
		case c == '/' && i+1 < len(b) && b[i+1] == '*':
			end := bytes.Index(b[i+2:], []byte("*/"))
			if end < 0 {
				return out
			}
			i += end + 3
		default:
			out = append(out, c)
		}
	}
	return out
}

// stringAt is the string at a JSON pointer of v.
func stringAt(t testing.TB, v any, pointer string) string {
	t.Helper()
	for _, tok := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i := 0
			for _, d := range tok {
				i = i*10 + int(d-'0')
			}
			if i >= len(x) {
				t.Fatalf("%s: no element %s", pointer, tok)
			}
			v = x[i]
		}
	}
	s, ok := v.(string)
	if !ok {
		t.Fatalf("%s is not a string: %v", pointer, v)
	}
	return s
}

// executables are the paths SOURCE marks executable.
func executables(t testing.TB, source string) map[string]bool {
	b, err := os.ReadFile(source)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "executable:"); ok {
			for _, p := range strings.FieldsFunc(rest, func(r rune) bool { return r == ',' || r == ' ' }) {
				out[p] = true
			}
		}
	}
	return out
}

// copyTree copies src to dst, the files marked executable 0755.
func copyTree(t testing.TB, src, dst string, exec map[string]bool) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if exec[rel] || exec[filepath.ToSlash(rel)] {
			mode = 0o755
		}
		return os.WriteFile(target, b, mode)
	})
	if err != nil {
		t.Fatal(err)
	}
}
