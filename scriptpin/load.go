package scriptpin

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"github.com/hookexec/hook-exec/launcher"
)

// Digest is a SHA-256.
type Digest [sha256.Size]byte

// String returns the lowercase hex form.
func (d Digest) String() string { return hex.EncodeToString(d[:]) }

// ErrDigest: a pin that is not a SHA-256 in hex.
var ErrDigest = errors.New("invalid SHA-256: want 64 hex digits")

// ParseDigest reads a 64-digit hex SHA-256.
func ParseDigest(s string) (Digest, error) {
	var d Digest
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != len(d) {
		return d, fmt.Errorf("%q: %w", s, ErrDigest)
	}
	copy(d[:], b)
	return d, nil
}

// Script is a checked script: the exact bytes that were read, hashed and
// found to follow the rules. Bytes is what the launcher streams.
type Script struct {
	Path   string // as the handler names it, relative to the plugin directory
	Lang   launcher.Lang
	Bytes  []byte
	SHA256 Digest
}

// Read opens rel inside pluginDir once, reads it and checks the rules. It is
// how a script is pinned: the returned SHA256 is what a user approves.
func Read(pluginDir, rel string) (*Script, error) {
	if _, err := LangOf(rel); err != nil {
		return nil, err
	}
	return read(pluginDir, rel, Check)
}

// ReadShebang is [Read] for hosts that run any file by its #! line: a
// script without .sh or .py takes its language from that line.
func ReadShebang(pluginDir, rel string) (*Script, error) {
	return read(pluginDir, rel, CheckShebang)
}

func read(pluginDir, rel string, check func(string, []byte) (launcher.Lang, error)) (*Script, error) {
	f, err := openInDir(pluginDir, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxHostScriptBytes+1)) // check applies its own bound
	if err != nil {
		return nil, fmt.Errorf("read script %q: %w", rel, err)
	}
	lang, err := check(rel, b)
	if err != nil {
		return nil, err
	}
	return &Script{Path: rel, Lang: lang, Bytes: b, SHA256: sha256.Sum256(b)}, nil
}

// Load is the launch-time re-check: [Read], then a constant-time comparison
// of the hash of the bytes read with the approved digest. Only the returned
// bytes may be launched.
func Load(pluginDir, rel string, approved Digest) (*Script, error) {
	s, err := Read(pluginDir, rel)
	if err != nil {
		return nil, err
	}
	return matches(s, approved)
}

// LoadShebang is [Load] with [ReadShebang].
func LoadShebang(pluginDir, rel string, approved Digest) (*Script, error) {
	s, err := ReadShebang(pluginDir, rel)
	if err != nil {
		return nil, err
	}
	return matches(s, approved)
}

// matches compares, in constant time, the hash of the bytes read with the
// approved digest.
func matches(s *Script, approved Digest) (*Script, error) {
	if subtle.ConstantTimeCompare(s.SHA256[:], approved[:]) != 1 {
		return nil, fmt.Errorf("%q: sha256 %s, approved %s: %w", s.Path, s.SHA256, approved, ErrChanged)
	}
	return s, nil
}
