// Package tracestore keeps hook traces in a bounded local store: JSON lines
// under a state directory, rotated by size, safe to append to from several
// processes at once (an flock guards appends and rotation).
package tracestore

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"

	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/internal/statedir"
)

// Defaults of a Store.
const (
	DefaultMaxBytes = 4 << 20 // per file
	DefaultKeep     = 3       // rotated files kept beside the current one
	fileName        = "traces.jsonl"
)

// DefaultDir is $HOOKEXEC_STATE_DIR, else $XDG_STATE_HOME/hook-exec, else
// ~/.local/state/hook-exec.
func DefaultDir() (string, error) {
	return statedir.Default(os.Getenv, os.UserHomeDir)
}

// Store is a trace store. Its bound is MaxBytes * (Keep + 1).
type Store struct {
	dir      string
	name     string // the current file; rotated ones are name.1, name.2 ...
	maxBytes int64
	keep     int
	mu       sync.Mutex
}

// Open opens (creating, mode 0700) the store in dir. Zero maxBytes or keep
// take the defaults.
func Open(dir string, maxBytes int64, keep int) (*Store, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	if keep <= 0 {
		keep = DefaultKeep
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("open trace store: %w", err)
	}
	return &Store{dir: dir, name: fileName, maxBytes: maxBytes, keep: keep}, nil
}

func (s *Store) path(i int) string {
	if i == 0 {
		return filepath.Join(s.dir, s.name)
	}
	return filepath.Join(s.dir, s.name+"."+strconv.Itoa(i))
}

// lock takes the store's cross-process lock (flock on Unix, LockFileEx on
// Windows, through gofrs/flock).
func (s *Store) lock() (func(), error) {
	s.mu.Lock()
	l := flock.New(filepath.Join(s.dir, strings.TrimSuffix(s.name, ".jsonl")+".lock"), flock.SetFlag(os.O_CREATE|os.O_RDWR), flock.SetPermissions(0o600))
	if err := l.Lock(); err != nil {
		s.mu.Unlock()
		return nil, fmt.Errorf("lock trace store: %w", err)
	}
	return func() { l.Close(); s.mu.Unlock() }, nil
}

// Append redacts the trace (again: the store never trusts its caller to
// have done it) and appends it, rotating first when the file would pass
// its bound.
func (s *Store) Append(tr hook.Trace) error {
	tr.Redact()
	return s.AppendJSON(tr)
}

// Log opens (creating, mode 0700) a log of other records kept the same
// way: name.jsonl in dir, rotated, appended to under a file lock.
func Log(dir, name string, maxBytes int64, keep int) (*Store, error) {
	s, err := Open(dir, maxBytes, keep)
	if err != nil {
		return nil, err
	}
	s.name = name + ".jsonl"
	return s, nil
}

// AppendJSON appends v as one JSON line, rotating first when the file
// would pass its bound. The caller has redacted v.
func (s *Store) AppendJSON(v any) error {
	line, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode record: %w", err)
	}
	line = append(line, '\n')
	unlock, err := s.lock()
	if err != nil {
		return err
	}
	defer unlock()
	if fi, err := os.Stat(s.path(0)); err == nil && fi.Size()+int64(len(line)) > s.maxBytes {
		if err := s.rotate(); err != nil {
			return err
		}
	}
	f, err := os.OpenFile(s.path(0), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("append trace: %w", err)
	}
	_, werr := f.Write(line)
	return errors.Join(werr, f.Close())
}

func (s *Store) rotate() error {
	os.Remove(s.path(s.keep))
	for i := s.keep - 1; i >= 0; i-- {
		if err := os.Rename(s.path(i), s.path(i+1)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("rotate trace store: %w", err)
		}
	}
	return nil
}

// Query selects traces, newest first.
type Query struct {
	Limit  int // 0: all
	HookID string
	Point  string
	Reason string // only traces whose reason holds this, in any case
}

func (q *Query) match(tr *hook.Trace) bool {
	return (q.HookID == "" || tr.HookID == q.HookID) && (q.Point == "" || tr.Point == q.Point) &&
		(q.Reason == "" || strings.Contains(strings.ToLower(tr.Reason), strings.ToLower(q.Reason)))
}

// Query returns the stored traces that match, newest first. A line that is
// not a trace (a torn write) is skipped.
func (s *Store) Query(q Query) ([]hook.Trace, error) {
	var out []hook.Trace
	for i := 0; i <= s.keep; i++ {
		b, err := os.ReadFile(s.path(i))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read trace store: %w", err)
		}
		var lines [][]byte
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(make([]byte, 64<<10), int(s.maxBytes)+1)
		for sc.Scan() {
			lines = append(lines, bytes.Clone(sc.Bytes()))
		}
		for j := len(lines) - 1; j >= 0; j-- {
			var tr hook.Trace
			if json.Unmarshal(lines[j], &tr) != nil || tr.SchemaVersion == 0 {
				continue
			}
			if !q.match(&tr) {
				continue
			}
			out = append(out, tr)
			if q.Limit > 0 && len(out) == q.Limit {
				return out, nil
			}
		}
	}
	return out, nil
}

// ErrNoTrace: no stored trace has the execution id asked for.
var ErrNoTrace = errors.New("no such trace")

// Find returns the stored trace whose execution id is id, or the only one
// whose id begins with id (as docker takes a prefix of a container's id).
func (s *Store) Find(id string) (hook.Trace, error) {
	if id == "" {
		return hook.Trace{}, fmt.Errorf("%w: an empty execution id", ErrNoTrace)
	}
	all, err := s.Query(Query{})
	if err != nil {
		return hook.Trace{}, err
	}
	var found []hook.Trace
	for _, tr := range all {
		if tr.ExecutionID == id {
			return tr, nil
		}
		if strings.HasPrefix(tr.ExecutionID, id) {
			found = append(found, tr)
		}
	}
	switch len(found) {
	case 0:
		return hook.Trace{}, fmt.Errorf("%w: %q in %s", ErrNoTrace, id, s.dir)
	case 1:
		return found[0], nil
	default:
		return hook.Trace{}, fmt.Errorf("%d traces begin with %q: give more of the execution id", len(found), id)
	}
}

// Follower reads the traces appended to a store after it was made.
type Follower struct {
	s       *Store
	q       Query
	f       *os.File // the current file, nil before there is one
	partial []byte
}

// Follow returns a Follower of the traces that match q (its Limit aside)
// appended from now on: a Query made after it misses none of them (the
// runs both hold have the same execution id).
func (s *Store) Follow(q Query) (*Follower, error) {
	fl := &Follower{s: s, q: q}
	if err := fl.open(true); err != nil {
		return nil, err
	}
	return fl, nil
}

func (fl *Follower) open(atEnd bool) error {
	return fl.openAt(0, atEnd)
}

// openAt holds the store's file i (0 the current one, i the i-th rotated).
func (fl *Follower) openAt(i int, atEnd bool) error {
	f, err := os.Open(fl.s.path(i))
	if errors.Is(err, os.ErrNotExist) {
		return nil // nothing stored yet
	}
	if err != nil {
		return fmt.Errorf("follow trace store: %w", err)
	}
	if atEnd {
		if _, err := f.Seek(0, io.SeekEnd); err != nil {
			f.Close()
			return fmt.Errorf("follow trace store: %w", err)
		}
	}
	fl.f, fl.partial = f, nil
	return nil
}

// drain hands fn every whole line read from the current file so far.
func (fl *Follower) drain(buf []byte, fn func(hook.Trace) error) error {
	for {
		n, err := fl.f.Read(buf)
		fl.partial = append(fl.partial, buf[:n]...)
		for {
			i := bytes.IndexByte(fl.partial, '\n')
			if i < 0 {
				break
			}
			var tr hook.Trace
			if json.Unmarshal(fl.partial[:i], &tr) == nil && tr.SchemaVersion != 0 && fl.q.match(&tr) {
				if err := fn(tr); err != nil {
					return err
				}
			}
			fl.partial = fl.partial[i+1:]
		}
		if n == 0 || err != nil {
			return nil
		}
	}
}

// Run calls fn with each trace appended, oldest first, until ctx ends or
// fn fails; it looks for new lines every poll, and follows the store
// through a rotation (the rest of the file rotated away first, then the
// new one from its start).
func (fl *Follower) Run(ctx context.Context, poll time.Duration, fn func(hook.Trace) error) error {
	buf := make([]byte, 64<<10)
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		if fl.f == nil {
			if err := fl.open(false); err != nil {
				return err
			}
		}
		if fl.f != nil {
			if err := fl.drain(buf, fn); err != nil {
				return err
			}
			// Rotated (or removed): the current file is another one now.
			cur, errCur := os.Stat(fl.s.path(0))
			held, errHeld := fl.f.Stat()
			if errHeld == nil && (errCur != nil || !os.SameFile(cur, held)) {
				if err := fl.drain(buf, fn); err != nil {
					return err
				}
				fl.f.Close()
				fl.f = nil
				// More than one rotation since the last look: the files
				// rotated after the held one hold traces too, oldest first.
				if next := fl.s.after(held); next > 0 {
					if err := fl.openAt(next, false); err != nil {
						return err
					}
				}
				continue
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// after is the index of the rotated file that came right after held (it
// rotated into held's place), 0 when that is the current one, or the
// oldest one kept when held rotated away entirely.
func (s *Store) after(held os.FileInfo) int {
	for i := 1; i <= s.keep; i++ {
		fi, err := os.Stat(s.path(i))
		if err != nil {
			return i - 1
		}
		if os.SameFile(fi, held) {
			return i - 1
		}
	}
	return s.keep
}

// Close releases the file the Follower holds.
func (fl *Follower) Close() {
	if fl.f != nil {
		fl.f.Close()
		fl.f = nil
	}
}
