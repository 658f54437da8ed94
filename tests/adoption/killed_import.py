"""Real CLI runs, each stopped before its AT-th rename point for the test to SIGKILL there.

    python killed_import.py      (one JSON request a line on stdin: {"at": N, "cwd": …, "args": […]})

The server imports the CLI once; for each request it forks a child that runs `leafwise ARGS` in
`cwd` (so a run costs milliseconds, not an interpreter's start-up). A rename point is a call that
changes what a name in the plan holds: os.link, os.replace, os.rename, os.unlink, and the journal's
append. Before the AT-th (from 1) the child says {"reached": pid} and waits; the test kills it with
SIGKILL there, as a kill -9 at that instant would. AT 0 runs to the end and says how many points it
ran ({"points": n}). The server then says {"pid": pid} and, once the child is gone, {"status": s}
(a signal's death as subprocess reports it: -9). Not a test module: test_import_kill.py runs it.
"""

from __future__ import annotations

import json
import os
import signal
import sys


def _child(request: dict, reply: int) -> None:
    at, calls = request["at"], [0]

    def say(message: dict) -> None:
        os.write(reply, (json.dumps(message) + "\n").encode())

    def wrapped(real):
        def call(*a, **k):
            calls[0] += 1
            if calls[0] == at:
                say({"reached": os.getpid()})
                while True:
                    signal.pause()  # until the test's SIGKILL
            return real(*a, **k)
        return call

    from leafwise.commands.surfaces.cli import main
    from leafwise.store import journal

    for name in ("link", "replace", "rename", "unlink"):
        setattr(os, name, wrapped(getattr(os, name)))
    journal.append_all = wrapped(journal.append_all)
    os.chdir(request["cwd"])
    code = 0
    try:
        main(request["args"])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    sys.stdout.flush()
    say({"points": calls[0]})
    os._exit(code)


def main() -> None:
    import leafwise.commands.adoption.importing  # noqa: F401 - imported once, before the forks
    import leafwise.commands.surfaces.cli  # noqa: F401

    reply = os.dup(1)
    while line := sys.stdin.readline():
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            _child(request, reply)
        os.write(reply, (json.dumps({"pid": pid}) + "\n").encode())
        _, status = os.waitpid(pid, 0)
        code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        os.write(reply, (json.dumps({"status": code}) + "\n").encode())


if __name__ == "__main__":
    main()
