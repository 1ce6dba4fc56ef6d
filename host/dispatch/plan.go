package dispatch

import (
	"fmt"

	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/host/registry"
)

// Step is one hook of a boundary's plan.
type Step struct {
	Entry   *registry.Entry
	Matches bool
	// AfterRewrite: an earlier matching blocking hook may modify the
	// event here, so what this hook matches at run time can differ.
	AfterRewrite bool
}

// Plan matches the snapshot's hooks at point against event, in run order,
// without running anything: what `hook dry-run` shows.
func Plan(snap *registry.Snapshot, point string, event []byte) ([]Step, error) {
	if err := hook.CheckPoint(point); err != nil {
		return nil, err
	}
	subject, err := registry.SubjectOf(event)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrEvent, err)
	}
	rewrites := len(hook.Mutable[point]) > 0
	var steps []Step
	mayRewrite := false
	for _, e := range snap.At(point) {
		s := Step{Entry: e, Matches: e.Def.Filters.Matches(subject), AfterRewrite: mayRewrite}
		if s.Matches && e.Def.Mode == hook.Blocking && rewrites {
			mayRewrite = true
		}
		steps = append(steps, s)
	}
	return steps, nil
}
