package install

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"

	"github.com/go-json-experiment/json/jsontext"
)

// devcontainerFiles are where a project names its development container,
// as the Dev Containers specification looks for it.
var devcontainerFiles = []string{".devcontainer/devcontainer.json", ".devcontainer.json"}

// imageRef is an image reference as a devcontainer names one: a registry,
// a repository, a tag or a digest; no spaces, no option.
var imageRef = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/:@-]{0,254}$`)

// DevcontainerImage is the image a project's devcontainer.json names
// ("image", read exactly, comments allowed), "" when it names none (a
// Dockerfile build, a compose file, or no devcontainer). The project's
// toolchain is there: its hooks' formatters and linters.
func DevcontainerImage(projectDir string) (string, error) {
	for _, name := range devcontainerFiles {
		path := filepath.Join(projectDir, name)
		b, err := readFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		return imageOf(path, b)
	}
	return "", nil
}

// imageOf reads the top-level "image" of a devcontainer.json.
func imageOf(path string, doc []byte) (string, error) {
	blank, err := blankComments(doc)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	// The specification's JSON allows a comma before a closing bracket.
	blank = trailingComma.ReplaceAll(blank, []byte("$1"))
	dec := jsontext.NewDecoder(bytes.NewReader(blank))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return "", fmt.Errorf("%s: not a JSON object", path)
	}
	image := ""
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return "", fmt.Errorf("%s: %w", path, err)
		}
		name := tok.String() // before the next read voids tok
		val, err := dec.ReadValue()
		if err != nil {
			return "", fmt.Errorf("%s: %w", path, err)
		}
		if name != "image" {
			continue
		}
		if val.Kind() != '"' {
			return "", fmt.Errorf("%s: \"image\" is not a string", path)
		}
		str, _ := jsontext.NewDecoder(bytes.NewReader(val)).ReadToken()
		image = str.String()
	}
	if image != "" && !imageRef.MatchString(image) {
		return "", fmt.Errorf("%s: %q is not an image reference", path, image)
	}
	return image, nil
}

// trailingComma is a comma, and blanks, before a closing bracket.
var trailingComma = regexp.MustCompile(`,(\s*[}\]])`)
