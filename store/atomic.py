"""Replacing a file at once: a temporary file in the same folder, fsync, rename.

A reader sees the old file or the new one, never half of one, and a process killed at any point
leaves the old file or the new one. At worst a `.lw-<pid>-….tmp` file stays behind: readers skip
it (a dot file) and `sweep` removes it once its writer is dead.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

TEMP_PREFIX = ".lw-"
TEMP_SUFFIX = ".tmp"
STALE_TEMP_SECONDS = 3600.0  # no write takes this long: older temp files are garbage

_UMASK: int | None = None


class Exists(Exception):
    """A file that should be new is already there (`create`)."""


@contextmanager
def using_umask(mask: int) -> Iterator[None]:
    """Within, the process's umask is `mask` (the loop server runs a caller's line with the caller's)."""
    global _UMASK
    before, read = os.umask(mask), _UMASK
    _UMASK = mask
    try:
        yield
    finally:
        os.umask(before)
        _UMASK = read


def umask() -> int:
    """The process's umask, read once (from /proc where it can be read without changing it)."""
    global _UMASK
    if _UMASK is None:
        try:
            from leafwise.store import reader

            status = reader.read_text("/proc/self/status", reader.SYSTEM)
            found = next((line.split()[1] for line in status.splitlines() if line.startswith("Umask:")), None)
            _UMASK = int(found, 8) if found else None
        except (OSError, ValueError):
            _UMASK = None
        if _UMASK is None:
            _UMASK = os.umask(0o022)
            os.umask(_UMASK)
    return _UMASK


def replace(path: Path, data: bytes, *, mode: int | None = None, durable: bool = True) -> None:
    """Put `data` at `path` at once, replacing what is there.

    `mode`: the file's permissions (default: what the umask gives any new file; mkstemp alone
    would make it 0600). `durable=False` skips the fsyncs, for derived files (caches) whose loss
    only costs a re-read.
    """
    tmp = _temp_with(path, data, mode, durable)
    try:
        os.replace(tmp, path)
    except BaseException:
        _unlink(tmp)
        raise
    if durable:
        fsync_dir(path.parent)


def create(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Put `data` at `path` at once, only if nothing is there: `Exists` otherwise (the hard link
    is atomic create-if-absent, so two writers never both get the same new file)."""
    tmp = _temp_with(path, data, mode, True)
    try:
        os.link(tmp, path)
    except FileExistsError as exc:
        raise Exists(path) from exc
    finally:
        _unlink(tmp)
    fsync_dir(path.parent)


def stage(path: Path, data: bytes, *, durable: bool = False) -> str:
    """A temporary file beside `path` holding `data`, for a caller that renames many files in at
    once (an import); left behind by a killed writer, it is a temp file like any other (`sweep`)."""
    return _temp_with(path, data, None, durable)


def _temp_with(path: Path, data: bytes, mode: int | None, durable: bool) -> str:
    """A temporary file beside `path` holding `data` (named for `sweep`: `.lw-<pid>-….tmp`)."""
    import tempfile  # here, not above: a warm `leafwise next` writes nothing and need not load it

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f"{TEMP_PREFIX}{os.getpid()}-", suffix=TEMP_SUFFIX)
    try:
        if hasattr(os, "fchmod"):
            os.fchmod(fd, mode if mode is not None else 0o666 & ~umask())
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
    except BaseException:
        _unlink(tmp)
        raise
    return tmp


def _unlink(name: str) -> None:
    try:
        os.unlink(name)
    except FileNotFoundError:
        pass


def clear_planted(path: Path) -> bool:
    """Make room at `path` for a file of Leafwise's own recreated state (a lock, a lease): anything
    there that is not a regular file goes, so a clone that force-added a folder (`claims/T-1.json/x`),
    a link or a FIFO at that name cannot make every write there fail for good. The name only goes: what
    a link points at is never opened, and a folder goes with what it holds, links inside unfollowed.
    Whether something was removed."""
    import shutil
    import stat

    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return False
    if stat.S_ISREG(mode):
        return False
    try:
        if stat.S_ISDIR(mode):
            shutil.rmtree(path)  # fd-based where the platform has it: no link inside is followed
        else:
            os.unlink(path)
    except FileNotFoundError:
        pass  # another writer replaced it first
    return True


def make_own_folder(path: Path) -> Path:
    """`path` as a real folder of Leafwise's recreated state (made when missing): a file, a link or a
    FIFO a clone force-added at its name goes first (the name only: a link's target is never touched), so
    no write under it fails for good (`File exists`, `Not a directory`)."""
    import stat

    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISDIR(mode):
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
    path.mkdir(parents=True, exist_ok=True)
    return path


def fsync_dir(folder: Path) -> None:
    """Make a rename in `folder` durable (where the system lets a folder be opened and synced)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def sweep(folder: Path, *, dry_run: bool = False) -> list[Path]:
    """Temp files under `folder` left by writers that died mid-write: removed (or only listed).

    A temp file is garbage once the process named in it is gone, or when it is older than any
    write could take (a pid from another host, or reused).
    """
    found: list[Path] = []
    now = time.time()
    from leafwise.store import reader

    for rel in reader.walk(folder, frozenset({".git"})):  # never into a linked folder
        name = rel.rpartition("/")[2]
        if name.startswith(TEMP_PREFIX) and name.endswith(TEMP_SUFFIX):
            path = Path(folder) / rel
            try:
                age = now - path.stat().st_mtime
            except FileNotFoundError:
                continue  # its writer just renamed it
            if age < STALE_TEMP_SECONDS and _writer_alive(name):
                continue
            found.append(path)
            if not dry_run:
                _unlink(str(path))
    return sorted(found)


def _writer_alive(name: str) -> bool:
    """Whether the process that made temp file `name` (.lw-<pid>-...) still runs."""
    pid_text = name[len(TEMP_PREFIX):].split("-", 1)[0]
    if not pid_text.isdigit():
        return False  # a name without a pid: only its age can clear it
    try:
        os.kill(int(pid_text), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # alive, owned by someone else
    return True
