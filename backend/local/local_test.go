package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/backend/backendtest"
	"github.com/hookexec/hook-exec/sandbox"
)

func TestSanitizePATH(t *testing.T) {
	t.Parallel()
	wd := t.TempDir()
	mustMkdir(t, filepath.Join(wd, "bin"))
	link := filepath.Join(t.TempDir(), "alias")
	if err := os.Symlink(wd, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, want string
		removed          []Removal
	}{
		{"clean", "/usr/bin:/bin", "/usr/bin:/bin", nil},
		{"leading empty", ":/usr/bin", "/usr/bin", []Removal{EmptyEntry}},
		{"trailing empty", "/usr/bin:", "/usr/bin", []Removal{EmptyEntry}},
		{"doubled separator", "/usr/bin::/bin", "/usr/bin:/bin", []Removal{EmptyEntry}},
		{"dot", ".:/usr/bin", "/usr/bin", []Removal{DotEntry}},
		{"relative resolving to it", "bin/..:/usr/bin", "/usr/bin", []Removal{RelativeEntry}},
		{"dot slash", "./:/usr/bin", "/usr/bin", []Removal{RelativeEntry}},
		{"full path", wd + ":/usr/bin", "/usr/bin", []Removal{FullPath}},
		{"full path trailing slash", wd + "/:/usr/bin", "/usr/bin", []Removal{FullPath}},
		{"through a symlink", link + ":/usr/bin", "/usr/bin", []Removal{FullPath}},
		{"other relative kept", "node_modules/.bin:bin:/usr/bin", "node_modules/.bin:bin:/usr/bin", nil},
		{"several", ":.:" + wd + ":/bin", "/bin", []Removal{EmptyEntry, DotEntry, FullPath}},
	}
	for _, tc := range tests {
		got, removed := SanitizePATH(tc.path, wd)
		if got != tc.want || fmt.Sprint(removed) != fmt.Sprint(tc.removed) {
			t.Errorf("%s: SanitizePATH(%q) = %q %v, want %q %v", tc.name, tc.path, got, removed, tc.want, tc.removed)
		}
	}
}

// TestPATHRuleSeedCases walks every case of the seed's PATH rule through
// the environment a host-run handler gets, on Linux and on Windows: the
// entries naming the working directory go, by kind; the others stay.
func TestPATHRuleSeedCases(t *testing.T) {
	t.Parallel()
	const wd, profile = `C:\project`, `C:\Users\me`
	posixWD := t.TempDir()
	mustMkdir(t, filepath.Join(posixWD, "bin"))
	alias := filepath.Join(t.TempDir(), "alias") // the working directory under another name
	if err := os.Symlink(posixWD, alias); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, goos, workdir, profile, path, want string
		removed                                  []Removal
	}{
		// Every platform: an empty entry (a leading, trailing or doubled
		// separator), ., a relative entry that resolves to it, its full path.
		{"leading empty", "linux", posixWD, "", ":/usr/bin", "/usr/bin", []Removal{EmptyEntry}},
		{"trailing empty", "linux", posixWD, "", "/usr/bin:", "/usr/bin", []Removal{EmptyEntry}},
		{"doubled separator", "linux", posixWD, "", "/usr/bin::/bin", "/usr/bin:/bin", []Removal{EmptyEntry}},
		{"dot", "linux", posixWD, "", ".:/usr/bin", "/usr/bin", []Removal{DotEntry}},
		{"bin/..", "linux", posixWD, "", "bin/..:/usr/bin", "/usr/bin", []Removal{RelativeEntry}},
		{"full path", "linux", posixWD, "", posixWD + ":/usr/bin", "/usr/bin", []Removal{FullPath}},
		{"full path through a link", "linux", posixWD, "", alias + ":/usr/bin", "/usr/bin", []Removal{FullPath}},
		{"another relative entry stays", "linux", posixWD, "", "node_modules/.bin:/usr/bin", "node_modules/.bin:/usr/bin", nil},
		{"quotes are a name on Linux", "linux", posixWD, "", `".":/usr/bin`, `".":/usr/bin`, nil},
		{"spaces are a name on Linux", "linux", posixWD, "", "   :/usr/bin", "   :/usr/bin", nil},

		{"leading empty", "windows", wd, profile, `;C:\bin`, `C:\bin`, []Removal{EmptyEntry}},
		{"trailing empty", "windows", wd, profile, `C:\bin;`, `C:\bin`, []Removal{EmptyEntry}},
		{"doubled separator", "windows", wd, profile, `C:\bin;;C:\tools`, `C:\bin;C:\tools`, []Removal{EmptyEntry}},
		{"dot", "windows", wd, profile, `.;C:\bin`, `C:\bin`, []Removal{DotEntry}},
		{`dot backslash`, "windows", wd, profile, `.\;C:\bin`, `C:\bin`, []Removal{DotEntry}},
		{`bin\..`, "windows", wd, profile, `bin\..;C:\bin`, `C:\bin`, []Removal{RelativeEntry}},
		{"bin/..", "windows", wd, profile, `bin/..;C:\bin`, `C:\bin`, []Removal{RelativeEntry}},
		{"full path", "windows", wd, profile, `C:\project;C:\bin`, `C:\bin`, []Removal{FullPath}},
		{"full path, other case, trailing separator", "windows", wd, profile, `c:\PROJECT\;C:\bin`, `C:\bin`, []Removal{FullPath}},
		{"full path with slashes", "windows", wd, profile, `C:/project;C:\bin`, `C:\bin`, []Removal{FullPath}},
		{"full path through ..", "windows", wd, profile, `C:\project\bin\..;C:\bin`, `C:\bin`, []Removal{FullPath}},
		{"full path without its drive", "windows", wd, profile, `\project;C:\bin`, `C:\bin`, []Removal{FullPath}},
		// On Windows an entry in double or single quotes counts.
		{`"."`, "windows", wd, profile, `".";C:\bin`, `C:\bin`, []Removal{DotEntry}},
		{`'.'`, "windows", wd, profile, `'.';C:\bin`, `C:\bin`, []Removal{DotEntry}},
		{`C:\"project"`, "windows", wd, profile, `C:\"project";C:\bin`, `C:\bin`, []Removal{FullPath}},
		{`"C:\project"`, "windows", wd, profile, `"C:\project";C:\bin`, `C:\bin`, []Removal{FullPath}},
		{`'C:\project'`, "windows", wd, profile, `'C:\project';C:\bin`, `C:\bin`, []Removal{FullPath}},
		{`""`, "windows", wd, profile, `"";C:\bin`, `C:\bin`, []Removal{EmptyEntry}},
		// ... with leading spaces ...
		{"leading spaces", "windows", wd, profile, `   .;C:\bin`, `C:\bin`, []Removal{DotEntry}},
		{"leading spaces, full path", "windows", wd, profile, `  C:\project;C:\bin`, `C:\bin`, []Removal{FullPath}},
		// ... or with ~ for a profile folder that is the working directory.
		{"~ is the working directory", "windows", profile, profile, `~;C:\bin`, `C:\bin`, []Removal{ProfileEntry}},
		{`'~\'`, "windows", profile, profile, `'~\';C:\bin`, `C:\bin`, []Removal{ProfileEntry}},
		{"~ is another folder", "windows", wd, profile, `~;C:\bin`, `~;C:\bin`, nil},
		{"~ without a profile", "windows", wd, "", `~;C:\bin`, `~;C:\bin`, nil},
		// An entry of spaces does not.
		{"spaces", "windows", wd, profile, `   ;C:\bin`, `   ;C:\bin`, nil},
		// Another relative entry stays, and resolves in the working directory.
		{"node_modules", "windows", wd, profile, `node_modules\.bin;bin;C:\bin`, `node_modules\.bin;bin;C:\bin`, nil},
		{"another drive", "windows", wd, profile, `D:\project;D:project;C:\bin`, `D:\project;D:project;C:\bin`, nil},
		// Windows' own reading of names: trailing dots and spaces dropped,
		// device prefixes, a drive's current directory.
		{"trailing dot", "windows", wd, profile, `C:\project.;C:\bin`, `C:\bin`, []Removal{FullPath}},
		{"dot and a space", "windows", wd, profile, `. ;C:\bin`, `C:\bin`, []Removal{RelativeEntry}},
		{"dot dot and a space", "windows", wd, profile, `bin\.. ;C:\bin`, `C:\bin`, []Removal{RelativeEntry}},
		{"device prefix", "windows", wd, profile, `\\?\C:\project;C:\bin`, `C:\bin`, []Removal{FullPath}},
		{"the drive's current directory", "windows", wd, profile, `C:;C:\bin`, `C:\bin`, []Removal{RelativeEntry}},
		{"relative on the drive", "windows", wd, profile, `c:bin\..;C:\bin`, `C:\bin`, []Removal{RelativeEntry}},
		{"several", "windows", wd, profile, `C:\Windows;;.;"C:\project";bin;   `, `C:\Windows;bin;   `, []Removal{EmptyEntry, DotEntry, FullPath}},
		// The same directory under another name (here a link; on Windows
		// also a junction or an 8.3 short name).
		{"through a link, Windows reading", "windows", posixWD, "", alias + ";" + `C:\bin`, `C:\bin`, []Removal{FullPath}},
	}
	for _, tc := range tests {
		host := map[string]string{"PATH": tc.path, "USERPROFILE": tc.profile}
		env, path, removed := hostEnv(tc.goos, func(k string) string { return host[k] }, nil, tc.workdir)
		if path != tc.want || fmt.Sprint(removed) != fmt.Sprint(tc.removed) {
			t.Errorf("%s, %s: PATH %q became %q removing %v, want %q removing %v", tc.goos, tc.name, tc.path, path, removed, tc.want, tc.removed)
		}
		if env[0] != "PATH="+path {
			t.Errorf("%s, %s: env %q does not start with the sanitized PATH", tc.goos, tc.name, env)
		}
	}
}

// A declared PATH replaces the host's and is sanitized the same way; on
// Windows names compare without case and NoDefaultCurrentDirectoryInExePath=1
// is set, whatever the handler declares.
func TestHostEnv(t *testing.T) {
	t.Parallel()
	winHost := map[string]string{"PATH": `C:\Windows;.`, "PATHEXT": ".COM;.EXE", "SystemRoot": `C:\Windows`,
		"USERPROFILE": `C:\Users\me`, "TEMP": `C:\Temp`, "HOME": "not on Windows"}
	env, path, removed := hostEnv("windows", func(k string) string { return winHost[k] },
		[]string{`Path=.;C:\tools;C:\project`, "MODE=x", "nodefaultcurrentdirectoryinexepath=0"}, `C:\project`)
	want := []string{`PATH=C:\tools`, "PATHEXT=.COM;.EXE", `SystemRoot=C:\Windows`, `USERPROFILE=C:\Users\me`, `TEMP=C:\Temp`,
		"MODE=x", "NoDefaultCurrentDirectoryInExePath=1"}
	if !slices.Equal(env, want) {
		t.Errorf("windows env\n%q, want\n%q", env, want)
	}
	if path != `C:\tools` || fmt.Sprint(removed) != fmt.Sprint([]Removal{DotEntry, FullPath}) {
		t.Errorf("windows: PATH %q removing %v, want the declared one without its 2 entries naming the working directory", path, removed)
	}

	posixHost := map[string]string{"PATH": "/usr/bin:.", "HOME": "/home/me", "TMPDIR": "/var/tmp"}
	env, path, removed = hostEnv("linux", func(k string) string { return posixHost[k] },
		[]string{"PATH=.:/usr/bin::/bin", "Path=kept as declared", "NoDefaultCurrentDirectoryInExePath=0"}, "/w")
	want = []string{"PATH=/usr/bin:/bin", "HOME=/home/me", "LANG=C.UTF-8", "TMPDIR=/var/tmp", "Path=kept as declared", "NoDefaultCurrentDirectoryInExePath=0"}
	if !slices.Equal(env, want) {
		t.Errorf("linux env\n%q, want\n%q", env, want)
	}
	if path != "/usr/bin:/bin" || len(removed) != 2 {
		t.Errorf("linux: PATH %q removing %v, want the declared one's 2 entries only", path, removed)
	}
}

func TestWindowsCandidates(t *testing.T) {
	t.Parallel()
	got := windowsCandidates("node", `"C:\Program Files\nodejs";  bin;~\tools\;   `, `C:\project`, `C:\Users\me`, ".EXE;.CMD")
	want := []string{`C:\Program Files\nodejs\node.exe`, `C:\Program Files\nodejs\node.cmd`,
		`C:\project\bin\node.exe`, `C:\project\bin\node.cmd`, `C:\Users\me\tools\node.exe`, `C:\Users\me\tools\node.cmd`}
	if !slices.Equal(got, want) {
		t.Errorf("candidates\n%q, want\n%q", got, want)
	}
	got = windowsCandidates("npm.CMD", `C:\bin`, `C:\project`, "", "")
	want = []string{`C:\bin\npm.CMD`, `C:\bin\npm.CMD.com`, `C:\bin\npm.CMD.exe`, `C:\bin\npm.CMD.bat`, `C:\bin\npm.CMD.cmd`}
	if !slices.Equal(got, want) {
		t.Errorf("candidates with an extension and no PATHEXT\n%q, want\n%q", got, want)
	}
}

func TestRemovalNoteNamesKindsNotText(t *testing.T) {
	t.Parallel()
	n := removalNote([]Removal{DotEntry})
	if n != "Hook lint: removed 1 PATH entry naming its working directory (a dot entry); programs are looked up elsewhere on PATH." {
		t.Fatalf("note %q", n)
	}
	if n := removalNote([]Removal{EmptyEntry, FullPath}); n != "Hook lint: removed 2 PATH entries naming its working directory (an empty entry, its full path); programs are looked up elsewhere on PATH." {
		t.Fatalf("note %q", n)
	}
	if removalNote(nil) != "" {
		t.Fatal("note without removals")
	}
}

func mustMkdir(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

func spec(t *testing.T, script string, env ...string) *sandbox.Spec {
	t.Helper()
	s, err := sandbox.New("none", []string{"sh", "-c", script}, sandbox.WithEnv(env))
	if err != nil {
		t.Fatal(err)
	}
	s.WorkingDir = t.TempDir()
	return s
}

func TestRunEnvironmentAndExit(t *testing.T) {
	t.Setenv("HOOKEXEC_LOCAL_SECRET_TOKEN", "do-not-leak")
	t.Setenv("PATH", ".:"+os.Getenv("PATH"))
	b := New()
	o, err := b.Run(context.Background(), &backend.Run{Spec: spec(t, "cat; env; exit 3", "MODE=x"), Stdin: []byte("event\n"), MaxOutput: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	out := string(o.Stdout)
	if o.ExitCode != 3 {
		t.Errorf("exit code = %d, want 3", o.ExitCode)
	}
	if !strings.HasPrefix(out, "event\n") {
		t.Errorf("stdout %q, want it to start with the stdin %q", out, "event\n")
	}
	if !strings.Contains(out, "MODE=x") {
		t.Errorf("stdout %q lacks the hook's MODE=x", out)
	}
	for _, leak := range []string{"do-not-leak", "PATH=.:"} {
		if strings.Contains(out, leak) {
			t.Errorf("host environment leaked (%s): %q", leak, out)
		}
	}
	if len(o.Notes) != 1 || !strings.Contains(o.Notes[0], "a dot entry") {
		t.Fatalf("notes %q", o.Notes)
	}
}

func TestRunSanitizesADeclaredPATH(t *testing.T) {
	sp := spec(t, `printf %s "$PATH"`, "PATH=.:/usr/bin::/bin")
	evil := filepath.Join(sp.WorkingDir, "sh")
	if err := os.WriteFile(evil, []byte("#!/bin/sh\necho evil\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	o, err := New().Run(context.Background(), &backend.Run{Spec: sp, MaxOutput: 1 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(o.Stdout); got != "/usr/bin:/bin" {
		t.Errorf("the hook's PATH = %q, want its declared one without the entries naming its directory", got)
	}
	if len(o.Notes) != 1 || !strings.Contains(o.Notes[0], "2 PATH entries") {
		t.Errorf("notes %q, want one naming the 2 removed entries", o.Notes)
	}
}

func TestRunTimeoutKillsTheGroup(t *testing.T) {
	t.Parallel()
	marker := fmt.Sprintf("%d", 4000+os.Getpid()%1000)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	o, err := New().Run(ctx, &backend.Run{Spec: spec(t, "sleep "+marker+" & sh -c 'sleep "+marker+"' & trap '' TERM; wait"), MaxOutput: 1024})
	if err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Errorf("run took %v, want at most 2s", elapsed)
	}
	if !o.TimedOut {
		t.Error("timed out = false, want true")
	}
	if o.Signal != "SIGKILL" {
		t.Errorf("signal = %q, want %q", o.Signal, "SIGKILL")
	}
	time.Sleep(50 * time.Millisecond)
	if n := countProcs("sleep " + marker); n != 0 {
		t.Fatalf("%d grandchildren survived the timeout", n)
	}
}

func TestRunOutputCapAndLeftovers(t *testing.T) {
	t.Parallel()
	o, err := New().Run(context.Background(), &backend.Run{Spec: spec(t, "yes"), MaxOutput: 4096})
	if err != nil {
		t.Fatalf("yes: %v", err)
	}
	if !o.Truncated {
		t.Error("yes: truncated = false, want true")
	}
	if len(o.Stdout) != 4096 {
		t.Errorf("yes: %d bytes of stdout, want 4096", len(o.Stdout))
	}
	// A child left running in the group after the parent exits is killed.
	marker := fmt.Sprintf("%d", 5000+os.Getpid()%1000)
	o, err = New().Run(context.Background(), &backend.Run{Spec: spec(t, "sleep "+marker+" >/dev/null 2>&1 & exit 0"), MaxOutput: 1024})
	if err != nil {
		t.Fatalf("leftover child: %v", err)
	}
	if o.ExitCode != 0 {
		t.Fatalf("leftover child: exit code = %d, want 0 (stderr %q)", o.ExitCode, o.Stderr)
	}
	time.Sleep(50 * time.Millisecond)
	if n := countProcs("sleep " + marker); n != 0 {
		t.Fatalf("%d children survived their parent's run", n)
	}
}

func TestRunMissingProgram(t *testing.T) {
	t.Parallel()
	s := spec(t, "")
	s.Argv = []string{"no-such-program-hookexec"}
	_, err := New().Run(context.Background(), &backend.Run{Spec: s})
	if !errors.Is(err, backend.ErrStart) {
		t.Fatalf("err = %v, want ErrStart", err)
	}
	if !strings.Contains(err.Error(), `"no-such-program-hookexec"`) {
		t.Errorf("err = %v, want it to name %q", err, "no-such-program-hookexec")
	}
}

// TestConformance runs the backends' shared suite on the host.
func TestConformance(t *testing.T) {
	backendtest.Run(t, backendtest.Config{
		Backend: New(),
		NotApplicable: map[backendtest.Case]string{
			backendtest.CaseProcessTree: "a descendant that leaves the process group (setsid) escapes the kill of the group: only a container backend bounds a whole process tree",
		},
	})
}

func countProcs(marker string) int {
	ents, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.Contains(strings.ReplaceAll(string(b), "\x00", " "), marker) {
			n++
		}
	}
	return n
}
