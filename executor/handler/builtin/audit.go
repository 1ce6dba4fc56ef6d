package builtin

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/internal/tracestore"
)

type auditOptions struct {
	// Log names the audit log under the state directory's audit/
	// ("audit.jsonl" by default).
	Log string `json:"log,omitzero"`
}

// AuditSchemaVersion is the version of an audit record's layout.
const AuditSchemaVersion = 1

// auditMaxBytes is where the audit log rotates; auditKeep rotated files
// are kept (the trace store's way: tracestore.Log).
const (
	auditMaxBytes = 4 << 20
	auditKeep     = 3
)

// AuditRecord is one line of the audit log.
type AuditRecord struct {
	SchemaVersion int            `json:"schema_version"`
	Time          time.Time      `json:"time"`
	EventID       string         `json:"event_id"`
	Point         string         `json:"point"`
	SessionID     string         `json:"session_id"`
	Event         jsontext.Value `json:"event"`
	Decision      hook.Action    `json:"decision"`
}

// audit appends a redacted record of the event and allows.
func audit(ev *eventView, event []byte, o auditOptions, env Env) (*hook.Decision, error) {
	if env.StateDir == "" {
		return nil, fmt.Errorf("audit: no state directory")
	}
	name := o.Log
	if name == "" {
		name = "audit.jsonl"
	}
	if filepath.Base(name) != name || name == "." || name == ".." {
		return nil, fmt.Errorf("%w: audit log %q: a file name, no directory", ErrOptions, name)
	}
	rec := AuditRecord{SchemaVersion: AuditSchemaVersion, Time: time.Now().UTC(), EventID: hook.Redact(ev.EventID),
		Point: ev.Point, SessionID: hook.Redact(ev.SessionID), Event: hook.RedactJSON(event), Decision: hook.Allow}
	log, err := tracestore.Log(filepath.Join(env.StateDir, "audit"), strings.TrimSuffix(name, ".jsonl"), auditMaxBytes, auditKeep)
	if err != nil {
		return nil, err
	}
	if err := log.AppendJSON(rec); err != nil {
		return nil, err
	}
	return allow(), nil
}
