package install

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/gofrs/flock"

	"github.com/hookexec/hook-exec/internal/statefile"
)

// What install keeps of a file: its original bytes and the record.
const (
	originalFile = "original"
	recordFile   = "installed.json"
)

type record struct {
	Path            string `json:"path"`
	OriginalSHA256  string `json:"original_sha256"`
	InstalledSHA256 string `json:"installed_sha256"`
	// A plugin's hooks file: the plugin, where Claude keeps it, the
	// approved copy its hooks run, and whose install it is.
	Plugin     string  `json:"plugin,omitzero"`
	Root       string  `json:"root,omitzero"`
	Copy       string  `json:"copy,omitzero"`
	TreeSHA256 string  `json:"tree_sha256,omitzero"`
	Owners     []Owner `json:"owners,omitzero"`
	// Rewrites are the commands install wrote, for undo.
	Rewrites []rewrite `json:"rewrites,omitzero"`
	// Inline are the inline scripts install wrote beside a committed file
	// (their names in its sideDir): uninstall removes them.
	Inline   []string `json:"inline,omitzero"`
	original []byte
	// committed: read from the file's side record (sideFile) on a machine
	// that has no record of its own (a teammate's clone).
	committed bool
}

// rewrite is one command install wrote: the JSON text it replaced, and
// the member it set beside it.
type rewrite struct {
	Installed string `json:"installed"`
	Was       string `json:"was,omitzero"`
	Added     string `json:"added,omitzero"`
	// Check: the hook install added of its own (Was is empty; Added the
	// outermost member it added for it).
	Check bool `json:"check,omitzero"`
}

// Owner is an install of a plugin's hooks file: the user's, or a
// project's, from the home directory whose plugins it read (one state
// directory may serve several: root's under sudo -E, a test's).
type Owner struct {
	Settings Settings `json:"scope"`
	Project  string   `json:"project,omitzero"`
	Home     string   `json:"home"`
}

func ownerOf(o Options) Owner {
	home := filepath.Clean(o.Home) // $HOME as given may end in a slash
	if o.Settings == Project {
		return Owner{Settings: Project, Project: o.ProjectDir, Home: home}
	}
	return Owner{Settings: User, Home: home}
}

// save writes the record again with these owners.
func (r *record) save(stateDir string, h *Target, owners []Owner) error {
	r.Owners = owners
	b, err := jsonv2.Marshal(r)
	if err != nil {
		return err
	}
	return statefile.WriteFile(filepath.Join(recordDir(stateDir, h, r.Path), recordFile), b, 0o600)
}

// recordDir is where install keeps what it knows of the file at path.
func recordDir(stateDir string, h *Target, path string) string {
	sum := sha256.Sum256([]byte(path))
	return filepath.Join(stateDir, "installed", h.Name, hex.EncodeToString(sum[:8]))
}

// lockHost holds h's files and what install keeps of them against other
// installs and uninstalls of h, of any project: the plugin copies and
// their hooks files are shared, and an uninstall deletes the copies no
// record names, which a copy is between Apply's move of it and the
// record naming it.
func lockHost(stateDir string, h *Target) (unlock func(), err error) {
	dir := filepath.Join(stateDir, "installed", h.Name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	l := flock.New(filepath.Join(dir, ".lock"), flock.SetPermissions(0o600))
	if err := l.Lock(); err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	return func() { l.Unlock() }, nil
}

// loadRecord is the record of path's install, nil when none: this
// machine's, else the one committed beside the file (sideRecord).
func loadRecord(stateDir string, h *Target, path string) (*record, error) {
	dir := recordDir(stateDir, h, path)
	b, err := os.ReadFile(filepath.Join(dir, recordFile))
	if errors.Is(err, os.ErrNotExist) {
		return sideRecord(h, path)
	}
	if err != nil {
		return nil, err
	}
	var rec record
	if err := jsonv2.Unmarshal(b, &rec); err != nil || rec.Path != path {
		return nil, fmt.Errorf("%s: the record of %s's install does not read", dir, path)
	}
	if rec.original, err = os.ReadFile(filepath.Join(dir, originalFile)); err != nil {
		return nil, err
	}
	if digestOf(rec.original) != rec.OriginalSHA256 {
		return nil, fmt.Errorf("%s: the kept original of %s is not what install kept", dir, path)
	}
	if rec.Plugin == "" {
		if err := rec.mergeSide(); err != nil {
			return nil, err
		}
	}
	return &rec, nil
}

// replace writes a host's file atomically; a settings file kept behind a
// link (a dotfiles checkout) is replaced where it is (follow), and the link
// stays. A plugin's file is never reached through a link.
func replace(path string, b []byte, perm os.FileMode, follow bool) error {
	if real, err := filepath.EvalSymlinks(path); err == nil && follow {
		path = real
	}
	return statefile.WriteFile(path, b, perm)
}

func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() || info.Size() > maxFileBytes {
		return nil, fmt.Errorf("%s: not a regular file of at most %d bytes", path, maxFileBytes)
	}
	b := make([]byte, info.Size())
	_, err = f.ReadAt(b, 0)
	if err != nil && info.Size() > 0 {
		return nil, err
	}
	return b, nil
}

func digestOf(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
