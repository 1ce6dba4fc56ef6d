package install

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/hookexec/hook-exec/internal/engineenv"
)

// ErrProjectEnv: a project's own environment (a settings file's "env", a
// .env the host loads) sets a variable that chooses the program a hook's
// command runs (PATH: a committed command finds hook-exec there) or runs
// code before it.
var ErrProjectEnv = errors.New("the project's environment chooses what its hooks run")

// projectEnv says what of a project's environment would choose what its
// installed hooks run: the "env" member of the settings file at path (doc
// its bytes), or, with path "", the .env files the host loads.
func (h *Target) projectEnv(o Options, path string, doc []byte) error {
	if o.Settings != Project {
		return nil // the user's own files: the user's choice
	}
	if path == "" {
		for _, rel := range h.DotEnv {
			f := filepath.Join(o.ProjectDir, rel)
			b, err := readFile(f)
			if err != nil {
				continue
			}
			for _, name := range dotEnvNames(b) {
				if engineenv.Chooses(name) {
					return fmt.Errorf("%w: %s sets $%s, which %s loads for its hooks: it would choose the hook-exec (or the shell) they run; remove it from the file", ErrProjectEnv, f, name, h.Name)
				}
			}
		}
		return nil
	}
	if h.Comments {
		var err error
		if doc, err = blankComments(doc); err != nil {
			return nil // plan says why it does not read
		}
	}
	var top map[string]jsontext.Value
	if jsonv2.Unmarshal(doc, &top) != nil {
		return nil
	}
	var env map[string]jsontext.Value
	if raw, ok := top["env"]; !ok || jsonv2.Unmarshal(raw, &env) != nil {
		return nil
	}
	for name := range env {
		if engineenv.Chooses(name) {
			return fmt.Errorf("%w: %s: its env sets $%s, which %s hands its hooks: it would choose the hook-exec (or the shell) they run; remove it, or install them for yourself (--user)", ErrProjectEnv, path, name, h.Name)
		}
	}
	return nil
}

// dotEnvNames are the variables a .env file sets (NAME=..., export NAME=...).
func dotEnvNames(b []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		line = strings.TrimPrefix(line, "export ")
		name, _, ok := strings.Cut(line, "=")
		if ok && !strings.HasPrefix(line, "#") {
			out = append(out, strings.TrimSpace(name))
		}
	}
	return out
}
