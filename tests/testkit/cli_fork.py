"""The real CLI in a child process without paying the interpreter's start-up and imports each time.

Most tests run `leafwise` in a subprocess, and most of a call's cost is importing the CLI (about
0.1 s of CPU, far more than the command's own work on a test's small plan). A fork server, started
once per test process, imports the CLI and forks a child for each call: the child takes the call's
stdin, stdout and stderr, working folder, environment and argv, and runs the CLI's `main()` as
`python -m leafwise.commands.surfaces.cli` would, up to a normal interpreter exit (atexit
handlers, threads joined, streams flushed); its exit status is what `waitpid` reports, so a
signal's death reads as `subprocess` reports it (-N).

What the fork cannot show is start-up itself: an import that fails, import-time work, the
interpreter's reading of PYTHON* and locale variables. A call whose environment changes those is
run by a fresh interpreter (`needs_exec`), and so is every call with LEAFWISE_TEST_FORK=0;
tests/contract/test_startup.py runs the CLI fresh on purpose.
"""

from __future__ import annotations

import atexit
import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import traceback
from pathlib import Path

SWITCH = "LEAFWISE_TEST_FORK"  # "0": every call starts a fresh interpreter
# Imported once in the server: what CLI calls import (the registry's handlers load with load_all).
PRELOAD = ("leafwise.commands.surfaces.cli", "leafwise.commands.reconcile.engine", "leafwise.commands.team.commands",
           "leafwise.commands.adoption.importing", "ruamel.yaml", "networkx")
_STARTUP_VARIABLES = ("PYTHON", "LC_", "LANG")  # read by the interpreter as it starts, not later


def needs_exec(env: dict[str, str]) -> bool:
    """A call a forked child would not run as a fresh interpreter does."""
    if os.environ.get(SWITCH, "1") == "0":
        return True
    changed = {k for k in env.keys() ^ os.environ.keys()} | {k for k in env if env[k] != os.environ.get(k)}
    return any(k.startswith(_STARTUP_VARIABLES) for k in changed)


def run(argv: list[str], cwd: Path | str, env: dict[str, str], stdin: str | None,
        timeout: float) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of the CLI on `argv` in a child forked by this process's server,
    text decoded as `subprocess.run(text=True)` does; raises `subprocess.TimeoutExpired` as it does."""
    status, out, err, _cpu, _rss = run_measured(argv, cwd, env, stdin, timeout)
    return status, out, err


def run_measured(argv: list[str], cwd: Path | str, env: dict[str, str], stdin: str | None,
                 timeout: float) -> tuple[int, str, str, float, int]:
    """`run`, and what the call cost as `wait4` counts it: CPU seconds (user and system, the child's
    own and its waited-for children's) and peak RSS in KiB (from the fork on: the server's pages it
    shares count, as a fresh interpreter's own imports would)."""
    path = _server()
    with tempfile.TemporaryFile() as given, tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as conn:
        given.write((stdin or "").encode())
        given.seek(0)
        conn.connect(path)
        request = json.dumps({"argv": argv, "cwd": str(cwd), "env": env}).encode()
        socket.send_fds(conn, [request], [given.fileno(), out.fileno(), err.fileno()])
        conn.settimeout(timeout)
        pid = int(conn.recv(64))
        try:
            status, cpu, rss = conn.recv(256).split()
        except TimeoutError:
            _kill(pid)
            raise subprocess.TimeoutExpired(["leafwise", *argv], timeout) from None
        return int(status), _text(out), _text(err), float(cpu), int(rss)


def _text(file) -> str:
    file.seek(0)
    data = file.read().decode("utf-8")
    return data.replace("\r\n", "\n").replace("\r", "\n")


def _kill(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


_started: dict[int, tuple[subprocess.Popen, str]] = {}  # this process's server, by pid (a fork starts its own)


def _server() -> str:
    mine = _started.get(os.getpid())
    if mine is not None and mine[0].poll() is None:
        return mine[1]
    folder = tempfile.mkdtemp(prefix="lw-fork-")
    path = os.path.join(folder, "s")
    proc = subprocess.Popen([sys.executable, "-c", "import sys; from testkit.cli_fork import serve; serve(sys.argv[1])",
                             path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=Path(__file__).parent.parent)
    assert proc.stdout is not None and proc.stdout.readline() == b"ready\n", "the CLI fork server did not start"
    _started[os.getpid()] = (proc, path)
    return path


# --- the server's side -----------------------------------------------------------------------------

def serve(path: str) -> None:
    """Import the CLI, then fork a child per request until this process's stdin closes (its test
    process ended)."""
    import importlib

    for name in PRELOAD:
        importlib.import_module(name)
    from leafwise.commands.registry import load_all

    load_all()
    waker_r, waker_w = socket.socketpair()
    waker_r.setblocking(False)
    waker_w.setblocking(False)
    signal.set_wakeup_fd(waker_w.fileno())
    signal.signal(signal.SIGCHLD, lambda *_: None)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind(path)
    listener.listen(64)
    waiting: dict[int, socket.socket] = {}
    events = selectors.DefaultSelector()
    events.register(listener, selectors.EVENT_READ, "call")
    events.register(waker_r, selectors.EVENT_READ, "child")
    events.register(sys.stdin.fileno(), selectors.EVENT_READ, "parent")
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    while True:
        for key, _ in events.select():
            if key.data == "parent" and not os.read(sys.stdin.fileno(), 64):
                os.unlink(path)
                os.rmdir(os.path.dirname(path))
                os._exit(0)
            if key.data == "child":
                _drain(waker_r)
            if key.data == "call":
                conn, _ = listener.accept()
                if (pid := _fork(conn, [listener, waker_r, waker_w])) is not None:
                    waiting[pid] = conn
        _reap(waiting)


def _drain(sock: socket.socket) -> None:
    try:
        while sock.recv(512):
            pass
    except BlockingIOError:
        pass


def _reap(waiting: dict[int, socket.socket]) -> None:
    while waiting:
        try:
            pid, status, usage = os.wait4(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        conn = waiting.pop(pid, None)
        if conn is not None:
            try:
                cpu = usage.ru_utime + usage.ru_stime
                conn.send(f"{os.waitstatus_to_exitcode(status)} {cpu:.6f} {usage.ru_maxrss}".encode())
            except OSError:
                pass  # the test side gave up (its timeout)
            conn.close()


def _fork(conn: socket.socket, server_sockets: list[socket.socket]) -> int | None:
    message, fds, _flags, _addr = socket.recv_fds(conn, 1 << 20, 3)
    request = json.loads(message)
    pid = os.fork()
    if pid == 0:
        _child(request, fds, [conn, *server_sockets])
    for fd in fds:
        os.close(fd)
    conn.send(str(pid).encode())
    return pid


def _child(request: dict, fds: list[int], inherited: list[socket.socket]) -> None:
    """Become the call: its own process group (a timeout kills the git or worker children too), its
    streams on fds 0-2, its folder, environment and argv; then the CLI, and the interpreter's exit."""
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    os.setpgid(0, 0)
    for sock in inherited:
        sock.close()
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    import time

    time.tzset()
    from leafwise.commands.surfaces import cli

    sys.argv = [cli.__file__, *request["argv"]]
    try:
        cli.main(request["argv"])
        code = 0
    except SystemExit as done:
        code = _exit_code(done.code)
    except BaseException:  # as the interpreter reports an uncaught exception
        traceback.print_exc()
        code = 1
    _finish(code)


def _exit_code(code: object) -> int:
    if code is None or isinstance(code, int):
        return code or 0
    print(code, file=sys.stderr)
    return 1


def _finish(code: int) -> None:
    """The interpreter's exit up to the point where it frees its modules (which a fresh process's
    exit does as well, at a cost that would dominate a small call): non-daemon threads joined,
    atexit handlers run, the streams flushed."""
    threading._shutdown()  # what Py_FinalizeEx calls first
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)
