package webhook

import (
	"context"
	"crypto/x509"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const allowJSON = `{"schema_version":1,"action":"allow"}`

func TestPostLoopbackHTTP(t *testing.T) {
	t.Parallel()
	var got []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ = io.ReadAll(r.Body)
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "want a JSON POST", 400)
			return
		}
		io.WriteString(w, allowJSON)
	}))
	defer srv.Close()
	answer, err := Post(context.Background(), Options{URL: srv.URL, Headers: map[string]string{"X-Hook": "guard"}}, []byte(`{"e":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if string(answer) != allowJSON {
		t.Errorf("answer %q", answer)
	}
	if string(got) != `{"e":1}` {
		t.Errorf("the server got %q, want the event", got)
	}
}

func TestPostTLSVerified(t *testing.T) {
	t.Parallel()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, allowJSON) }))
	defer srv.Close()
	if _, err := Post(context.Background(), Options{URL: srv.URL}, nil); err == nil {
		t.Fatal("a certificate from an unknown CA was accepted: verification is off")
	}
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	answer, err := Post(context.Background(), Options{URL: srv.URL, RootCAs: pool}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(answer) != allowJSON {
		t.Errorf("answer %q", answer)
	}
}

func TestRedirectNotFollowed(t *testing.T) {
	t.Parallel()
	var reached atomic.Bool
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { reached.Store(true); io.WriteString(w, allowJSON) }))
	defer target.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL, http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	_, err := Post(context.Background(), Options{URL: srv.URL}, nil)
	if !errors.Is(err, ErrStatus) || !strings.Contains(err.Error(), "not followed") {
		t.Errorf("err = %v, want ErrStatus naming the redirect not followed", err)
	}
	if reached.Load() {
		t.Error("the redirect was followed")
	}
}

func TestDestinationCheckedOnResolvedAddress(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		addrs []string
		want  string
	}{
		{"private", []string{"10.0.0.5"}, "private"},
		{"private among public", []string{"93.184.216.34", "192.168.1.1"}, "private"},
		{"unique-local", []string{"fd00::1"}, "private"},
		{"link-local (cloud metadata)", []string{"169.254.169.254"}, "link-local"},
		{"loopback for a public name", []string{"127.0.0.1"}, "loopback"},
		{"IPv4-mapped loopback", []string{"::ffff:127.0.0.1"}, "loopback"},
		{"unspecified", []string{"0.0.0.0"}, "unspecified"},
		{"multicast", []string{"224.0.0.1"}, "multicast"},
		{"shared address space", []string{"100.64.0.1"}, "shared"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lookup := func(context.Context, string) ([]netip.Addr, error) {
				var out []netip.Addr
				for _, a := range tc.addrs {
					out = append(out, netip.MustParseAddr(a))
				}
				return out, nil
			}
			_, err := Post(context.Background(), Options{URL: "https://hooks.example.test/x", LookupHost: lookup}, nil)
			if !errors.Is(err, ErrDestination) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want ErrDestination (%s) before any connection", err, tc.want)
			}
		})
	}
}

func TestURLAndHeaderRefusals(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"http://example.com/h", "ftp://127.0.0.1/", "https://user:pw@example.com/", "/relative", "http://10.0.0.1/"} {
		if _, err := CheckURL(u); !errors.Is(err, ErrURL) {
			t.Errorf("CheckURL(%q) = %v, want ErrURL", u, err)
		}
	}
	for _, u := range []string{"https://example.com/h", "http://127.0.0.1:8080/h", "http://localhost:9/", "http://[::1]:9/"} {
		if _, err := CheckURL(u); err != nil {
			t.Errorf("CheckURL(%q) = %v", u, err)
		}
	}
	for _, h := range []string{"Authorization", "cookie", "Proxy-Authorization", "X-API-Key", "X-Api-Key", "Apikey", "X-Auth-Token", "GitHub-Token", "X-Secret", "Bad Name"} {
		if err := CheckHeaders(map[string]string{h: "v"}); !errors.Is(err, ErrHeader) {
			t.Errorf("header %q accepted: %v", h, err)
		}
	}
	if err := CheckHeaders(map[string]string{"X-Hook-Name": "guard", "Content-Language": "en"}); err != nil {
		t.Errorf("ordinary headers refused: %v", err)
	}
}

func TestAnswerCappedAndTimeBounded(t *testing.T) {
	t.Parallel()
	big := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write(make([]byte, 2048)) }))
	defer big.Close()
	if _, err := Post(context.Background(), Options{URL: big.URL, MaxAnswerBytes: 1024}, nil); !errors.Is(err, ErrTooLarge) {
		t.Errorf("err = %v, want ErrTooLarge", err)
	}
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}))
	defer slow.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := Post(ctx, Options{URL: slow.URL}, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want the deadline", err)
	}
}

func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{"https://example.com/h", "http://127.0.0.1:1/", "http://example.com", "http://[::1]/", "http://0x7f.1/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := CheckURL(s)
		if err != nil {
			return
		}
		if u.Scheme == "http" && !explicitLoopback(u.Hostname()) {
			t.Fatalf("plain http to %q accepted", u.Hostname())
		}
		if u.User != nil {
			t.Fatalf("credentials in %q accepted", s)
		}
	})
}
