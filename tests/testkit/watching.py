"""What a watcher holds and how a clone's file changes behind its back, for the watch tests."""

from __future__ import annotations

import os
from pathlib import Path


def inotify_watches(pid: int | str = "self") -> int:
    """The inotify watches a process holds now: the `inotify wd:` lines of its descriptors' fdinfo."""
    total = 0
    for fd in os.listdir(f"/proc/{pid}/fdinfo"):
        try:
            total += Path(f"/proc/{pid}/fdinfo/{fd}").read_text().count("inotify wd:")
        except OSError:  # closed meanwhile
            pass
    return total


def write_through(other: Path, old: str, new: str) -> None:
    """Replace `old` with `new` in the file named `other`, in place: every other name of it (a hard link
    in the plan) sees the same bytes, and no watch of the plan's folder hears of it."""
    text = other.read_text()
    assert old in text
    with other.open("r+") as handle:
        handle.write(text.replace(old, new, 1))
        handle.truncate()
