package registry

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/hookexec/hook-exec/internal/statefile"
	"github.com/hookexec/hook-exec/scriptpin"
)

// Project trust binds the canonical workspace path, the hook file's path
// and one digest over the exact bytes of the file and of every script it
// references: editing the file or a script ends the trust. A trusted
// document's script hooks are pinned to the scripts' hashes read at the
// boundary, and the executor reads each script again at launch.

// TrustState says how a workspace's project hooks stand.
type TrustState string

const (
	Untrusted TrustState = "untrusted"
	Trusted   TrustState = "trusted"
	Changed   TrustState = "changed" // trusted once, edited since
	NoHooks   TrustState = "no-hooks"
)

type trustRecord struct {
	Workspace string `json:"workspace"`
	File      string `json:"file"`
	Digest    string `json:"digest"`
	// Replaces are the ids of the owner's global and profile hooks the
	// document's hooks replaced when it was trusted: only those it may
	// replace at a boundary (an id the owner adds later stays the owner's).
	Replaces []string `json:"replaces,omitzero"`
}

// ProjectTrust is how a workspace's project document stands now.
type ProjectTrust struct {
	State TrustState
	// Digest is the document's and its scripts' digest now ("" when a
	// script cannot be read under the script rules: nothing to trust).
	Digest string
	// Scripts are the SHA-256 (hex) of each script the document
	// references, read now: a trusted document's hooks are pinned to them.
	Scripts map[string]string
	// Replaces are the owner's hooks the document replaced when it was
	// trusted, by id (see trustRecord).
	Replaces []string
}

// projectDigest is the trust digest of a workspace's document b: SHA-256
// over the file's exact bytes and the hash of every script it references
// (each read under the script rules, from the workspace).
func projectDigest(ws string, b []byte) (string, map[string]string, error) {
	refs, err := scriptpin.ScriptRefs(b)
	if err != nil {
		return "", nil, err
	}
	scripts := make(map[string]string, len(refs))
	for _, r := range refs {
		s, err := scriptpin.Read(ws, r)
		if err != nil {
			return "", nil, fmt.Errorf("script %s: %w", r, err)
		}
		scripts[r] = s.SHA256.String()
	}
	files, err := commandFiles(ws, b)
	if err != nil {
		return "", nil, err
	}
	canon, err := json.Marshal(struct {
		Document string            `json:"document"`
		Scripts  map[string]string `json:"scripts"`
		Files    map[string]string `json:"files,omitzero"`
	}{Digest(b), scripts, files}, json.Deterministic(true))
	if err != nil {
		return "", nil, err
	}
	sum := sha256.Sum256(canon)
	return "sha256:" + hex.EncodeToString(sum[:]), scripts, nil
}

// commandFiles hashes every file of the workspace a command handler of
// document b names in its argv (sh tools/lint.sh, /ws/bin/check): the
// command runs it, so trust binds it as it binds a script. Words that name
// nothing in the workspace (options, programs of the image) are no file.
func commandFiles(ws string, b []byte) (map[string]string, error) {
	defs, err := Parse(b)
	if err != nil {
		return nil, err
	}
	files := map[string]string{}
	for _, d := range defs {
		if d.Handler.Kind != KindCommand {
			continue
		}
		for _, arg := range d.Handler.Command {
			p := arg
			if !filepath.IsAbs(p) {
				p = filepath.Join(ws, p)
			}
			p = filepath.Clean(p)
			if rel, err := filepath.Rel(ws, p); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
				continue
			}
			fi, err := os.Stat(p)
			if err != nil || !fi.Mode().IsRegular() {
				continue
			}
			sum, err := fileSHA256(p)
			if err != nil {
				return nil, fmt.Errorf("file %s, which command %s runs: %w", arg, d.ID, err)
			}
			files[arg] = sum
		}
	}
	return files, nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// projectTrust judges document b of workspace ws (canonical) against the
// trust store's record for it ("" when none).
func projectTrust(ws string, b []byte, trusted string) ProjectTrust {
	now, scripts, err := projectDigest(ws, b)
	switch {
	case trusted == "":
		return ProjectTrust{State: Untrusted, Digest: now, Scripts: scripts}
	case err == nil && now == trusted:
		return ProjectTrust{State: Trusted, Digest: now, Scripts: scripts}
	}
	return ProjectTrust{State: Changed, Digest: now, Scripts: scripts}
}

// trustRecordOf is the store's record for ws's project file (zero when none).
func trustRecordOf(stateDir, ws string) (trustRecord, error) {
	var doc trustDoc
	if err := statefile.Read(trustFile(stateDir), &doc); err != nil {
		return trustRecord{}, err
	}
	file := filepath.Join(ws, ProjectFile)
	for _, r := range doc.Projects {
		if r.Workspace == ws && r.File == file {
			return r, nil
		}
	}
	return trustRecord{}, nil
}

// ownerIDs are the ids of the owner's stored hooks, global and of every
// profile, each with the scope it is in.
func ownerIDs(stateDir string) (map[string]Origin, error) {
	ids := map[string]Origin{}
	files := []string{globalFile(stateDir)}
	profiles, _ := filepath.Glob(profileFile(stateDir, "*"))
	for _, f := range append(files, profiles...) {
		stored, err := readStored(f)
		if err != nil {
			return nil, err
		}
		for _, s := range stored {
			if _, seen := ids[s.Definition.ID]; !seen {
				ids[s.Definition.ID] = s.Definition.Scope
			}
		}
	}
	return ids, nil
}

type trustDoc struct {
	Projects []trustRecord `json:"projects"`
}

func trustFile(stateDir string) string { return filepath.Join(stateDir, "trust.json") }

// canonical resolves links so that one workspace has one name.
func canonical(workspace string) (string, error) {
	abs, err := filepath.Abs(workspace)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// TrustStatus reports the workspace's trust, the digest of its hook file
// and scripts now and the digest trusted ("" when none).
func TrustStatus(stateDir, workspace string) (state TrustState, now, trusted string, err error) {
	ws, err := canonical(workspace)
	if err != nil {
		return "", "", "", err
	}
	rec, err := trustRecordOf(stateDir, ws)
	if err != nil {
		return "", "", "", err
	}
	trusted = rec.Digest
	b, err := os.ReadFile(filepath.Join(ws, ProjectFile))
	if os.IsNotExist(err) {
		return NoHooks, "", trusted, nil
	}
	if err != nil {
		return "", "", "", err
	}
	pt := projectTrust(ws, b, trusted)
	return pt.State, pt.Digest, trusted, nil
}

// Trust trusts the workspace's hook file as it is now, after it validates.
// It returns the digest trusted.
func Trust(stateDir, workspace string) (string, error) {
	digest, _, _, err := TrustHooks(stateDir, workspace)
	return digest, err
}

// TrustHooks is Trust, and returns the hooks trusted too and, by id, the
// scope of each owner's hook they replace, for a caller to show what the
// digest binds.
func TrustHooks(stateDir, workspace string) (string, []*Definition, map[string]Origin, error) {
	ws, err := canonical(workspace)
	if err != nil {
		return "", nil, nil, err
	}
	file := filepath.Join(ws, ProjectFile)
	b, err := os.ReadFile(file)
	if err != nil {
		return "", nil, nil, err
	}
	defs, err := Parse(b)
	if err != nil {
		return "", nil, nil, fmt.Errorf("%s does not validate, so it cannot be trusted: %w", file, err)
	}
	for _, d := range defs {
		if d.Scope != Project {
			return "", nil, nil, fmt.Errorf("%w: %s: hook %s declares scope %s; a project file holds project hooks", ErrDocument, file, d.ID, d.Scope)
		}
	}
	digest, _, err := projectDigest(ws, b)
	if err != nil {
		return "", nil, nil, fmt.Errorf("%s cannot be trusted: %w", file, err)
	}
	owners, err := ownerIDs(stateDir)
	if err != nil {
		return "", nil, nil, err
	}
	replaced := map[string]Origin{}
	var ids []string
	for _, d := range defs {
		if scope, ok := owners[d.ID]; ok {
			replaced[d.ID] = scope
			ids = append(ids, d.ID)
		}
	}
	err = statefile.Update(trustFile(stateDir), func(doc *trustDoc) error {
		doc.Projects = slices.DeleteFunc(doc.Projects, func(r trustRecord) bool { return r.Workspace == ws && r.File == file })
		doc.Projects = append(doc.Projects, trustRecord{Workspace: ws, File: file, Digest: digest, Replaces: ids})
		return nil
	})
	return digest, defs, replaced, err
}

// RevokeTrust ends the workspace's trust.
func RevokeTrust(stateDir, workspace string) error {
	ws, err := canonical(workspace)
	if err != nil {
		return err
	}
	return statefile.Update(trustFile(stateDir), func(doc *trustDoc) error {
		doc.Projects = slices.DeleteFunc(doc.Projects, func(r trustRecord) bool { return r.Workspace == ws })
		return nil
	})
}

// TrustedBy returns the judge Sources.Trusted needs, reading the trust
// store of stateDir and the document's scripts at each call. A store or a
// workspace that cannot be read trusts nothing.
func TrustedBy(stateDir string) func(workspace string, doc []byte) ProjectTrust {
	return func(workspace string, doc []byte) ProjectTrust {
		ws, err := canonical(workspace)
		if err != nil {
			return ProjectTrust{State: Untrusted}
		}
		rec, err := trustRecordOf(stateDir, ws)
		if err != nil {
			return ProjectTrust{State: Untrusted}
		}
		pt := projectTrust(ws, doc, rec.Digest)
		pt.Replaces = rec.Replaces
		return pt
	}
}
