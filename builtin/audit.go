package builtin

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/gofrs/flock"

	"github.com/hookexec/hook-exec/hook"
)

type auditOptions struct {
	// Log names the audit log under the state directory's audit/
	// ("audit.jsonl" by default).
	Log string `json:"log,omitzero"`
}

// AuditSchemaVersion is the version of an audit record's layout.
const AuditSchemaVersion = 1

// auditMaxBytes is where the audit log rotates; auditKeep files are kept.
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
	line, err := json.Marshal(rec, json.Deterministic(true))
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(env.StateDir, "audit")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	lock := flock.New(filepath.Join(dir, name+".lock"))
	if err := lock.Lock(); err != nil {
		return nil, err
	}
	defer lock.Unlock()
	file := filepath.Join(dir, name)
	if fi, err := os.Stat(file); err == nil && fi.Size()+int64(len(line)) > auditMaxBytes {
		for i := auditKeep - 1; i >= 0; i-- {
			from := file
			if i > 0 {
				from = fmt.Sprintf("%s.%d", file, i)
			}
			os.Rename(from, fmt.Sprintf("%s.%d", file, i+1))
		}
	}
	f, err := os.OpenFile(file, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return nil, err
	}
	return allow(), f.Close()
}
