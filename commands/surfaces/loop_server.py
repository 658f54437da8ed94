"""The loop server: answers an agent's loop lines from a warm plan, one call at a time.

Started by `loop_client.start` in the caller's folder and environment, it binds the socket the
client's address names (one server per address: a lock file), keeps the plan warm with
`store/live_plan.LivePlan`, and runs each line it is handed through the same `direct.read`,
`runner.execute` and `emit` as the console script, so the bytes and the exit code are the ones the
call would have printed itself. Calls run one after another: each is a short command under the
plan's own file locks, so the plan's other writers (other clones' servers, MCP servers, the canvas,
a person's CLI) are as they always are.

It answers NOT_MINE (the caller runs the line itself) to anything else: a line of another command,
help, `--wait` (a waiting call would hold up the others), a plan found elsewhere than the one it
serves, and any call once its own code changed on disk (then it exits: the next call starts a new
one). It exits after `LEAFWISE_SERVER_IDLE` seconds without a call (600), once the plan's folder
is gone, or once a link to a folder appears in it (`LivePlan.watch_safe`: the watch would follow it)
or it holds more than `live_plan.MAX_FOLDERS` folders (the watch would take a user's inotify watch each).
"""

from __future__ import annotations

import contextvars
import os
import select
import signal
import socket
import sys
import time
from typing import Any

from leafwise.commands.surfaces.loop_client import HEADER, LOOP, NOT_MINE, REQUEST_BYTES, TAKEN, parse, peer_uid

IDLE = "LEAFWISE_SERVER_IDLE"  # seconds without a call before the server exits (600 unless set)
TICK_SECONDS = 15.0  # how often an idle server looks whether its plan's folder is still there
# A caller sends its whole request right after it connects: one whose request has not come whole within
# this long of the accept (stopped, no caller, or one that trickles a byte at a time) is closed
# unanswered, and runs the line itself if it ever goes on; nobody waits behind it.
READ_SECONDS = 1.0
SEND_SECONDS = 10.0  # a caller that does not read its answer: the answer is dropped, the others go on


def idle_seconds() -> float:
    try:
        value = float(os.environ.get(IDLE, "600"))
    except ValueError:
        return 600.0
    return value if 0 < value < 86400 else 600.0


class Server:
    def __init__(self, path: str, root: str | None):
        from leafwise.store.live_plan import LivePlan
        from leafwise.store.paths import find_root

        self.path, self.root = path, root
        self.paths = find_root(None, root)  # PlanNotFound, PlanUnsafe: nothing to serve
        self.live = LivePlan(self.paths)  # OSError, RuntimeError: no watch, no server
        self.code = _code_stamp()
        self.done = False
        self.busy = False  # running a line: a SIGTERM lets it finish and answer, then the server exits
        self.last_agent: str | None = None  # the agent of the last call: whose wording `settle` derives

    def take(self, words: list[str]) -> tuple[Any, dict[str, Any], str | None, bool] | None:
        """The line read as the CLI reads it, or None (NOT_MINE) for a line the caller must run."""
        from leafwise.commands.surfaces import direct
        from leafwise.store.paths import find_root

        if _code_changed(self.code):  # a new version on disk: the next call starts a server that runs it
            self.done = True
            return None
        self.code = {**_code_stamp(), **self.code}  # modules a call imported since: as they were read
        line = direct.read(words, LOOP, streams=False)
        if line is None or "wait" in line[1] or line[2] != self.root:
            return None
        try:
            found = find_root(None, self.root)
        except Exception:  # no plan here any more, or an unsafe one: the caller's own run says so
            found = None
        if found is None or found.dir != self.paths.dir or self.live.broken or not self.live.watch_safe():
            self.done = True  # (a link to a folder: the watch follows it, the server goes with it)
            return None
        return line

    def _run(self, spec: Any, given: dict[str, Any], root: str | None, as_json: bool,
             errors: list[str]) -> tuple[int, bytes, bytes]:
        from leafwise.commands.registry import Ctx
        from leafwise.commands.runner import execute
        from leafwise.commands.surfaces.direct import emit, plain_text

        streams: tuple[list[str], list[str]] = ([], [])

        def echo(message: str, nl: bool = True, err: bool = False) -> None:
            streams[1 if err else 0].append(plain_text(message, nl))

        from leafwise.store import git

        git.forget()  # a person's name is read again, as their own call would (they may have changed it)
        self.last_agent = given.get("agent")
        ctx = Ctx(root=root, source=self._vouched)
        ctx.use_paths(self.paths)
        try:
            outcome = execute(spec, ctx, given, "cli", ())
            emit(outcome.envelope, outcome.text, as_json=as_json, bare=None, echo=echo)
            code = outcome.exit_code
            if outcome.envelope.get("status") == "error":
                self.live.drop()  # whatever it patched before it refused is not to be trusted
        except (EOFError, KeyboardInterrupt):
            self.live.drop()
            code = 1
        out, err = ("".join(s) for s in streams)
        return code, _encoded(out, errors[0]), _encoded(err, errors[1])

    def _vouched(self) -> Any:
        """The plan as the files are now, vouched for with this generation's memo (`readiness.vouch`):
        what the pick derives from it alone is derived once per change, not once per call."""
        from leafwise.commands.core.readiness import vouch

        plan = self.live.current()
        vouch(plan, self.live.memo)
        return plan

    def settle(self) -> None:
        """Between calls: take in the files the last call wrote and derive the pick order and the
        validator's problems (as the last caller's answers word them), and look at the tree's folders
        again (`LivePlan.watch_safe`), so the next call (an agent's next step comes seconds later)
        finds them ready."""
        from leafwise.commands.core import picker
        from leafwise.commands.plan_files import find_problems
        from leafwise.commands.registry import Ctx

        try:
            plan = self._vouched()
            picker.prepare(plan)
            ctx = Ctx(root=self.root)
            ctx.caller = ctx.answers(self.last_agent)
            find_problems(plan, ctx.cmd)
        except Exception:  # noqa: BLE001 - a plan it cannot derive from: the next call derives (and answers) itself
            self.live.drop()
        # the folders the last call wrote in are walked again now, not at the next call's start
        self.done = self.done or not self.live.watch_safe()

    def serve(self, listener: socket.socket) -> None:
        idle_since, idle = time.monotonic(), idle_seconds()
        listener.settimeout(min(TICK_SECONDS, idle))
        while not self.done:
            try:
                conn, _ = listener.accept()
            except socket.timeout:
                if time.monotonic() - idle_since >= idle or not self.paths.dir.is_dir() or not self.live.watch_safe():
                    return
                continue
            with conn:
                self.busy = True
                try:
                    contextvars.copy_context().run(self._one, conn)
                finally:
                    self.busy = False
            self.done = self.done or self.live.broken
            if not self.done and not select.select([listener], [], [], 0)[0]:  # a waiting call goes first
                contextvars.copy_context().run(self.settle)
            idle_since = time.monotonic()

    def _one(self, conn: socket.socket) -> None:
        conn.settimeout(READ_SECONDS)  # a caller that connects and never sends its line holds nobody up
        try:
            if peer_uid(conn) != os.getuid():
                return
            request = parse(_request(conn))
        except OSError:
            return
        if request is None:
            return
        words, errors, umask = request
        try:
            line = self.take(words)
        except Exception:  # noqa: BLE001 - nothing ran: the caller runs the line itself, a new server serves
            self.live.drop()
            self.done = True
            line = None
        try:
            conn.sendall(NOT_MINE if line is None else TAKEN)
        except OSError:
            return  # the caller went away before the line ran: it is not run
        if line is None:
            return
        from leafwise.store import atomic

        try:
            with atomic.using_umask(umask):  # the files the call writes get the caller's modes
                code, out, err = self._run(*line, errors)
        except Exception:  # noqa: BLE001 - a bug here must not run the line twice: answer, then stop
            import traceback

            self.live.drop()
            self.done = True
            code, out, err = 70, b"", traceback.format_exc().encode() + b"Fix: LEAFWISE_SERVER=0 leafwise doctor\n"
        conn.settimeout(SEND_SECONDS)
        try:
            conn.sendall(HEADER.pack(code, len(out), len(err)) + out + err)
        except OSError:
            pass  # the caller went away: the command ran, as a killed process's may have


def _request(conn: socket.socket) -> bytes:
    """The whole request: everything up to the end the caller makes by shutting its side (never a
    prefix that happens to end as a request does); b"" past REQUEST_BYTES."""
    parts: list[bytes] = []
    size = 0
    deadline = time.monotonic() + READ_SECONDS  # for the whole request: a byte a second never ends it
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise socket.timeout("the request did not come whole in time")
        conn.settimeout(left)
        chunk = conn.recv(65536)
        if not chunk:
            break
        size += len(chunk)
        if size > REQUEST_BYTES:
            return b""
        parts.append(chunk)
    return b"".join(parts)


def _encoded(text: str, errors: str) -> bytes:
    """The bytes the caller's UTF-8 stream would have written (its own error handler)."""
    try:
        return text.encode("utf-8", errors)
    except (UnicodeEncodeError, LookupError):
        return text.encode("utf-8", "backslashreplace")


def _code_stamp() -> dict[str, tuple[int, int]]:
    """Leafwise's loaded modules' files as they are on disk: (mtime, size) by path."""
    out = {}
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if name.startswith("leafwise.") and path:
            out[path] = _stat(path)
    return out


def _stat(path: str) -> tuple[int, int]:
    try:
        st = os.stat(path)
    except OSError:
        return (0, -1)
    return (st.st_mtime_ns, st.st_size)


def _code_changed(stamp: dict[str, tuple[int, int]]) -> bool:
    """Whether a module this server runs changed on disk since it was loaded (an upgrade, an edit);
    modules imported later were read from disk then, and get their stamp at the next `_restamp`."""
    return any(_stat(path) != seen for path, seen in stamp.items())


def main(argv: list[str]) -> int:
    import fcntl

    path = argv[0]
    root = argv[2] if len(argv) > 2 and argv[1] == "--root" else None
    lock = os.open(path[:-5] + ".lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return 0  # another server has this address
    os.ftruncate(lock, 0)
    os.write(lock, str(os.getpid()).encode())  # who serves this address (tests, a person's `kill`)
    try:
        server = Server(path, root)
        _warm(server)
    except Exception:  # noqa: BLE001 - no plan, no watch: no server, every call runs itself
        return 0
    try:
        os.unlink(path)  # a dead server's socket (the lock says none is alive)
    except FileNotFoundError:
        pass
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o077)
    try:
        listener.bind(path)
    finally:
        os.umask(old)
    listener.listen(64)
    def stop(*_: object) -> None:
        """SIGTERM: exit (the socket goes with the server), but not half-way through a line: a
        `complete` stopped between its claim and its journal line is a task half done."""
        server.done = True
        if not server.busy:
            sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    try:
        server.serve(listener)
    finally:
        for gone in (path, path[:-5] + ".lock"):  # the lock too, still held: one file per live address
            try:
                os.unlink(gone)
            except OSError:
                pass
        listener.close()
        server.live.close()
    return 0


def _warm(server: Server) -> None:
    """Load the plan and the loop's modules before the socket opens: the first call finds them ready."""
    import importlib

    from leafwise.commands import runner  # noqa: F401
    from leafwise.commands.registry import load_word

    for word in LOOP:
        load_word(word)
    for name in ("leafwise.commands.core.picker", "leafwise.commands.domain.claiming",
                 "leafwise.commands.domain.finishing"):
        importlib.import_module(name)
    contextvars.copy_context().run(server.settle)
    server.code = _code_stamp()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
