package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hookexec/hook-exec/backend/engine"
	"github.com/hookexec/hook-exec/host/install"
)

// The lists in the docs are checked against the code, item for item in
// both directions, so that neither can change without the other. A list
// sits between `<!-- list: NAME ... -->` and `<!-- end list -->`; its items
// are the code spans of a table row's first cell (a row may name several:
// `host/arcturn`, `host/bernstein`) or a bullet's first code span.

const repoRoot = "../.."

var codeSpan = regexp.MustCompile("`([^`]+)`")

// listItems returns the items a line of a list names.
func listItems(line string) []string {
	var text string
	switch {
	case strings.HasPrefix(line, "| `"):
		text, _, _ = strings.Cut(line[2:], " |")
	case strings.HasPrefix(line, "- `"):
		text = line[:strings.Index(line[3:], "`")+4]
	}
	var items []string
	for _, m := range codeSpan.FindAllStringSubmatch(text, -1) {
		items = append(items, m[1])
	}
	return items
}

// docList returns the items of the list NAME in the doc at path (relative
// to the repository's root).
func docList(t *testing.T, path, name string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, path))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "<!-- list: "+name+" ")
	if !ok {
		t.Fatalf("%s has no list %q", path, name)
	}
	list, _, ok := strings.Cut(rest, "<!-- end list -->")
	if !ok {
		t.Fatalf("%s: list %q has no end", path, name)
	}
	var items []string
	for _, line := range strings.Split(list, "\n") {
		items = append(items, listItems(line)...)
	}
	return items
}

// sameItems fails the test unless the doc's list and the code's hold the
// same items, each once.
func sameItems(t *testing.T, doc string, listed, code []string) {
	t.Helper()
	if len(code) == 0 {
		t.Fatalf("found nothing in the code to hold %s against: the test no longer reads the code", doc)
	}
	for i, item := range listed {
		if slices.Contains(listed[:i], item) {
			t.Errorf("%s lists %q twice", doc, item)
		}
	}
	for _, item := range code {
		if !slices.Contains(listed, item) {
			t.Errorf("%s does not list %q, which the code has", doc, item)
		}
	}
	for _, item := range listed {
		if !slices.Contains(code, item) {
			t.Errorf("%s lists %q, which the code does not have", doc, item)
		}
	}
}

// parseDir parses the non-test Go files of a package directory.
func parseDir(t *testing.T, dir string) []*ast.File {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(repoRoot, dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	fset := token.NewFileSet()
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// typedConsts returns the values of the string constants of type typ
// declared in package dir.
func typedConsts(t *testing.T, dir, typ string) []string {
	t.Helper()
	var values []string
	for _, f := range parseDir(t, dir) {
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != typ {
					continue
				}
				for i, v := range vs.Values {
					lit, ok := v.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						t.Fatalf("%s: constant %s is not a string literal", dir, vs.Names[i].Name)
					}
					s, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					values = append(values, s)
				}
			}
		}
	}
	return values
}

func TestDocsListDialects(t *testing.T) {
	t.Parallel()
	sameItems(t, "docs/hosts.md", docList(t, "docs/hosts.md", "dialects"), typedConsts(t, "hook", "Dialect"))
}

func TestDocsListInstallHosts(t *testing.T) {
	t.Parallel()
	sameItems(t, "docs/hosts.md", docList(t, "docs/hosts.md", "install hosts"), install.HostNames())
}

func TestDocsListFailureKinds(t *testing.T) {
	t.Parallel()
	sameItems(t, "docs/troubleshooting.md", docList(t, "docs/troubleshooting.md", "failure kinds"), typedConsts(t, "hook", "FailureKind"))
}

func TestDocsListBackends(t *testing.T) {
	t.Parallel()
	sameItems(t, "docs/operations.md", docList(t, "docs/operations.md", "backends"), engine.Names())
}

func TestREADMEListsCommands(t *testing.T) {
	t.Parallel()
	var visible []string
	for _, c := range newRoot(stdio{}).Commands() {
		if c.IsAvailableCommand() {
			visible = append(visible, c.Name())
		}
	}
	sameItems(t, "README.md", docList(t, "README.md", "commands"), visible)
}

// TestDocsListPackages: docs/architecture.md lists every package of the
// module (a directory with non-test Go files, outside nested modules),
// e2e's suites aside, and no others.
func TestDocsListPackages(t *testing.T) {
	t.Parallel()
	var pkgs []string
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repoRoot, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); rel != "." && err == nil {
				return filepath.SkipDir // another module
			}
			return nil
		}
		dir := filepath.ToSlash(filepath.Dir(rel))
		if strings.HasSuffix(d.Name(), ".go") && !strings.HasSuffix(d.Name(), "_test.go") && dir != "." && dir != "e2e" && !slices.Contains(pkgs, dir) {
			pkgs = append(pkgs, dir)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sameItems(t, "docs/architecture.md", docList(t, "docs/architecture.md", "packages"), pkgs)
}
