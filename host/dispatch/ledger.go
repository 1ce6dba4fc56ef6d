package dispatch

import (
	"path/filepath"
	"time"

	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/host/registry"
	"github.com/hookexec/hook-exec/internal/statefile"
)

// StateLedger keeps circuits and policy-disabled hooks in the state
// directory, file-locked, so that one process per boundary keeps what a
// long-lived host would. A hook its failure policy disabled is switched
// off in the registry: the next snapshot leaves it out, and `hook enable`
// turns it back on.
//
// circuits.json holds no more than executor.PruneCircuits keeps, pruned at
// every write; a boundary whose session has no circuit and gets none (every
// healthy run) only reads it.
func StateLedger(stateDir string) executor.Ledger {
	return &stateLedger{dir: stateDir, now: time.Now}
}

type stateLedger struct {
	dir string
	now func() time.Time // the pruning clock; tests move it
}

type circuitsDoc struct {
	// Circuits by hook id, then session id.
	Circuits map[string]map[string]executor.Circuit `json:"circuits"`
}

func (l *stateLedger) file() string { return filepath.Join(l.dir, "circuits.json") }

func (l *stateLedger) Circuit(hookID, session string, change func(*executor.Circuit)) error {
	// Without a circuit, a change that leaves none has nothing to store:
	// no lock, no write. A circuit another process writes after this read
	// is ordered after this run, as two processes' runs may be anyway.
	var now circuitsDoc
	if err := statefile.Read(l.file(), &now); err != nil {
		return err
	}
	if _, ok := now.Circuits[hookID][session]; !ok {
		var c executor.Circuit
		if change(&c); c == (executor.Circuit{}) {
			return nil
		}
	}
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
		per[session] = c // a closed one goes with the pruning
		executor.PruneCircuits(doc.Circuits, l.now())
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

// OpenCircuits implements executor.OpenCounter: the open circuits in the
// state directory (every process's).
func (l *stateLedger) OpenCircuits() int {
	var doc circuitsDoc
	if statefile.Read(l.file(), &doc) != nil {
		return 0
	}
	return executor.CountOpen(doc.Circuits)
}
