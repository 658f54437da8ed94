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

Before the first rename, under the import lock, a write-ahead manifest (`manifest.py`) names every
file, its staged copy, the old bytes' backup (or that there were none) and the journal's lines; it
is fsynced, and removed only after the journal's append. A kill -9 or a power cut between the two
leaves it: `validate`, `doctor` and `repair` report the import as interrupted, and `repair` (or the
next import) finishes it or undoes it (`recovery.py`; docs/adopting.md, "If an import is interrupted").
"""

from __future__ import annotations

import os
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from leafwise.commands.adoption import manifest
from leafwise.store import atomic, journal
from leafwise.store.locks import locked
from leafwise.store.timestamps import to_text, utc_now
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
    backup: str | None = None  # a staged copy of `old`, which an undo renames back


@dataclass
class Transaction:
    paths: PlanPaths
    writes: list[Write] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)

    def add(self, path: Path, data: bytes, old: bytes | None = None, lock: str | None = None) -> None:
        self.writes.append(Write(path, data, old, lock))

    def commit(self) -> None:
        try:
            for w in self.writes:
                w.tmp = _stage(w.path, w.data)
                if w.old is not None:
                    w.backup = _stage(w.path, w.old)
            flush()
            with locked(self.paths, manifest.LOCK):  # the undo too: repair never races it
                self._write_ahead()
                self._put_all()
        except BaseException:
            self._clean()
            raise

    def _put_all(self) -> None:
        done: list[Write] = []
        try:
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
            if all([_undo(w) for w in reversed(done)]):
                self._clean()
                _unlink(str(manifest.path(self.paths)))
            else:  # the manifest and the files it names stay: repair ends the undo
                for w in self.writes:
                    w.tmp = w.backup = None
            raise
        self._clean()
        _unlink(str(manifest.path(self.paths)))  # last: until here, repair would finish the import

    def _write_ahead(self) -> None:
        """The manifest, durable before the first rename (the staged files are flushed already)."""
        target = manifest.path(self.paths)
        if target.exists() or target.is_symlink():
            raise Refused(target, "an interrupted import is not finished (leafwise repair finishes it)",
                          conflict=True)
        now = to_text(utc_now())
        self.events = [{"time": now, **{k: v for k, v in e.items() if k != "time"}} for e in self.events]
        files = [{"path": manifest.rel_of(self.paths, w.path), "staged": os.path.basename(w.tmp or ""),
                  "new": manifest.digest(w.data),
                  "old": None if w.old is None else {"backup": os.path.basename(w.backup or ""),
                                                     "hash": manifest.digest(w.old)}} for w in self.writes]
        data = manifest.render(os.getpid(), now, files, [manifest.event_line(e) for e in self.events])
        try:
            atomic.replace(self.paths.own_folder(self.paths.locks) / manifest.NAME, data)
        except OSError as exc:
            raise Refused(target, exc.strerror or str(exc)) from exc

    def _clean(self) -> None:
        """The staged files and backups still there."""
        for w in self.writes:
            for name in (w.tmp, w.backup):
                if name is not None:
                    _unlink(name)
            w.tmp = w.backup = None


def flush() -> None:
    """Every staged file's data on disk before the first rename, in one call (a file fsync each
    costs an import of a thousand nodes tens of seconds on a busy disk)."""
    os.sync()


def _stage(path: Path, data: bytes) -> str:
    try:
        return atomic.stage(path, data)
    except OSError as exc:
        raise Refused(path.parent, exc.strerror or str(exc)) from exc


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


def _undo(w: Write) -> bool:
    """Put one file back as it was: its backup renamed back, or the new file removed. False when the
    system refused (the error that started the undo is the one told; the manifest stays for repair)."""
    try:
        if w.old is None:
            os.unlink(w.path)
        else:
            assert w.backup is not None
            os.replace(w.backup, w.path)
            w.backup = None
    except FileNotFoundError:
        pass
    except OSError:
        return False
    return True


def _unlink(name: str) -> None:
    try:
        os.unlink(name)
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        pass

