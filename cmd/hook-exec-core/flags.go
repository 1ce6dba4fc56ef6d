package main

import (
	"errors"
	"strconv"

	units "github.com/docker/go-units"
)

// Flag values that are checked when they are parsed, so that a bad value
// is a usage error naming the flag.

// bytesValue is a size flag (256MiB, 1g) checked when it is parsed.
type bytesValue struct {
	n *int64
	s string
}

func (v *bytesValue) String() string { return v.s }
func (v *bytesValue) Type() string   { return "size" }
func (v *bytesValue) Set(s string) error {
	n, err := units.RAMInBytes(s)
	if err != nil {
		return err
	}
	if n <= 0 {
		return errors.New("must be more than 0 bytes")
	}
	*v.n, v.s = n, s
	return nil
}

// countValue is a positive count checked when it is parsed.
type countValue struct{ n *int64 }

func (v *countValue) String() string { return strconv.FormatInt(*v.n, 10) }
func (v *countValue) Type() string   { return "int" }
func (v *countValue) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return errors.New("not a whole number")
	}
	if n <= 0 {
		return errors.New("must be at least 1")
	}
	*v.n = n
	return nil
}

// cpusValue is a CPU count (1, 0.5) kept in billionths.
type cpusValue struct{ nano *int64 }

func (v *cpusValue) String() string { return strconv.FormatFloat(float64(*v.nano)/1e9, 'f', -1, 64) }
func (v *cpusValue) Type() string   { return "float" }
func (v *cpusValue) Set(s string) error {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return errors.New("not a number")
	}
	if !(f >= 0.01 && f <= 1024) {
		return errors.New("must be between 0.01 and 1024")
	}
	*v.nano = int64(f * 1e9)
	return nil
}
