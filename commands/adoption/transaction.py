"""An import's writes, all or none: staged beside their files, then renamed in, undone on any failure.

Every file the import writes (project.yaml, node files, docs) is first staged as a temp file in its
own folder (`atomic.stage`: a `.lw-<pid>-….tmp` that readers skip and `repair` sweeps), and the data
of all of them is flushed to disk once. Nothing the plan shows has changed until then. The commit
then renames them in: project.yaml first (a release with no node yet is a valid plan), then each
node's doc and its node file, parents and dependencies before the nodes that name them, so a plan
stopped between two renames still loads without a dangling reference. A new node file is linked in
exclusively (a number another writer took meanwhile is a conflict, never an overwrite); a rewritten
one is replaced under its lock only if it still holds the bytes the import read. The journal's lines
go last, in one append. A failure anywhere (an error, a refused rename, Ctrl-C) undoes what was
renamed in, in reverse, and removes the staged files: the plan is byte for byte as it was.

What a kill -9 or a power cut leaves is in docs/adopting.md ("If an import is interrupted").
"""

from __future__ import annotations

import os
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from leafwise.store import atomic, journal
from leafwise.store.locks import locked
from leafwise.store.paths import PlanPaths
from leafwise.store.safe_yaml import read_bounded


class Refused(Exception):
    """A file of the import could not be put in place (`path`: which); nothing was imported."""

    def __init__(self, path: Path, reason: str, conflict: bool = False):
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason
        self.conflict = conflict


@dataclass
class Write:
    path: Path
    data: bytes
    old: bytes | None  # None: the file is new (created exclusively)
    lock: str | None  # the lock its rewrite takes (a node id, "project")
    tmp: str | None = None


@dataclass
class Transaction:
    paths: PlanPaths
    writes: list[Write] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)

    def add(self, path: Path, data: bytes, old: bytes | None = None, lock: str | None = None) -> None:
        self.writes.append(Write(path, data, old, lock))

    def commit(self) -> None:
        done: list[Write] = []
        try:
            for w in self.writes:
                w.tmp = _stage(w)
            flush()
            for w in self.writes:
                _put(self.paths, w)
                done.append(w)
            for folder in dict.fromkeys(w.path.parent for w in self.writes):
                atomic.fsync_dir(folder)  # once a folder, after all its renames
            if self.events:
                try:
                    journal.append_all(self.paths, self.events)
                except OSError as exc:
                    raise Refused(self.paths.journal, exc.strerror or str(exc)) from exc
        except BaseException:
            for w in reversed(done):
                _undo(w)
            for w in self.writes:
                if w.tmp is not None:
                    _unlink(w.tmp)
            raise
        for w in self.writes:
            if w.tmp is not None:
                _unlink(w.tmp)


def flush() -> None:
    """Every staged file's data on disk before the first rename, in one call (a file fsync each
    costs an import of a thousand nodes tens of seconds on a busy disk)."""
    os.sync()


def _stage(w: Write) -> str:
    try:
        return atomic.stage(w.path, w.data)
    except OSError as exc:
        raise Refused(w.path.parent, exc.strerror or str(exc)) from exc


def _put(paths: PlanPaths, w: Write) -> None:
    assert w.tmp is not None
    try:
        if w.old is None:
            try:
                os.link(w.tmp, w.path)
            except FileExistsError as exc:
                if os.path.isdir(w.path) and not os.path.islink(w.path):
                    raise Refused(w.path, "a folder is in its place") from exc
                raise Refused(w.path, "another writer created it meanwhile", conflict=True) from exc
            return
        with locked(paths, w.lock) if w.lock else nullcontext():
            try:
                now = read_bounded(w.path, len(w.old))  # one byte past the old size says it grew
            except (OSError, ValueError):  # gone, or no longer a plain file (reader.Refused)
                now = None
            if now != w.old:
                raise Refused(w.path, "it changed since the import read it", conflict=True)
            os.replace(w.tmp, w.path)
            w.tmp = None
    except OSError as exc:
        raise Refused(w.path, exc.strerror or str(exc)) from exc


def _undo(w: Write) -> None:
    """Put one file back as it was (best effort: the error that started the undo is the one told)."""
    try:
        if w.old is None:
            _unlink(str(w.path))
        else:
            atomic.replace(w.path, w.old)
    except OSError:
        pass


def _unlink(name: str) -> None:
    try:
        os.unlink(name)
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        pass

