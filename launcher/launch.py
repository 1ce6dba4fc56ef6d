# hook-exec launcher for .py scripts. argv: python -I -S -c <this> N
# stdin: exactly N script bytes, then the event, then EOF.
# Exit codes of its own (with a "hook-launcher:" line on stderr):
#   121 usage, 122 missing program, 123 short script, 124 no private directory.
import os
import sys


def fail(code, msg):
    os.write(2, ("hook-launcher: %s\n" % msg).encode())
    os._exit(code)


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


def main():
    try:
        n = int(sys.argv[1])
        if n < 0 or not sys.argv[1].isdigit():
            raise ValueError
    except (IndexError, ValueError):
        fail(121, "usage: script length must be a decimal byte count")
    chunks, got = [], 0
    while got < n:
        # os.read, never sys.stdin: a buffered read would swallow the event.
        b = os.read(0, n - got)
        if not b:
            fail(123, "short script: read %d of %d bytes" % (got, n))
        chunks.append(b)
        got += len(b)
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
        path = os.path.join(d, "hook.py")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(fd, b"".join(chunks))
        os.close(fd)
        os.chdir(d)
        exe = sys.executable or "python"
        pid = os.fork()
        if pid == 0:
            try:
                os.execv(exe, [exe, "-I", "-S", "hook.py"])
            finally:
                fail(122, "missing program: python (cannot run %s)" % exe)
        _, ws = os.waitpid(pid, 0)
        if os.WIFSIGNALED(ws):
            status = 128 + os.WTERMSIG(ws)
        else:
            status = os.WEXITSTATUS(ws)
    finally:
        os.chdir("/")
        remove(d)
    os._exit(status)


main()
