"""An interrupted import, finished or undone: what its manifest (`manifest.py`) says was under way.

Forward when it can be: every file is in place already or its staged copy is whole (the import had
flushed them all before it wrote the manifest, so after a kill this is the rule); then the journal's
lines the journal lacks are appended, and the plan is the whole import. Back when a staged file is
gone or damaged (a person removed it, a disk lost it): each file the import had put in place gets
its backup again, or is removed if it was new, and the plan is as before, journal included.

A file is acted on only when its bytes are those the manifest names: the import's new bytes (to
undo), or what was there before (to finish). A file changed since, by a person or another command,
is left as it is and named in the answer. Writes go only to the targets, staged files and backups
the manifest may name (`manifest.read` checks each), under the import lock and each node's lock.
"""

from __future__ import annotations

import os
from contextlib import nullcontext
from dataclasses import dataclass, field

from leafwise.commands.adoption import manifest
from leafwise.commands.adoption.manifest import Corrupt, Entry, Manifest, file_hash
from leafwise.store import Problem, journal, reader
from leafwise.store.atomic import fsync_dir
from leafwise.store.locks import LOCK_TIMEOUT, LockBusy, locked
from leafwise.store.paths import PlanPaths

PERSON_FIX = (f"a person checks the plan (git status .leafwise; git diff), puts right what is wrong, "
              f"then removes {manifest.SHOWN}")


@dataclass
class Outcome:
    """What was (or, in a dry run, would be) done: `way` forward, back or refused."""

    way: str
    pid: int
    written: str
    files: int = 0  # files renamed in, restored or removed
    lines: int = 0  # journal lines appended
    left: list[str] = field(default_factory=list)  # files changed since the kill: left as they are
    reason: str = ""

    def said(self) -> str:
        head = f"an import was interrupted (pid {self.pid}, {self.written})"
        if self.way == "refused":
            return f"{head}; it cannot be finished or undone: {self.reason}"
        done = (f"rolled forward: {self.files} file(s) put in place, {self.lines} journal line(s) appended"
                if self.way == "forward" else f"rolled back: {self.files} file(s) put back as before")
        return f"{head}; {done}" + (f"; left as changed since: {', '.join(self.left[:5])}" if self.left else "")


def _state(e: Entry) -> str:
    """new: the import's bytes are in place; old: what was there before is; other: neither."""
    now = file_hash(e.target)
    if now == e.new:
        return "new"
    if (now is None and e.created and not os.path.lexists(e.target)) or (now is not None and now == e.old):
        return "old"
    return "other"


def journaled(paths: PlanPaths, events: list[bytes]) -> int:
    """How many of the import's journal lines, from its first, the journal holds whole."""
    if not events:
        return 0
    try:
        fd = reader.open_fd(paths.journal)
    except (OSError, reader.Refused):
        return 0
    try:
        size = os.fstat(fd).st_size
        start = max(0, size - reader.JOURNAL.cap)
        os.lseek(fd, start, os.SEEK_SET)
    except OSError:
        os.close(fd)
        return 0
    data = reader.read_fd(fd, size - start)
    at = data.find(events[0])
    while at > 0 and data[at - 1:at] != b"\n":
        at = data.find(events[0], at + 1)
    if at < 0:
        return 0
    count = 0
    for line in events:
        if data[at:at + len(line)] != line:
            break
        at += len(line)
        count += 1
    return count


def decide(paths: PlanPaths, found: Manifest) -> tuple[str, dict[Entry, str], int, str]:
    """(forward | back | refused, each file's state, journal lines present, why refused)."""
    states = {e: _state(e) for e in found.entries}
    present = journaled(paths, found.events)
    staged = {e: states[e] != "old" or file_hash(e.staged) == e.new for e in found.entries}
    if (found.events and present == len(found.events)) or all(staged.values()):
        return "forward", states, present, ""
    for e in found.entries:
        if states[e] == "new" and not e.created and (e.backup is None or file_hash(e.backup) != e.old):
            return "refused", states, present, f"{e.rel}: neither its staged file nor its backup is whole"
    return "back", states, present, ""


def _outcome(found: Manifest, way: str, states: dict[Entry, str], present: int, why: str) -> Outcome:
    """What `way` would do: the files to rename in (forward) or put back (back), the lines to append."""
    todo = "old" if way == "forward" else "new"
    return Outcome(way, found.pid, found.written, sum(1 for s in states.values() if s == todo),
                   len(found.events) - present if way == "forward" else 0,
                   [e.rel for e, s in states.items() if s == "other"], why)


def assess(paths: PlanPaths) -> Outcome | None:
    """What repair would do (None: no manifest); `Corrupt` for a manifest nothing may act on."""
    found = manifest.read(paths)
    return None if found is None else _outcome(found, *decide(paths, found))


class _Stopped(Exception):
    """The system refused a rename midway: the manifest stays, and says what is left."""


def finish(paths: PlanPaths, dry_run: bool = False, timeout: float = LOCK_TIMEOUT) -> Outcome | None:
    """Finish or undo an interrupted import (None: there was none). LockBusy: an import is writing."""
    if not os.path.lexists(manifest.path(paths)):
        return None  # the common case takes no lock (a dry run on a read-only plan writes nothing)
    with locked(paths, manifest.LOCK, timeout):
        try:
            found = manifest.read(paths)
        except Corrupt as exc:
            return Outcome("refused", 0, "?", reason=f"{manifest.SHOWN} line {exc.line}: {exc}")
        if found is None:
            return None
        way, states, present, why = decide(paths, found)
        out = _outcome(found, way, states, present, why)
        if dry_run or way == "refused":
            return out
        try:
            if way == "forward":
                out.files = _forward(paths, found, states, out)
                missing = [reader.load_json(line, reader.EVENT) for line in found.events[present:]]
                if missing:
                    journal.append_all(paths, missing)  # each keeps its own time
                out.lines = len(missing)
            else:
                out.files, out.lines = _back(paths, found, states, out), 0
        except (_Stopped, OSError) as exc:
            out.way, out.reason = "refused", str(exc)
            return out
        for e in found.entries:
            for name in (e.staged, e.backup):
                if name is not None:
                    _unlink(name)
        _unlink(manifest.path(paths))
        return out


def _forward(paths: PlanPaths, found: Manifest, states: dict[Entry, str], out: Outcome) -> int:
    moved = 0
    for e in found.entries:  # in the import's order: parents and dependencies first
        if states[e] != "old" or file_hash(e.staged) != e.new:
            continue
        with locked(paths, e.lock) if e.lock else nullcontext():
            if _state(e) != "old":
                out.left.append(e.rel)
                continue
            try:
                if e.created:
                    os.link(e.staged, e.target)  # exclusive: a file made meanwhile is never replaced
                else:
                    os.replace(e.staged, e.target)
            except FileExistsError:
                out.left.append(e.rel)
                continue
            except OSError as exc:
                raise _Stopped(f"{e.rel}: {exc.strerror or exc}") from exc
        moved += 1
    _sync(found)
    return moved


def _back(paths: PlanPaths, found: Manifest, states: dict[Entry, str], out: Outcome) -> int:
    undone = 0
    for e in reversed(found.entries):  # children before the parents they name
        if states[e] != "new":
            continue
        with locked(paths, e.lock) if e.lock else nullcontext():
            if _state(e) != "new":
                out.left.append(e.rel)
                continue
            try:
                if e.created:
                    os.unlink(e.target)
                else:
                    assert e.backup is not None
                    os.replace(e.backup, e.target)
            except OSError as exc:
                raise _Stopped(f"{e.rel}: {exc.strerror or exc}") from exc
        undone += 1
    _sync(found)
    return undone


def _sync(found: Manifest) -> None:
    for folder in dict.fromkeys(e.target.parent for e in found.entries):
        fsync_dir(folder)


def _unlink(name: os.PathLike[str] | str) -> None:
    try:
        os.unlink(name)
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        pass


def problems(paths: PlanPaths, repair: str = "leafwise repair") -> list[Problem]:
    """The validator's word on a manifest no live import holds: an interrupted import (repair finishes
    it) or a manifest nothing acts on (a person's step)."""
    try:
        with locked(paths, manifest.LOCK, 0):
            outcome = assess(paths)
    except LockBusy:
        return []  # an import is writing now: its manifest goes when it is done
    except Corrupt as exc:
        return [Problem("import_manifest", "error", f"{exc}; nothing acts on this import manifest",
                        PERSON_FIX, file=manifest.SHOWN, line=exc.line)]
    except OSError:
        return []  # a read-only plan folder: no lock to take, and repair could not write either
    if outcome is None:
        return []
    if outcome.way == "refused":
        return [Problem("interrupted_import", "error", outcome.said(), PERSON_FIX, file=manifest.SHOWN, line=1)]
    if outcome.way == "back":
        todo = f"a staged file is gone: repair rolls it back ({outcome.files} file(s) get their old bytes)"
    elif outcome.files or outcome.lines:
        todo = (f"repair rolls it forward: every staged file is whole ({outcome.files} file(s) to put in place, "
                f"{outcome.lines} journal line(s) to append)")
    else:
        todo = "every file and journal line is in: repair removes what is left of it"
    return [Problem("interrupted_import", "error", f"an import was interrupted (pid {outcome.pid}, "
                    f"{outcome.written}); {todo}", repair, file=manifest.SHOWN, line=1)]


def repairs(paths: PlanPaths, dry_run: bool) -> list[dict[str, object]]:
    """Repair's step: the interrupted import finished or undone, as one entry of its list."""
    try:
        outcome = finish(paths, dry_run)
    except LockBusy as exc:
        return [{"repair": "finish_import", "applied": False, "file": manifest.SHOWN,
                 "refused": f"an import is writing now ({exc})"}]
    if outcome is None:
        return []
    entry: dict[str, object] = {"repair": f"roll_{outcome.way}_import" if outcome.way != "refused"
                                else "finish_import", "applied": outcome.way != "refused" and not dry_run,
                                "file": manifest.SHOWN, "files": outcome.files, "journal_lines": outcome.lines,
                                "left": outcome.left, "why": outcome.said()}
    if outcome.way == "refused":
        entry["refused"] = outcome.reason
    return [entry]
