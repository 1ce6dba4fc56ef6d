package registry

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/hookexec/hook-exec/statefile"
)

// Project trust binds the canonical workspace path, the hook file's path
// and the exact SHA-256 of its bytes: editing the file ends the trust.

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
// now and the digest trusted ("" when none).
func TrustStatus(stateDir, workspace string) (state TrustState, now, trusted string, err error) {
	ws, err := canonical(workspace)
	if err != nil {
		return "", "", "", err
	}
	file := filepath.Join(ws, ProjectFile)
	var doc trustDoc
	if err := statefile.Read(trustFile(stateDir), &doc); err != nil {
		return "", "", "", err
	}
	for _, r := range doc.Projects {
		if r.Workspace == ws && r.File == file {
			trusted = r.Digest
		}
	}
	b, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		return NoHooks, "", trusted, nil
	}
	if err != nil {
		return "", "", "", err
	}
	now = Digest(b)
	switch trusted {
	case "":
		return Untrusted, now, "", nil
	case now:
		return Trusted, now, trusted, nil
	}
	return Changed, now, trusted, nil
}

// Trust trusts the workspace's hook file as it is now, after it validates.
func Trust(stateDir, workspace string) (string, error) {
	ws, err := canonical(workspace)
	if err != nil {
		return "", err
	}
	file := filepath.Join(ws, ProjectFile)
	b, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	defs, err := Parse(b)
	if err != nil {
		return "", fmt.Errorf("%s does not validate, so it cannot be trusted: %w", file, err)
	}
	for _, d := range defs {
		if d.Scope != Project {
			return "", fmt.Errorf("%w: %s: hook %s declares scope %s; a project file holds project hooks", ErrDocument, file, d.ID, d.Scope)
		}
	}
	digest := Digest(b)
	err = statefile.Update(trustFile(stateDir), func(doc *trustDoc) error {
		doc.Projects = slices.DeleteFunc(doc.Projects, func(r trustRecord) bool { return r.Workspace == ws && r.File == file })
		doc.Projects = append(doc.Projects, trustRecord{Workspace: ws, File: file, Digest: digest})
		return nil
	})
	return digest, err
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

// TrustedBy returns the check Sources.Trusted needs, reading the trust
// store of stateDir at each call.
func TrustedBy(stateDir string) func(workspace, file string, doc []byte) bool {
	return func(workspace, file string, doc []byte) bool {
		ws, err := canonical(workspace)
		if err != nil {
			return false
		}
		var d trustDoc
		if statefile.Read(trustFile(stateDir), &d) != nil {
			return false
		}
		digest := Digest(doc)
		return slices.ContainsFunc(d.Projects, func(r trustRecord) bool {
			return r.Workspace == ws && r.File == filepath.Join(ws, ProjectFile) && r.Digest == digest
		})
	}
}
