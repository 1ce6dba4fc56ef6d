package engine

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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
			out, changed, err := withRunscRuntime([]byte(tc.in), "/usr/bin/runsc")
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
			if _, _, err := withRunscRuntime([]byte(in), "/usr/bin/runsc"); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}

// SetupRunsc writes the wrapper once and leaves Docker alone when told to.
func TestSetupRunscWrapper(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var log []string
	o := RunscSetup{Runsc: "/usr/bin/runsc", WrapperDir: dir, DaemonConfig: "-",
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
	if !strings.Contains(string(b), "exec /usr/bin/runsc --network=none --oci-seccomp \"$@\"\n") {
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
