package executor

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hookexec/hook-exec/hook"
)

// Bounds of a --writable file and of the directory copied around it.
const (
	maxWritableBytes    = 16 << 20
	maxWritableDirFiles = 512
	maxWritableDirBytes = 16 << 20
)

// ErrWritable: a --writable file cannot be given to the hook.
var ErrWritable = errors.New("--writable")

// writableDir is the directory of one or more --writable files (a hook's
// own state, such as a loop plugin's state file in the host's directory): a
// private copy of it is mounted read-write over it, and after the run the
// named files alone go back (rewritten, or removed when the hook removed
// them). The workspace itself stays read-only.
//
// Two more shapes: a directory named with a trailing slash
// (a hook-state directory, a rate limiter's counters) is whole, every file of
// it goes back, made, rewritten or removed; a file of the workspace's top
// directory (a log at the top) is single, the copy of it alone is mounted over
// it, since a copy of its directory would hide the workspace.
type writableDir struct {
	ws      string // the workspace
	rel     string // the directory, relative to ws (single: the file)
	tmp     string // the caller's private directory holding the copy
	scratch string // the copy, in tmp
	files   []*writableFile
	whole   bool
	single  bool
	// before is what a whole directory held, by path relative to it.
	before map[string]*writableFile
	// made is the empty file a single one's mount was given where none
	// was: taken away after the run when it is still that file, empty.
	made fs.FileInfo
	// runner is who the hook runs as when the caller is root (nil: the
	// caller): the copy's directory and the named files are its (every
	// file of a whole one), every other file keeps its owner.
	runner *owner
}

type writableFile struct {
	rel    string // relative to the workspace
	before []byte // its bytes at the call; nil: it did not exist
	mode   os.FileMode
	// mine: in a whole directory's copy, the hook may rewrite or remove
	// it (it could read it in the workspace; in a run of root's, it became
	// the runner's); any other file of the copy is left as it was.
	mine bool
}

// path is the directory in the workspace (where the copy is mounted).
func (d *writableDir) path() string { return filepath.Join(d.ws, d.rel) }

// source is what is mounted at path: the copy of the directory, or of the
// single file.
func (d *writableDir) source() string {
	if d.single {
		return filepath.Join(d.scratch, d.rel)
	}
	return d.scratch
}

// prepareWritable checks each of rels (inside the workspace ws, reached by
// no link, not a host's configuration nor git's) and copies each one's
// directory into a private one the sandbox's user can write (runner: who
// a run of root's runs as; nil for any other caller). remove deletes every
// copy.
func prepareWritable(ws string, rels []string, runner *owner) (_ []*writableDir, _ func(), err error) {
	var out []*writableDir
	remove := func() {
		for _, d := range out {
			d.unmake()
			if d.tmp != "" {
				removeTree(d.tmp)
			}
		}
	}
	defer func() {
		if err != nil {
			remove()
		}
	}()
	if len(rels) == 0 {
		return nil, remove, nil
	}
	if ws == "" {
		return nil, nil, fmt.Errorf("%w %s: no workspace: the file is named relative to it", ErrWritable, rels[0])
	}
	// Every path is resolved inside the workspace: a link someone makes
	// there meanwhile cannot lead the copy, or the copy back, out of it.
	root, err := os.OpenRoot(ws)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrWritable, err)
	}
	defer root.Close()
	byDir := map[string]*writableDir{}
	for _, rel := range rels {
		if dir, ok := strings.CutSuffix(rel, "/"); ok {
			if err := checkWritableDir(root, dir); err != nil {
				return nil, nil, fmt.Errorf("%w %s: %w", ErrWritable, rel, err)
			}
			d := byDir[dir]
			if d == nil {
				d = &writableDir{ws: ws, rel: dir, runner: runner}
				byDir[dir] = d
				out = append(out, d)
			}
			d.whole = true
			continue
		}
		f, err := checkWritable(root, rel)
		if err != nil {
			return nil, nil, fmt.Errorf("%w %s: %w", ErrWritable, rel, err)
		}
		if !strings.ContainsRune(rel, filepath.Separator) {
			if !slices.ContainsFunc(out, func(d *writableDir) bool { return d.single && d.rel == rel }) {
				out = append(out, &writableDir{ws: ws, rel: rel, single: true, files: []*writableFile{f}, runner: runner})
			}
			continue
		}
		dir := filepath.Dir(rel)
		d := byDir[dir]
		if d == nil {
			d = &writableDir{ws: ws, rel: dir, runner: runner}
			byDir[dir] = d
			out = append(out, d)
		}
		if !slices.ContainsFunc(d.files, func(g *writableFile) bool { return g.rel == rel }) {
			d.files = append(d.files, f)
		}
	}
	for _, d := range out {
		// The copy is in a directory of the caller's alone: the sandbox's
		// user (or anyone) cannot swap it for something else before the
		// mount.
		if d.tmp, err = os.MkdirTemp("", writablePrefix); err != nil {
			return nil, nil, err
		}
		d.scratch = filepath.Join(d.tmp, "dir")
		if d.single {
			err = d.copySingle(root)
		} else {
			err = d.copy(root)
		}
		if err != nil {
			// Past a bound too (a log that grew): refused, never run
			// read-only, where a guard that cannot write its audit trail
			// under set -e would exit 1, which the hosts read as an allow.
			return nil, nil, fmt.Errorf("%w: copying %s: %w", ErrWritable, d.path(), err)
		}
	}
	return out, remove, nil
}

// checkWritableDir checks a whole --writable directory and makes what is
// missing of it (the hook would make it: mkdir -p).
func checkWritableDir(root *os.Root, rel string) error {
	if err := hook.CheckWritable(rel + "/"); err != nil {
		return err
	}
	return makeWay(root, strings.Split(rel, string(filepath.Separator)))
}

// makeWay checks that every directory of parts that exists is a directory,
// not a link, and makes the missing ones.
func makeWay(root *os.Root, parts []string) error {
	for i := 1; i <= len(parts); i++ {
		dir := filepath.Join(parts[:i]...)
		fi, err := root.Lstat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			if err = root.Mkdir(dir, 0o755); err == nil {
				sameOwner(root, dir)
			}
			if err == nil || errors.Is(err, fs.ErrExist) {
				fi, err = root.Lstat(dir)
			}
		}
		if err != nil {
			return fmt.Errorf("its directory: %w", err)
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s is not a directory (a link is not followed)", dir)
		}
	}
	return nil
}

// sameOwner gives name, which root's run just made in the workspace, the
// owner of its directory: the project stays its owner's to write.
func sameOwner(root *os.Root, name string) {
	if os.Getuid() != 0 {
		return
	}
	if fi, err := root.Lstat(filepath.Dir(name)); err == nil {
		if o, err := ownerOfInfo(fi); err == nil {
			root.Lchown(name, int(o.Uid), int(o.Gid)) // best effort: a root_squash NFS, a vfat
		}
	}
}

// unmake takes away the empty file made for a single one's mount, when it
// is still that file and empty (another run may have written it since).
func (d *writableDir) unmake() {
	if d.made == nil {
		return
	}
	root, err := os.OpenRoot(d.ws)
	if err != nil {
		return
	}
	defer root.Close()
	if fi, err := root.Lstat(d.rel); err == nil && os.SameFile(fi, d.made) && fi.Size() == 0 {
		root.Remove(d.rel)
	}
	d.made = nil
}

// copySingle copies a file of the workspace's top directory; a missing one
// is made empty first, where its copy is mounted (on the host, the hook's
// open would make it), and taken away again if the hook leaves it empty.
func (d *writableDir) copySingle(root *os.Root) error {
	if err := os.Mkdir(d.scratch, 0o700); err != nil {
		return err
	}
	f := d.files[0]
	if f.before == nil {
		// Without O_EXCL: another run of the hook may make it meanwhile.
		n, err := root.OpenFile(d.rel, os.O_WRONLY|os.O_CREATE|noFollow, f.mode)
		if err != nil {
			return err
		}
		fi, err := n.Stat()
		n.Close()
		if err != nil || !fi.Mode().IsRegular() {
			return errors.Join(err, errors.New("not a regular file"))
		}
		if fi.Size() == 0 {
			d.made = fi
			sameOwner(root, d.rel)
		} else if f.before, _, err = readRegular(root, d.rel, maxWritableBytes); err != nil {
			return err
		}
	}
	target := filepath.Join(d.scratch, d.rel)
	if err := os.WriteFile(target, f.before, f.mode|0o600); err != nil {
		return err
	}
	if d.runner != nil {
		uid, gid := int(d.runner.Uid), int(d.runner.Gid)
		if err := errors.Join(os.Lchown(target, uid, gid), os.Lchown(d.scratch, uid, gid)); err != nil {
			return err
		}
	}
	return nil
}

// editedInWorkspace is the file an edit event names (the hook asked for
// it: WritableEditedFile), relative to the workspace ws, when it is one a
// --writable file may be: a formatter after a Write or Edit rewrites that
// file. "" otherwise: the hook then sees it read-only, as the rest.
func editedInWorkspace(h *hook.Hook, env *hook.Envelope, ws string) string {
	if !h.WritableEditedFile || env.EditedFile == "" || ws == "" {
		return ""
	}
	rel, err := filepath.Rel(ws, env.EditedFile)
	if err != nil || !filepath.IsLocal(rel) || slices.Contains(h.Writable, rel) {
		return ""
	}
	root, err := os.OpenRoot(ws)
	if err != nil {
		return ""
	}
	defer root.Close()
	if _, err := checkWritable(root, rel); err != nil {
		return ""
	}
	return rel
}

// checkWritable checks rel and reads what it holds now.
func checkWritable(root *os.Root, rel string) (*writableFile, error) {
	if err := hook.CheckWritable(rel); err != nil {
		return nil, err
	}
	parts := strings.Split(rel, string(filepath.Separator))
	// Every directory on the way is a directory, not a link: the copy is
	// mounted where the workspace says, nowhere else. A missing one is
	// made, as the hook's mkdir -p would.
	if err := makeWay(root, parts[:len(parts)-1]); err != nil {
		return nil, err
	}
	f := &writableFile{rel: rel, mode: 0o644}
	b, fi, err := readRegular(root, rel, maxWritableBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	default:
		f.before, f.mode = b, fi.Mode().Perm()
	}
	return f, nil
}

// readRegular reads name below root when it is a regular file of at most
// limit bytes, following no link at its end and never blocking on a FIFO.
func readRegular(root *os.Root, name string, limit int64) ([]byte, fs.FileInfo, error) {
	fi, err := root.Lstat(name)
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, errors.New("not a regular file (a link is not followed)")
	}
	f, err := root.OpenFile(name, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	opened, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !opened.Mode().IsRegular() || !os.SameFile(fi, opened) {
		return nil, nil, errors.New("changed while it was read")
	}
	if opened.Size() > limit {
		return nil, nil, fmt.Errorf("%d bytes, more than %d: trim it", opened.Size(), limit)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(b)) > limit {
		err = fmt.Errorf("more than %d bytes: trim it", limit)
	}
	return b, opened, err
}

// copy copies the directory's tree (directories, regular files, links as
// links), bounded, into the scratch directory. The caller's run writes it
// as the caller; for a run of root's, the directory and the named files
// become the runner's, and every other entry keeps its owner and mode: the
// hook reads there what it could read in the read-only workspace, no more.
func (d *writableDir) copy(root *os.Root) error {
	if err := os.Mkdir(d.scratch, 0o700); err != nil {
		return err
	}
	keepOwner := func(target string, fi fs.FileInfo) error {
		if d.runner == nil {
			return nil
		}
		o, err := ownerOfInfo(fi)
		if err == nil {
			err = os.Lchown(target, int(o.Uid), int(o.Gid))
		}
		return err
	}
	files, size := 0, int64(0)
	err := fs.WalkDir(root.FS(), filepath.ToSlash(d.rel), func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(d.rel, filepath.FromSlash(p))
		target := filepath.Join(d.scratch, rel)
		if files++; files > maxWritableDirFiles {
			return fmt.Errorf("more than %d entries: trim it, or name a file in a smaller directory", maxWritableDirFiles)
		}
		switch t := e.Type(); {
		case e.IsDir():
			if rel == "." {
				return nil
			}
			fi, err := root.Lstat(filepath.FromSlash(p))
			if err == nil {
				err = os.Mkdir(target, 0o700)
			}
			if err == nil {
				err = os.Chmod(target, fi.Mode().Perm()|0o700)
			}
			if err != nil {
				return err
			}
			return keepOwner(target, fi)
		case t&fs.ModeSymlink != 0:
			fi, err := root.Lstat(filepath.FromSlash(p))
			if err != nil {
				return err
			}
			link, err := root.Readlink(filepath.FromSlash(p))
			if err == nil {
				err = os.Symlink(link, target)
			}
			if err != nil {
				return err
			}
			return keepOwner(target, fi)
		case !t.IsRegular():
			return nil // a socket or a device: not the hook's state
		}
		b, fi, err := readRegular(root, filepath.FromSlash(p), maxWritableDirBytes)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if size += int64(len(b)); size > maxWritableDirBytes {
			return fmt.Errorf("more than %d bytes: trim it, or name a file in a smaller directory", maxWritableDirBytes)
		}
		if err := os.WriteFile(target, b, fi.Mode().Perm()|0o600); err != nil {
			return err
		}
		if d.whole {
			if d.before == nil {
				d.before = map[string]*writableFile{}
			}
			// The hook's own are what it could read in the workspace: for a
			// run of root's, those become the runner's; any other keeps its
			// owner and mode, and is never rewritten nor removed from here.
			mine := true
			if d.runner != nil {
				o, err := ownerOfInfo(fi)
				mine = err == nil && (o.Uid == d.runner.Uid || fi.Mode().Perm()&0o004 != 0)
			}
			d.before[rel] = &writableFile{rel: rel, before: b, mode: fi.Mode().Perm(), mine: mine}
			if d.runner != nil && mine {
				return os.Lchown(target, int(d.runner.Uid), int(d.runner.Gid))
			}
			return keepOwner(target, fi)
		}
		return keepOwner(target, fi)
	})
	if err != nil || d.runner == nil {
		return err
	}
	return d.giveRunner()
}

// giveRunner gives the runner (a run of root's) the copy's directory, its
// subdirectories when whole, and the named files.
func (d *writableDir) giveRunner() error {
	uid, gid := int(d.runner.Uid), int(d.runner.Gid)
	if d.whole { // its subdirectories too
		err := filepath.WalkDir(d.scratch, func(p string, e fs.DirEntry, err error) error {
			if err == nil && e.IsDir() {
				err = os.Lchown(p, uid, gid)
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	for _, f := range d.files {
		if f.before != nil {
			if err := os.Lchown(filepath.Join(d.scratch, filepath.Base(f.rel)), uid, gid); err != nil {
				return err
			}
		}
	}
	return os.Lchown(d.scratch, uid, gid)
}

// copyBack puts what the hook left of each named file into the workspace:
// its new bytes, or its removal, resolved inside the workspace. It
// reports, file by file, what it did.
func (d *writableDir) copyBack() []string {
	var out []string
	report := func(f *writableFile, what string) { out = append(out, f.rel+": "+what) }
	root, err := os.OpenRoot(d.ws)
	if err != nil {
		return []string{fmt.Sprintf("%s: not copied back: %v", d.rel, err)}
	}
	defer root.Close()
	scratch, err := os.OpenRoot(d.scratch)
	if err != nil {
		return []string{fmt.Sprintf("%s: not copied back: %v", d.rel, err)}
	}
	defer scratch.Close()
	if d.whole {
		out = d.copyBackWhole(root, scratch)
	}
	for _, f := range d.files {
		if d.whole {
			break // its files went back with the rest
		}
		b, fi, err := readRegular(scratch, filepath.Base(f.rel), maxWritableBytes)
		if err == nil {
			err = d.written(fi)
		}
		switch {
		case d.single && f.before == nil && err == nil && len(b) == 0:
			// Made for the mount, and left empty: taken away again.
			d.unmake()
			report(f, "not written")
		case errors.Is(err, fs.ErrNotExist):
			if f.before == nil {
				report(f, "not written")
				continue
			}
			if err := root.Remove(f.rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
				report(f, fmt.Sprintf("not removed: %v", err))
				continue
			}
			report(f, "removed")
		case err != nil:
			report(f, fmt.Sprintf("not copied back: %v", err))
		case f.before != nil && bytes.Equal(b, f.before):
			report(f, "unchanged")
		default:
			if err := replaceIn(root, f.rel, b, f.mode); err != nil {
				report(f, fmt.Sprintf("not copied back: %v", err))
				continue
			}
			report(f, "rewritten")
		}
	}
	return out
}

// copyBackWhole puts every file the hook left in the copy of a whole
// directory into the workspace (made or rewritten: regular files of plain
// names, never a host's configuration, bounded as a copy is), and removes
// those of its own it removed. A copy it could not read whole removes
// nothing. It reports the changes alone.
func (d *writableDir) copyBackWhole(root, scratch *os.Root) []string {
	var out []string
	seen := map[string]bool{}
	complete := true
	files, size := 0, int64(0)
	errStop := errors.New("stop")
	err := fs.WalkDir(scratch.FS(), ".", func(p string, e fs.DirEntry, err error) error {
		rel := filepath.Join(d.rel, filepath.FromSlash(p))
		if err != nil {
			complete = false
			out = append(out, fmt.Sprintf("%s: not copied back: %v", rel, err))
			if e != nil && e.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if p == "." {
			return nil
		}
		inDir := filepath.FromSlash(p)
		seen[inDir] = true
		if hook.RefusedName(e.Name()) || hook.CheckWritable(rel) != nil {
			if e.IsDir() {
				skipUnder(seen, d.before, inDir)
				return fs.SkipDir
			}
			if d.before[inDir] == nil || !e.Type().IsRegular() {
				out = append(out, fmt.Sprintf("%s: not copied back: a name that stays read-only", rel))
			}
			return nil
		}
		if e.IsDir() || !e.Type().IsRegular() {
			return nil // made when a file of it comes back; a link is never followed
		}
		if files++; files > maxWritableDirFiles {
			out = append(out, fmt.Sprintf("%s: more than %d files: the rest not copied back, nothing removed", d.rel, maxWritableDirFiles))
			return errStop
		}
		before := d.before[inDir]
		if before != nil && !before.mine {
			return nil // not the hook's to change
		}
		b, fi, err := readRegular(scratch, inDir, maxWritableDirBytes)
		if err == nil {
			err = d.written(fi)
		}
		if err == nil {
			if size += int64(len(b)); size > maxWritableDirBytes {
				err = fmt.Errorf("more than %d bytes in all", maxWritableDirBytes)
			}
		}
		switch {
		case err != nil:
			out = append(out, fmt.Sprintf("%s: not copied back: %v", rel, err))
		case before != nil && bytes.Equal(b, before.before):
		default:
			mode := fi.Mode().Perm() & 0o666 // never made executable in the workspace
			if before != nil {
				mode = before.mode
			}
			err := makeWay(root, strings.Split(filepath.Dir(rel), string(filepath.Separator)))
			if err == nil {
				err = replaceIn(root, rel, b, mode)
			}
			if err != nil {
				out = append(out, fmt.Sprintf("%s: not copied back: %v", rel, err))
				return nil
			}
			out = append(out, rel+": "+map[bool]string{true: "rewritten", false: "made"}[before != nil])
		}
		return nil
	})
	if err != nil {
		complete = false
	}
	for _, inDir := range slices.Sorted(maps.Keys(d.before)) {
		if !complete || seen[inDir] || !d.before[inDir].mine {
			continue
		}
		rel := filepath.Join(d.rel, inDir)
		if hook.CheckWritable(rel) != nil {
			continue
		}
		if err := root.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
			out = append(out, fmt.Sprintf("%s: not removed: %v", rel, err))
			continue
		}
		out = append(out, rel+": removed")
	}
	if len(out) == 0 {
		out = append(out, d.rel+"/: unchanged")
	}
	return out
}

// skipUnder marks every file the copy held below dir as seen: a directory
// the walk does not enter removes nothing.
func skipUnder(seen map[string]bool, before map[string]*writableFile, dir string) {
	for p := range before {
		if strings.HasPrefix(p, dir+string(filepath.Separator)) {
			seen[p] = true
		}
	}
}

// written checks that the hook wrote a named file of the copy, as its
// own: with one name. In a run of root's, a file of another owner there
// is one the hook renamed (it owns the directory), which it may not have
// been able to read: its bytes must not go where it can read them.
func (d *writableDir) written(fi fs.FileInfo) error {
	if n, err := linksOf(fi); err == nil && n != 1 {
		return fmt.Errorf("%d names (a hard link)", n)
	}
	if d.runner == nil {
		return nil
	}
	o, err := ownerOfInfo(fi)
	if err != nil {
		return err
	}
	if o.Uid != d.runner.Uid {
		return fmt.Errorf("not the hook's own file (owned by uid %d)", o.Uid)
	}
	return nil
}

// replaceIn writes name below root atomically: a new file beside it,
// renamed over it (a link there is replaced, not followed). Written by
// root, it keeps the owner of the file it replaces (of its directory, when
// new).
func replaceIn(root *os.Root, name string, b []byte, perm os.FileMode) error {
	var rnd [6]byte
	rand.Read(rnd[:])
	tmp := filepath.Join(filepath.Dir(name), "."+filepath.Base(name)+".hookexec-"+hex.EncodeToString(rnd[:]))
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil && os.Getuid() == 0 {
		fi, lerr := root.Lstat(name)
		if lerr != nil {
			fi, lerr = root.Lstat(filepath.Dir(name))
		}
		if o, oerr := ownerOfInfo(fi); lerr == nil && oerr == nil {
			f.Chown(int(o.Uid), int(o.Gid)) // best effort: a root_squash NFS, a vfat
		}
	}
	if err = errors.Join(err, f.Chmod(perm), f.Sync(), f.Close()); err == nil {
		err = root.Rename(tmp, name)
	}
	if err != nil {
		root.Remove(tmp)
	}
	return err
}
