# hook-exec pooled launcher for .py scripts: started ahead of its run and
# waiting on stdin. argv: python -I -S -c <this> hook-pool
# stdin: a header line "N M", M bytes of env (NAME=VALUE, NUL-separated),
# N script bytes, then the event, then EOF.
# Exit codes of its own as launch.py's, with a "hook-launcher:" line.
import os
import sys


def fail(code, msg):
    os.write(2, ("hook-launcher: %s\n" % msg).encode())
    os._exit(code)


def read_exact(n, what):
    chunks, got = [], 0
    while got < n:
        b = os.read(0, n - got)
        if not b:
            fail(123, "short %s: read %d of %d bytes" % (what, got, n))
        chunks.append(b)
        got += len(b)
    return b"".join(chunks)


def remove(p):
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


def main():
    header = b""
    while not header.endswith(b"\n"):
        b = os.read(0, 1)  # one byte at a time: never past the line
        if not b or len(header) > 64:
            fail(123, "short header")
        header += b
    try:
        n, m = (int(x) for x in header.split())
    except ValueError:
        fail(121, "usage: bad header %r" % header)
    env = read_exact(m, "environment")
    script = read_exact(n, "script")
    base = os.environ.get("TMPDIR") or "/tmp"
    d = None
    for _ in range(16):
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
        os.chdir(d)
        for kv in env.split(b"\0"):
            if kv:
                k, _, v = kv.partition(b"=")
                os.environ[k.decode()] = v.decode()
        exe = sys.executable or "python"
        pid = os.fork()
        if pid == 0:
            try:
                os.execv(exe, [exe, "-I", "-S", "hook.py"])
            finally:
                fail(122, "missing program: python (cannot run %s)" % exe)
        _, ws = os.waitpid(pid, 0)
        status = 128 + os.WTERMSIG(ws) if os.WIFSIGNALED(ws) else os.WEXITSTATUS(ws)
    finally:
        os.chdir("/")
        remove(d)
    os._exit(status)


main()
