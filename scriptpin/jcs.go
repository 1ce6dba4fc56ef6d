package scriptpin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// ErrDocument is the class of every refusal of a hook document.
var ErrDocument = errors.New("invalid hook document")

// maxDepth bounds nesting so a hostile document cannot exhaust the stack.
const maxDepth = 64

// parseDocument parses JSON strictly: exactly one value, valid UTF-8, no
// duplicate member names, finite numbers only. Objects become
// map[string]any, numbers json.Number.
func parseDocument(b []byte) (any, error) {
	if !utf8.Valid(b) {
		return nil, fmt.Errorf("%w: not valid UTF-8", ErrDocument)
	}
	// RFC 8785 works on I-JSON: a lone surrogate escape (\ud800) is not a
	// character, and the standard decoder would turn it into U+FFFD, giving
	// two different documents one digest.
	if err := checkSurrogates(b); err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	v, err := parseValue(d, 0)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: data after the top-level value", ErrDocument)
	}
	return v, nil
}

// checkSurrogates refuses a \uD800-\uDFFF escape that is not half of a
// high-low pair, inside any string of b.
func checkSurrogates(b []byte) error {
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case !inString:
			inString = c == '"'
		case c == '"':
			inString = false
		case c == '\\' && i+1 < len(b) && b[i+1] != 'u':
			i++ // a two-character escape
		case c == '\\' && i+5 < len(b):
			r, err := strconv.ParseUint(string(b[i+2:i+6]), 16, 32)
			if err != nil {
				return nil // the decoder reports the bad escape
			}
			i += 5
			switch {
			case r >= 0xDC00 && r <= 0xDFFF:
				return fmt.Errorf("%w: a lone low surrogate escape \\u%04x", ErrDocument, r)
			case r >= 0xD800 && r <= 0xDBFF:
				if i+6 >= len(b) || b[i+1] != '\\' || b[i+2] != 'u' {
					return fmt.Errorf("%w: a lone high surrogate escape \\u%04x", ErrDocument, r)
				}
				lo, err := strconv.ParseUint(string(b[i+3:i+7]), 16, 32)
				if err != nil || lo < 0xDC00 || lo > 0xDFFF {
					return fmt.Errorf("%w: a lone high surrogate escape \\u%04x", ErrDocument, r)
				}
				i += 6
			}
		}
	}
	return nil
}

func parseValue(d *json.Decoder, depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("%w: nested deeper than %d", ErrDocument, maxDepth)
	}
	tok, err := d.Token()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDocument, err)
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			m := map[string]any{}
			for d.More() {
				kt, err := d.Token()
				if err != nil {
					return nil, fmt.Errorf("%w: %w", ErrDocument, err)
				}
				k := kt.(string)
				if _, dup := m[k]; dup {
					return nil, fmt.Errorf("%w: duplicate member %q", ErrDocument, k)
				}
				if m[k], err = parseValue(d, depth+1); err != nil {
					return nil, err
				}
			}
			_, err := d.Token() // '}'
			return m, err
		case '[':
			a := []any{}
			for d.More() {
				v, err := parseValue(d, depth+1)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := d.Token() // ']'
			return a, err
		}
		return nil, fmt.Errorf("%w: unexpected %v", ErrDocument, t)
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, fmt.Errorf("%w: number %s is not finite", ErrDocument, t)
		}
		return t, nil
	default: // string, bool, nil
		return t, nil
	}
}

// Canonicalize returns the RFC 8785 (JCS) form of a JSON document.
func Canonicalize(doc []byte) ([]byte, error) {
	v, err := parseDocument(doc)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	writeCanonical(&buf, v)
	return buf.Bytes(), nil
}

// writeCanonical encodes a value produced by parseDocument (or built of the
// same types) in JCS form.
func writeCanonical(w *bytes.Buffer, v any) {
	switch t := v.(type) {
	case nil:
		w.WriteString("null")
	case bool:
		w.WriteString(strconv.FormatBool(t))
	case json.Number:
		f, _ := strconv.ParseFloat(string(t), 64) // checked finite when parsed
		w.WriteString(formatES(f))
	case string:
		writeString(w, t)
	case []any:
		w.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				w.WriteByte(',')
			}
			writeCanonical(w, e)
		}
		w.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, compareUTF16)
		w.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				w.WriteByte(',')
			}
			writeString(w, k)
			w.WriteByte(':')
			writeCanonical(w, t[k])
		}
		w.WriteByte('}')
	default:
		panic(fmt.Sprintf("scriptpin: cannot canonicalize %T", v))
	}
}

// compareUTF16 orders strings by their UTF-16 code units, as RFC 8785 says.
func compareUTF16(a, b string) int {
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}

func writeString(w *bytes.Buffer, s string) {
	w.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			w.WriteString(`\"`)
		case '\\':
			w.WriteString(`\\`)
		case '\b':
			w.WriteString(`\b`)
		case '\f':
			w.WriteString(`\f`)
		case '\n':
			w.WriteString(`\n`)
		case '\r':
			w.WriteString(`\r`)
		case '\t':
			w.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(w, `\u%04x`, r)
			} else {
				w.WriteRune(r)
			}
		}
	}
	w.WriteByte('"')
}

// formatES formats a finite float64 as ECMAScript's Number.prototype.toString
// does (RFC 8785 section 3.2.2.3).
func formatES(f float64) string {
	if f == 0 {
		return "0" // also -0
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	// Shortest round-trip digits and the decimal exponent.
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddddde±XX
	mant, expStr, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	exp, _ := strconv.Atoi(expStr)
	k, n := len(digits), exp+1
	var out string
	switch {
	case k <= n && n <= 21:
		out = digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		out = digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		out = "0." + strings.Repeat("0", -n) + digits
	default:
		out = digits[:1]
		if k > 1 {
			out += "." + digits[1:]
		}
		if n-1 >= 0 {
			out += "e+" + strconv.Itoa(n-1)
		} else {
			out += "e" + strconv.Itoa(n-1)
		}
	}
	return sign + out
}
