package images

import "testing"

// Podman reports the images it built under docker.io/; Find matches the
// short form the recipes name.
func TestFamiliar(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"docker.io/hookexec/hook-sh:9158898e5572":  "hookexec/hook-sh:9158898e5572",
		"hookexec/hook-sh:9158898e5572":            "hookexec/hook-sh:9158898e5572",
		"localhost/hookexec/hook-sh:1":             "localhost/hookexec/hook-sh:1",
		"registry.example:5000/hookexec/hook-sh:1": "registry.example:5000/hookexec/hook-sh:1",
		"not a reference":                          "not a reference",
	} {
		if got := familiar(in); got != want {
			t.Errorf("familiar(%q) = %q, want %q", in, got, want)
		}
	}
}
