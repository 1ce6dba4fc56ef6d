package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookexec/hook-exec/backend"
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

func TestWindowsPATHReading(t *testing.T) {
	t.Parallel()
	const wd, profile = `C:\project`, `C:\Users\me`
	tests := []struct {
		entry string
		want  Removal
	}{
		{``, EmptyEntry},
		{`.`, DotEntry},
		{`"."`, DotEntry},
		{`'.'`, DotEntry},
		{`   .`, DotEntry},
		{`.\`, DotEntry},
		{`C:\project`, FullPath},
		{`c:\PROJECT\`, FullPath},
		{`C:\"project"`, FullPath},
		{`"C:\project"`, FullPath},
		{`C:/project`, FullPath},
		{`\project`, FullPath},
		{`bin\..`, RelativeEntry},
		{`C:\project\bin\..`, FullPath},
		{`C:\project.`, FullPath},
		{`   `, ""},
		{`bin`, ""},
		{`node_modules\.bin`, ""},
		{`C:\Windows\System32`, ""},
		{`~`, ""},
		{`D:\project`, ""},
	}
	for _, tc := range tests {
		if got := WindowsRemoval(tc.entry, wd, profile); got != tc.want {
			t.Errorf("WindowsRemoval(%q) = %q, want %q", tc.entry, got, tc.want)
		}
	}
	// ~ counts when the profile folder is the working directory.
	if got := WindowsRemoval(`~`, profile, profile); got != ProfileEntry {
		t.Errorf("~ in the profile folder: %q", got)
	}
	if got := WindowsRemoval(`'~\'`, profile, profile); got != ProfileEntry {
		t.Errorf(`'~\' in the profile folder: %q`, got)
	}
	got, removed := SanitizeWindowsPATH(`C:\Windows;;.;"C:\project";bin;   `, wd, profile)
	if got != `C:\Windows;bin;   ` {
		t.Errorf("SanitizeWindowsPATH = %q, want %q", got, `C:\Windows;bin;   `)
	}
	if len(removed) != 3 {
		t.Errorf("SanitizeWindowsPATH removed %v, want 3 entries", removed)
	}
}

func TestRemovalNoteNamesKindsNotText(t *testing.T) {
	t.Parallel()
	n := removalNote([]Removal{DotEntry})
	if n != "removed 1 PATH entry naming its working directory (a dot entry); programs are looked up elsewhere on PATH." {
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
