package serve

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"
)

var (
	// ErrNotSocket: the socket path exists and is something else.
	ErrNotSocket = errors.New("exists and is not a socket")
	// ErrInUse: a server already answers on the socket path.
	ErrInUse = errors.New("a server already listens there")
	// ErrNotPrivate: the directory the socket would be bound in is not
	// private to the server's user (see [DirError]).
	ErrNotPrivate = errors.New("not a private directory")
	// ErrPeer: a connection was refused because its peer is not the
	// server's user (see [PeerError]).
	ErrPeer = errors.New("connection refused")
)

// DirError says why the socket's directory is not private: what Lstat saw
// there, and the server's uid it was checked against.
type DirError struct {
	Dir       string
	Mode      fs.FileMode // type and permission bits, as Lstat saw them
	UID       int         // the directory's owner
	ServerUID int
}

func (e *DirError) Error() string {
	var why string
	switch {
	case e.Mode&fs.ModeSymlink != 0:
		why = "is a symbolic link"
	case !e.Mode.IsDir():
		why = "is not a directory"
	case e.UID != e.ServerUID:
		why = fmt.Sprintf("is owned by uid %d, not the server's uid %d", e.UID, e.ServerUID)
	default:
		why = fmt.Sprintf("has mode %04o: group or others may enter it", e.Mode.Perm())
	}
	return fmt.Sprintf("socket directory %s %s: %v (want a directory of uid %d with mode 0700 or stricter, or a missing one to create)",
		e.Dir, why, ErrNotPrivate, e.ServerUID)
}

func (e *DirError) Is(target error) bool { return target == ErrNotPrivate }

// PeerError is a connection refused by its peer's credentials
// (SO_PEERCRED): another uid than the server's, or credentials that could
// not be read (Err; then UID and PID are -1).
type PeerError struct {
	UID, PID  int
	ServerUID int
	Err       error
}

func (e *PeerError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%v: read its peer credentials: %v", ErrPeer, e.Err)
	}
	return fmt.Sprintf("%v: peer uid %d (pid %d) is not the server's uid %d", ErrPeer, e.UID, e.PID, e.ServerUID)
}

func (e *PeerError) Is(target error) bool { return target == ErrPeer }

func (e *PeerError) Unwrap() error { return e.Err }

// Listen listens on the unix socket at path, for the server's own user
// only. It is the one way a hook-exec server binds:
//
//   - The socket's directory must be private: when it is missing Listen
//     creates it (mode 0700; its parent must exist); when it exists it must
//     be a directory, not a link, owned by the server's effective uid, with
//     no group or other permission bits, or Listen refuses with a
//     [DirError]. Nobody else can enter it, so nobody can connect between
//     the bind and the chmod that makes the socket 0600, whatever the umask.
//   - A socket left by a dead server is replaced; a path that is not a
//     socket, or a socket a live server answers on, is refused and left
//     alone.
//   - Accept checks every connection's peer credentials before a byte of
//     it is read: a peer whose uid is not the server's is sent one
//     Response line with the [PeerError], closed, and logged to log (nil:
//     discarded), and Accept waits for the next one. Root is not excepted:
//     a uid 0 peer may be a confined container's root, and a real root can
//     still connect as the server's user.
func Listen(path string, log io.Writer) (net.Listener, error) {
	if log == nil {
		log = io.Discard
	}
	uid := os.Geteuid()
	if err := privateDir(filepath.Dir(path), uid); err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	// One server per socket: two started at once (two hosts' first calls)
	// would otherwise both find no server, and the second would replace
	// the first's socket.
	unlock, err := lockFile(path + ".lock")
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	if err := clearStale(path); err != nil {
		unlock()
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		unlock()
		return nil, err
	}
	// 0600 as well, so that a directory loosened later still leaves the
	// socket its owner's.
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		unlock()
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	return &peerListener{UnixListener: ln, uid: uid, log: log, unlock: unlock}, nil
}

// PrivateDir makes the socket directory dir (0700) for this process's
// user, or checks that the one there is theirs alone: a *DirError
// otherwise (another user made it first, in a shared /tmp).
func PrivateDir(dir string) error { return privateDir(dir, os.Geteuid()) }

// privateDir makes dir (0700) or checks the one that is there. Mkdir comes
// first, so no one can slip a directory in between a check and a create.
func privateDir(dir string, uid int) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("make socket directory: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("check socket directory: %w", err)
	}
	owner, ok := ownerOf(fi)
	if !ok {
		return fmt.Errorf("check socket directory %s: no owner in its status", dir)
	}
	e := &DirError{Dir: dir, Mode: fi.Mode(), UID: owner, ServerUID: uid}
	if fi.Mode().Type() != fs.ModeDir || e.UID != uid || fi.Mode().Perm()&0o077 != 0 {
		return e
	}
	return nil
}

// clearStale removes a socket no server answers on; anything else at path
// is refused and left alone.
func clearStale(path string) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case fi.Mode()&fs.ModeSocket == 0:
		return fmt.Errorf("%w: refusing to remove it", ErrNotSocket)
	}
	if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
		c.Close()
		return ErrInUse
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("remove stale socket: %w", err)
	}
	return nil
}

// peerListener admits the connections of the server's own uid only.
type peerListener struct {
	*net.UnixListener
	uid    int
	log    io.Writer
	unlock func()
	once   sync.Once
}

// Close stops listening (removing the socket), then lets the next server
// take the lock.
func (l *peerListener) Close() error {
	err := l.UnixListener.Close()
	l.once.Do(l.unlock)
	return err
}

func (l *peerListener) Accept() (net.Conn, error) {
	for {
		c, err := l.AcceptUnix()
		if err != nil {
			return nil, err
		}
		if err := l.admit(c); err != nil {
			fmt.Fprintf(l.log, "hook-exec: %v\n", err)
			refuse(c, err)
			continue
		}
		return c, nil
	}
}

func (l *peerListener) admit(c *net.UnixConn) error {
	uid, pid, err := peerCred(c)
	if err != nil {
		return &PeerError{UID: -1, PID: -1, ServerUID: l.uid, Err: err}
	}
	if uid != l.uid {
		return &PeerError{UID: uid, PID: pid, ServerUID: l.uid}
	}
	return nil
}

// refuse tells the peer why in one Response line, then closes. The line is
// small and the connection new, so the write does not wait on the peer;
// the deadline only makes sure of it.
func refuse(c net.Conn, why error) {
	defer c.Close()
	b, err := json.Marshal(Response{Error: why.Error()})
	if err != nil {
		return
	}
	c.SetWriteDeadline(time.Now().Add(time.Second))
	c.Write(append(b, '\n'))
}
