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

// A script's tree pin leaves out what hooks write beside themselves as
// they run (a corpus hook appends to hooks.log in its own directory), and
// nothing else: a changed library still changes it.
func TestScriptTreeDigest(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "lib"), 0o755)
	os.WriteFile(filepath.Join(dir, "guard.js"), []byte("require('./lib/x')\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "lib", "x.js"), []byte("module.exports = 1\n"), 0o644)
	before, err := ScriptTreeDigest(dir)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "hooks.log"), []byte("[DENY] rm\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "__pycache__"), 0o755)
	os.WriteFile(filepath.Join(dir, "__pycache__", "p.cpython-311.pyc"), []byte{1}, 0o644)
	if after, _ := ScriptTreeDigest(dir); after != before {
		t.Fatal("a log and a cache beside the script changed its tree's pin")
	}
	if whole, _ := TreeDigest(dir); whole == before {
		t.Fatal("TreeDigest left the log out too: a plugin's tree is pinned whole")
	}
	os.WriteFile(filepath.Join(dir, "lib", "x.js"), []byte("module.exports = 2\n"), 0o644)
	if changed, _ := ScriptTreeDigest(dir); changed == before {
		t.Fatal("a changed library left the pin as it was")
	}
}
