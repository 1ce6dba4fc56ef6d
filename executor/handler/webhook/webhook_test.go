package webhook

import (
	"cmp"
	"context"
	"crypto/x509"
	"errors"
	"io"
	"net"
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

// TestDestinationCheckedOnResolvedAddress: through Post, every address a
// name resolves to is judged before any connection, and the checked
// address is the one dialed (the test's dialer records it and connects
// nowhere).
func TestDestinationCheckedOnResolvedAddress(t *testing.T) {
	t.Parallel()
	errNoNetwork := errors.New("the test's dialer connects nowhere")
	for _, tc := range []struct {
		name      string
		addrs     []string
		wantClass string // "" when the guard lets it through
		wantDial  string
	}{
		{"private", []string{"10.0.0.5"}, "Private-Use", ""},
		{"private among public", []string{"93.184.216.34", "192.168.1.1"}, "Private-Use", ""},
		{"NAT64 of cloud metadata", []string{"64:ff9b::a9fe:a9fe"}, "Link Local", ""},
		{"loopback for a public name", []string{"127.0.0.1"}, "Loopback", ""},
		{"public", []string{"93.184.216.34"}, "", "93.184.216.34:443"},
		{"IPv4-mapped public dialed as IPv4", []string{"::ffff:93.184.216.34"}, "", "93.184.216.34:443"},
		{"NAT64 of a public address", []string{"64:ff9b::5db8:d822"}, "", "[64:ff9b::5db8:d822]:443"},
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
			var dialed []string
			dial := func(_ context.Context, _, address string) (net.Conn, error) {
				dialed = append(dialed, address)
				return nil, errNoNetwork
			}
			_, err := Post(context.Background(), Options{URL: "https://hooks.example.test/x", LookupHost: lookup, Dial: dial}, nil)
			if tc.wantClass == "" {
				if !errors.Is(err, errNoNetwork) || len(dialed) != 1 || dialed[0] != tc.wantDial {
					t.Errorf("err = %v, dialed %q; want one dial to %s", err, dialed, tc.wantDial)
				}
				return
			}
			var de *DestinationError
			if !errors.As(err, &de) || de.Class != tc.wantClass || !errors.Is(err, ErrDestination) {
				t.Errorf("err = %v, want a DestinationError of class %q", err, tc.wantClass)
			}
			if len(dialed) != 0 {
				t.Errorf("dialed %q: a refused destination was connected to", dialed)
			}
		})
	}
}

// TestAllowed: the guard against the IANA special-purpose registries,
// with every IPv4 address an IPv6 address embeds judged as itself.
func TestAllowed(t *testing.T) {
	t.Parallel()
	const metadata = "169.254.169.254"
	for _, tc := range []struct {
		addr       string
		loopbackOK bool
		wantClass  string // "" when allowed
		embedded   string // the refused IPv4 inside addr, if any
	}{
		// Issue 31: each of these passed the old guard.
		{"64:ff9b::a9fe:a9fe", false, "Link Local", metadata},
		{"2002:a9fe:a9fe::1", false, "Link Local", metadata},
		{"::a9fe:a9fe", false, "Link Local", metadata},
		{"198.18.0.1", false, "Benchmarking", ""},
		{"0.1.2.3", false, "This network", ""},
		{"240.0.0.1", false, "Reserved", ""},
		{"192.0.0.170", false, "NAT64/DNS64 Discovery", ""},
		{"fec0::1", false, "Site-Local (deprecated)", ""},
		{"2001:0:a9fe:a9fe::1", false, "Link Local", metadata}, // Teredo server
		{"64:ff9b:1::a00:1", false, "This host on this network", "0.0.0.0"},
		// The embedding's own block, when what it embeds is public.
		{"64:ff9b:1:5db8:d8:2200::", false, "IPv4-IPv6 Translation (local-use)", ""},
		{"2002:5db8:d822::1", false, "6to4", ""},
		{"2001:0:5db8:d822::a247:27dd", false, "TEREDO", ""},
		{"2001:0:5db8:d822::f5ff:fffe", false, "Private-Use", "10.0.0.1"}, // Teredo client, inverted
		{"::5db8:d822", false, "IPv4-compatible (deprecated)", ""},
		{"64:ff9b::7f00:1", true, "Loopback", "127.0.0.1"}, // never the explicit loopback URL
		// The rest of the registries.
		{"10.0.0.5", false, "Private-Use", ""},
		{"172.16.0.1", false, "Private-Use", ""},
		{"192.168.1.1", false, "Private-Use", ""},
		{"100.64.0.1", false, "Shared Address Space", ""},
		{metadata, false, "Link Local", ""},
		{"127.0.0.1", false, "Loopback", ""},
		{"::ffff:127.0.0.1", false, "Loopback", ""},
		{"::1", false, "Loopback Address", ""},
		{"0.0.0.0", false, "This host on this network", ""},
		{"::", false, "Unspecified Address", ""},
		{"224.0.0.1", false, "Multicast", ""},
		{"ff02::1", false, "Multicast", ""},
		{"255.255.255.255", false, "Limited Broadcast", ""},
		{"192.0.0.1", false, "IPv4 Service Continuity Prefix", ""},
		{"192.0.0.200", false, "IETF Protocol Assignments", ""},
		{"192.0.2.1", false, "Documentation (TEST-NET-1)", ""},
		{"192.88.99.1", false, "Deprecated (6to4 Relay Anycast)", ""},
		{"fd00::1", false, "Unique-Local", ""},
		{"fe80::1", false, "Link-Local Unicast", ""},
		{"fe80::1%eth0", false, "a scoped address", ""},
		{"2001:db8::1", false, "Documentation", ""},
		{"2001:2::1", false, "Benchmarking", ""},
		{"100::1", false, "Discard-Only Address Block", ""},
		{"4000::1", false, "Reserved by IETF", ""},
		// Allowed: public, loopback named explicitly, and the registries'
		// globally reachable blocks nested in refused ones.
		{"93.184.216.34", false, "", ""},
		{"2606:4700::1111", false, "", ""},
		{"::ffff:93.184.216.34", false, "", ""},
		{"64:ff9b::5db8:d822", false, "", ""},
		{"127.0.0.1", true, "", ""},
		{"::ffff:127.0.0.1", true, "", ""},
		{"::1", true, "", ""},
		{"192.0.0.9", false, "", ""},
		{"2001:4:112::1", false, "", ""},
	} {
		a := netip.MustParseAddr(tc.addr)
		err := allowed(a, tc.loopbackOK)
		if tc.wantClass == "" {
			if err != nil {
				t.Errorf("allowed(%s, loopback %v) = %v, want allowed", a, tc.loopbackOK, err)
			}
			continue
		}
		var de *DestinationError
		if !errors.As(err, &de) || !errors.Is(err, ErrDestination) {
			t.Errorf("allowed(%s, loopback %v) = %v, want a DestinationError (%s)", a, tc.loopbackOK, err, tc.wantClass)
			continue
		}
		if de.Class != tc.wantClass || de.Embedded.String() != cmp.Or(tc.embedded, "invalid IP") {
			t.Errorf("allowed(%s) refused %s embedded %s (%v), want %s embedded %q", a, de.Class, de.Embedded, err, tc.wantClass, tc.embedded)
		}
	}
	if err := allowed(netip.Addr{}, false); err == nil {
		t.Error("the zero address was allowed")
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

// embeddedV4 is the test's own reading of RFC 4291, 6052, 8215, 3056 and
// 4380, byte by byte: the IPv4 addresses b carries, and whether it is an
// IPv4-mapped address (the IPv4 address itself).
func embeddedV4(b [16]byte) (v4s [][4]byte, mapped bool) {
	zero := func(bs ...byte) bool {
		for _, x := range bs {
			if x != 0 {
				return false
			}
		}
		return true
	}
	last := [4]byte{b[12], b[13], b[14], b[15]}
	switch {
	case zero(b[:10]...) && b[10] == 0xff && b[11] == 0xff:
		return [][4]byte{last}, true
	case zero(b[:12]...) && !(zero(b[12:15]...) && b[15] <= 1): // not :: or ::1
		return [][4]byte{last}, false
	case b[0] == 0 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b && zero(b[4:12]...):
		return [][4]byte{last}, false
	case b[0] == 0 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b && b[4] == 0 && b[5] == 1:
		return [][4]byte{{b[6], b[7], b[9], b[10]}}, false
	case b[0] == 0x20 && b[1] == 0x02:
		return [][4]byte{{b[2], b[3], b[4], b[5]}}, false
	case b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 && b[3] == 0:
		return [][4]byte{{b[4], b[5], b[6], b[7]}, {^b[12], ^b[13], ^b[14], ^b[15]}}, false
	}
	return nil, false
}

// FuzzAllowed: an address whose embedded IPv4 is refused is refused
// (whatever the loopback allowance: an embedded loopback is never the
// explicit loopback URL); a mapped address is judged as its IPv4; and
// nothing the standard library calls loopback, private, link-local,
// multicast or unspecified is ever let through without the allowance.
func FuzzAllowed(f *testing.F) {
	for _, s := range []string{"64:ff9b::a9fe:a9fe", "2002:a9fe:a9fe::1", "::a9fe:a9fe", "2001:0:a9fe:a9fe::1", "64:ff9b:1::a00:1",
		"fec0::1", "::ffff:127.0.0.1", "::1", "::", "2606:4700::1111", "64:ff9b::5db8:d822", "2001:0:5db8:d822::f5ff:fffe", "fe80::1"} {
		b := netip.MustParseAddr(s).As16()
		f.Add(b[:], false)
		f.Add(b[:], true)
	}
	f.Fuzz(func(t *testing.T, raw []byte, loopbackOK bool) {
		if len(raw) != 16 {
			return
		}
		b := [16]byte(raw)
		a := netip.AddrFrom16(b)
		err := allowed(a, loopbackOK)
		v4s, mapped := embeddedV4(b)
		for _, v4 := range v4s {
			in := netip.AddrFrom4(v4)
			if mapped {
				if (allowed(in, loopbackOK) == nil) != (err == nil) {
					t.Fatalf("%s: %v, but the IPv4 it maps, %s: %v", a, err, in, allowed(in, loopbackOK))
				}
			} else if allowed(in, false) != nil && err == nil {
				t.Fatalf("%s allowed, but it embeds %s: %v", a, in, allowed(in, false))
			}
		}
		u := a.Unmap()
		if err == nil && !loopbackOK && (u.IsLoopback() || u.IsPrivate() || u.IsLinkLocalUnicast() || u.IsMulticast() || u.IsUnspecified()) {
			t.Fatalf("%s allowed", a)
		}
		if err != nil && !errors.Is(err, ErrDestination) {
			t.Fatalf("%s: %v is not ErrDestination", a, err)
		}
	})
}
