package hook

import "regexp"

// Redacted replaces a secret.
const Redacted = "[REDACTED]"

// secretPatterns find secrets in free text. A pattern's replacement keeps
// what is not secret (the name of an assignment, a URL's scheme and host).
var secretPatterns = []struct {
	re   *regexp.Regexp
	repl string
}{
	// PEM private key blocks, whole (and a truncated one up to the end).
	{regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\z)`), Redacted},
	// Authorization headers and bearer/basic tokens.
	{regexp.MustCompile(`(?i)\b((?:bearer|basic|token)\s+)[A-Za-z0-9._~+/=-]{8,}`), "${1}" + Redacted},
	// URLs with credentials: scheme://user:password@host.
	{regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://)[^/\s:@]*:[^/\s@]*@`), "${1}" + Redacted + "@"},
	// AWS access key ids and secret access key assignments.
	{regexp.MustCompile(`\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b`), Redacted},
	// GitHub tokens (classic and fine-grained) and GitLab tokens.
	{regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,})`), Redacted},
	// Slack, Stripe, OpenAI-style and Google API keys.
	{regexp.MustCompile(`\b(?:xox[abposr]-[A-Za-z0-9-]{10,}|sk_live_[A-Za-z0-9]{16,}|sk-[A-Za-z0-9_-]{20,}|AIza[0-9A-Za-z_-]{35})`), Redacted},
	// JSON web tokens.
	{regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`), Redacted},
	// name=value and name: value assignments whose name says secret.
	{regexp.MustCompile(`(?i)((?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credentials?|auth)[A-Za-z0-9_-]*["']?\s*[:=]\s*)("[^"]*"|'[^']*'|[^\s,;&"']+)`), "${1}" + Redacted},
}

// Redact replaces every secret the patterns find in s.
func Redact(s string) string {
	for _, p := range secretPatterns {
		s = p.re.ReplaceAllString(s, p.repl)
	}
	return s
}
