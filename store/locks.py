"""Locks across processes: one per node, the journal, the project and each id counter.

filelock's OS lock (flock(2) on POSIX, msvcrt on Windows) on a file under `.leafwise/.locks/`
that is never deleted: the kernel releases it when the holder exits or is killed, so a crash
never leaves a stuck lock. Locks are held for milliseconds; a wait longer than its timeout is
`LockBusy`.
"""

from __future__ import annotations

import os
import stat
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from leafwise.store.paths import PlanPaths

LOCK_TIMEOUT = 10.0
LOCK_POLL = 0.005  # pause between tries: locks are held for milliseconds


class LockBusy(Exception):
    """A lock could not be had in time (another writer holds it)."""

    def __init__(self, name: str, timeout: float):
        super().__init__(f"the lock on {name} is held by another writer (waited {timeout:g}s)")
        self.name = name


@contextmanager
def locked(paths: PlanPaths, name: str, timeout: float = LOCK_TIMEOUT) -> Iterator[None]:
    """Hold the cross-process lock `name` (a node id, "journal", "project")."""
    with hold(paths.own_folder(paths.locks) / f"{name}.lock", name, timeout):
        yield


def _no_planted_entry(lock_path: Path) -> None:
    """A lock file that is a link, FIFO or socket (planted: Leafwise makes only empty regular ones) is
    removed, so the lock is taken on a new file of ours; the name only goes, what it points at is never
    opened. Replacing it here, not refusing, keeps a command from failing half-way through its writes at
    its second lock (the locks folder itself is checked at plan discovery, `paths.confinement_problem`)."""
    try:
        mode = os.lstat(lock_path).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISLNK(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        try:
            os.unlink(lock_path)
        except FileNotFoundError:
            pass  # another writer replaced it first


@contextmanager
def hold(lock_path: Path, name: str, timeout: float) -> Iterator[None]:
    """filelock's OS lock (flock(2) on POSIX, msvcrt on Windows) on a file that is never deleted
    (`preserve_lock_file`, which also rules out filelock's soft fallback): the kernel releases it
    when the holder exits or is killed, so a crash never leaves a stuck lock. Not re-entrant: each
    hold is its own lock object and descriptor, so a second hold of one name in one process waits
    like any other writer (a caller that already holds a node's lock passes `lock=False`)."""
    from filelock import FileLock, Timeout  # the write path only: a read never locks

    lock_path.parent.mkdir(parents=True, exist_ok=True)
    _no_planted_entry(lock_path)
    lock = FileLock(lock_path, timeout=timeout, mode=0o644, poll_interval=LOCK_POLL, preserve_lock_file=True)
    try:
        lock.acquire()
    except Timeout as exc:
        raise LockBusy(name, timeout) from exc
    try:
        yield
    finally:
        lock.release()
