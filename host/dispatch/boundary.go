package dispatch

import (
	"fmt"

	"github.com/hookexec/hook-exec/host/plugin"
	"github.com/hookexec/hook-exec/host/registry"
)

// Boundary is where a boundary's hooks come from: the state directory (the
// owner's trust, the installed plugins and their consent), a profile, the
// event's workspace, and a session's hooks document with the directory
// its paths are relative to. The CLI and the server set a boundary up
// through it alike.
type Boundary struct {
	StateDir, Profile, Workspace string
	Session                      []byte
	SessionDir                   string
}

// Sources are b's registry sources, the plugins' consent read now: a
// plugin changed or disabled since the last boundary is paused at this
// one. Plugins that cannot be read fail it: nothing runs from them.
func (b Boundary) Sources() (registry.Sources, error) {
	src := registry.Sources{StateDir: b.StateDir, Profile: b.Profile, Workspace: b.Workspace, Trusted: registry.TrustedBy(b.StateDir),
		Session: b.Session, SessionDir: b.SessionDir}
	approved, paused, err := plugin.Sources(b.StateDir)
	if err != nil {
		return src, fmt.Errorf("plugins: %w", err)
	}
	src.Plugins, src.Paused = approved, paused
	return src, nil
}

// AllowRoots are the directories an event's workspace may lie in to be
// mounted into the hooks' sandboxes: b's workspace, when it names one.
func (b Boundary) AllowRoots() []string {
	if b.Workspace == "" {
		return nil
	}
	return []string{b.Workspace}
}
