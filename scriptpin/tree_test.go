package scriptpin

import (
	"os"
	"path/filepath"
	"testing"
)

func TestTreeDigest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "hooks", "lib"), 0o755)
	os.WriteFile(filepath.Join(dir, "hooks", "guard.py"), []byte("import lib.rules\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "hooks", "lib", "rules.py"), []byte("RULES = []\n"), 0o644)
	d0, err := TreeDigest(dir)
	if err != nil {
		t.Fatal(err)
	}
	changes := map[string]func(){
		"a byte of a sibling module": func() { os.WriteFile(filepath.Join(dir, "hooks", "lib", "rules.py"), []byte("RULES = [1]\n"), 0o644) },
		"a file added":               func() { os.WriteFile(filepath.Join(dir, "hooks", "new.sh"), nil, 0o644) },
		"a mode":                     func() { os.Chmod(filepath.Join(dir, "hooks", "guard.py"), 0o755) },
		"a link":                     func() { os.Symlink("/etc", filepath.Join(dir, "etc")) },
	}
	seen := map[Digest]string{d0: "the original"}
	for _, name := range []string{"a byte of a sibling module", "a file added", "a mode", "a link"} {
		changes[name]()
		d, err := TreeDigest(dir)
		if err != nil {
			t.Fatal(err)
		}
		if prev, ok := seen[d]; ok {
			t.Errorf("after %s the digest is that of %s", name, prev)
		}
		seen[d] = name
	}
}
