package install

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
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
	els, err := layout(doc)
	if err != nil {
		return nil, err
	}
	sites := map[jsontext.Pointer]stringSite{}
	for p, e := range els {
		if doc[e.Value] == '"' {
			sites[p] = stringSite{Pointer: p, Start: e.Value, End: e.End}
		}
	}
	return sites, nil
}

// splice replaces each site's bytes in doc with its JSON text (the new
// quoted string, and what follows it); the rest of doc, its layout and
// comments, is kept byte for byte.
func splice(doc []byte, edits map[stringSite][]byte) []byte {
	var list []edit
	for s, text := range edits {
		list = append(list, edit{Start: s.Start, End: s.End, Text: text})
	}
	out, _ := applyEdits(doc, list) // sites of one document never overlap
	return out
}

// element is where one value lies in a document: Start is its member's
// name in an object (its own start in an array), Value its first byte,
// End the byte after it; a container's Close is its closing bracket and
// Kids its elements in order.
type element struct {
	Start, Value, End, Close int64
	Kids                     []jsontext.Pointer
}

// layout maps every value of doc (comments blanked) by its pointer to
// where it lies, for edits that add or remove a member and keep the rest
// of the document byte for byte.
// maxDepth bounds how deep a host's file may nest: the hooks sit at
// depth 6, and no configuration nests anywhere near this.
const maxDepth = 64

func layout(doc []byte) (map[jsontext.Pointer]*element, error) {
	d := jsontext.NewDecoder(bytes.NewReader(doc))
	els := map[jsontext.Pointer]*element{}
	var open []*element
	name := int64(-1)
	for first := true; first || d.StackDepth() > 0; first = false {
		pos := skipSeparators(doc, d.InputOffset())
		tok, err := d.ReadToken()
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrSyntax, err)
		}
		kind := tok.Kind()
		if kind == '}' || kind == ']' {
			e := open[len(open)-1]
			open = open[:len(open)-1]
			e.Close, e.End = pos, d.InputOffset()
			continue
		}
		if k, n := d.StackIndex(d.StackDepth()); kind == '"' && k == '{' && n%2 == 1 {
			name = pos
			continue
		}
		ptr := d.StackPointer()
		e := &element{Start: pos, Value: pos, End: d.InputOffset()}
		if name >= 0 {
			e.Start, name = name, -1
		}
		if len(open) > 0 {
			parent := open[len(open)-1]
			parent.Kids = append(parent.Kids, ptr)
		}
		els[ptr] = e
		if kind == '{' || kind == '[' {
			if len(open) >= maxDepth {
				// Each element's pointer names every one above it: a deep
				// document costs its depth times its length (round 5: a
				// 4 MiB one nested 1,800 deep took a minute and 5 GB).
				return nil, fmt.Errorf("%w: nested deeper than %d", ErrSyntax, maxDepth)
			}
			open = append(open, e)
		}
	}
	if _, err := d.ReadToken(); err != io.EOF {
		if err == nil {
			err = errors.New("more than one value")
		}
		return nil, fmt.Errorf("%w: %w", ErrSyntax, err)
	}
	return els, nil
}

// skipSeparators is the offset of the first byte at or after off that is
// not blank, a comma or a colon: where the next token starts.
func skipSeparators(doc []byte, off int64) int64 {
	for off < int64(len(doc)) && bytes.IndexByte([]byte(" \t\r\n,:"), doc[off]) >= 0 {
		off++
	}
	return off
}

// edit replaces doc[Start:End] with Text.
type edit struct {
	Start, End int64
	Text       []byte
}

// cut is the edit that removes the element at ptr from its container,
// with the comma that separated it: the previous element then ends where
// this one did, or (the first) the next starts where it did.
func cut(els map[jsontext.Pointer]*element, ptr jsontext.Pointer) edit {
	parent, e := els[ptr.Parent()], els[ptr]
	switch i := slices.Index(parent.Kids, ptr); {
	case len(parent.Kids) == 1:
		return edit{Start: parent.Value + 1, End: parent.Close}
	case i > 0:
		return edit{Start: els[parent.Kids[i-1]].End, End: e.End}
	default:
		return edit{Start: e.Start, End: els[parent.Kids[1]].Start}
	}
}

// applyEdits makes each edit of doc, which must not overlap; the rest of
// doc is kept byte for byte.
func applyEdits(doc []byte, edits []edit) ([]byte, error) {
	edits = slices.Clone(edits)
	// From the end, so that the offsets before each edit stay valid.
	slices.SortFunc(edits, func(a, b edit) int { return cmp.Compare(b.Start, a.Start) })
	out := bytes.Clone(doc)
	for i, e := range edits {
		if i > 0 && e.End > edits[i-1].Start {
			return nil, fmt.Errorf("edits at bytes %d and %d overlap", e.Start, edits[i-1].Start)
		}
		out = slices.Concat(out[:e.Start], e.Text, out[e.End:])
	}
	return out, nil
}
