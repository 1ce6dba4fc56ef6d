//go:build linux

package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestListen(t *testing.T) {
	t.Parallel()
	dir := privateTempDir(t)

	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("keep"), 0o600)
	if _, err := Listen(file, nil); !errors.Is(err, ErrNotSocket) {
		t.Errorf("a regular file: error %v, want ErrNotSocket", err)
	}
	if b, _ := os.ReadFile(file); string(b) != "keep" {
		t.Errorf("a regular file was changed or removed")
	}

	live := filepath.Join(dir, "live.sock")
	ln, err := Listen(live, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if fi, err := os.Stat(live); err != nil {
		t.Errorf("stat socket: %v", err)
	} else if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("socket mode %v, want 0600", perm)
	}
	if _, err := Listen(live, nil); !errors.Is(err, ErrInUse) {
		t.Errorf("a socket a server answers on: error %v, want ErrInUse", err)
	}

	stale := filepath.Join(dir, "stale.sock")
	l, err := net.Listen("unix", stale)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close()
	ln2, err := Listen(stale, nil)
	if err != nil {
		t.Errorf("a stale socket was not replaced: %v", err)
	} else {
		ln2.Close()
	}
}

// TestListenMakesAPrivateDirectory listens under umask 0, in a process of
// its own since the umask is the whole process's: the directory it makes is
// 0700 and the socket 0600 all the same.
func TestListenMakesAPrivateDirectory(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	sock := filepath.Join(dir, "s.sock")
	if out := helper(t, "listen-umask0", nil, sock, ""); out != "listening" {
		t.Fatalf("helper: %s", out)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode() != fs.ModeDir|0o700 {
		t.Errorf("socket directory mode %v, want drwx------", fi.Mode())
	}
	fi, err = os.Lstat(sock)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode() != fs.ModeSocket|0o600 {
		t.Errorf("socket mode %v, want Srw-------", fi.Mode())
	}
}

func TestListenRefusesADirectoryNotPrivate(t *testing.T) {
	t.Parallel()
	mkdir := func(mode fs.FileMode) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, mode); err != nil {
				t.Fatal(err)
			}
		}
	}
	tests := []struct {
		name  string
		root  bool // needs root to set up
		setup func(t *testing.T, dir string)
		// ok says whether the DirError names what is wrong.
		ok func(e *DirError) bool
	}{
		{"others may enter", false, mkdir(0o755), func(e *DirError) bool { return e.Mode.Perm() == 0o755 }},
		{"the group may enter", false, mkdir(0o710), func(e *DirError) bool { return e.Mode.Perm() == 0o710 }},
		{"world-writable and sticky, like /tmp", false, mkdir(0o1777), func(e *DirError) bool { return e.Mode.Perm() == 0o777 }},
		{"a link to a private directory", false, func(t *testing.T, dir string) {
			mkdir(0o700)(t, dir+".real")
			if err := os.Symlink(dir+".real", dir); err != nil {
				t.Fatal(err)
			}
		}, func(e *DirError) bool { return e.Mode&fs.ModeSymlink != 0 }},
		{"a file", false, func(t *testing.T, dir string) {
			if err := os.WriteFile(dir, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}, func(e *DirError) bool { return e.Mode.IsRegular() }},
		{"another user's", true, func(t *testing.T, dir string) {
			mkdir(0o700)(t, dir)
			if err := os.Chown(dir, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}, func(e *DirError) bool { return e.UID == 65534 && e.ServerUID == os.Geteuid() }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.root && os.Geteuid() != 0 {
				t.Skip("needs root to give the directory to uid 65534")
			}
			dir := filepath.Join(t.TempDir(), "run")
			tc.setup(t, dir)
			sock := filepath.Join(dir, "s.sock")
			ln, err := Listen(sock, nil)
			if err == nil {
				ln.Close()
				t.Fatal("Listen accepted the directory")
			}
			var de *DirError
			if !errors.Is(err, ErrNotPrivate) || !errors.As(err, &de) {
				t.Fatalf("error %v, want a DirError (ErrNotPrivate)", err)
			}
			if de.Dir != dir || !tc.ok(de) {
				t.Errorf("DirError %+v does not name what is wrong with %s", de, dir)
			}
			if _, err := os.Lstat(sock); err == nil {
				t.Errorf("a socket was made in %s", dir)
			}
		})
	}
	t.Run("the directory's parent is missing", func(t *testing.T) {
		t.Parallel()
		parent := filepath.Join(t.TempDir(), "missing")
		_, err := Listen(filepath.Join(parent, "run", "s.sock"), nil)
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("error %v, want ErrNotExist", err)
		}
		if _, err := os.Lstat(parent); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Listen made directories above the socket's: %v", err)
		}
	})
}

// TestPeerOfAnotherUserIsRefused loosens the directories and the socket, as
// an administrator sharing them might, so that only the peer check stands
// between a client of uid 65534 and a server that runs its scripts as root.
func TestPeerOfAnotherUserIsRefused(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root: the other user's client runs as uid 65534")
	}
	var log lockedBuffer
	sock, stop, _ := serverLogging(t, 5*time.Second, &log)
	defer stop()
	marker := filepath.Join(t.TempDir(), "ran")
	touch := script(t, "echo > "+marker+"\necho '{\"schema_version\":1,\"action\":\"allow\"}'\n")
	ask := func() error {
		_, err := dial(t, sock).Run(context.Background(), Request{Script: touch, Scope: "owner", Event: json.RawMessage(event)})
		return err
	}
	if err := ask(); err != nil {
		t.Fatalf("the owner's request: %v", err)
	}
	if err := os.Remove(marker); err != nil {
		t.Fatalf("the owner's request did not run: %v", err)
	}
	for d := filepath.Dir(sock); strings.HasPrefix(d, os.TempDir()+"/"); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o711); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(sock, 0o666); err != nil {
		t.Fatal(err)
	}

	out := helper(t, "run", &syscall.Credential{Uid: 65534, Gid: 65534}, sock, touch)
	if want := "peer uid 65534"; !strings.Contains(out, ErrServer.Error()) || !strings.Contains(out, want) {
		t.Errorf("uid 65534's client got %q, want the server's refusal saying %q", out, want)
	}
	if _, err := os.Lstat(marker); err == nil {
		t.Errorf("uid 65534's request ran")
	}
	if got := log.String(); !strings.Contains(got, "hook-exec: connection refused: peer uid 65534 (pid ") {
		t.Errorf("server log %q does not name the refused peer", got)
	}
	if err := ask(); err != nil {
		t.Errorf("the owner's request after a refusal: %v", err)
	}
}

// helperEnv names the part a helper process plays (see TestHelperProcess).
const helperEnv = "HOOKEXEC_SERVE_HELPER"

// helper runs this test binary again as the helper process what, with the
// socket and script paths, as cred's user (nil: this one), and returns the
// line it printed.
func helper(t *testing.T, what string, cred *syscall.Credential, sock, script string) string {
	t.Helper()
	// /proc/self/exe: the binary's own directory may be closed to another
	// user.
	cmd := exec.Command("/proc/self/exe", "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), helperEnv+"="+what, "HOOKEXEC_SERVE_SOCKET="+sock, "HOOKEXEC_SERVE_SCRIPT="+script)
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper %s: %v (stdout %q, stderr %q)", what, err, out, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// TestHelperProcess is not a test: run again by helper, it plays a second
// process and prints one line.
func TestHelperProcess(t *testing.T) {
	sock := os.Getenv("HOOKEXEC_SERVE_SOCKET")
	switch os.Getenv(helperEnv) {
	case "":
		return
	case "listen-umask0":
		syscall.Umask(0)
		if _, err := Listen(sock, nil); err != nil {
			fmt.Println(err)
		} else {
			// Exit without closing, to leave the socket for the test.
			fmt.Println("listening")
		}
	case "run":
		c, err := Dial(context.Background(), sock)
		if err == nil {
			_, err = c.Run(context.Background(), Request{Script: os.Getenv("HOOKEXEC_SERVE_SCRIPT"), Scope: "owner", Event: json.RawMessage(event)})
		}
		fmt.Println(err)
	}
	os.Exit(0)
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// TestClientReadsARefusal: a client that writes its request after the
// server refused and closed the connection still reads why.
func TestClientReadsARefusal(t *testing.T) {
	t.Parallel()
	sock := filepath.Join(privateTempDir(t), "s.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	refused := make(chan struct{})
	go func() {
		defer close(refused)
		if c, err := ln.Accept(); err == nil {
			refuse(c, &PeerError{UID: 65534, PID: 1, ServerUID: 0})
		}
	}()
	c := dial(t, sock)
	<-refused
	_, err = c.Run(context.Background(), Request{Script: "/a.sh", Event: json.RawMessage(event)})
	if !errors.Is(err, ErrServer) || !strings.Contains(err.Error(), "peer uid 65534") {
		t.Errorf("error %v, want ErrServer with the refusal", err)
	}
}
