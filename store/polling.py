"""What stands in for inotify when the kernel gives no watch: a stat walk of the plan folder.

The user's inotify instances are few (128 by default) and shared with every editor and watcher they
run; once they are all in use, watchfiles cannot watch ("Too many open files"). Its own polling
watcher compares modification times to the second and misses a second write within one second, so
it is no stand-in. This walk compares each file's (inode, mtime in ns, size): an atomic replace
(every Leafwise write) gets a new inode, and an editor's write in place a new mtime. The walk skips
the folders `watch.relevant` ignores and stops at `MAX_FILES` (a planted folder of millions of
files costs one bounded walk a poll, not an unbounded one).
"""

from __future__ import annotations

import os
from pathlib import Path

POLL_SECONDS = 0.25  # how often a waiter without inotify looks: the wake-up is at most this late
MAX_FILES = 200_000

Snapshot = dict[str, tuple[int, int, int]]


def snapshot(base: Path, skip: frozenset[str]) -> Snapshot:
    """(inode, mtime_ns, size) of each file under `base`, by absolute path; folders named in `skip`
    (and symbolic links to folders) are not entered."""
    found: Snapshot = {}
    folders = [os.fspath(base)]
    while folders and len(found) < MAX_FILES:
        try:
            entries = list(os.scandir(folders.pop()))
        except OSError:  # removed meanwhile, unreadable: nothing to compare there
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in skip:
                        folders.append(entry.path)
                    continue
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            found[entry.path] = (st.st_ino, st.st_mtime_ns, st.st_size)
    return found


def moved(before: Snapshot, after: Snapshot) -> set[str]:
    """The paths added, removed or changed between two snapshots."""
    return {path for path in before.keys() | after.keys() if before.get(path) != after.get(path)}
