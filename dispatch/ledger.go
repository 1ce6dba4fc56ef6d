package dispatch

import (
	"path/filepath"
	"time"

	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/registry"
	"github.com/hookexec/hook-exec/statefile"
)

// circuitsKept bounds how long an open circuit of a session nobody runs
// any more is kept.
const circuitsKept = 24 * time.Hour

// StateLedger keeps circuits and policy-disabled hooks in the state
// directory, file-locked, so that one process per boundary keeps what a
// long-lived host would. A hook its failure policy disabled is switched
// off in the registry: the next snapshot leaves it out, and `hook enable`
// turns it back on.
func StateLedger(stateDir string) executor.Ledger { return &stateLedger{dir: stateDir} }

type stateLedger struct{ dir string }

type circuitsDoc struct {
	// Circuits by hook id, then session id.
	Circuits map[string]map[string]executor.Circuit `json:"circuits"`
}

func (l *stateLedger) file() string { return filepath.Join(l.dir, "circuits.json") }

func (l *stateLedger) Circuit(hookID, session string, change func(*executor.Circuit)) error {
	return statefile.Update(l.file(), func(doc *circuitsDoc) error {
		if doc.Circuits == nil {
			doc.Circuits = map[string]map[string]executor.Circuit{}
		}
		per := doc.Circuits[hookID]
		if per == nil {
			per = map[string]executor.Circuit{}
			doc.Circuits[hookID] = per
		}
		c := per[session]
		change(&c)
		per[session] = c
		now := time.Now()
		for h, sessions := range doc.Circuits {
			for s, c := range sessions {
				if c == (executor.Circuit{}) || (!c.OpenedAt.IsZero() && now.Sub(c.OpenedAt) > circuitsKept) {
					delete(sessions, s)
				}
			}
			if len(sessions) == 0 {
				delete(doc.Circuits, h)
			}
		}
		return nil
	})
}

func (l *stateLedger) Disable(hookID, reason string) error {
	return registry.SetDisabled(l.dir, hookID, reason)
}

func (l *stateLedger) Disabled(hookID string) bool {
	var s registry.Switches
	return registry.ReadSwitches(l.dir, &s) == nil && s.Disabled[hookID] != ""
}
