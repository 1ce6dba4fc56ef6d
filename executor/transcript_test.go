package executor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A transcript is the caller's own file in their home directory, copied
// readable for the sandbox's user; anything else is refused.
func TestCopyTranscript(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	os.MkdirAll(filepath.Join(home, ".claude/projects/p"), 0o700)
	good := filepath.Join(home, ".claude/projects/p/s.jsonl")
	os.WriteFile(good, []byte(`{"type":"user"}`+"\n"), 0o600)
	copied, remove, err := copyTranscript(good)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(copied)
	fi, _ := os.Stat(copied)
	if err != nil || string(b) != `{"type":"user"}`+"\n" || fi.Mode().Perm() != 0o444 {
		t.Fatalf("copy %q %v %v", b, err, fi.Mode())
	}
	remove()
	if _, err := os.Stat(filepath.Dir(copied)); !os.IsNotExist(err) {
		t.Fatalf("the copy's directory is left: %v", err)
	}

	outside := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(outside, []byte("secret"), 0o600)
	link := filepath.Join(home, ".claude/projects/p/link.jsonl")
	os.Symlink(outside, link)
	for path, want := range map[string]string{
		"":                 "names no transcript_path",
		"relative.jsonl":   "not a clean absolute path",
		home + "/../x":     "not a clean absolute path",
		outside:            "not in the home directory",
		link:               "not in the home directory",
		filepath.Dir(good): "not a regular file",
		good + ".missing":  "no such file",
	} {
		if _, _, err := copyTranscript(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("copyTranscript(%q) = %v, want an error saying %q", path, err, want)
		}
	}
}
