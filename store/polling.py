"""What stands in for inotify when the kernel gives no watch: a stat walk of the plan folder.

The user's inotify instances are few (128 by default) and shared with every editor and watcher they
run; once they are all in use, watchfiles cannot watch ("Too many open files"). Its own polling
watcher compares modification times to the second and misses a second write within one second, so
it is no stand-in. This walk compares each file's (inode, mtime in ns, size, ctime in ns): an atomic
replace (every Leafwise write) gets a new inode, an editor's write in place a new mtime, and a write in
place whose size and mtime were put back (`cp -p`, `rsync -t`, `touch -r`, `tar x`) a new ctime,
which no program can set. The walk skips
the folders `watch.relevant` ignores and stops at `MAX_FILES` (a planted folder of millions of
files costs one bounded walk a poll, not an unbounded one): `reader.walk`, the one walk of plan folders.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from leafwise.store import reader

POLL_SECONDS = 0.25  # how often a waiter without inotify looks: the wake-up is at most this late
# A walk costs what the tree holds: a cloned plan of 100,000 empty files (and one link to a folder, so
# that no watch may take it) cost 0.4 CPU s a walk, and a canvas polling every POLL_SECONDS used 56% of
# a core while idle. A poller waits PAUSE_FACTOR times its last walk's time (at least POLL_SECONDS).
PAUSE_FACTOR = 10


def pause(walk_seconds: float) -> float:
    """How long a poller waits before its next walk, the last one having taken `walk_seconds`."""
    return max(POLL_SECONDS, PAUSE_FACTOR * walk_seconds)


def timed(walk: Callable[..., Snapshot], *args: object) -> tuple[Snapshot, float]:
    """`walk(*args)` and the seconds it took."""
    started = time.monotonic()
    found = walk(*args)
    return found, time.monotonic() - started
MAX_FILES = 200_000

Snapshot = dict[str, tuple[int, int, int, int]]


def snapshot(base: Path, skip: frozenset[str]) -> Snapshot:
    """(inode, mtime_ns, size, ctime_ns) of each file under `base`, by absolute path, through the one bounded
    walk (store/reader.py: no link followed, folders named in `skip` left out)."""
    return {path: stamp(st) for path, st in _stats(base, skip)}


def stamp(st: os.stat_result) -> tuple[int, int, int, int]:
    return (st.st_ino, st.st_mtime_ns, st.st_size, st.st_ctime_ns)


def linked(base: Path, skip: frozenset[str]) -> Snapshot:
    """The files under `base` with more than one name (a hard link), by absolute path, with their
    stamps: a write through another name reaches no watch of `base` (`watch.PlanWatcher`)."""
    return {path: stamp(st) for path, st in _stats(base, skip) if st.st_nlink > 1 and stat.S_ISREG(st.st_mode)}


def _stats(base: Path, skip: frozenset[str]) -> Iterator[tuple[str, os.stat_result]]:
    """(absolute path, lstat) of each file of the bounded walk; one removed meanwhile is left out."""
    top = os.fspath(base)
    for rel in reader.walk(top, skip, limit=MAX_FILES):
        path = os.path.join(top, rel)
        try:
            yield path, os.lstat(path)
        except OSError:
            continue


def moved(before: Snapshot, after: Snapshot) -> set[str]:
    """The paths added, removed or changed between two snapshots."""
    return {path for path in before.keys() | after.keys() if before.get(path) != after.get(path)}
