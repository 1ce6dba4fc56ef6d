package registry

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func def(id, scope string, order int, extra string) string {
	key := "null"
	if scope == "profile" {
		key = `"p1"`
	}
	return fmt.Sprintf(`{"schema_version":1,"id":%q,"point":"tool.before","scope":%q,"scope_key":%s,"order":%d,"handler":{"kind":"script","script":"%s.sh"}%s}`, id, scope, key, order, id, extra)
}

func mustParse(t *testing.T, doc string) []*Definition {
	t.Helper()
	defs, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return defs
}

func ids(entries []*Entry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.ID)
	}
	return out
}

func writeProject(t *testing.T, ws, doc string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(ws, ".holaryn"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ProjectFile), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	// Every script the document names, unless it is there already.
	for _, m := range regexp.MustCompile(`"script":"([^"]+)"`).FindAllStringSubmatch(doc, -1) {
		f, err := os.OpenFile(filepath.Join(ws, m[1]), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err == nil {
			_, err = f.WriteString("cat >/dev/null\n")
			f.Close()
		}
		if err != nil && !errors.Is(err, os.ErrExist) {
			t.Fatal(err)
		}
	}
}

func TestOverrideAcrossOwnerScopes(t *testing.T) {
	state, ws := t.TempDir(), t.TempDir()
	if _, err := Add(state, mustParse(t, def("same", "global", 0, "")), "/g"); err != nil {
		t.Fatal(err)
	}
	src := Sources{StateDir: state}
	snap, err := Take(src)
	if err != nil {
		t.Fatal(err)
	}
	if got := snap.Lookup("same").Origin; got != Global {
		t.Errorf("global only: scope %s", got)
	}
	if _, err := Add(state, mustParse(t, def("same", "profile", 0, "")), "/p"); err != nil {
		t.Fatal(err)
	}
	src.Profile = "p1"
	snap, _ = Take(src)
	if got := snap.Lookup("same").Origin; got != Profile {
		t.Errorf("with the profile: scope %s, want profile", got)
	}
	writeProject(t, ws, `[`+def("same", "project", 0, "")+`]`)
	src.Workspace, src.Trusted = ws, TrustedBy(state)
	snap, _ = Take(src)
	if got := snap.Lookup("same").Origin; got != Profile {
		t.Errorf("untrusted project: scope %s, want profile still", got)
	}
	if _, err := Trust(state, ws); err != nil {
		t.Fatal(err)
	}
	snap, _ = Take(src)
	if got := snap.Lookup("same").Origin; got != Project {
		t.Errorf("trusted project: scope %s, want project", got)
	}
	src.Session = []byte(def("same", "session", 0, ""))
	snap, _ = Take(src)
	if got := snap.Lookup("same").Origin; got != Session {
		t.Errorf("session: scope %s, want session", got)
	}
	if n := len(snap.At("tool.before")); n != 1 {
		t.Errorf("%d hooks with id same at the point, want 1", n)
	}
}

func TestProjectTrustBindsDigest(t *testing.T) {
	state, ws := t.TempDir(), t.TempDir()
	writeProject(t, ws, def("p", "project", 0, ""))
	if st, _, _, err := TrustStatus(state, ws); err != nil || st != Untrusted {
		t.Fatalf("status = %s %v, want untrusted", st, err)
	}
	if _, err := Trust(state, ws); err != nil {
		t.Fatal(err)
	}
	if st, _, _, _ := TrustStatus(state, ws); st != Trusted {
		t.Errorf("status after trust = %s", st)
	}
	writeProject(t, ws, def("p", "project", 1, ""))
	st, now, trusted, _ := TrustStatus(state, ws)
	if st != Changed {
		t.Errorf("status after an edit = %s, want changed", st)
	}
	if now == trusted || trusted == "" {
		t.Errorf("after an edit: digest now %q, trusted %q, want both, different", now, trusted)
	}
	snap, err := Take(Sources{Workspace: ws, Trusted: TrustedBy(state)})
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.At("tool.before")) != 0 {
		t.Errorf("an edited project file still runs: %v", ids(snap.At("tool.before")))
	}
	// Paused, not gone: listed and traced at the boundary, saying why.
	if p := snap.PausedAt("tool.before"); len(p) != 1 || p[0].ID != "p" || !strings.Contains(p[0].Disabled, "changed since they were trusted") {
		t.Errorf("paused %v, want p, saying the project changed", ids(p))
	}
	// A script is part of what was trusted: editing it ends the trust.
	if _, err := Trust(state, ws); err != nil {
		t.Fatal(err)
	}
	snap, _ = Take(Sources{Workspace: ws, Trusted: TrustedBy(state)})
	want := snap.Lookup("p").Def.Handler.SHA256
	if len(want) != 64 {
		t.Fatalf("a trusted project hook is pinned to %q, want its script's SHA-256", want)
	}
	if err := os.WriteFile(filepath.Join(ws, "p.sh"), []byte("echo changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if st, _, _, _ := TrustStatus(state, ws); st != Changed {
		t.Errorf("status after a script edit = %s, want changed", st)
	}
	snap, _ = Take(Sources{Workspace: ws, Trusted: TrustedBy(state)})
	if len(snap.At("tool.before")) != 0 || len(snap.PausedAt("tool.before")) != 1 {
		t.Errorf("after a script edit: running %v, paused %v; want none running, p paused", ids(snap.At("tool.before")), ids(snap.PausedAt("tool.before")))
	}
	// A changed document that no longer validates: said, none of it runs.
	writeProject(t, ws, `[{"schema_version":1,"id":"p"`)
	snap, err = Take(Sources{Workspace: ws, Trusted: TrustedBy(state)})
	if err != nil || len(snap.All()) != 0 || !slices.ContainsFunc(snap.Warnings, func(w string) bool { return strings.Contains(w, "does not validate") }) {
		t.Errorf("a changed invalid document: %v, entries %v, warnings %q", err, ids(snap.All()), snap.Warnings)
	}
	writeProject(t, ws, def("p", "project", 1, ""))
	if _, err := Trust(state, ws); err != nil {
		t.Fatal(err)
	}
	if err := RevokeTrust(state, ws); err != nil {
		t.Fatal(err)
	}
	if st, _, _, _ := TrustStatus(state, ws); st != Untrusted {
		t.Errorf("status after revoke = %s", st)
	}
	writeProject(t, ws, def("g", "global", 0, ""))
	if _, err := Trust(state, ws); !errors.Is(err, ErrDocument) {
		t.Errorf("trusting a project file with a global hook: %v", err)
	}
}

func TestRunOrder(t *testing.T) {
	state := t.TempDir()
	if _, err := Add(state, mustParse(t, "["+def("b", "global", 5, "")+","+def("a", "global", 5, "")+","+def("z", "global", 1, "")+"]"), "/"); err != nil {
		t.Fatal(err)
	}
	snap, err := Take(Sources{
		StateDir: state,
		Session:  []byte("[" + def("a0", "session", 5, "") + "]"),
		Plugins: []PluginDocument{
			{Name: "zz", Dir: "/pz", Doc: []byte(`{"schema_version":1,"id":"late","point":"tool.before","order":100,"handler":{"kind":"script","script":"l.sh"}}`)},
			{Name: "aa", Dir: "/pa", Doc: []byte(`{"schema_version":1,"id":"early","point":"tool.before","order":100,"handler":{"kind":"script","script":"e.sh"}}`)},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"plugin:aa/early", "plugin:zz/late", "z", "a", "b", "a0"}
	if diff := cmp.Diff(want, ids(snap.At("tool.before"))); diff != "" {
		t.Errorf("run order (-want +got):\n%s", diff)
	}
}

func TestPluginNamespace(t *testing.T) {
	snap, err := Take(Sources{
		Session: []byte(def("guard", "session", 0, "")),
		Plugins: []PluginDocument{{Name: "acme", Dir: "/p", Doc: []byte(`{"schema_version":1,"id":"guard","point":"tool.before","handler":{"kind":"script","script":"g.sh"}}`)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"plugin:acme/guard", "guard"}, ids(snap.At("tool.before"))); diff != "" {
		t.Errorf("a plugin hook and an owner hook of one bare id (-want +got):\n%s", diff)
	}
	if e := snap.Lookup("plugin:acme/guard"); e.BaseDir != "/p" {
		t.Errorf("plugin base dir = %q, want its installed dir", e.BaseDir)
	}
	_, err = Take(Sources{Session: []byte(`{"schema_version":1,"id":"plugin:acme/guard","point":"tool.before","scope":"session","handler":{"kind":"script","script":"g.sh"}}`)})
	if !errors.Is(err, ErrDocument) {
		t.Errorf("an owner document with a plugin id: err = %v, want ErrDocument", err)
	}
}

func TestScopeMustMatchSource(t *testing.T) {
	_, err := Take(Sources{Session: []byte(def("g", "global", 0, ""))})
	if !errors.Is(err, ErrDocument) {
		t.Errorf("a global hook in a session document: err = %v, want ErrDocument", err)
	}
	if _, err := Add(t.TempDir(), mustParse(t, def("s", "session", 0, "")), "/"); !errors.Is(err, ErrDocument) {
		t.Errorf("storing a session hook: err = %v, want ErrDocument", err)
	}
}

func TestProfileIDsNameNoPath(t *testing.T) {
	state := t.TempDir()
	defs := mustParse(t, def("x", "profile", 0, ""))
	bad := "../../escaped"
	defs[0].ScopeKey = &bad
	if _, err := Add(state, defs, "/"); !errors.Is(err, ErrDocument) {
		t.Errorf("Add with profile %q: err = %v, want ErrDocument", bad, err)
	}
	if _, err := Take(Sources{StateDir: state, Profile: bad}); !errors.Is(err, ErrDocument) {
		t.Errorf("Take with profile %q: err = %v, want ErrDocument", bad, err)
	}
	if _, err := os.Stat(filepath.Join(state, "..", "escaped.json")); err == nil {
		t.Error("a file was written outside the state directory")
	}
}

func TestDisableAndRemove(t *testing.T) {
	state := t.TempDir()
	changes, err := Add(state, mustParse(t, def("x", "global", 0, "")), "/")
	if err != nil {
		t.Fatal(err)
	}
	if changes[0].Previous != "" || changes[0].Current == "" {
		t.Errorf("first add: change %+v, want no previous and a current version", changes[0])
	}
	again, err := Add(state, mustParse(t, def("x", "global", 1, "")), "/")
	if err != nil {
		t.Fatal(err)
	}
	if again[0].Previous != changes[0].Current {
		t.Errorf("replace: previous %s, want %s", again[0].Previous, changes[0].Current)
	}
	if err := SetDisabled(state, "x", "off"); err != nil {
		t.Fatal(err)
	}
	snap, _ := Take(Sources{StateDir: state})
	if got := snap.At("tool.before"); len(got) != 0 {
		t.Errorf("disabled hook still runs: %v", ids(got))
	}
	if e := snap.Lookup("x"); e == nil || e.Disabled != "off" {
		t.Errorf("disabled hook listed as %+v", e)
	}
	if err := SetDisabled(state, "x", ""); err != nil {
		t.Fatal(err)
	}
	snap, _ = Take(Sources{StateDir: state})
	if got := ids(snap.At("tool.before")); len(got) != 1 {
		t.Errorf("enabled again: %v", got)
	}
	if _, err := Remove(state, "", "x"); err != nil {
		t.Fatal(err)
	}
	if _, err := Remove(state, "", "x"); !errors.Is(err, ErrNoHook) {
		t.Errorf("removing twice: %v, want ErrNoHook", err)
	}
	snap, _ = Take(Sources{StateDir: state})
	if len(snap.All()) != 0 {
		t.Errorf("removed hook still listed: %v", ids(snap.All()))
	}
}

// Attack round 2: a trusted project took over an owner's global guard by
// reusing its id (at another point, disabled). A project hook replaces an
// owner's only where it did when the owner trusted it; trust names it.
func TestProjectReplacesOnlyWhatTrustSaw(t *testing.T) {
	state, ws := t.TempDir(), t.TempDir()
	writeProject(t, ws, `[`+def("guard", "project", 0, `,"enabled":false`)+`]`)
	if _, err := Trust(state, ws); err != nil {
		t.Fatal(err)
	}
	// The owner adds a guard with that id after trusting the project.
	if _, err := Add(state, mustParse(t, def("guard", "global", 0, "")), "/g"); err != nil {
		t.Fatal(err)
	}
	snap, err := Take(Sources{StateDir: state, Workspace: ws, Trusted: TrustedBy(state)})
	if err != nil {
		t.Fatal(err)
	}
	if e := snap.Lookup("guard"); e == nil || e.Origin != Global || e.Disabled != "" {
		t.Fatalf("guard: %+v, want the owner's global guard, enabled", e)
	}
	if len(snap.Warnings) != 1 || !strings.Contains(snap.Warnings[0], "would replace your global hook guard") {
		t.Errorf("warnings %q, want one naming the replacement refused", snap.Warnings)
	}
	// Trusted again, with the owner told: it replaces it.
	_, _, replaced, err := TrustHooks(state, ws)
	if err != nil || replaced["guard"] != Global {
		t.Fatalf("TrustHooks: replaced %v, %v; want guard (global)", replaced, err)
	}
	snap, _ = Take(Sources{StateDir: state, Workspace: ws, Trusted: TrustedBy(state)})
	if e := snap.Lookup("guard"); e == nil || e.Origin != Project || len(snap.Warnings) != 0 {
		t.Errorf("after trust: %+v, warnings %q; want the project's", e, snap.Warnings)
	}
}

// Attack round 2: a trusted project's command ran tools/lint.sh from the
// workspace, and an edit of it kept the trust. Trust binds the files a
// command names, as it binds scripts.
func TestProjectTrustBindsCommandFiles(t *testing.T) {
	state, ws := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "tools"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "tools", "lint.sh"), []byte("echo ok\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeProject(t, ws, `{"schema_version":1,"id":"lint","point":"tool.before","scope":"project","handler":{"kind":"command","command":["sh","tools/lint.sh","-q"]}}`)
	if _, err := Trust(state, ws); err != nil {
		t.Fatal(err)
	}
	if st, _, _, _ := TrustStatus(state, ws); st != Trusted {
		t.Fatalf("status %s, want trusted", st)
	}
	if err := os.WriteFile(filepath.Join(ws, "tools", "lint.sh"), []byte("touch PWNED\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if st, _, _, _ := TrustStatus(state, ws); st != Changed {
		t.Errorf("status after an edit of the file the command runs = %s, want changed", st)
	}
}
