package engine

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hookexec/hook-exec/backend"
)

func TestWithRunscRuntime(t *testing.T) {
	t.Parallel()
	want := map[string]any{"path": "/usr/bin/runsc", "runtimeArgs": []any{"--network=none", "--oci-seccomp"}}
	tests := []struct {
		name, in    string
		wantChanged bool
		keep        map[string]any // other settings that must survive
	}{
		{"no file", "", true, nil},
		{"other settings kept", `{"storage-driver": "overlay2", "runtimes": {"crun": {"path": "/usr/bin/crun"}}}`, true,
			map[string]any{"storage-driver": "overlay2"}},
		{"runsc without the hook flags is replaced", `{"runtimes": {"runsc": {"path": "/usr/bin/runsc"}}}`, true, nil},
		{"already set", `{"runtimes": {"runsc": {"path": "/usr/bin/runsc", "runtimeArgs": ["--network=none", "--oci-seccomp"]}}}`, false, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, changed, err := withRuntime([]byte(tc.in), backend.Runsc, "/usr/bin/runsc", backend.RunscArgs)
			if err != nil {
				t.Fatal(err)
			}
			if changed != tc.wantChanged {
				t.Errorf("changed %v, want %v", changed, tc.wantChanged)
			}
			var got map[string]any
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("written config is not JSON: %v\n%s", err, out)
			}
			rts := got["runtimes"].(map[string]any)
			if diff := cmp.Diff(want, rts["runsc"]); diff != "" {
				t.Errorf("runsc (-want +got):\n%s", diff)
			}
			for k, v := range tc.keep {
				if got[k] != v {
					t.Errorf("%s = %v, want %v kept", k, got[k], v)
				}
			}
			if strings.Contains(tc.in, "crun") && rts["crun"] == nil {
				t.Error("the crun runtime was dropped")
			}
		})
	}
	for name, in := range map[string]string{"not JSON": "{", "runtimes not an object": `{"runtimes": []}`} {
		t.Run(name, func(t *testing.T) {
			if _, _, err := withRuntime([]byte(in), backend.Runsc, "/usr/bin/runsc", backend.RunscArgs); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}

// crun's runtime has no arguments; runsc's beside it is kept, and a crun
// already set is no change.
func TestWithCrunRuntime(t *testing.T) {
	t.Parallel()
	in := `{"runtimes": {"runsc": {"path": "/usr/bin/runsc", "runtimeArgs": ["--network=none", "--oci-seccomp"]}}}`
	out, changed, err := withRuntime([]byte(in), backend.Crun, "/usr/bin/crun", nil)
	if err != nil || !changed {
		t.Fatalf("changed %v, err %v", changed, err)
	}
	var got struct {
		Runtimes map[string]map[string]any `json:"runtimes"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"path": "/usr/bin/crun"}, got.Runtimes["crun"]); diff != "" {
		t.Errorf("crun (-want +got):\n%s", diff)
	}
	if got.Runtimes["runsc"] == nil {
		t.Error("runsc was dropped")
	}
	if _, changed, _ := withRuntime(out, backend.Crun, "/usr/bin/crun", nil); changed {
		t.Error("crun set again: want no change")
	}
}

// SetupRunsc writes the wrapper once and leaves Docker alone when told to.
func TestSetupRunscWrapper(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var log []string
	o := RuntimeSetup{Path: "/usr/bin/runsc", WrapperDir: dir, DaemonConfig: "-",
		Log: func(f string, a ...any) { log = append(log, fmt.Sprintf(f, a...)) }}
	for range 2 {
		if err := SetupRunsc(t.Context(), o); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "runsc-hookexec"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "exec '/usr/bin/runsc' --network=none --oci-seccomp \"$@\"\n") {
		t.Errorf("wrapper:\n%s", b)
	}
	fi, _ := os.Stat(filepath.Join(dir, "runsc-hookexec"))
	if fi.Mode().Perm() != 0o755 {
		t.Errorf("wrapper mode %v, want 0755", fi.Mode().Perm())
	}
	if len(log) != 2 || !strings.HasSuffix(log[0], " written") || !strings.HasSuffix(log[1], " already in place") {
		t.Fatalf("log %q, want written then already in place", log)
	}
}

// A daemon.json reached through a link is written where the link leads,
// keeping its mode; a pid file naming another program than dockerd gets
// no signal (here it names this test, which SIGHUP would end).
func TestSetupRunscDaemonConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	real := filepath.Join(dir, "real.json")
	if err := os.WriteFile(real, []byte(`{"log-level":"warn"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "daemon.json")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(dir, "docker.pid")
	os.WriteFile(pidFile, []byte(fmt.Sprint(os.Getpid())), 0o644)
	var log []string
	o := RuntimeSetup{Path: "/usr/bin/runsc", WrapperDir: dir, DaemonConfig: link, PIDFile: pidFile,
		Log: func(f string, a ...any) { log = append(log, fmt.Sprintf(f, a...)) }}
	if err := SetupRunsc(t.Context(), o); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("daemon.json is no longer a link: %v %v", fi, err)
	}
	b, _ := os.ReadFile(real)
	if !strings.Contains(string(b), `"log-level": "warn"`) || !strings.Contains(string(b), `"runsc"`) {
		t.Errorf("the link's target:\n%s", b)
	}
	if fi, _ := os.Stat(real); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the 0600 it had", fi.Mode().Perm())
	}
	if last := log[len(log)-1]; !strings.Contains(last, "is not dockerd") {
		t.Errorf("last log line %q, want the pid refused as not dockerd", last)
	}
}
