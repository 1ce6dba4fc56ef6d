package install

import (
	"errors"
	"fmt"
)

var (
	// ErrNotApproved: the owner did not consent to the plan (Approve).
	ErrNotApproved = errors.New("not installed")
	// ErrNobodyToAsk: consent was neither given nor could be asked for.
	ErrNobodyToAsk = errors.New("no one to ask for consent")
)

// Consent is how the owner approves a plan: Yes approves it as shown
// (--yes), Reviewed, when set, only if it is still the one whose digest
// they reviewed; without Yes, Ask puts the question to them (nil: no one
// can be asked, such as a run without a terminal).
type Consent struct {
	Yes      bool
	Reviewed string
	Ask      func(question string) bool
}

// Approve records the owner's consent to exactly this plan: Apply writes
// nothing of a plan not approved.
func (p *Plan) Approve(c Consent) error {
	switch {
	case c.Yes && c.Reviewed != "" && c.Reviewed != p.Digest:
		return fmt.Errorf("%w: the hooks are not what you reviewed: digest %s, you gave %s", ErrNotApproved, p.Digest, c.Reviewed)
	case c.Yes:
	case c.Ask == nil:
		return ErrNobodyToAsk
	case !c.Ask(fmt.Sprintf("Run these hooks of %s through hook-exec, pinned as they are now?", p.Host.Name)):
		return fmt.Errorf("%w: consent not given", ErrNotApproved)
	}
	p.approved = true
	return nil
}
