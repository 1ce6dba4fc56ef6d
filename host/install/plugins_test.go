package install

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hookexec/hook-exec/scriptpin"
)

const ralphHooks = `{
  "description": "Ralph Wiggum plugin stop hook for self-referential loops",
  "hooks": {
    "Stop": [ { "hooks": [ { "type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/stop-hook.sh", "timeout": 10 } ] } ]
  }
}
`

const ralphScript = "#!/bin/bash\nRALPH_STATE_FILE=\".claude/ralph-loop.local.md\"\nTRANSCRIPT_PATH=$(jq -r .transcript_path)\n"

// writeTree writes files (relative path -> content) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
}

// claudeHome installs plugins as Claude Code does: a tree per version in
// its cache, listed in installed_plugins.json.
func claudeHome(t *testing.T, o Options, list string, trees map[string]map[string]string) {
	t.Helper()
	for root, files := range trees {
		writeTree(t, root, files)
	}
	writeTree(t, o.Home, map[string]string{pluginsFile: list})
}

// ralphFor lists one version of a plugin in Claude's cache as installed
// for n projects side by side (and for the user, when user): their
// options, the user's last.
func ralphFor(t *testing.T, n int, user bool) []Options {
	t.Helper()
	base, dir0 := project(t, nil)
	root := filepath.Join(base.Home, ".claude/plugins/cache/m/ralph/1.0.0")
	var opts []Options
	var entries []string
	for i := range n {
		o := base
		if i > 0 {
			o.ProjectDir = filepath.Join(filepath.Dir(dir0), fmt.Sprintf("p%d", i))
			os.MkdirAll(o.ProjectDir, 0o755)
		}
		opts = append(opts, o)
		entries = append(entries, `{"scope": "project", "projectPath": "`+o.ProjectDir+`", "installPath": "`+root+`"}`)
	}
	if user {
		u := base
		u.Settings = User
		opts = append(opts, u)
		entries = append(entries, `{"scope": "user", "installPath": "`+root+`"}`)
	}
	claudeHome(t, base, `{"version": 2, "plugins": {"ralph@m": [`+strings.Join(entries, ",")+`]}}`,
		map[string]map[string]string{root: {"hooks/hooks.json": ralphHooks, "hooks/stop-hook.sh": ralphScript}})
	return opts
}

func TestInstallPlugins(t *testing.T) {
	o, dir := project(t, map[string]string{".claude/settings.json": `{"enabledPlugins": {"ralph-wiggum@claude-plugins-official": true}}`})
	cache := filepath.Join(o.Home, ".claude/plugins/cache")
	ralph := filepath.Join(cache, "claude-plugins-official/ralph-wiggum/1.0.0")
	fmtp := filepath.Join(cache, "tools/fmt/2.1.0")
	other := filepath.Join(cache, "tools/elsewhere/1.0.0")
	list := `{"version": 2, "plugins": {
  "ralph-wiggum@claude-plugins-official": [{"scope": "user", "installPath": "` + ralph + `", "version": "1.0.0"}],
  "fmt@tools": [{"scope": "project", "projectPath": "` + dir + `", "installPath": "` + fmtp + `", "version": "2.1.0"}],
  "elsewhere@tools": [{"scope": "project", "projectPath": "/somewhere/else", "installPath": "` + other + `", "version": "1.0.0"}]
}}`
	claudeHome(t, o, list, map[string]map[string]string{
		ralph: {
			".claude-plugin/plugin.json": `{"name": "ralph-wiggum"}`,
			"hooks/hooks.json":           ralphHooks,
			"hooks/stop-hook.sh":         ralphScript,
			"README.md":                  "ralph\n",
		},
		fmtp: {
			// Its hooks are in its manifest, with a sibling module.
			".claude-plugin/plugin.json": `{"name": "fmt", "hooks": {"PostToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "python3 \"${CLAUDE_PLUGIN_ROOT}\"/fmt.py"}]}]}}`,
			"fmt.py":                     "import lib, os\ncache = os.environ['CLAUDE_PLUGIN_DATA']\n",
			"lib.py":                     "x = 1\n",
		},
		other: {"hooks/hooks.json": ralphHooks, "hooks/stop-hook.sh": ralphScript},
	})
	h := Hosts["claude"]
	stages := func() []string {
		m, _ := filepath.Glob(filepath.Join(pluginsDir(o.StateDir, h), ".stage-*"))
		return m
	}

	// The user's scope: ralph-wiggum, the user's plugin.
	u := o
	u.Settings = User
	p, err := Prepare(h, u)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Files) != 1 || p.Files[0].Plugin == nil || p.Files[0].Path != filepath.Join(ralph, "hooks/hooks.json") {
		t.Fatalf("files %+v", p.Files)
	}
	pl := p.Files[0].Plugin
	hk := p.Files[0].Hooks[0]
	for _, want := range []string{
		"--scope plugin", "--hook-id claude:ralph-wiggum@claude-plugins-official:Stop:0.0",
		"--script " + pl.Copy + "/hooks/stop-hook.sh", "--plugin-root " + pl.Copy, "--plugin-root-sha256 " + pl.TreeSHA256,
		"--transcript", "--writable .claude/ralph-loop.local.md", "--timeout 8s",
	} {
		if !strings.Contains(hk.Installed, want) {
			t.Errorf("installed command lacks %q:\n%s", want, hk.Installed)
		}
	}
	if strings.Contains(hk.Installed, "--plugin-data") {
		t.Errorf("ralph does not name its data directory: %s", hk.Installed)
	}
	if !strings.HasPrefix(pl.Copy, pluginsDir(o.StateDir, h)) || !strings.Contains(hk.Note, ".claude/ralph-loop.local.md") {
		t.Errorf("copy %s, note %q", pl.Copy, hk.Note)
	}
	// A dry run leaves nothing.
	p.Close()
	if s := stages(); len(s) > 0 {
		t.Fatalf("staged copies left: %v", s)
	}

	p, err = Prepare(h, u)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := approved(p).Apply(); err != nil {
		t.Fatal(err)
	}
	pl = p.Files[0].Plugin
	if d, err := scriptpin.TreeDigest(pl.Copy); err != nil || d.String() != pl.TreeSHA256 {
		t.Fatalf("the copy's digest %v %v, pinned %s", d, err, pl.TreeSHA256)
	}
	if b, _ := os.ReadFile(filepath.Join(pl.Copy, "hooks/hooks.json")); string(b) != ralphHooks {
		t.Fatalf("the copy's hooks file is not the original: %s", b)
	}
	rewritten, _ := os.ReadFile(filepath.Join(ralph, "hooks/hooks.json"))
	if !strings.Contains(string(rewritten), pl.TreeSHA256) || !strings.Contains(string(rewritten), `"description": "Ralph Wiggum`) {
		t.Fatalf("Claude's hooks file: %s", rewritten)
	}
	if n, drifts, err := Check(h, u); err != nil || n != 1 || len(drifts) != 0 {
		t.Fatalf("check: %d %v %v", n, drifts, err)
	}

	// Installing again plans from the original: the same copy, the same
	// digest.
	again, err := Prepare(h, u)
	if err != nil {
		t.Fatal(err)
	}
	// (Before it, the user's settings, which install made for its own hook.)
	af := again.Files[len(again.Files)-1]
	if !af.Reinstall || again.Digest != p.Digest || af.Plugin.Copy != pl.Copy {
		t.Fatalf("reinstall: %v %s %s", af.Reinstall, again.Digest, p.Digest)
	}
	again.Close()

	// Claude's script changes: the hooks still run the approved copy.
	os.WriteFile(filepath.Join(ralph, "hooks/stop-hook.sh"), []byte("#!/bin/bash\ncurl evil\n"), 0o755)
	if _, drifts, _ := Check(h, u); len(drifts) != 0 {
		t.Fatalf("a change in Claude's cache is no drift of the copy: %v", drifts)
	}
	// The copy changes: drift, and the run refuses it (tree digest).
	os.WriteFile(filepath.Join(pl.Copy, "README.md"), []byte("changed\n"), 0o644)
	if _, drifts, _ := Check(h, u); len(drifts) != 1 || !strings.Contains(drifts[0].What, "approved copy") {
		t.Fatalf("copy changed: %v", drifts)
	}
	os.WriteFile(filepath.Join(pl.Copy, "README.md"), []byte("ralph\n"), 0o644)
	// Claude updates the plugin: a new version's directory, not installed.
	ralph2 := filepath.Join(cache, "claude-plugins-official/ralph-wiggum/1.1.0")
	writeTree(t, ralph2, map[string]string{"hooks/hooks.json": ralphHooks, "hooks/stop-hook.sh": ralphScript})
	writeTree(t, o.Home, map[string]string{pluginsFile: strings.Replace(list, ralph+`", "version": "1.0.0"`, ralph2+`", "version": "1.1.0"`, 1)})
	if _, drifts, _ := Check(h, u); len(drifts) != 1 || !strings.Contains(drifts[0].What, "ralph-wiggum@claude-plugins-official (version 1.1.0) is not installed through hook-exec") {
		t.Fatalf("update: %v", drifts)
	}
	// Claude removes the old version: uninstall forgets it.
	os.RemoveAll(ralph)
	done, err := Uninstall(h, u, false)
	if err != nil || len(done) != 1 || !done[0].Gone {
		t.Fatalf("uninstall of a removed version: %+v %v", done, err)
	}
	if m, _ := filepath.Glob(filepath.Join(pluginsDir(o.StateDir, h), "*", "*")); len(m) != 0 {
		t.Fatalf("copies left: %v", m)
	}

	// The project's scope: fmt, whose hooks are in its manifest; the
	// plugin of another project is not this one's; the user's plugins,
	// whose install was undone, are named.
	p, err = Prepare(h, o)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if strings.Join(p.UserPlugins, " ") != "ralph-wiggum@claude-plugins-official" {
		t.Errorf("the user's plugins not covered: %v", p.UserPlugins)
	}
	var plugins []string
	for _, f := range p.Files {
		if f.Plugin != nil {
			plugins = append(plugins, f.Plugin.Key+" "+f.Path)
		}
	}
	if len(plugins) != 1 || plugins[0] != "fmt@tools "+filepath.Join(fmtp, ".claude-plugin/plugin.json") {
		t.Fatalf("project plugins %v", plugins)
	}
	manifest := filepath.Join(fmtp, ".claude-plugin/plugin.json")
	orig, _ := os.ReadFile(manifest)
	if err := approved(p).Apply(); err != nil {
		t.Fatal(err)
	}
	f := p.Files[len(p.Files)-1]
	if !strings.Contains(f.Hooks[0].Installed, "--script "+f.Plugin.Copy+"/fmt.py") || !strings.Contains(f.Hooks[0].Installed, ` --plugin-data "$CLAUDE_PLUGIN_DATA" `) {
		t.Fatalf("fmt: %s", f.Hooks[0].Installed)
	}
	// The user's settings hold install's own hook, not the project's.
	settings := p.Files[0]
	if settings.Plugin != nil || settings.Check != "" || p.UserCheck == nil || !strings.Contains(string(must(os.ReadFile(p.UserCheck.Path))), "install claude --sealed --session-start") {
		t.Fatalf("no check in %v", p.UserCheck)
	}
	done, err = Uninstall(h, o, false)
	if err != nil || len(done) != 1 {
		t.Fatalf("uninstall: %+v %v", done, err)
	}
	if b, _ := os.ReadFile(settings.Path); string(b) != string(settings.Original) {
		t.Fatalf("settings not kept byte for byte:\n%s", b)
	}
	if _, err := os.Lstat(p.UserCheck.Path); !os.IsNotExist(err) {
		t.Fatalf("the user's settings install made for its hook are left: %v", err)
	}
	if b, _ := os.ReadFile(manifest); string(b) != string(orig) {
		t.Fatalf("manifest not restored byte for byte:\n%s", b)
	}
	if m, _ := filepath.Glob(filepath.Join(o.StateDir, "installed", "claude", "*", "*")); len(m) != 0 {
		t.Fatalf("left in the state directory: %v", m)
	}
	if s := stages(); len(s) > 0 {
		t.Fatalf("staged copies left: %v", s)
	}
}

// One version of a plugin in Claude's cache serves every project that
// installed it: uninstalling in one keeps it installed for the others.
func TestPluginSharedByProjects(t *testing.T) {
	opts := ralphFor(t, 2, true)
	a, b, u := opts[0], opts[1], opts[2]
	root := filepath.Join(a.Home, ".claude/plugins/cache/m/ralph/1.0.0")
	h := Hosts["claude"]
	// Two installs of the same tree at once: each stages a copy, the
	// second to commit finds the first's in place.
	var plans []*Plan
	for _, o := range []Options{a, b, u} {
		p, err := Prepare(h, o)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		plans = append(plans, p)
	}
	if plans[0].Plugins[0].staged == "" || plans[1].Plugins[0].staged == "" {
		t.Fatal("not staged twice")
	}
	for _, p := range plans {
		if err := approved(p).Apply(); err != nil {
			t.Fatal(err)
		}
	}
	hooksFile := filepath.Join(root, "hooks/hooks.json")
	for i, o := range []Options{a, u} {
		done, err := Uninstall(h, o, false)
		if err != nil || len(done) != 1 || len(done[0].KeptFor) != 2-i {
			t.Fatalf("uninstall %d: %+v %v", i, done, err)
		}
		if got, _ := os.ReadFile(hooksFile); string(got) == ralphHooks {
			t.Fatalf("uninstall %d restored the file another install holds", i)
		}
		if _, drifts, _ := Check(h, b); len(drifts) != 0 {
			t.Fatalf("the other install drifted: %v", drifts)
		}
	}
	if done, err := Uninstall(h, b, false); err != nil || len(done) != 1 || done[0].KeptFor != nil {
		t.Fatalf("the last uninstall: %+v %v", done, err)
	}
	if got, _ := os.ReadFile(hooksFile); string(got) != ralphHooks {
		t.Fatalf("the last uninstall did not restore the file: %s", got)
	}
	if m, _ := filepath.Glob(filepath.Join(a.StateDir, "installed", "claude", "*", "*")); len(m) != 0 {
		t.Fatalf("left in the state directory: %v", m)
	}
}

// An uninstall between another project's Prepare and Apply deletes the
// copy it found in place (no record names it yet); the Apply puts its own.
func TestPluginCopyOutlivesUninstall(t *testing.T) {
	opts := ralphFor(t, 2, false)
	a, b := opts[0], opts[1]
	h := Hosts["claude"]
	pa, err := Prepare(h, a)
	if err != nil {
		t.Fatal(err)
	}
	defer pa.Close()
	if err := approved(pa).Apply(); err != nil {
		t.Fatal(err)
	}
	pb, err := Prepare(h, b)
	if err != nil {
		t.Fatal(err)
	}
	defer pb.Close()
	copyDir := pb.Plugins[0].Copy
	if copyDir != pa.Plugins[0].Copy {
		t.Fatalf("copies %s and %s of the same tree", copyDir, pa.Plugins[0].Copy)
	}
	// a's file is restored only when b holds it too (Apply): the copy
	// is a's alone here.
	if _, err := Uninstall(h, a, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(copyDir); !os.IsNotExist(err) {
		t.Fatalf("the copy no record names was kept: %v", err)
	}
	if err := approved(pb).Apply(); err != nil {
		t.Fatal(err)
	}
	if d, err := scriptpin.TreeDigest(copyDir); err != nil || d.String() != pb.Plugins[0].TreeSHA256 {
		t.Fatalf("after b's install its copy: %v %v", d, err)
	}
	if _, drifts, err := Check(h, b); err != nil || len(drifts) != 0 {
		t.Fatalf("b's install: %v %v", drifts, err)
	}
}

// One state directory, two homes with the same plugin (one copy serves
// both): the user's uninstall from one home leaves the other's install
// as it is.
func TestPluginUserInstallsOfTwoHomes(t *testing.T) {
	a, _ := project(t, nil)
	a.Settings = User
	b := a
	b.Home = filepath.Join(filepath.Dir(a.Home), "home2")
	var hooksFiles []string
	for _, o := range []Options{a, b} {
		root := filepath.Join(o.Home, ".claude/plugins/cache/m/ralph/1.0.0")
		claudeHome(t, o, `{"version": 2, "plugins": {"ralph@m": [{"scope": "user", "installPath": "`+root+`"}]}}`,
			map[string]map[string]string{root: {"hooks/hooks.json": ralphHooks, "hooks/stop-hook.sh": ralphScript}})
		hooksFiles = append(hooksFiles, filepath.Join(root, "hooks/hooks.json"))
		p, err := Prepare(Hosts["claude"], o)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		if err := approved(p).Apply(); err != nil {
			t.Fatal(err)
		}
	}
	done, err := Uninstall(Hosts["claude"], a, false)
	if err != nil || len(done) != 1 || done[0].Path != hooksFiles[0] {
		t.Fatalf("uninstall of the first home: %+v %v", done, err)
	}
	if b2, _ := os.ReadFile(hooksFiles[1]); string(b2) == ralphHooks {
		t.Fatal("the other home's hooks file was restored")
	}
	b.Home += "/" // $HOME as a shell may give it
	recs, err := pluginRecords(b.StateDir, Hosts["claude"], b)
	if err != nil || len(recs) != 1 {
		t.Fatalf("the other home's records: %v %v", recs, err)
	}
	if d, err := scriptpin.TreeDigest(recs[0].Copy); err != nil || d.String() != recs[0].TreeSHA256 {
		t.Fatalf("the other home's copy: %v", err)
	}
}

// A copy damaged since its install is replaced by the next install of
// the same tree.
func TestPluginDamagedCopyReplaced(t *testing.T) {
	o := ralphFor(t, 1, false)[0]
	var copyDir string
	for i := range 2 {
		p, err := Prepare(Hosts["claude"], o)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		if err := approved(p).Apply(); err != nil {
			t.Fatalf("install %d: %v", i, err)
		}
		copyDir = p.Plugins[0].Copy
		if i == 0 {
			os.WriteFile(filepath.Join(copyDir, "hooks/stop-hook.sh"), []byte("#!/bin/bash\necho changed\n"), 0o755)
		}
	}
	if _, drifts, err := Check(Hosts["claude"], o); err != nil || len(drifts) != 0 {
		t.Fatalf("after the second install: %v %v", drifts, err)
	}
	if b, _ := os.ReadFile(filepath.Join(copyDir, "hooks/stop-hook.sh")); string(b) != ralphScript {
		t.Fatalf("the copy's script: %q", b)
	}
}

// Installs and uninstalls of the same plugin for many projects at once:
// every install that stays keeps its copy and its file as installed.
func TestPluginInstallsAtOnce(t *testing.T) {
	opts := ralphFor(t, 8, false)
	h := Hosts["claude"]
	for range 5 {
		var wg sync.WaitGroup
		errs := make([]error, len(opts))
		for i, o := range opts {
			wg.Go(func() {
				p, err := Prepare(h, o)
				if err != nil {
					errs[i] = err
					return
				}
				defer p.Close()
				if errs[i] = approved(p).Apply(); errs[i] == nil && i%2 == 0 {
					_, errs[i] = Uninstall(h, o, false)
				}
			})
		}
		wg.Wait()
		for i, o := range opts {
			if errs[i] != nil {
				t.Fatalf("project %d: %v", i, errs[i])
			}
			if i%2 == 0 {
				continue
			}
			recs, err := pluginRecords(o.StateDir, h, o)
			if err != nil || len(recs) != 1 {
				t.Fatalf("project %d: records %v %v", i, recs, err)
			}
			if d, err := scriptpin.TreeDigest(recs[0].Copy); err != nil || d.String() != recs[0].TreeSHA256 {
				t.Fatalf("project %d: its copy %s: %v", i, recs[0].Copy, err)
			}
		}
	}
}

// A plugin's hooks file reached through a link is refused: install would
// rewrite the file the link leads to (the user's own settings).
func TestPluginLinksRefused(t *testing.T) {
	for name, link := range map[string]string{"hooks file": "hooks/hooks.json", "manifest": ".claude-plugin/plugin.json", "directory": "hooks"} {
		t.Run(name, func(t *testing.T) {
			o, _ := project(t, nil)
			o.Settings = User
			settings := filepath.Join(o.Home, ".claude/settings.json")
			writeTree(t, o.Home, map[string]string{".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo hi"}]}]}}`})
			root := filepath.Join(o.Home, ".claude/plugins/cache/m/p/1")
			writeTree(t, root, map[string]string{"README.md": "x"})
			target := settings
			if link == "hooks" {
				target = filepath.Join(o.Home, ".claude")
				os.Rename(settings, filepath.Join(o.Home, ".claude/hooks.json"))
			}
			os.MkdirAll(filepath.Dir(filepath.Join(root, link)), 0o755)
			if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
				t.Fatal(err)
			}
			writeTree(t, o.Home, map[string]string{pluginsFile: `{"plugins": {"p@m": [{"scope": "user", "installPath": "` + root + `"}]}}`})
			_, err := Prepare(Hosts["claude"], o)
			if err == nil || !strings.Contains(err.Error(), "is a link") {
				t.Fatalf("%v, want a link refused", err)
			}
		})
	}
}

func TestPluginsRefused(t *testing.T) {
	o, _ := project(t, nil)
	o.Settings = User
	root := filepath.Join(o.Home, ".claude/plugins/cache/m/p/1")
	for name, tc := range map[string]struct{ list, manifest, want string }{
		"bad json":      {list: `{"plugins": [`, want: "installed_plugins.json"},
		"bad key":       {list: `{"plugins": {"../x@m": [{"scope": "user", "installPath": "` + root + `"}]}}`, want: "not a name@marketplace"},
		"relative root": {list: `{"plugins": {"p@m": [{"scope": "user", "installPath": "cache/p"}]}}`, want: "not absolute"},
		"hooks outside": {list: `{"plugins": {"p@m": [{"scope": "user", "installPath": "` + root + `"}]}}`, manifest: `{"hooks": "../../x.json"}`, want: "outside the plugin"},
		"hooks number":  {list: `{"plugins": {"p@m": [{"scope": "user", "installPath": "` + root + `"}]}}`, manifest: `{"hooks": 3}`, want: "neither a path"},
	} {
		t.Run(name, func(t *testing.T) {
			writeTree(t, o.Home, map[string]string{pluginsFile: tc.list})
			if tc.manifest != "" {
				writeTree(t, root, map[string]string{".claude-plugin/plugin.json": tc.manifest})
			}
			_, err := Prepare(Hosts["claude"], o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%v, want %q", err, tc.want)
			}
		})
	}
}

func TestStateFiles(t *testing.T) {
	for in, want := range map[string]string{
		`RALPH_STATE_FILE=".claude/ralph-loop.local.md"`:                 ".claude/ralph-loop.local.md",
		`cat .cursor/state.local.json; rm .cursor/other.local.json`:      ".cursor/state.local.json .cursor/other.local.json",
		`a .claude/x.local.md; b .claude/x.local.md`:                     ".claude/x.local.md",
		`jq . .claude/settings.local.json`:                               "",
		`cat > "$CLAUDE_PROJECT_DIR"/.claude/Settings.local.json`:        "",
		`~/.claude/x.local.md`:                                           "",
		`"$CLAUDE_PROJECT_DIR"/.claude/x.local.md`:                       ".claude/x.local.md",
		`/tmp/.claude/x.local.md`:                                        "",
		`echo > .gemini/loop.local.md && echo > .claude/count.local.txt`: ".gemini/loop.local.md .claude/count.local.txt",
		`cat .claude/notes.md`:                                           "",
		`f=.claude/hooks/state.local.json`:                               "",
	} {
		if got := strings.Join(stateFiles([]byte(in)), " "); got != want {
			t.Errorf("%s: %q, want %q", in, got, want)
		}
	}
}
