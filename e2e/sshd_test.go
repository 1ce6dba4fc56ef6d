package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/hookexec/hook-exec/backend/docker"
)

// sshPassEnv turns on the case suites' variant on this machine's Docker
// reached as a remote engine, DOCKER_HOST=ssh://, through a real sshd on
// loopback (Debian's openssh-server: make sshd): the engine's attach, no
// channel, ssh's stdin closed for the half-close. A pass of its own
// (make e2e-ssh).
const sshPassEnv = "HOOKEXEC_E2E_SSH"

var (
	sshOnce sync.Once
	sshErr  error
	sshEngs []engineUnderTest
	// sshStop stops the sshd and removes its directory (TestMain).
	sshStop = func() {}
	// sshOpen opens another Docker backend over the test's sshd.
	sshOpen func(...client.Opt) (*docker.Backend, error)
)

// sshEngines returns Docker reached over ssh for the case suites, in the
// ssh pass; none otherwise.
func sshEngines(t testing.TB) []engineUnderTest {
	t.Helper()
	if os.Getenv(sshPassEnv) != "1" {
		t.Logf("the docker-over-ssh variants run in their own pass (%s=1; make e2e-ssh runs it)", sshPassEnv)
		return nil
	}
	requireEngines(t)
	sshOnce.Do(sshSetup)
	if sshErr != nil {
		if os.Getenv("HOOKEXEC_REQUIRE_ENGINE") == "1" {
			t.Fatalf("docker over ssh is not usable and HOOKEXEC_REQUIRE_ENGINE=1 (make sshd installs the sshd): %v", sshErr)
		}
		t.Skipf("docker over ssh is not usable (make sshd installs the sshd): %v", sshErr)
	}
	return sshEngs
}

// sshSetup starts an sshd on a free loopback port, with a host key and a
// client key of its own and nothing of the machine's ssh configuration,
// and opens Docker through it as hook-exec does for DOCKER_HOST=ssh://:
// an ssh program (HOOKEXEC_SSH: here a wrapper naming the test's config)
// running `docker system dial-stdio` on the far side.
func sshSetup() {
	const sshd = "/usr/sbin/sshd"
	if _, err := os.Stat(sshd); err != nil {
		sshErr = err
		return
	}
	me, err := user.Current()
	if err != nil {
		sshErr = err
		return
	}
	dir, err := os.MkdirTemp("/var/tmp", "hookexec-sshd-")
	if err != nil {
		sshErr = err
		return
	}
	var cmd *exec.Cmd
	var exited chan struct{} // closed once sshd's Wait returned
	sshStop = func() {
		if exited != nil {
			cmd.Process.Kill()
			<-exited
		}
		os.RemoveAll(dir)
	}
	path := func(name string) string { return filepath.Join(dir, name) }
	for _, key := range []string{"host_key", "client_key"} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", path(key)).CombinedOutput(); err != nil {
			sshErr = fmt.Errorf("ssh-keygen: %v: %s", err, out)
			return
		}
	}
	port, err := freePort()
	if err != nil {
		sshErr = err
		return
	}
	clientPub, _ := os.ReadFile(path("client_key.pub"))
	hostPub, _ := os.ReadFile(path("host_key.pub"))
	files := map[string]string{
		"authorized_keys": string(clientPub),
		"known_hosts":     fmt.Sprintf("[127.0.0.1]:%d %s", port, hostPub),
		"sshd_config": fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %s
PidFile %s
AuthorizedKeysFile %s
AllowUsers %s
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
MaxStartups 100
`, port, path("host_key"), path("sshd.pid"), path("authorized_keys"), me.Username),
		"ssh_config": fmt.Sprintf(`Host hookexec-e2e
  HostName 127.0.0.1
  Port %d
  User %s
  IdentityFile %s
  IdentitiesOnly yes
  UserKnownHostsFile %s
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  BatchMode yes
  ConnectTimeout 10
`, port, me.Username, path("client_key"), path("known_hosts")),
		"ssh": "#!/bin/sh\nexec ssh -F " + path("ssh_config") + " \"$@\"\n",
	}
	for name, data := range files {
		if err := os.WriteFile(path(name), []byte(data), 0o600); err != nil {
			sshErr = err
			return
		}
	}
	os.Chmod(path("ssh"), 0o700)
	// sshd's privilege separation directory, made by its service otherwise.
	os.MkdirAll("/run/sshd", 0o755)
	log := &syncWriter{w: &bytes.Buffer{}}
	cmd = exec.Command(sshd, "-D", "-e", "-f", path("sshd_config"))
	cmd.Stderr = log
	// Its sessions' children hold the pipe: Wait does not wait for them.
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		sshErr = err
		return
	}
	exited = make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	// Up when ssh runs the docker CLI on the far side, bounded.
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, err := exec.Command(path("ssh"), "hookexec-e2e", "docker", "version", "--format", "{{.Server.Version}}").CombinedOutput()
		if err == nil {
			break
		}
		select {
		case <-exited:
			sshErr = fmt.Errorf("the test sshd exited: %s", log.String())
			return
		default:
		}
		if time.Now().After(deadline) {
			sshErr = fmt.Errorf("ssh to the test sshd: %v: %s (sshd said %q)", err, out, log.String())
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	opts, err := docker.SSH("ssh://hookexec-e2e", path("ssh"))
	if err != nil {
		sshErr = err
		return
	}
	sshOpen = func(extra ...client.Opt) (*docker.Backend, error) { return docker.New(append(opts, extra...)...) }
	d, err := sshOpen()
	if err != nil {
		sshErr = err
		return
	}
	if d.Stream() != "attach" {
		sshErr = errors.New("docker over ssh would stream through a channel: want the attach")
		d.Close()
		return
	}
	altMu.Lock()
	altBackends = append(altBackends, d)
	altMu.Unlock()
	// A connection is an ssh process and a login: each case gets twice
	// the slowest of three cold runs more.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start, err := slowestColdRun(ctx, d, refs)
	if err != nil {
		sshErr = err
		return
	}
	sshEngs = []engineUnderTest{{"docker", "", d, refs, 2 * start, nil, "ssh"}}
	println("e2e: a cold run over ssh took at most", start.String(), "here; the cases' timeouts get twice that more")
}

// freePort is a loopback TCP port nothing listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// syncWriter serializes writes to w.
type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.String()
}
