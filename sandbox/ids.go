package sandbox

import (
	"fmt"
	"strconv"
	"strings"
)

// IDs parses User into its numeric uid and gid.
func (s *Spec) IDs() (uint32, uint32, error) {
	u, g, ok := strings.Cut(s.User, ":")
	uid, err1 := strconv.ParseUint(u, 10, 32)
	gid, err2 := strconv.ParseUint(g, 10, 32)
	if !ok || err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("%w: user %q is not numeric uid:gid", ErrInvalid, s.User)
	}
	return uint32(uid), uint32(gid), nil
}
