// Package statefile keeps small JSON documents in hook-exec's state
// directory that several processes read and change: each change holds an
// exclusive file lock for its read-modify-write and replaces the file
// atomically, so a reader never sees half a document and two writers never
// lose each other's change.
package statefile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/go-json-experiment/json"
	"github.com/gofrs/flock"
)

// Read decodes the document at path into v; a missing file leaves v as
// it is.
func Read(path string, v any) error {
	_, err := read(path, v)
	return err
}

// read is Read that also returns the bytes it decoded (nil for no file).
func read(path string, v any) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, v, json.RejectUnknownMembers(true)); err != nil {
		return nil, fmt.Errorf("state file %s: %w", path, err)
	}
	return b, nil
}

// Update reads the document at path into a new T, lets change modify it
// and writes it back, all under the file's lock. When change returns an
// error, or leaves the document as it was, nothing is written.
func Update[T any](path string, change func(*T) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	lock := flock.New(path + ".lock")
	if err := lock.Lock(); err != nil {
		return fmt.Errorf("lock %s: %w", path, err)
	}
	defer lock.Unlock()
	// Under the lock no write is in flight: a temporary file left is one a
	// killed writer never renamed.
	if stale, err := filepath.Glob(filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".*")); err == nil {
		for _, f := range stale {
			os.Remove(f)
		}
	}
	var v T
	old, err := read(path, &v)
	if err != nil {
		return err
	}
	if err := change(&v); err != nil {
		return err
	}
	b, err := json.Marshal(&v, json.Deterministic(true))
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if bytes.Equal(b, old) {
		return nil // unchanged (a healthy hook's circuit on every run): no write
	}
	return WriteFile(path, b, 0o600)
}

// WriteFile replaces the file at path with b, atomically: a reader sees
// the old bytes or the new ones, and a power loss leaves one or the other,
// never an empty file. The file gets mode perm.
func WriteFile(path string, b []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after the rename: nothing
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	// On disk before the rename, and the rename itself after it.
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
