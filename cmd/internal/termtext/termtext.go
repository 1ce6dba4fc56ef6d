// Package termtext makes untrusted strings safe to print on a terminal.
// A hook document, a plugin's hooks.json or a hook's output can hold
// control characters (a carriage return, ESC[2K, ESC[8m) that rewrite what
// a terminal shows, and format characters (bidi overrides, zero-width
// joiners) that make two different strings look the same: a consent
// prompt must show what will run, byte for byte.
package termtext

import (
	"fmt"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Escape returns s as it may reach a terminal: each rune that is not
// printable in Go's sense (strconv.IsPrint: C0, DEL, C1, format characters
// such as the bidi controls U+202A-U+202E and U+2066-U+2069 and the
// zero-width ones, line and paragraph separators, spaces other than U+0020,
// private use, unassigned) becomes its Go escape (\r, \x1b, \u202e), each
// byte of invalid UTF-8 becomes \xNN, and a backslash becomes \\. Printable
// runes stay as they are. The escaping is one to one: two different
// strings never print the same (strconv.Unquote reads s back, once its
// double quotes are escaped).
func Escape(s string) string {
	if plain(s) {
		return s
	}
	b := make([]byte, 0, len(s)+16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b = append(b, `\x`...)
			b = append(b, hex[s[i]>>4], hex[s[i]&0xf])
		case r == '\\':
			b = append(b, `\\`...)
		case shown(r):
			b = append(b, s[i:i+n]...)
		case strconv.IsPrint(r) && r > 0xffff: // printable, and shows as nothing
			b = fmt.Appendf(b, `\U%08x`, r)
		case strconv.IsPrint(r):
			b = fmt.Appendf(b, `\u%04x`, r)
		default:
			q := strconv.QuoteRune(r) // '\x1b', '\u202e': the escape between the quotes
			b = append(b, q[1:len(q)-1]...)
		}
		i += n
	}
	return string(b)
}

const hex = "0123456789abcdef"

// plain says whether Escape would return s unchanged: the common case,
// without an allocation.
func plain(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < ' ' || c == 0x7f || c == '\\' {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || !shown(r) {
			return false
		}
		i += n
	}
	return true
}

// EscapeJSON returns the JSON text b with every rune that JSON encoders
// leave raw and Escape would not print (DEL, C1, bidi and other format
// characters, ...) written as a \uXXXX escape (a surrogate pair beyond
// U+FFFF), so that JSON output reaches a terminal as safely as text while
// it still decodes to exactly the same values. Outside its strings valid
// JSON holds only ASCII (and encoders escape C0 inside them), so only the
// insides of strings change. A byte of invalid UTF-8, which valid JSON
// cannot hold, becomes \ufffd.
func EscapeJSON(b []byte) []byte {
	i := 0
	for i < len(b) && b[i] < 0x7f {
		i++
	}
	if i == len(b) {
		return b
	}
	out := append(make([]byte, 0, len(b)+16), b[:i]...)
	for i < len(b) {
		if c := b[i]; c < 0x7f {
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			out = appendU(out, utf8.RuneError)
		case shown(r):
			out = append(out, b[i:i+n]...)
		case r > 0xffff:
			hi, lo := utf16.EncodeRune(r)
			out = appendU(appendU(out, hi), lo)
		default:
			out = appendU(out, r)
		}
		i += n
	}
	return out
}

// appendU appends the JSON escape \uXXXX of a rune of the BMP (or of one
// half of a surrogate pair).
func appendU(b []byte, r rune) []byte {
	return append(b, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
}

// shown reports whether a rune shows on a terminal as itself: printable in
// Go's sense, and not one of the printable runes that show as nothing or
// as blank space (Unicode's other default-ignorable code points such as
// the combining grapheme joiner U+034F and the Hangul fillers, the
// variation selectors, the Braille blank U+2800): with one, a script's name
// could look like another's.
func shown(r rune) bool {
	return strconv.IsPrint(r) && !unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) &&
		!unicode.Is(unicode.Variation_Selector, r) && r != 0x2800
}
