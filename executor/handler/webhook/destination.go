package webhook

import (
	"fmt"
	"net/netip"
	"strings"
)

// block is one entry of the special-purpose address registries.
type block struct {
	prefix netip.Prefix
	name   string // the registry's name for it
	rfc    string
	// global is the registry's "Globally Reachable". A block the registry
	// marks N/A is refused here (see 6to4 and Teredo below).
	global bool
}

func (b block) String() string { return fmt.Sprintf("%s, %s, %s", b.name, b.prefix, b.rfc) }

func entry(prefix, name, rfc string, global bool) block {
	return block{netip.MustParsePrefix(prefix), name, rfc, global}
}

// blocks are the IANA IPv4 and IPv6 Special-Purpose Address Registries
// (RFC 6890, BCP 153):
//
//	https://www.iana.org/assignments/iana-ipv4-special-registry/
//	https://www.iana.org/assignments/iana-ipv6-special-registry/
//
// every entry, with its "Globally Reachable" column, plus what the IPv4
// Multicast and IPv6 Address Space registries set apart (marked below).
// An address is judged by the longest prefix that contains it, as the
// registries nest entries (192.0.0.9/32 is globally reachable inside
// 192.0.0.0/24, which is not). ::ffff:0:0/96 (IPv4-mapped, RFC 4291) is
// absent on purpose: a mapped address is the IPv4 address it maps (the
// kernel sends IPv4), so it is unmapped and judged as that.
var blocks = []block{
	entry("0.0.0.0/8", "This network", "RFC 791 §3.2", false),
	entry("0.0.0.0/32", "This host on this network", "RFC 1122 §3.2.1.3", false),
	entry("10.0.0.0/8", "Private-Use", "RFC 1918", false),
	entry("100.64.0.0/10", "Shared Address Space", "RFC 6598", false),
	entry("127.0.0.0/8", "Loopback", "RFC 1122 §3.2.1.3", false),
	entry("169.254.0.0/16", "Link Local", "RFC 3927", false),
	entry("172.16.0.0/12", "Private-Use", "RFC 1918", false),
	entry("192.0.0.0/24", "IETF Protocol Assignments", "RFC 6890 §2.1", false),
	entry("192.0.0.0/29", "IPv4 Service Continuity Prefix", "RFC 7335", false),
	entry("192.0.0.8/32", "IPv4 dummy address", "RFC 7600", false),
	entry("192.0.0.9/32", "Port Control Protocol Anycast", "RFC 7723", true),
	entry("192.0.0.10/32", "Traversal Using Relays around NAT Anycast", "RFC 8155", true),
	entry("192.0.0.170/32", "NAT64/DNS64 Discovery", "RFC 8880, RFC 7050", false),
	entry("192.0.0.171/32", "NAT64/DNS64 Discovery", "RFC 8880, RFC 7050", false),
	entry("192.0.2.0/24", "Documentation (TEST-NET-1)", "RFC 5737", false),
	entry("192.31.196.0/24", "AS112-v4", "RFC 7535", true),
	entry("192.52.193.0/24", "AMT", "RFC 7450", true),
	entry("192.88.99.0/24", "Deprecated (6to4 Relay Anycast)", "RFC 7526", false),
	// A transition relay like 6to4's: refused with its /24.
	entry("192.88.99.2/32", "6a44-relay anycast address", "RFC 6751", false),
	entry("192.168.0.0/16", "Private-Use", "RFC 1918", false),
	entry("192.175.48.0/24", "Direct Delegation AS112 Service", "RFC 7534", true),
	entry("198.18.0.0/15", "Benchmarking", "RFC 2544", false),
	entry("198.51.100.0/24", "Documentation (TEST-NET-2)", "RFC 5737", false),
	entry("203.0.113.0/24", "Documentation (TEST-NET-3)", "RFC 5737", false),
	entry("240.0.0.0/4", "Reserved", "RFC 1112 §4", false),
	entry("255.255.255.255/32", "Limited Broadcast", "RFC 8190, RFC 919 §7", false),
	// IPv4 Multicast Address Space registry.
	entry("224.0.0.0/4", "Multicast", "RFC 5771", false),

	entry("::/128", "Unspecified Address", "RFC 4291", false),
	entry("::1/128", "Loopback Address", "RFC 4291", false),
	// Globally reachable: a DNS64 resolver on an IPv6-only host answers
	// with it for every IPv4-only endpoint. Allowed only when the IPv4
	// address it embeds passes (see embedded).
	entry("64:ff9b::/96", "IPv4-IPv6 Translation", "RFC 6052", true),
	entry("64:ff9b:1::/48", "IPv4-IPv6 Translation (local-use)", "RFC 8215", false),
	entry("100::/64", "Discard-Only Address Block", "RFC 6666", false),
	entry("100:0:0:1::/64", "Dummy IPv6 Prefix", "RFC 9780", false),
	entry("2001::/23", "IETF Protocol Assignments", "RFC 2928", false),
	// Globally reachable N/A: a tunnel to whatever IPv4 server and client
	// it names; no webhook needs one.
	entry("2001::/32", "TEREDO", "RFC 4380, RFC 8190", false),
	entry("2001:1::1/128", "Port Control Protocol Anycast", "RFC 7723", true),
	entry("2001:1::2/128", "Traversal Using Relays around NAT Anycast", "RFC 8155", true),
	entry("2001:1::3/128", "DNS-SD Service Registration Protocol Anycast", "RFC 9665", true),
	entry("2001:2::/48", "Benchmarking", "RFC 5180", false),
	entry("2001:3::/32", "AMT", "RFC 7450", true),
	entry("2001:4:112::/48", "AS112-v6", "RFC 7535", true),
	entry("2001:10::/28", "Deprecated (previously ORCHID)", "RFC 4843", false),
	entry("2001:20::/28", "ORCHIDv2", "RFC 7343", true),
	entry("2001:30::/28", "Drone Remote ID Protocol Entity Tags (DETs) Prefix", "RFC 9374", true),
	entry("2001:db8::/32", "Documentation", "RFC 3849", false),
	// Globally reachable N/A, deprecated (RFC 7526): refused, as Teredo.
	entry("2002::/16", "6to4", "RFC 3056", false),
	entry("2620:4f:8000::/48", "Direct Delegation AS112 Service", "RFC 7534", true),
	entry("3fff::/20", "Documentation", "RFC 9637", false),
	entry("5f00::/16", "Segment Routing (SRv6) SIDs", "RFC 9602", false),
	entry("fc00::/7", "Unique-Local", "RFC 4193, RFC 8190", false),
	entry("fe80::/10", "Link-Local Unicast", "RFC 4291", false),
	// IPv6 Address Space registry: deprecated or not unicast.
	entry("::/96", "IPv4-compatible (deprecated)", "RFC 4291 §2.5.5.1", false),
	entry("fec0::/10", "Site-Local (deprecated)", "RFC 3879", false),
	entry("ff00::/8", "Multicast", "RFC 4291", false),
}

// globalUnicast is the only IPv6 space the IPv6 Address Space registry
// allocates for unicast; the rest (outside the blocks above) is Reserved
// by IETF.
var globalUnicast = netip.MustParsePrefix("2000::/3")

// lookup returns the most specific block that contains a.
func lookup(a netip.Addr) (block, bool) {
	var best block
	found := false
	for _, b := range blocks {
		if b.prefix.Contains(a) && (!found || b.prefix.Bits() > best.prefix.Bits()) {
			best, found = b, true
		}
	}
	return best, found
}

var (
	nat64      = netip.MustParsePrefix("64:ff9b::/96")
	nat64Local = netip.MustParsePrefix("64:ff9b:1::/48")
	v4Compat   = netip.MustParsePrefix("::/96")
	sixToFour  = netip.MustParsePrefix("2002::/16")
	teredo     = netip.MustParsePrefix("2001::/32")
)

// embedded returns the IPv4 addresses an IPv6 address carries under a
// transition mechanism: a packet to it ends at (or passes through) them,
// so each must pass on its own.
func embedded(a netip.Addr) []netip.Addr {
	if !a.Is6() {
		return nil
	}
	b := a.As16()
	v4 := func(i, j, k, l int) netip.Addr { return netip.AddrFrom4([4]byte{b[i], b[j], b[k], b[l]}) }
	switch {
	case nat64.Contains(a):
		return []netip.Addr{v4(12, 13, 14, 15)}
	case v4Compat.Contains(a) && !a.IsUnspecified() && !a.IsLoopback():
		return []netip.Addr{v4(12, 13, 14, 15)}
	case nat64Local.Contains(a):
		// RFC 6052 §2.2 at /48: octets 6-7, then 9-10 (octet 8 is "u").
		// An operator may use a longer prefix inside the /48 too: the
		// block is refused whole for that reason.
		return []netip.Addr{v4(6, 7, 9, 10)}
	case sixToFour.Contains(a):
		return []netip.Addr{v4(2, 3, 4, 5)} // RFC 3056 §2
	case teredo.Contains(a):
		// RFC 4380 §4: the server in bits 32-63, the client's address
		// inverted in the last 32.
		client := netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]})
		return []netip.Addr{v4(4, 5, 6, 7), client}
	}
	return nil
}

// DestinationError is a refused destination: errors.Is(err,
// ErrDestination) holds, and the fields say which address class refused
// it.
type DestinationError struct {
	// Addr is the address the name resolved to (or the URL named).
	Addr netip.Addr
	// Embedded is the IPv4 address inside Addr whose class refused it,
	// and Via the embedding (e.g. "6to4, 2002::/16, RFC 3056"); zero and
	// "" when Addr's own class did.
	Embedded netip.Addr
	Via      string
	// Class is the refusing block's registry name ("Link Local",
	// "Loopback", ...), Prefix the block (zero when none applies: a
	// zoned address, IPv6 outside every block) and RFC where it is set.
	Class  string
	Prefix netip.Prefix
	RFC    string
	// Note says why the class is refused.
	Note string
}

func (e *DestinationError) Error() string {
	var s strings.Builder
	fmt.Fprintf(&s, "%v: %s ", ErrDestination, e.Addr)
	if e.Embedded.IsValid() {
		fmt.Fprintf(&s, "embeds %s (%s), which ", e.Embedded, e.Via)
	}
	fmt.Fprintf(&s, "is %s", e.Class)
	var where []string
	if e.Prefix.IsValid() {
		where = append(where, e.Prefix.String())
	}
	if e.RFC != "" {
		where = append(where, e.RFC)
	}
	if len(where) > 0 {
		fmt.Fprintf(&s, " (%s)", strings.Join(where, ", "))
	}
	fmt.Fprintf(&s, ": %s", e.Note)
	return s.String()
}

func (e *DestinationError) Unwrap() error { return ErrDestination }

// allowed reports whether a destination address may be dialed: a
// globally reachable unicast address, or loopback when the URL named
// loopback explicitly. Every IPv4 address it embeds is judged first.
func allowed(a netip.Addr, loopbackOK bool) error {
	if e := judge(a, loopbackOK); e != nil {
		return e
	}
	return nil
}

func judge(a netip.Addr, loopbackOK bool) *DestinationError {
	if a.Zone() != "" {
		// Prefix.Contains is false for a zoned address: judge none.
		return &DestinationError{Addr: a, Class: "a scoped address", RFC: "RFC 4007", Note: "a zone names a local link"}
	}
	a = a.Unmap()
	if !a.IsValid() {
		return &DestinationError{Addr: a, Class: "not an address", Note: "nothing to dial"}
	}
	if a.IsLoopback() && loopbackOK {
		return nil
	}
	for _, v4 := range embedded(a) {
		// An embedded loopback is never the explicit loopback URL.
		if e := judge(v4, false); e != nil {
			via, _ := lookup(a)
			e.Addr, e.Embedded, e.Via = a, v4, via.String()
			return e
		}
	}
	b, ok := lookup(a)
	switch {
	case ok && a.IsLoopback():
		return refused(a, b, "allowed only for an explicit loopback URL")
	case ok && !b.global:
		return refused(a, b, "not globally reachable")
	case !ok && a.Is6() && !globalUnicast.Contains(a):
		return &DestinationError{Addr: a, Class: "Reserved by IETF", RFC: "RFC 4291", Note: "outside Global Unicast 2000::/3, not globally reachable"}
	}
	return nil
}

func refused(a netip.Addr, b block, note string) *DestinationError {
	return &DestinationError{Addr: a, Class: b.name, Prefix: b.prefix, RFC: b.rfc, Note: note}
}
