package install

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/go-json-experiment/json/jsontext"
)

// ErrSyntax: a host's configuration file does not read as its host reads it.
var ErrSyntax = errors.New("not a configuration the host reads")

// blankComments returns doc with every // and /* */ comment outside a
// string replaced by spaces (newlines kept), so that the JSON parser sees
// the host's JSON-with-comments at the same offsets as the file holds it:
// an edit found in the blanked copy applies to the original bytes, and
// the comments stay where the person wrote them.
func blankComments(doc []byte) ([]byte, error) {
	out := bytes.Clone(doc)
	inString := false
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			end := bytes.Index(out[i+2:], []byte("*/"))
			if end < 0 {
				return nil, fmt.Errorf("%w: a /* comment at byte %d is not closed", ErrSyntax, i)
			}
			for j := i; j < i+2+end+2; j++ {
				if out[j] != '\n' {
					out[j] = ' '
				}
			}
			i += 2 + end + 1
		}
	}
	return out, nil
}

// stringSite is where a string value lies in a document: its JSON
// pointer and the byte range of its quoted form.
type stringSite struct {
	Pointer    jsontext.Pointer
	Start, End int64
}

// stringSites lists every string value (not object name) in doc by its
// pointer. Duplicate names are refused, as everywhere hook-exec reads a
// document that decides what runs.
func stringSites(doc []byte) (map[jsontext.Pointer]stringSite, error) {
	d := jsontext.NewDecoder(bytes.NewReader(doc))
	sites := map[jsontext.Pointer]stringSite{}
	for {
		kind := d.PeekKind()
		if kind == 0 {
			break
		}
		if kind == '"' {
			v, err := d.ReadValue()
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrSyntax, err)
			}
			// In an object, an odd count after reading means a name.
			if k, n := d.StackIndex(d.StackDepth()); k == '{' && n%2 == 1 {
				continue
			}
			end := d.InputOffset()
			p := d.StackPointer()
			sites[p] = stringSite{Pointer: p, Start: end - int64(len(v)), End: end}
			continue
		}
		if _, err := d.ReadToken(); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrSyntax, err)
		}
	}
	if _, err := d.ReadToken(); err != io.EOF {
		if err == nil {
			err = errors.New("more than one value")
		}
		return nil, fmt.Errorf("%w: %w", ErrSyntax, err)
	}
	return sites, nil
}

// splice replaces each site's bytes in doc with its JSON text (the new
// quoted string, and what follows it); the rest of doc, its layout and
// comments, is kept byte for byte.
func splice(doc []byte, edits map[stringSite][]byte) []byte {
	sites := slices.Collect(maps.Keys(edits))
	// From the end, so that the offsets before each edit stay valid.
	slices.SortFunc(sites, func(a, b stringSite) int { return cmp.Compare(b.Start, a.Start) })
	out := bytes.Clone(doc)
	for _, s := range sites {
		out = slices.Concat(out[:s.Start], edits[s], out[s.End:])
	}
	return out
}
