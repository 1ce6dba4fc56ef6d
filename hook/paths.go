package hook

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/go-json-experiment/json/jsontext"
)

// ErrArgs: a tool call's args could not be searched for paths to the end
// (they do not read as JSON, or nest deeper than maxArgDepth): a path may
// have gone unseen.
var ErrArgs = errors.New("tool call args not searched to the end")

// maxArgDepth bounds how deep the search for paths goes: tools' args nest
// a few levels; the JSON reader itself would allow thousands.
const maxArgDepth = 32

// maxPathArgs bounds the paths one call is searched for: each is followed
// through its links on the host, before any hook runs, and an event of
// thousands would hold the boundary past its host's own timeout.
const maxPathArgs = 128

// PathArgument is a tool call's argument that names a path.
type PathArgument struct {
	Name  string // where it is: file_path, paths[1], files[0].name, edits[0].file_path
	Value string // the path (a file: URI's, decoded)
}

// PathArguments returns every path a tool call's args name, in their
// order: each string, at any depth, of a member whose name says path (see
// argKindOf), alone or in a list; in an object such a member holds
// (files:[{"name":".env"}]) its path-naming members and its name. A file:
// URI is its path, percent-decoded. The error (ErrArgs) says the search
// stopped early: what it found is returned, and a path may be unseen.
func PathArguments(args jsontext.Value) ([]PathArgument, error) {
	if len(args) == 0 {
		return nil, nil
	}
	w := argWalk{dec: jsontext.NewDecoder(bytes.NewReader(args))}
	if err := w.value("", notPath, 0); err != nil {
		return w.out, err
	}
	if _, err := w.dec.ReadToken(); !errors.Is(err, io.EOF) {
		return w.out, fmt.Errorf("%w: more after the args' value", ErrArgs)
	}
	return w.out, nil
}

// argKind is what an argument's name says its strings are.
type argKind uint8

const (
	notPath argKind = iota
	pathArg         // paths (a file: URI too)
	uriArg          // URIs: a file: URI or one without a scheme is a path, one of another scheme is not
)

// The names that say path, read without case, _ and - and with one
// trailing s dropped (paths, dirs, uris). Some name a path only alone: as
// the end of a longer name (data_source, build_target) they seldom do.
// Names that are not clearly paths (to and from of an email tool, output,
// source, root) count all the same: forbidden-path only denies what names
// a credential or VCS file, and a path filter that matches one argument
// too many runs its hook once too often, the safe side.
var (
	pathSuffixes = []string{"path", "pathname", "file", "filename", "dir", "dirname", "directory", "directories",
		"folder", "notebook", "root", "location", "destination"}
	pathAlone = []string{"dest", "dst", "src", "source", "target", "from", "to", "output", "out", "cwd",
		"newname", "link", "symlink", "saveas"}
	uriNames = []string{"uri", "url"} // alone or as the end (documentUri, fileUrl)
)

// argKindOf reads an argument's name.
func argKindOf(name string) argKind {
	n := strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(name))
	for _, n := range []string{n, strings.TrimSuffix(n, "s")} {
		switch {
		case hasSuffix(n, uriNames):
			return uriArg
		case hasSuffix(n, pathSuffixes) || slices.Contains(pathAlone, n):
			return pathArg
		}
	}
	return notPath
}

func hasSuffix(s string, suffixes []string) bool {
	for _, x := range suffixes {
		if strings.HasSuffix(s, x) {
			return true
		}
	}
	return false
}

// memberKind is the kind of a member named name in an object held by a
// member of kind holder: its own name's, or, in an object that stands for
// a path (files:[{"name":".env","content":"..."}]), name names the path.
func memberKind(name string, holder argKind) argKind {
	if k := argKindOf(name); k != notPath {
		return k
	}
	if holder != notPath && name == "name" {
		return pathArg
	}
	return notPath
}

// pathOf is the path a string of an argument of kind k names, if any.
func (k argKind) pathOf(s string) (string, bool) {
	if k == notPath || s == "" {
		return "", false
	}
	scheme, ok := uriScheme(s)
	switch {
	case ok && strings.EqualFold(scheme, "file"):
		p := fileURIPath(s)
		return p, p != ""
	case ok && k == uriArg:
		return "", false // https:, s3:, ...: no file here
	}
	// A path argument's text is a path even when it looks like a URI:
	// "a:b/.env" is a directory a:b.
	return s, true
}

// uriScheme is s's URI scheme (RFC 3986: a letter, then letters, digits,
// + - .), at least two characters: C: is a Windows drive.
func uriScheme(s string) (string, bool) {
	i := strings.IndexByte(s, ':')
	if i < 2 {
		return "", false
	}
	for j := range i {
		c := s[j]
		if !letter(c) && (j == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return "", false
		}
	}
	return s[:i], true
}

// fileURIPath is the path a file: URI names (RFC 8089): query and fragment
// dropped, percent-decoded (left as written when an escape is bad), an
// empty or localhost host dropped and another kept as //host, the slash
// before a Windows drive (/C:/) dropped.
func fileURIPath(s string) string {
	p := s[len("file:"):]
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	if auth, ok := strings.CutPrefix(p, "//"); ok {
		host, rest, _ := strings.Cut(auth, "/")
		p = "/" + rest
		if host != "" && !strings.EqualFold(host, "localhost") {
			p = "//" + host + p
		}
	}
	if d, err := url.PathUnescape(p); err == nil {
		p = d
	}
	if len(p) >= 3 && p[0] == '/' && letter(p[1]) && p[2] == ':' {
		p = p[1:]
	}
	return p
}

func letter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// argWalk reads args token by token: once through, in document order.
type argWalk struct {
	dec *jsontext.Decoder
	out []PathArgument
}

// value reads the value named name, of kind k, depth levels down.
func (w *argWalk) value(name string, k argKind, depth int) error {
	if depth > maxArgDepth {
		return fmt.Errorf("%w: %s is more than %d levels deep", ErrArgs, name, maxArgDepth)
	}
	tok, err := w.dec.ReadToken()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrArgs, err)
	}
	switch tok.Kind() {
	case '"':
		if p, ok := k.pathOf(tok.String()); ok {
			if len(w.out) == maxPathArgs {
				return fmt.Errorf("%w: more than %d paths", ErrArgs, maxPathArgs)
			}
			w.out = append(w.out, PathArgument{Name: name, Value: p})
		}
	case '[':
		for i := 0; w.dec.PeekKind() != ']'; i++ {
			if err := w.value(name+"["+strconv.Itoa(i)+"]", k, depth+1); err != nil {
				return err
			}
		}
		return w.end()
	case '{':
		for w.dec.PeekKind() != '}' {
			tok, err := w.dec.ReadToken()
			if err != nil {
				return fmt.Errorf("%w: %w", ErrArgs, err)
			}
			key, n := tok.String(), tok.String()
			if name != "" {
				n = name + "." + key
			}
			if err := w.value(n, memberKind(key, k), depth+1); err != nil {
				return err
			}
		}
		return w.end()
	}
	return nil
}

// end reads the ] or } that closes a list or an object.
func (w *argWalk) end() error {
	if _, err := w.dec.ReadToken(); err != nil {
		return fmt.Errorf("%w: %w", ErrArgs, err)
	}
	return nil
}

var (
	// ErrLinkLoop: following a path's links took more hops than the
	// kernel allows (a loop): where it leads cannot be told.
	ErrLinkLoop = errors.New("more than 40 links to follow")
	// ErrProcLink: a path goes through a /proc link whose target only the
	// agent's process knows (another process's cwd or root, an open file
	// under fd/ or map_files/, exe), or through /proc/self/cwd with no
	// workspace to stand for it.
	ErrProcLink = errors.New("goes through a /proc link only the agent's process can follow")
)

// maxLinks is the kernel's bound on the links one path walk follows.
const maxLinks = 40

// maxSteps bounds the components one walk looks at: 40 links of 4 KiB
// targets (d/../d/../...) would be tens of thousands of readlinks for one
// path. Past it the reading is in doubt (ErrLinkLoop), as a loop's is.
const maxSteps = 1024

var (
	// ErrNUL: a path holds a NUL byte, where the file tool's system call
	// would end it; the path is read up to it, and in doubt.
	ErrNUL = errors.New("holds a NUL byte")
	// ErrHardLink: the file a path reaches has other names (hard links): a
	// write to it changes them too, whatever their names say.
	ErrHardLink = errors.New("is a file with other names (hard links)")
)

// PathForms returns the readings of a path a path check must hold to: the
// lexical one, then the resolved one when it differs (see ResolvePath). A
// path inside the workspace is given relative to it. An error says the
// resolved reading is in doubt: a check that must not miss fails safe.
func PathForms(p, workspace string) ([]string, error) {
	var nul error
	if i := strings.IndexByte(p, 0); i >= 0 {
		p, nul = p[:i], ErrNUL
	}
	lex := LexicalPath(p, workspace)
	res, err := ResolvePath(p, workspace)
	err = cmp.Or(nul, err)
	if res == lex {
		return []string{lex}, err
	}
	return []string{lex, res}, err
}

// LexicalPath is the path as the file tools take it: from the workspace
// when relative (a leading \ too, on Windows), .. folded, relative to the
// workspace when inside it.
func LexicalPath(p, workspace string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	if !path.IsAbs(p) && workspace != "" {
		p = path.Join(workspace, p)
	}
	return relTo(path.Clean(p), workspace)
}

// ResolvePath is the file a path reaches: from the workspace when
// relative, links followed (dangling ones too, to where they point) as the
// kernel walks a path, so a .. after a link goes up from where the link
// led. /proc/self/cwd (thread-self, a task of self) is the workspace and
// /proc/self/root is /: hook-exec's own /proc entries say nothing of the
// agent's. A target inside the workspace is given by its path from the
// workspace root. The error (ErrLinkLoop, ErrProcLink, or a link that
// cannot be read) says the answer, the best one found, is in doubt.
func ResolvePath(p, workspace string) (string, error) {
	p = strings.ReplaceAll(p, `\`, "/")
	if !path.IsAbs(p) {
		if workspace == "" {
			return path.Clean(p), nil
		}
		p = workspace + "/" + p
	}
	ws := workspace
	if r, err := filepath.EvalSymlinks(workspace); workspace != "" && err == nil {
		ws = filepath.ToSlash(r) // "" would read as "."
	}
	cur, err := walk(p, ws)
	if err == nil && hardLinked(cur) {
		err = ErrHardLink
	}
	if err != nil {
		err = &fs.PathError{Op: "resolve", Path: p, Err: err}
	}
	if workspace != "" {
		if rel := relTo(cur, ws); rel != cur {
			return rel, err
		}
	}
	return relTo(cur, workspace), err
}

// walk follows p's links component by component from /, ws standing for
// the agent's working directory. It goes on past a doubt (returned at the
// end) so that the best reading is still found; a loop ends it.
func walk(p, ws string) (string, error) {
	var doubt error
	comps := strings.Split(p, "/")
	cur := "/"
	for hops, steps := 0, 0; len(comps) > 0; steps++ {
		if steps == maxSteps {
			return path.Clean(p), ErrLinkLoop
		}
		c := comps[0]
		comps = comps[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = path.Dir(cur)
			continue
		}
		next := path.Join(cur, c)
		if to, ok, err := procEntry(cur, c, ws); ok {
			cur = to
			if doubt == nil {
				doubt = err
			}
			continue
		}
		target, err := os.Readlink(next)
		if err != nil {
			// Not a link, or not there (a write would create it): taken
			// as written. Any other failure hides what is there.
			if doubt == nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
				doubt = err
			}
			cur = next
			continue
		}
		if hops++; hops > maxLinks {
			return path.Clean(p), ErrLinkLoop // the kernel would refuse it: as written
		}
		if path.IsAbs(target) {
			cur = "/"
		}
		comps = append(strings.Split(target, "/"), comps...)
	}
	return cur, doubt
}

// A process's directory in /proc, and any place inside one. The caller's
// own is self, thread-self or one of their tasks; a number is some process.
var (
	procProcess = regexp.MustCompile(`^/proc/(self|thread-self|[0-9]+)(/task/[0-9]+)?$`)
	inProcess   = regexp.MustCompile(`^/proc/(self|thread-self|[0-9]+)(/|$)`)
)

// procEntry reads component c below cur when it leads into a process's
// directory in /proc, whose links would answer for hook-exec and not for
// the agent: ok is false for any other place. The agent's cwd is the
// workspace and its root is /; what another process or an open file
// refers to is a doubt.
func procEntry(cur, c, ws string) (to string, ok bool, doubt error) {
	next := path.Join(cur, c)
	if !inProcess.MatchString(next) {
		return "", false, nil
	}
	m := procProcess.FindStringSubmatch(cur)
	if m == nil {
		return next, true, nil // the process's directory itself, or a file in it
	}
	own := m[1] == "self" || m[1] == "thread-self"
	switch {
	case own && c == "root":
		return "/", true, nil
	case own && c == "cwd" && ws != "":
		return ws, true, nil
	case c == "cwd" || c == "root" || c == "fd" || c == "map_files" || c == "exe":
		return next, true, ErrProcLink
	}
	return next, true, nil
}

// relTo is p relative to dir when inside it, else p.
func relTo(p, dir string) string {
	if dir == "" {
		return p
	}
	dir = path.Clean(strings.ReplaceAll(dir, `\`, "/"))
	if p == dir {
		return "."
	}
	if rel, ok := strings.CutPrefix(p, strings.TrimSuffix(dir, "/")+"/"); ok {
		return rel
	}
	return p
}
