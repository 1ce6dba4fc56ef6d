package executor

import (
	"errors"
	"io/fs"
	"path/filepath"
	"sync/atomic"
	"time"
)

// What a hook may write in the copies of its --writable files' directories
// during a run: past it, the run is ended (the copies are the host's /tmp).
const (
	maxWritableGrowBytes   = 64 << 20
	maxWritableGrowEntries = 4096
	writableWatchInterval  = 100 * time.Millisecond
)

// watched is a directory measured while a run lasts: the copy of a
// --writable file's directory (from nothing), or a kept /tmp (from what it
// held at the run's start: the runs that share it may have grown it).
type watched struct {
	dir            string
	entries        int
	size           int64
	overflowFailed string // the failure's text when it grows past the bound
}

// watchGrowth measures ws while the run lasts, and ends the run (end)
// when one grows past the bound. stop ends the watch and reports the one
// that did (nil: none).
func watchGrowth(ws []watched, end func()) (stop func() (overflowed *watched)) {
	quit, done := make(chan struct{}), make(chan struct{})
	var over atomic.Pointer[watched]
	go func() {
		defer close(done)
		t := time.NewTicker(writableWatchInterval)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
			}
			for i := range ws {
				w := &ws[i]
				if _, _, ok := usage(w.dir, w.entries+maxWritableGrowEntries, w.size+maxWritableGrowBytes); !ok {
					over.Store(w)
					end()
					return
				}
			}
		}
	}()
	return func() *watched {
		close(quit)
		<-done
		return over.Load()
	}
}

// withinBounds reports whether dir holds no more than the bounds allow.
func withinBounds(dir string) bool {
	_, _, ok := usage(dir, maxWritableGrowEntries, maxWritableGrowBytes)
	return ok
}

// usage walks dir until it has seen more than maxEntries entries or
// maxSize bytes (ok false), and says what it saw. A directory it cannot
// read (the hook took its permission away, or nested it past a path's
// length) is past the bounds too: what is in it is not seen. No link is
// followed.
func usage(dir string, maxEntries int, maxSize int64) (entries int, size int64, ok bool) {
	errOver := errors.New("over")
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // a file the hook removed meanwhile
		}
		if err != nil {
			return err
		}
		if entries++; entries > maxEntries {
			return errOver
		}
		if d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				if size += fi.Size(); size > maxSize {
					return errOver
				}
			}
		}
		return nil
	})
	return entries, size, err == nil
}
