"""Locks across processes: one per node, the journal, the project and each id counter.

An OS lock (flock(2) on POSIX; filelock's msvcrt lock on Windows) on a file under `.leafwise/.locks/`
that is never deleted: the kernel releases it when the holder exits or is killed, so a crash never
leaves a stuck lock. Locks are held for milliseconds; a wait longer than its timeout is `LockBusy`.
flock(2) is called directly on POSIX: filelock 4.x's import (logging, secrets, its soft-lock
machinery) cost a loop command 30-40 ms, and an flock on the same file is the same lock, so every
Leafwise process, whichever way it took it, excludes the others.
"""

from __future__ import annotations

import errno
import os
import stat
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from leafwise.store.paths import PlanPaths

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

LOCK_TIMEOUT = 10.0
LOCK_POLL = 0.005  # pause between tries: locks are held for milliseconds
LOCK_MODE = 0o644
_CONTENDED = frozenset({errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES})  # some filesystems say EACCES
_OPEN_FLAGS = os.O_RDWR | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


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
    """A lock file that is anything but a regular file (planted: Leafwise makes only empty regular ones)
    goes (`atomic.clear_planted`), so the lock is taken on a new file of ours. Replacing it here, not
    refusing, keeps a command from failing half-way through its writes at its second lock (the locks
    folder itself is checked at plan discovery, `paths.confinement_problem`)."""
    from leafwise.store.atomic import clear_planted

    clear_planted(lock_path)


@contextmanager
def hold(lock_path: Path, name: str, timeout: float) -> Iterator[None]:
    """The OS lock on a file that is never deleted: the kernel releases it when the holder exits or
    is killed, so a crash never leaves a stuck lock. Not re-entrant: each hold is its own open file,
    so a second hold of one name in one process waits like any other writer (a caller that already
    holds a node's lock passes `lock=False`)."""
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    _no_planted_entry(lock_path)
    if fcntl is None:  # pragma: no cover - Windows
        with _held_by_filelock(lock_path, name, timeout):
            yield
        return
    fd = _acquire(lock_path, name, timeout)
    try:
        yield
    finally:
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)


def _acquire(lock_path: Path, name: str, timeout: float) -> int:
    """A descriptor holding flock(LOCK_EX) on the file now at `lock_path`, within `timeout` seconds."""
    import time

    deadline = time.monotonic() + timeout
    while True:
        try:
            fd = _open(lock_path)
        except FileNotFoundError:  # removed between the two opens: the next try makes it
            fd = None
        try:
            if fd is not None and _try_lock(fd) and _still_there(fd, lock_path):
                return fd
        except BaseException:
            os.close(fd)
            raise
        if fd is not None:
            os.close(fd)
        if time.monotonic() >= deadline:
            raise LockBusy(name, timeout)
        time.sleep(LOCK_POLL)


def _open(lock_path: Path) -> int:
    """The lock file, made if missing with LOCK_MODE whatever the umask (as filelock made it); never
    through a link (one planted since `_no_planted_entry` makes the open fail, ELOOP, as an OSError
    like any unwritable locks folder)."""
    try:
        fd = os.open(lock_path, _OPEN_FLAGS | os.O_CREAT | os.O_EXCL, LOCK_MODE)
        created = True
    except FileExistsError:
        fd = os.open(lock_path, _OPEN_FLAGS)
        created = False
    if not stat.S_ISREG(os.fstat(fd).st_mode):  # a FIFO or device planted between the check and the open
        os.close(fd)
        raise OSError(errno.EINVAL, f"{lock_path} is not a regular file")
    if created:
        try:
            os.fchmod(fd, LOCK_MODE)
        except PermissionError:
            pass
    return fd


def _try_lock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno in _CONTENDED:
            return False
        raise
    return True


def _still_there(fd: int, lock_path: Path) -> bool:
    """Whether the locked file is still the one named `lock_path`: a lock taken on a file someone
    removed or replaced meanwhile (a planted link swapped out, a `repair`) excludes nobody."""
    try:
        named = os.lstat(lock_path)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)


@contextmanager
def _held_by_filelock(lock_path: Path, name: str, timeout: float) -> Iterator[None]:  # pragma: no cover
    """filelock's msvcrt lock where there is no flock(2) (`preserve_lock_file`: never deleted)."""
    from filelock import FileLock, Timeout

    lock = FileLock(lock_path, timeout=timeout, mode=LOCK_MODE, poll_interval=LOCK_POLL, preserve_lock_file=True)
    try:
        lock.acquire()
    except Timeout as exc:
        raise LockBusy(name, timeout) from exc
    try:
        yield
    finally:
        lock.release()
