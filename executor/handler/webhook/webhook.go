// Package webhook posts a hook's event to an HTTPS endpoint (or plain HTTP
// to an explicit loopback URL, for local development) and returns its
// answer, the way the hook contract allows: no redirect is followed, no
// credential-bearing header is sent, TLS is always verified, the answer is
// capped, and the destination is checked on the address actually dialed,
// so a name that resolves (or re-resolves) to an address that is not
// globally reachable (the IANA special-purpose registries; IPv4 embedded
// in IPv6 judged as itself) is refused before any packet is sent to it.
package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/hookexec/hook-exec/internal/secretname"
)

var (
	// ErrURL: a webhook URL hook-exec will not post to.
	ErrURL = errors.New("webhook URL refused")
	// ErrHeader: a header a webhook definition may not carry.
	ErrHeader = errors.New("webhook header refused")
	// ErrDestination: the address a name resolved to is not a globally
	// reachable one (a *DestinationError says which class refused it).
	ErrDestination = errors.New("webhook destination refused")
	// ErrStatus: the endpoint answered with a status other than 2xx (a
	// redirect included: none is followed).
	ErrStatus = errors.New("webhook answered with an error status")
	// ErrTooLarge: the answer was longer than the cap.
	ErrTooLarge = errors.New("webhook answer too large")
)

// CheckURL accepts https URLs, and http only to an explicit loopback host
// (localhost, 127.0.0.0/8, ::1).
func CheckURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrURL, err)
	}
	if u.Host == "" || u.Opaque != "" {
		return nil, fmt.Errorf("%w: %q has no host", ErrURL, raw)
	}
	if u.User != nil {
		return nil, fmt.Errorf("%w: %q carries credentials in its URL", ErrURL, u.Redacted())
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !explicitLoopback(u.Hostname()) {
			return nil, fmt.Errorf("%w: %q: plain http only to an explicit loopback URL (http://127.0.0.1:PORT, http://localhost:PORT); use https", ErrURL, raw)
		}
	default:
		return nil, fmt.Errorf("%w: scheme %q: use https", ErrURL, u.Scheme)
	}
	return u, nil
}

func explicitLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.IsLoopback()
}

// credentialHeaders are refused whatever their value.
var credentialHeaders = []string{"authorization", "proxy-authorization", "cookie", "set-cookie"}

// CheckHeaders refuses credential-bearing headers: Authorization, Cookie,
// Proxy-Authorization, API-key style and any secret-like name.
func CheckHeaders(h map[string]string) error {
	for name := range h {
		n := strings.ToLower(name)
		if !validName(name) {
			return fmt.Errorf("%w: %q is not a header name", ErrHeader, name)
		}
		for _, c := range credentialHeaders {
			if n == c {
				return fmt.Errorf("%w: %s carries credentials: a hook definition holds none", ErrHeader, name)
			}
		}
		norm := strings.ReplaceAll(n, "-", "_")
		if strings.Contains(norm, "api_key") || strings.Contains(norm, "apikey") {
			return fmt.Errorf("%w: %s is an API-key header: a hook definition holds no credentials", ErrHeader, name)
		}
		if _, secret := secretname.Match(strings.ToUpper(norm)); secret {
			return fmt.Errorf("%w: %s has a secret-like name: a hook definition holds no credentials", ErrHeader, name)
		}
	}
	return nil
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c <= ' ' || c >= 0x7f || strings.ContainsRune("()<>@,;:\\\"/[]?={}", c) {
			return false
		}
	}
	return true
}

// Options are one post's.
type Options struct {
	URL     string
	Headers map[string]string
	// MaxAnswerBytes caps the answer's body.
	MaxAnswerBytes int64
	// LookupHost resolves a name (nil: the system's resolver). Tests
	// control it.
	LookupHost func(ctx context.Context, host string) ([]netip.Addr, error)
	// Dial connects to an address that passed the destination check
	// (nil: a net.Dialer with a 10 s timeout). Tests control it, so a
	// destination wrongly let through reaches the test, not the network.
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
	// RootCAs replaces the system's roots (tests with their own CA).
	RootCAs *x509.CertPool
}

// Post sends body (the event) and returns the answer's body. ctx bounds
// the whole exchange.
func Post(ctx context.Context, o Options, body []byte) ([]byte, error) {
	u, err := CheckURL(o.URL)
	if err != nil {
		return nil, err
	}
	if err := CheckHeaders(o.Headers); err != nil {
		return nil, err
	}
	loopbackOK := explicitLoopback(u.Hostname())
	lookup := o.LookupHost
	if lookup == nil {
		lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	dial := o.Dial
	if dial == nil {
		dial = (&net.Dialer{Timeout: 10 * time.Second}).DialContext
	}
	transport := &http.Transport{
		Proxy: nil, // a proxy would dial where this check cannot see
		// Resolve, check every address, dial the checked one: a second
		// resolution that could answer differently never happens.
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, port, err := net.SplitHostPort(addr)
			if err != nil {
				return nil, err
			}
			addrs := []netip.Addr{}
			if a, err := netip.ParseAddr(host); err == nil {
				addrs = append(addrs, a)
			} else if addrs, err = lookup(ctx, host); err != nil {
				return nil, fmt.Errorf("resolve %s: %w", host, err)
			}
			if len(addrs) == 0 {
				return nil, fmt.Errorf("resolve %s: no address", host)
			}
			for _, a := range addrs {
				if err := allowed(a, loopbackOK); err != nil {
					return nil, fmt.Errorf("%s: %w", host, err)
				}
			}
			return dial(ctx, network, net.JoinHostPort(addrs[0].Unmap().String(), port))
		},
		TLSClientConfig:       &tls.Config{RootCAs: o.RootCAs, MinVersion: tls.VersionTLS12},
		ForceAttemptHTTP2:     true,
		DisableKeepAlives:     true,
		ResponseHeaderTimeout: 0,
	}
	defer transport.CloseIdleConnections()
	client := &http.Client{
		Transport:     transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "hook-exec")
	for k, v := range o.Headers {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	max := o.MaxAnswerBytes
	if max <= 0 {
		max = 64 << 10
	}
	answer, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, fmt.Errorf("read the answer: %w", err)
	}
	if int64(len(answer)) > max {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, max)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		if loc := resp.Header.Get("Location"); loc != "" {
			return nil, fmt.Errorf("%w: %s (a redirect to %s: not followed)", ErrStatus, resp.Status, loc)
		}
		return nil, fmt.Errorf("%w: %s", ErrStatus, resp.Status)
	}
	return answer, nil
}
