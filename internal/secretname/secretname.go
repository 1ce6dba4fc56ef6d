// Package secretname says whether an environment variable's name looks like
// it holds a secret. It is a leaf (standard library only) so that the hook
// vocabulary (which keeps secrets out of dialect variables) and the sandbox
// (which refuses declared secrets) share one list without either importing
// the other.
package secretname

import "strings"

// words mark a name as secret-like, wherever they appear in it.
var words = []string{
	"TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "PRIVATE_KEY",
	"PRIVATEKEY", "API_KEY", "APIKEY", "ACCESS_KEY", "AUTH", "COOKIE", "SESSION_KEY",
}

// Match reports whether a variable name looks like it holds a secret, and
// the word that says so. Case does not matter.
func Match(name string) (string, bool) {
	up := strings.ToUpper(name)
	for _, w := range words {
		if strings.Contains(up, w) {
			return w, true
		}
	}
	return "", false
}
