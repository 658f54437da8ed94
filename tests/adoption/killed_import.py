"""The real CLI in a fresh interpreter, stopped before its AT-th rename point for the parent to SIGKILL.

    python killed_import.py AT ARGS...   (env KILL_POINT_FD: the pipe to tell the parent on;
                                          KILL_POINT_COUNT: a file that gets the number of points run)

A rename point is a call that changes what a name in the plan holds: os.link, os.replace, os.rename,
os.unlink, and the journal's append. Before the AT-th (from 1), the process writes one byte to the
pipe and waits; the parent kills it with SIGKILL there, as a kill -9 at that instant would. AT 0
runs to the end and writes the count. Not a test module: test_import_kill.py runs it.
"""

from __future__ import annotations

import os
import signal
import sys


def main() -> None:
    at, args = int(sys.argv[1]), sys.argv[2:]
    tell = int(os.environ["KILL_POINT_FD"])
    calls = [0]

    def wrapped(real):
        def call(*a, **k):
            calls[0] += 1
            if calls[0] == at:
                os.write(tell, b"!")
                while True:
                    signal.pause()  # until the parent's SIGKILL
            return real(*a, **k)
        return call

    from leafwise.store import journal

    for name in ("link", "replace", "rename", "unlink"):
        setattr(os, name, wrapped(getattr(os, name)))
    journal.append_all = wrapped(journal.append_all)
    from leafwise.commands.surfaces.cli import main as cli

    try:
        cli(args)
    finally:
        with open(os.environ["KILL_POINT_COUNT"], "w") as out:
            out.write(str(calls[0]))


if __name__ == "__main__":
    main()
