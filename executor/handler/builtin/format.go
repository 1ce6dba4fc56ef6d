package builtin

import (
	"reflect"
	"strings"
	"unicode/utf8"
)

// checkFormat refuses a printf format whose width or precision, written
// in it or taken from an argument by *, is above maxWidth. It reads the
// format as fmt's doPrintf does (flags, [n] argument indexes, widths and
// precisions of digits or *, the verb), so that a * is checked against
// the very argument fmt takes for it; a reading that differs could let a
// large argument through as a width.
func checkFormat(format string, args []any) error {
	r := formatReader{format: format, args: args}
	for {
		j := strings.IndexByte(r.format[r.i:], '%')
		if j < 0 {
			return nil
		}
		r.i += j + 1
		r.good = true
		for r.i < len(r.format) && strings.IndexByte("#0+- ", r.format[r.i]) >= 0 {
			r.i++
		}
		// fmt's fast path (a lowercase verb right after the flags) takes
		// one argument, as this general reading does.
		r.index()
		if err := r.size("width"); err != nil {
			return err
		}
		if r.i+1 < len(r.format) && r.format[r.i] == '.' {
			r.i++
			if r.indexed { // "%[3].2d"
				r.good = false
			}
			r.index()
			if err := r.size("precision"); err != nil {
				return err
			}
		}
		if !r.indexed {
			r.index()
		}
		if r.i >= len(r.format) {
			return nil
		}
		verb, n := utf8.DecodeRuneInString(r.format[r.i:])
		r.i += n
		if verb != '%' && r.good && r.arg < len(r.args) {
			r.arg++
		}
	}
}

// formatReader is fmt's state while it reads a format: the position, the
// next argument, whether the verb's argument is good (a bad index makes
// the verb take none) and whether an index came last.
type formatReader struct {
	format  string
	args    []any
	i, arg  int
	good    bool
	indexed bool
}

// index reads an optional [n] (fmt's argNumber).
func (r *formatReader) index() {
	r.indexed = false
	if r.i >= len(r.format) || r.format[r.i] != '[' {
		return
	}
	n, width, ok := argNumber(r.format[r.i:])
	r.i += width
	r.indexed = ok
	if ok && n >= 0 && n < len(r.args) {
		r.arg = n
		return
	}
	r.good = false
}

// size reads a width or a precision, digits or *, and refuses it above
// maxWidth.
func (r *formatReader) size(what string) error {
	if r.i < len(r.format) && r.format[r.i] == '*' {
		r.i++
		r.indexed = false
		if r.arg >= len(r.args) {
			return nil
		}
		a := r.args[r.arg]
		r.arg++
		if n, ok := wideInt(a); ok {
			return &LimitError{Bound: what, Func: "printf", Max: maxWidth, Got: n}
		}
		return nil
	}
	n, present, next := parseNum(r.format, r.i)
	r.i = next
	if n > maxWidth {
		return &LimitError{Bound: what, Func: "printf", Max: maxWidth, Got: int64(n)}
	}
	if present && r.indexed && what == "width" { // "%[3]2d"
		r.good = false
	}
	return nil
}

// wideInt says whether a is an integer, as fmt takes for a *, above
// maxWidth either way, and what it is (saturated).
func wideInt(a any) (int64, bool) {
	v := reflect.ValueOf(a)
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n := v.Int()
		return n, n > maxWidth || n < -maxWidth
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		n := v.Uint()
		return int64(min(n, 1<<62)), n > maxWidth
	}
	return 0, false
}

// parseNum reads the digits at s[i:] as fmt's parsenum does: a number
// past a million is not one, and the reading jumps to the end.
func parseNum(s string, i int) (n int, present bool, next int) {
	for next = i; next < len(s) && '0' <= s[next] && s[next] <= '9'; next++ {
		if n > 1e6 {
			return n, false, len(s)
		}
		n = n*10 + int(s[next]-'0')
		present = true
	}
	return n, present, next
}

// argNumber reads the [n] at the start of s as fmt's parseArgNumber
// does: the zero-based index, the bytes read, whether it is one.
func argNumber(s string) (index, width int, ok bool) {
	if len(s) < 3 {
		return 0, 1, false
	}
	for i := 1; i < len(s); i++ {
		if s[i] == ']' {
			n, present, next := parseNum(s[:i], 1)
			if !present || next != i {
				return 0, i + 1, false
			}
			return n - 1, i + 1, true
		}
	}
	return 0, 1, false
}
