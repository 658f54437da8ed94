"""store/locks.py takes flock(2) itself: the same lock as filelock's on the same file, both ways."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from leafwise.store.locks import LockBusy, hold

fcntl = pytest.importorskip("fcntl")


def test_a_lock_filelock_holds_keeps_ours_out_until_it_is_released(tmp_path: Path) -> None:
    from filelock import FileLock, Timeout

    path = tmp_path / "locks" / "T-1.lock"
    path.parent.mkdir()
    theirs = FileLock(path, timeout=1, preserve_lock_file=True)
    theirs.acquire()
    with pytest.raises(LockBusy):
        with hold(path, "T-1", timeout=0.05):
            pass
    theirs.release()
    with hold(path, "T-1", timeout=1):
        with pytest.raises(Timeout):
            FileLock(path, timeout=0.05, preserve_lock_file=True).acquire()


def test_a_second_hold_in_one_process_waits_like_any_writer(tmp_path: Path) -> None:
    path = tmp_path / "pick.lock"
    with hold(path, "pick", timeout=1):
        with pytest.raises(LockBusy, match="pick"):
            with hold(path, "pick", timeout=0.05):
                pass
    with hold(path, "pick", timeout=0.05):  # released: free again, the file still there
        assert path.is_file()


def test_a_lock_file_replaced_while_waiting_is_locked_anew(tmp_path: Path) -> None:
    """A waiter whose file was swapped (a repair) locks the file now at the name, not the old inode."""
    path = tmp_path / "T-2.lock"
    path.write_bytes(b"")
    old = os.open(path, os.O_RDWR)
    fcntl.flock(old, fcntl.LOCK_EX)
    got: list[int] = []

    def waiter() -> None:
        with hold(path, "T-2", timeout=5):
            got.append(os.stat(path).st_ino)

    thread = threading.Thread(target=waiter)
    thread.start()
    replacement = tmp_path / "new.lock"
    replacement.write_bytes(b"")
    os.replace(replacement, path)  # the old inode stays locked by `old`, under no name
    thread.join(10)
    os.close(old)
    assert got == [os.stat(path).st_ino]


def test_a_new_lock_file_has_its_mode_whatever_the_umask(tmp_path: Path) -> None:
    before = os.umask(0o077)
    try:
        with hold(tmp_path / "journal.lock", "journal", timeout=1):
            pass
    finally:
        os.umask(before)
    assert stat.S_IMODE(os.stat(tmp_path / "journal.lock").st_mode) == 0o644
