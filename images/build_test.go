package images

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A package is pinned to the newest version a source serves: an installed
// version no source has (a vendor's nodejs) is passed over, and a source
// package's line is not a binary's.
func TestParseMadison(t *testing.T) {
	t.Parallel()
	out := `    nodejs | 18.20.4+dfsg-1~deb12u3 | http://deb.debian.org/debian-security bookworm-security/main amd64 Packages
    nodejs | 18.20.4+dfsg-1~deb12u2 | http://deb.debian.org/debian bookworm/main amd64 Packages
    nodejs | 18.20.4+dfsg-1~deb12u2 | http://deb.debian.org/debian bookworm/main Sources
     libc6 | 2.36-9+deb12u14 | http://deb.debian.org/debian bookworm/main amd64 Packages
     libc6 | 2.36-9+deb12u7 | http://deb.debian.org/debian-security bookworm-security/main amd64 Packages
`
	got, err := parseMadison([]byte(out), []string{"nodejs", "libc6"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"nodejs": "18.20.4+dfsg-1~deb12u3", "libc6": "2.36-9+deb12u14"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := parseMadison([]byte(out), []string{"nodejs", "libnode108"}); err == nil || !strings.Contains(err.Error(), "[libnode108]") {
		t.Errorf("a package no source serves: err %v, want it named", err)
	}
}
