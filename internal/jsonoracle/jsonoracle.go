// Package jsonoracle is a second, independent exact JSON reader for the
// differential fuzz targets: written on the standard library's token
// stream, not on the decoder hook-exec uses, so that the two can disagree.
package jsonoracle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// Read reads one JSON value exactly: a duplicate member name at any depth,
// or anything after the value, is an error. It returns the value (objects
// as map[string]any, numbers as json.Number) and the member names of every
// object by its path ("" for the top, "/0/handler" ...), in order.
func Read(b []byte) (any, map[string][]string, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	members := map[string][]string{}
	var walk func(path string) (any, error)
	walk = func(path string) (any, error) {
		tok, err := d.Token()
		if err != nil {
			return nil, err
		}
		switch tok {
		case json.Delim('{'):
			m := map[string]any{}
			for d.More() {
				k, err := d.Token()
				if err != nil {
					return nil, err
				}
				name := k.(string)
				if _, dup := m[name]; dup {
					return nil, fmt.Errorf("duplicate %q at %q", name, path)
				}
				members[path] = append(members[path], name)
				if m[name], err = walk(path + "/" + name); err != nil {
					return nil, err
				}
			}
			_, err := d.Token()
			return m, err
		case json.Delim('['):
			l := []any{}
			for i := 0; d.More(); i++ {
				v, err := walk(fmt.Sprintf("%s/%d", path, i))
				if err != nil {
					return nil, err
				}
				l = append(l, v)
			}
			_, err := d.Token()
			return l, err
		}
		return tok, nil
	}
	v, err := walk("")
	if err != nil {
		return nil, nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, nil, fmt.Errorf("data after the value")
	}
	return v, members, nil
}
