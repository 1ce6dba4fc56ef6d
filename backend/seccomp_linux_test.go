package backend

import (
	"os"
	"testing"
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
