// Package scriptpin decides whether a plugin's hook script may run, and
// proves that the bytes about to run are the bytes that were approved.
//
// # Rules
//
// A script handler names a regular .py or .sh file inside the plugin's own
// directory, by a relative path with no ".." component, reached through no
// link of any kind: every component is opened relative to the one before with
// O_NOFOLLOW, so a symlink anywhere on the path fails the open itself (there
// is no resolve-then-open window), and a file with more than one hard link is
// refused because it may be shared with a file outside the plugin. The file
// is UTF-8 without a byte-order mark, has no NUL byte, is at most
// [MaxScriptBytes] long, and a .sh file has no CRLF line ending. Each rule has
// its own sentinel error whose text says what to do instead.
//
// # The hooks digest
//
// The digest a user consents to covers the plugin's hook document and every
// script it references:
//
//	digest = SHA-256( JCS( {"document": D, "scripts": {P1: H1, P2: H2, ...}} ) )
//
// where JCS is the JSON Canonicalization Scheme of RFC 8785 (object members
// sorted by their UTF-16 code units, ECMAScript number formatting, minimal
// string escapes, no whitespace), D is the hook document as parsed (duplicate
// member names, invalid UTF-8 and non-finite numbers are refused), each Pi is
// a script path exactly as a handler names it (a "script" member of an object
// whose "kind" is "script", anywhere in the document) and Hi is the lowercase
// hex SHA-256 of that script's bytes. Reformatting the document or reordering
// its members keeps the digest; changing any value of the document, or one
// byte of a referenced script, changes it.
//
// # The launch-time re-check
//
// [Load] opens the script once, reads it, checks the rules, hashes exactly
// the bytes it read, compares the hash with the approved one in constant
// time and returns those same bytes, which are the only bytes that may be
// streamed to the sandbox. Nothing re-reads the file after that.
package scriptpin
