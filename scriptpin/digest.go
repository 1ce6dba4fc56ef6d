package scriptpin

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"slices"
)

// ScriptRefs returns the script paths a hook document's script handlers
// name, sorted and without repeats: the "script" member of every object
// whose "kind" is "script".
func ScriptRefs(doc []byte) ([]string, error) {
	v, err := parseDocument(doc)
	if err != nil {
		return nil, err
	}
	return scriptRefs(v)
}

func scriptRefs(v any) ([]string, error) {
	var refs []string
	var walk func(any) error
	walk = func(v any) error {
		switch t := v.(type) {
		case map[string]any:
			if t["kind"] == "script" {
				p, ok := t["script"].(string)
				if !ok {
					return fmt.Errorf("%w: a script handler has no \"script\" path string", ErrDocument)
				}
				refs = append(refs, p)
			}
			for _, e := range t {
				if err := walk(e); err != nil {
					return err
				}
			}
		case []any:
			for _, e := range t {
				if err := walk(e); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(v); err != nil {
		return nil, err
	}
	slices.Sort(refs)
	return slices.Compact(refs), nil
}

// DigestOf computes the hooks digest (see the package documentation) of a
// hook document and the SHA-256 of each script it references. scripts must
// hold exactly the paths the document references.
func DigestOf(doc []byte, scripts map[string]Digest) (Digest, error) {
	v, err := parseDocument(doc)
	if err != nil {
		return Digest{}, err
	}
	refs, err := scriptRefs(v)
	if err != nil {
		return Digest{}, err
	}
	if len(refs) != len(scripts) {
		return Digest{}, fmt.Errorf("%w: document references %d scripts, %d hashes given", ErrDocument, len(refs), len(scripts))
	}
	hashes := make(map[string]any, len(scripts))
	for _, r := range refs {
		h, ok := scripts[r]
		if !ok {
			return Digest{}, fmt.Errorf("%w: no hash given for script %q", ErrDocument, r)
		}
		hashes[r] = h.String()
	}
	var buf bytes.Buffer
	writeCanonical(&buf, map[string]any{"document": v, "scripts": hashes})
	return sha256.Sum256(buf.Bytes()), nil
}

// HooksDigest reads every script the document references from pluginDir
// (applying the script rules to each) and returns the hooks digest with the
// per-script hashes. A document that breaks a rule is refused whole.
func HooksDigest(pluginDir string, doc []byte) (Digest, map[string]Digest, error) {
	refs, err := ScriptRefs(doc)
	if err != nil {
		return Digest{}, nil, err
	}
	scripts := make(map[string]Digest, len(refs))
	for _, r := range refs {
		s, err := Read(pluginDir, r)
		if err != nil {
			return Digest{}, nil, err
		}
		scripts[r] = s.SHA256
	}
	d, err := DigestOf(doc, scripts)
	return d, scripts, err
}
