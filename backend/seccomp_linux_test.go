package backend

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/moby/profiles/seccomp"
	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// TestSeccompProfileFile keeps seccomp_profile.json, the profile builds
// other than Linux embed, equal to the one Linux computes. Regenerate it
// with HOOKEXEC_WRITE_SECCOMP=1 go test -run TestSeccompProfileFile ./backend.
func TestSeccompProfileFile(t *testing.T) {
	const file = "seccomp_profile.json"
	if os.Getenv("HOOKEXEC_WRITE_SECCOMP") == "1" {
		if err := os.WriteFile(file, []byte(SeccompProfile()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != SeccompProfile() {
		t.Errorf("%s differs from the profile computed here: regenerate it (HOOKEXEC_WRITE_SECCOMP=1)", file)
	}
}

// The profile refuses socket(AF_UNIX) and lets a process change only its
// own limits, priority and scheduling (see selfOnly).
func TestSeccompProfileRules(t *testing.T) {
	var p seccomp.Seccomp
	if err := json.Unmarshal([]byte(SeccompProfile()), &p); err != nil {
		t.Fatal(err)
	}
	rules := map[string][]*seccomp.Syscall{}
	for _, s := range p.Syscalls {
		for _, n := range s.Names {
			rules[n] = append(rules[n], s)
		}
	}
	for _, s := range rules["socket"] {
		if len(s.Args) == 0 {
			t.Errorf("socket allowed for every domain")
		}
		for _, a := range s.Args {
			if a.Index == 0 && (a.Op == specs.OpEqualTo && a.Value == afUnix || a.Op == specs.OpLessThan && a.Value > afUnix) {
				t.Errorf("socket allowed for AF_UNIX: %+v", s.Args)
			}
		}
	}
	if len(rules["socketcall"]) != 0 {
		t.Errorf("socketcall allowed: through it a 32-bit process makes any socket")
	}
	for _, a := range p.ArchMap {
		if len(a.SubArches) != 0 {
			t.Errorf("%s keeps its 32-bit ABIs %v", a.Arch, a.SubArches)
		}
	}
	if len(rules["socket"]) == 0 || len(rules["socketpair"]) == 0 {
		t.Errorf("socket rules %d, socketpair %d: want both kept", len(rules["socket"]), len(rules["socketpair"]))
	}
	for _, c := range selfOnly {
		for _, n := range c.Names {
			if len(rules[n]) != 1 || len(rules[n][0].Args) == 0 || rules[n][0].Includes != nil {
				t.Errorf("%s: %d rule(s), want one, for the caller only", n, len(rules[n]))
			}
		}
	}
}
