package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/hookexec/hook-exec/backend/engine"
	"github.com/hookexec/hook-exec/internal/engineenv"
	"github.com/hookexec/hook-exec/serve/hostcall"
)

// ownEnv is this process's engine environment, as a server's.
func ownEnv() map[string]string { return hostcall.EnvOf(os.LookupEnv) }

func mine(t *testing.T) string {
	t.Helper()
	id, err := (&globals{}).engineIdentity()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestAdmitCall(t *testing.T) {
	env := ownEnv()
	other := ownEnv()
	other["HOOKEXEC_RUNTIME"] = "runsc-other"
	// Spans the server would not send (its own process would): declined.
	spans := ownEnv()
	spans["OTEL_EXPORTER_OTLP_ENDPOINT"] = "http://127.0.0.1:4318/x"
	tests := []struct {
		argv     []string
		env      map[string]string
		cwd      string
		declined string // a part of the reason; "" admitted
	}{
		{argv: []string{"run", "--script", "g.sh"}},
		{argv: []string{"--backend", engine.Name(""), "run", "--script", "g.sh"}}, // the server's own engine, named
		{argv: []string{"run", "--backend", "containerd", "--script", "g.sh"}, declined: "engine is not the server's"},
		{argv: []string{"run", "--runtime", "runsc", "--script", "g.sh"}, declined: "engine is not the server's"},
		{argv: []string{"run", "--state-dir", "/elsewhere", "--script", "g.sh"}, declined: "engine is not the server's"},
		{argv: []string{"run", "--script", "g.sh"}, env: other, declined: "$HOOKEXEC_RUNTIME is not the server's"},
		{argv: []string{"run", "--script", "g.sh"}, env: spans, declined: "$OTEL_EXPORTER_OTLP_ENDPOINT is not the server's"},
		{argv: []string{"run", "--script", "g.sh"}, cwd: "relative", declined: "absolute working directory"},
		{argv: []string{"images", "build"}, declined: "not a host command"},
		{argv: []string{"run", "--help"}, declined: "help"},
		{argv: []string{"run", "--matcher", "--trace", "-"}, declined: "without its value"},
		{argv: []string{"run", "--backend", "local", "--script", "g.sh"}, declined: "engine is not the server's"},
		{argv: []string{"run", "--mode", "observational", "--script", "g.sh"}, declined: "observational"},
		{argv: []string{"run", "--max-event-bytes", "10", "--script", "g.sh"}, declined: "--max-event-bytes"},
		{argv: []string{"dispatch", "tool.before", "--workspace", "."}},
		{argv: []string{"arcturn", "hooks", "run"}},
		{argv: []string{"bernstein", "hooks", "run", "task.claim"}},
		{argv: []string{"bernstein", "hooks", "dry-run", "task.claim"}, declined: "not a host command"},
	}
	for _, tc := range tests {
		e, cwd := env, "/work/x"
		if tc.env != nil {
			e = tc.env
		}
		if tc.cwd != "" {
			cwd = tc.cwd
		}
		_, why := admitCall(hostcall.Command{Argv: tc.argv, Cwd: cwd, Env: e}, env, mine(t))
		switch {
		case tc.declined == "" && why != "":
			t.Errorf("%q: declined (%s), want admitted", tc.argv, why)
		case tc.declined != "" && !strings.Contains(why, tc.declined):
			t.Errorf("%q: %q, want declined for %q", tc.argv, why, tc.declined)
		}
	}
}

func TestAdmitCallMakesPathsAbsolute(t *testing.T) {
	env := ownEnv()
	tests := []struct{ argv, want []string }{
		{
			[]string{"run", "--script", "g.sh", "--event=ev.json", "--trace", "-", "--matcher", "x.sh", "--allow-root", "a", "--allow-root=/b"},
			[]string{"run", "--script", "/w/g.sh", "--event=/w/ev.json", "--trace", "-", "--matcher", "x.sh", "--allow-root", "/w/a", "--allow-root=/b"},
		},
		{ // single-dash long flags, as hosts' settings may carry them
			[]string{"run", "-script", "../g.sh", "-workspace", "."},
			[]string{"run", "--script", "/g.sh", "--workspace", "/w"},
		},
		{ // a relative default is made absolute too; after -- nothing is a flag
			[]string{"arcturn", "hooks", "run", "--event", "p.json"},
			[]string{"arcturn", "hooks", "run", "--event", "/w/p.json", "--project=/w"},
		},
		{
			[]string{"bernstein", "hooks", "run", "--project", "proj", "--", "--script"},
			[]string{"bernstein", "hooks", "run", "--project", "/w/proj", "--", "--script"},
		},
	}
	for _, tc := range tests {
		got, why := admitCall(hostcall.Command{Argv: tc.argv, Cwd: "/w", Env: env}, env, mine(t))
		if why != "" {
			t.Errorf("%q: declined: %s", tc.argv, why)
			continue
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%q:\n got  %q\n want %q", tc.argv, got, tc.want)
		}
	}
}

// Every flag of a host command that names a file or directory is marked
// as a path: a server would otherwise open it in a directory of its own.
func TestHostCommandsMarkTheirPaths(t *testing.T) {
	root := newRoot(stdio{})
	names := regexp.MustCompile("`(FILE|DIR|PATH)`|FILE|DIR")
	// --server is the front's; --mount's are absolute or refused;
	// --k8s-seccomp names a profile in the kubelet's directory.
	notPaths := map[string]bool{"server": true, "mount": true, "k8s-seccomp": true}
	for path := range hostCommands {
		c, _, err := root.Find(strings.Fields(path)[1:])
		if err != nil {
			t.Fatal(err)
		}
		c.ParseFlags(nil) // merges the parents' persistent flags
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if names.MatchString(f.Usage) && !notPaths[f.Name] && !isPathFlag(f) {
				t.Errorf("%s --%s names a file or directory (%q) and is not marked a path", path, f.Name, f.Usage)
			}
		})
	}
}

// A call that found no server starts the user's only for the user's own
// state directory; on a socket it names, whatever its state directory.
func TestStartsHere(t *testing.T) {
	xs := t.TempDir()
	// A state directory install pinned the user's engine in: an installed
	// command's, sealed, which sees no $XDG_STATE_HOME.
	pinned := t.TempDir()
	if err := engineenv.Write(pinned, map[string]string{"HOOKEXEC_BACKEND": "docker"}); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "state")
	os.MkdirAll(filepath.Join(xs, "hook-exec"), 0o700)
	os.Symlink(filepath.Join(xs, "hook-exec"), link)
	for _, tc := range []struct {
		name              string
		env               map[string]string
		stateFlag, server string
		sealed            bool
		want              bool
	}{
		{"the user's own", map[string]string{"XDG_STATE_HOME": xs}, "", "", false, true},
		{"the user's own, named by --state-dir", map[string]string{"XDG_STATE_HOME": xs}, xs + "/hook-exec", "", false, true},
		{"a suite's $HOOKEXEC_STATE_DIR", map[string]string{"XDG_STATE_HOME": xs, "HOOKEXEC_STATE_DIR": t.TempDir()}, "", "", false, false},
		{"a suite's --state-dir", map[string]string{"XDG_STATE_HOME": xs}, t.TempDir(), "", false, false},
		{"a named socket", map[string]string{"XDG_STATE_HOME": xs, "HOOKEXEC_STATE_DIR": t.TempDir(), "HOOKEXEC_SERVER": "/s/s.sock"}, "", "", false, true},
		{"--server", map[string]string{"XDG_STATE_HOME": xs}, t.TempDir(), "/s/s.sock", false, true},
		{"install's pinned state, sealed", map[string]string{"HOOKEXEC_STATE_DIR": pinned}, "", "", true, true},
		{"install's pinned state, not sealed", map[string]string{"HOOKEXEC_STATE_DIR": pinned}, "", "", false, false},
		{"the user's own through a link", map[string]string{"XDG_STATE_HOME": xs}, link, "", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, k := range []string{"XDG_STATE_HOME", "HOOKEXEC_STATE_DIR", "HOOKEXEC_SERVER"} {
				t.Setenv(k, tc.env[k])
			}
			g := &globals{stateDir: tc.stateFlag, server: tc.server}
			argv := []string{"run", "--script", "x.sh"}
			if tc.sealed {
				argv = append(argv, "--sealed")
			}
			if got := g.startsHere(argv); got != tc.want {
				t.Errorf("startsHere = %v, want %v", got, tc.want)
			}
		})
	}
}
