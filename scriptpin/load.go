package scriptpin

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/hookexec/hook-exec/launcher"
)

// Digest is a SHA-256.
type Digest [sha256.Size]byte

// String returns the lowercase hex form.
func (d Digest) String() string { return hex.EncodeToString(d[:]) }

// ParseDigest reads a 64-digit hex SHA-256.
func ParseDigest(s string) (Digest, error) {
	var d Digest
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != len(d) {
		return d, fmt.Errorf("invalid SHA-256 %q: want 64 hex digits", s)
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
	f, err := openInDir(pluginDir, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxScriptBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read script %q: %w", rel, err)
	}
	lang, err := Check(rel, b)
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
	if subtle.ConstantTimeCompare(s.SHA256[:], approved[:]) != 1 {
		return nil, fmt.Errorf("%q: sha256 %s, approved %s: %w", rel, s.SHA256, approved, ErrChanged)
	}
	return s, nil
}
