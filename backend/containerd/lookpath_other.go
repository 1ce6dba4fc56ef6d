//go:build !unix

package containerd

import "errors"

func systemLookPath(string) (string, error) {
	return "", errors.New("containerd runtimes are found on unix only")
}
