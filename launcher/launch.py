# hook-exec launcher for .py scripts.
#   cold:   python -I -S -c <this> N [ARG...]   stdin: N script bytes, the event, EOF
#           (each ARG is passed to the script)
#   pooled: python -I -S -c <this> pool   stdin: a header line "N M", M bytes of
#           environment (NAME=VALUE, NUL-separated), N script bytes, the event, EOF
# Exit codes of its own (with a "hook-launcher:" line on stderr):
#   121 usage, 122 missing program, 123 short script, 124 no private directory.
# A script's own status in 121-124 leaves as 120: those four are the launcher's.
import os
import sys


def fail(code, msg):
    os.write(2, ("hook-launcher: %s\n" % msg).encode())
    os._exit(code)


def read_exact(n, what):
    # os.read, never sys.stdin: a buffered read would swallow the event.
    chunks, got = [], 0
    while got < n:
        b = os.read(0, n - got)
        if not b:
            fail(123, "short %s: read %d of %d bytes" % (what, got, n))
        chunks.append(b)
        got += len(b)
    return b"".join(chunks)


def remove(p):
    # The script may have taken its own permissions away: give them back.
    try:
        if os.path.isdir(p) and not os.path.islink(p):
            try:
                os.chmod(p, 0o700)
            except OSError:
                pass
            for name in os.listdir(p):
                remove(os.path.join(p, name))
            os.rmdir(p)
        else:
            os.unlink(p)
    except OSError:
        pass


def lengths():
    arg = sys.argv[1] if len(sys.argv) > 1 else ""
    if arg == "pool":
        header = b""
        while not header.endswith(b"\n"):
            b = os.read(0, 1)  # one byte at a time: never past the line
            if not b or len(header) > 64:
                fail(123, "short header")
            header += b
        parts = header.split()
    else:
        parts = [arg.encode(), b"0"]
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        fail(121, "usage: script and environment lengths must be decimal byte counts")
    return int(parts[0]), int(parts[1])


def feed():
    # The script's stdin is a pipe, as a host hands its hooks one, fed by a
    # child from the launcher's: that is a FIFO (the channel's), and a
    # script that opens /dev/stdin again (open("/dev/stdin")) would open
    # the FIFO anew and wait for a writer long gone, where a pipe opens
    # again at once. The child is killed once the script has ended: what
    # the script left holding its stdin (a daemon it started) must not keep
    # the run waiting on an event nobody reads.
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            while True:
                b = os.read(0, 65536)
                if not b:
                    break
                while b:
                    b = b[os.write(w, b):]
        except BaseException:
            pass  # a write the script no longer reads, a signal to its group
        finally:
            os._exit(0)
    os.close(w)
    os.dup2(r, 0)
    os.close(r)
    return pid


def main():
    n, m = lengths()
    env = read_exact(m, "environment")
    script = read_exact(n, "script")
    base = os.environ.get("TMPDIR") or "/tmp"
    d = None
    # HOOKEXEC_PRIVATE_DIR: the private directory's name, given where /tmp
    # is kept between runs (its caller removes what a killed run left).
    given = os.environ.pop("HOOKEXEC_PRIVATE_DIR", "")
    if given:
        try:
            os.mkdir(given, 0o700)
            d = given
        except OSError:
            fail(124, "cannot create the private directory %s" % given)
    for _ in range(0 if d else 16):
        p = os.path.join(base, "hook-" + os.urandom(8).hex())
        try:
            os.mkdir(p, 0o700)
            d = p
            break
        except FileExistsError:
            continue
        except OSError:
            break
    if d is None:
        fail(124, "cannot create a private directory in %s" % base)
    status = 0
    try:
        fd = os.open(os.path.join(d, "hook.py"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(fd, script)
        os.close(fd)
        for kv in env.split(b"\0"):
            if kv:
                k, _, v = kv.partition(b"=")
                os.environ[k.decode()] = v.decode()
        # HOOKEXEC_CWD: where the host's contract starts the hook (its
        # event's cwd, mounted); without it, the private directory.
        cwd = os.environ.pop("HOOKEXEC_CWD", "")
        target = os.path.join(d, "hook.py") if cwd else "hook.py"
        # HOOKEXEC_SCRIPT_PATH: the script's own file in its pinned tree,
        # mounted read-only (checked by hook-exec): it runs from there, its
        # directory first on sys.path, as python3 FILE runs it on the host.
        path_as = os.environ.pop("HOOKEXEC_SCRIPT_PATH", "")
        # HOOKEXEC_HOME_DIR: the directory the host keeps in the user's
        # home (.claude): it exists, empty, in the sandbox's home.
        home_dir = os.environ.pop("HOOKEXEC_HOME_DIR", "")
        if home_dir and os.environ.get("HOME"):
            try:
                os.makedirs(os.path.join(os.environ["HOME"], home_dir), exist_ok=True)
            except OSError:
                pass
        flags = ["-I", "-S"]
        if path_as:
            target, flags = path_as, ["-E", "-s", "-S"]
        try:
            os.chdir(cwd or d)
        except OSError:
            remove(d)
            fail(124, "cannot enter the working directory %s" % (cwd or d))
        exe = sys.executable or "python"
        feeder = feed()
        pid = os.fork()
        if pid == 0:
            try:
                os.execv(exe, [exe] + flags + [target] + sys.argv[2:])
            finally:
                fail(122, "missing program: python (cannot run %s)" % exe)
        os.close(0)
        _, ws = os.waitpid(pid, 0)
        status = 128 + os.WTERMSIG(ws) if os.WIFSIGNALED(ws) else os.WEXITSTATUS(ws)
        try:
            os.kill(feeder, 9)
        except OSError:
            pass
        os.waitpid(feeder, 0)
    finally:
        os.chdir("/")
        remove(d)
    if 121 <= status <= 124:
        status = 120
    os._exit(status)


main()
