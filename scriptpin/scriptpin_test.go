package scriptpin

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, dir, name string, b []byte) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCheckRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		file string
		body []byte
		want error
	}{
		{"plain sh", "a.sh", []byte("echo hi\n"), nil},
		{"plain py", "a.py", []byte("print('hi')\n"), nil},
		{"empty", "a.sh", nil, nil},
		{"exactly 16 KiB", "a.sh", bytes.Repeat([]byte("a"), 16384), nil},
		{"16 KiB + 1", "a.sh", bytes.Repeat([]byte("a"), 16385), ErrTooLarge},
		{"bom", "a.py", []byte("\xef\xbb\xbfprint(1)\n"), ErrBOM},
		{"invalid utf-8", "a.py", []byte("print('\xff')\n"), ErrNotUTF8},
		{"nul", "a.py", []byte("print(1)\x00\n"), ErrNUL},
		{"crlf sh", "a.sh", []byte("echo hi\r\n"), ErrCRLF},
		{"crlf py allowed", "a.py", []byte("print(1)\r\n"), nil},
		{"lone cr sh allowed", "a.sh", []byte("echo '\r'\n"), nil},
		{"extension", "a.rb", []byte("puts 1\n"), ErrExtension},
		{"no extension", "hook", []byte("echo\n"), ErrExtension},
		{"upper extension", "a.SH", []byte("echo\n"), ErrExtension},
		{"utf-8 text", "a.sh", []byte("echo 'héllo ✓'\n"), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Check(tc.file, tc.body)
			if !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
				t.Fatalf("Check(%q) = %v, want %v", tc.file, err, tc.want)
			}
		})
	}
}

func TestReadPathRules(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	writeFile(t, outside, "evil.sh", []byte("echo evil\n"))
	dir := t.TempDir()
	writeFile(t, dir, "ok.sh", []byte("echo ok\n"))
	writeFile(t, dir, "sub/ok.py", []byte("print(1)\n"))
	writeFile(t, dir, "big.sh", bytes.Repeat([]byte("#"), 16385))
	writeFile(t, dir, "exact.sh", bytes.Repeat([]byte("#"), 16384))
	must(t, os.Symlink("ok.sh", filepath.Join(dir, "link.sh")))
	must(t, os.Symlink(outside, filepath.Join(dir, "linkdir")))
	must(t, os.Symlink(filepath.Join(outside, "evil.sh"), filepath.Join(dir, "abs-link.sh")))
	must(t, os.Link(filepath.Join(dir, "ok.sh"), filepath.Join(dir, "hard.sh")))
	must(t, os.Mkdir(filepath.Join(dir, "dir.sh"), 0o755))
	writeFile(t, dir, "notdir", []byte("x"))

	tests := []struct {
		rel  string
		want error
	}{
		{"ok.sh", ErrLink}, // ok.sh has a second hard link (hard.sh)
		{"sub/ok.py", nil},
		{"./sub/ok.py", nil},
		{"exact.sh", nil},
		{"big.sh", ErrTooLarge},
		{"link.sh", ErrLink},
		{"abs-link.sh", ErrLink},
		{"linkdir/evil.sh", ErrLink},
		{"hard.sh", ErrLink},
		{"dir.sh", ErrNotRegular},
		{"notdir/x.sh", ErrNotRegular},
		{filepath.Join(dir, "sub/ok.py"), ErrAbsolute},
		{"../x.sh", ErrEscape},
		{"sub/../sub/ok.py", ErrEscape},
		{"", ErrExtension},
		{"missing.sh", os.ErrNotExist},
		{"sub/ok.txt", ErrExtension},
	}
	for _, tc := range tests {
		t.Run(tc.rel, func(t *testing.T) {
			t.Parallel()
			s, err := Read(dir, tc.rel)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Read(%q): %v", tc.rel, err)
				}
				if s.Lang == "" {
					t.Errorf("Read(%q): no language", tc.rel)
				}
				if len(s.Bytes) == 0 {
					t.Errorf("Read(%q): no bytes", tc.rel)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("Read(%q) = %v, want %v", tc.rel, err, tc.want)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestLoadRecheck(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	body := []byte("echo approved\n")
	writeFile(t, dir, "hook.sh", body)
	pin, err := Read(dir, "hook.sh")
	must(t, err)

	s, err := Load(dir, "hook.sh", pin.SHA256)
	must(t, err)
	if !bytes.Equal(s.Bytes, body) {
		t.Errorf("Load returned %q, want %q", s.Bytes, body)
	}
	if s.SHA256 != pin.SHA256 {
		t.Errorf("Load: sha256 = %s, want the pin's %s", s.SHA256, pin.SHA256)
	}

	t.Run("one byte changed", func(t *testing.T) {
		d := t.TempDir()
		writeFile(t, d, "hook.sh", body)
		p, err := Read(d, "hook.sh")
		must(t, err)
		changed := bytes.Clone(body)
		changed[0] = 'E'
		writeFile(t, d, "hook.sh", changed)
		if _, err := Load(d, "hook.sh", p.SHA256); !errors.Is(err, ErrChanged) {
			t.Fatalf("Load after a one-byte change = %v, want ErrChanged", err)
		}
	})
	t.Run("swapped for a symlink", func(t *testing.T) {
		d := t.TempDir()
		writeFile(t, d, "hook.sh", body)
		p, err := Read(d, "hook.sh")
		must(t, err)
		// Same content behind a link: still refused, the link is the problem.
		writeFile(t, d, "real.sh", body)
		must(t, os.Remove(filepath.Join(d, "hook.sh")))
		must(t, os.Symlink("real.sh", filepath.Join(d, "hook.sh")))
		if _, err := Load(d, "hook.sh", p.SHA256); !errors.Is(err, ErrLink) {
			t.Fatalf("Load after a symlink swap = %v, want ErrLink", err)
		}
	})
	t.Run("grown past the limit", func(t *testing.T) {
		d := t.TempDir()
		writeFile(t, d, "hook.sh", body)
		p, err := Read(d, "hook.sh")
		must(t, err)
		writeFile(t, d, "hook.sh", append(bytes.Clone(body), bytes.Repeat([]byte("#"), 16384)...))
		if _, err := Load(d, "hook.sh", p.SHA256); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("Load after growth = %v, want ErrTooLarge", err)
		}
	})
}

func TestParseDigest(t *testing.T) {
	t.Parallel()
	d, err := ParseDigest(strings.Repeat("ab", 32))
	must(t, err)
	if d.String() != strings.Repeat("ab", 32) {
		t.Fatalf("round trip: %s", d)
	}
	for _, bad := range []string{"", "ab", strings.Repeat("zz", 32), strings.Repeat("ab", 33)} {
		if _, err := ParseDigest(bad); err == nil {
			t.Errorf("ParseDigest(%q) accepted", bad)
		}
	}
}

// The 16 KiB bound is Holaryn's plugin rule; the hosts that run a file by
// its #! line set none, and their guards run longer (1 MiB here).
func TestHostScriptBound(t *testing.T) {
	t.Parallel()
	long := append([]byte("#!/usr/bin/env python3\n"), bytes.Repeat([]byte("#"), 16385)...)
	if _, err := CheckShebang("guard.py", long); err != nil {
		t.Fatalf("a 16 KiB + 1 guard of a host: %v", err)
	}
	if _, err := Check("guard.py", long); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("a 16 KiB + 1 Holaryn script: %v, want ErrTooLarge", err)
	}
	huge := append([]byte("#!/bin/sh\n"), bytes.Repeat([]byte("#"), MaxHostScriptBytes)...)
	if _, err := CheckShebang("guard.sh", huge); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("a guard over 1 MiB: %v, want ErrTooLarge", err)
	}
}
