"""An import's write-ahead manifest: what it is about to put in place, on disk before the first rename.

`transaction.py` writes it (durably, after every staged file is flushed) and removes it after the
journal's append; a manifest still there once no import holds the import lock is an import that
was killed midway. Lines, one JSON object each, so a problem names its line:

    {"manifest": "leafwise import", "version": 1, "pid": 4242, "written": "…", "files": 3, "events": 2}
    {"path": "nodes/SHOP-7.yaml", "staged": ".lw-4242-ab12.tmp", "new": "<hash>", "old": null}
    {"path": "project.yaml", "staged": ".lw-4242-cd.tmp", "new": "<hash>", "old": {"backup": "…", "hash": "…"}}
    {"time": "…", "actor": "…", "command": "import", …}            (the journal's lines, as appended)

It lives in `.leafwise/.locks/` (local state git ignores, beside the lock that says an import is
writing). It is untrusted input like every plan file: read through the one bounded reader, each
target must be project.yaml, a node file or a doc inside the plan, each staged file and backup a
temp file beside its target; anything else makes the whole manifest a problem that nothing acts on.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from leafwise.store import reader
from leafwise.store.ids import ID_PATTERN
from leafwise.store.paths import PLAN_DIR, PlanPaths, UnsafePath

NAME = "import.json"
SHOWN = f"{PLAN_DIR}/.locks/{NAME}"
LOCK = "import"  # held from the manifest's writing to its removal: a live import, not an interrupted one
KIND = reader.Kind("import manifest", 64 * reader.MiB, 8)  # a 20,000-item import takes some 15 MB
MAX_LINES = 200_000
_TEMP = re.compile(r"\.lw-[0-9]{1,12}-[A-Za-z0-9_]{1,32}\.tmp")  # atomic.stage's names, nothing else
_HASH = re.compile(r"[0-9a-f]{32}")
JOURNALED = ("import", "release add")  # the only journal lines an import writes


def digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


@dataclass(frozen=True)
class Entry:
    """One file of the import: where it goes, its staged copy, its new bytes' hash, and what was there
    (None: nothing; else the backup's name and the old bytes' hash)."""

    target: Path
    rel: str
    staged: Path
    new: str
    backup: Path | None
    old: str | None
    lock: str | None  # the lock a rewrite takes (a node id, "project"), as the import takes it

    @property
    def created(self) -> bool:
        return self.old is None


@dataclass(frozen=True)
class Manifest:
    pid: int
    written: str
    entries: list[Entry]
    events: list[bytes]  # each journal line, exactly as the journal holds it (newline included)


class Corrupt(Exception):
    """A manifest nothing may act on: `line` is where (1-based)."""

    def __init__(self, line: int, message: str):
        super().__init__(message)
        self.line = line


def path(paths: PlanPaths) -> Path:
    return paths.locks / NAME


def event_line(event: dict[str, Any]) -> bytes:
    """A journal line as `journal.append_all` writes it (its time first)."""
    return (json.dumps(event, ensure_ascii=False, separators=(",", ":"), default=str) + "\n").encode()


def render(pid: int, written: str, files: list[dict[str, Any]], events: list[bytes]) -> bytes:
    head = {"manifest": "leafwise import", "version": 1, "pid": pid, "written": written,
            "files": len(files), "events": len(events)}
    out = [json.dumps(head) + "\n"] + [json.dumps(f, ensure_ascii=False) + "\n" for f in files]
    return "".join(out).encode() + b"".join(events)


def rel_of(paths: PlanPaths, target: Path) -> str:
    """`target` relative to `.leafwise/` (a doc's path comes resolved, the plan's folder may not be)."""
    for base in (paths.dir, paths.dir.resolve()):
        try:
            return target.relative_to(base).as_posix()
        except ValueError:
            continue
    raise UnsafePath(f"{target} is not in {PLAN_DIR}/")


def target_of(paths: PlanPaths, rel: str) -> tuple[Path, str | None]:
    """The file a manifest line may name, with its lock: project.yaml, a node file, or a doc or
    diagram inside the plan (`paths.inside`: no escape, links resolved first). UnsafePath otherwise."""
    if rel == "project.yaml":
        return paths.project_file, "project"
    head, _, name = rel.partition("/")
    if head == "nodes":
        node_id = name[:-5] if name.endswith(".yaml") else ""
        if not ID_PATTERN.match(node_id) or "/" in name:
            raise UnsafePath(f"{rel!r} is not a node file")
        return paths.node_file(node_id), node_id
    return paths.inside(rel), None


def read(paths: PlanPaths) -> Manifest | None:
    """The manifest (None: there is none); `Corrupt` when any line is not what an import writes."""
    try:
        raw = reader.read_capped(path(paths), KIND, under=paths.repo)
    except FileNotFoundError:
        return None
    except reader.Refused as exc:
        raise Corrupt(exc.line or 1, str(exc)) from None
    except OSError as exc:
        raise Corrupt(1, f"it cannot be read: {exc.strerror or exc}") from None
    lines = raw.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if not lines or len(lines) > MAX_LINES:
        raise Corrupt(1, "it is empty" if not lines else f"it has over {MAX_LINES:,} lines")
    head = _object(lines[0], 1)
    files, count = head.get("files"), head.get("events")
    if head.get("manifest") != "leafwise import" or head.get("version") != 1 or not _count(head.get("pid")) \
            or not _count(files) or not _count(count) or not isinstance(head.get("written"), str):
        raise Corrupt(1, "its first line is not an import manifest's header")
    if len(lines) != 1 + files + count:
        raise Corrupt(len(lines), f"it has {len(lines)} lines, its header says {1 + files + count}")
    entries = [_entry(paths, _object(lines[i], i + 1), i + 1) for i in range(1, 1 + files)]
    events = []
    for i in range(1 + files, len(lines)):
        event = _object(lines[i], i + 1)
        if event.get("command") not in JOURNALED or not isinstance(event.get("time"), str):
            raise Corrupt(i + 1, "it is not a journal line an import writes")
        events.append(lines[i] + b"\n")
    return Manifest(head["pid"], head["written"][:40], entries, events)


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_LINES * 100


def _object(line: bytes, number: int) -> dict[str, Any]:
    try:
        value = reader.load_json(line, reader.EVENT)
    except reader.Refused as exc:
        raise Corrupt(number, str(exc)) from None
    if not isinstance(value, dict):
        raise Corrupt(number, "it is not a JSON object")
    return value


def _entry(paths: PlanPaths, line: dict[str, Any], number: int) -> Entry:
    rel, staged, new, old = line.get("path"), line.get("staged"), line.get("new"), line.get("old")
    if not isinstance(rel, str) or len(rel) > 1000:
        raise Corrupt(number, "its path is not a file of the plan")
    try:
        target, lock = target_of(paths, rel)
    except UnsafePath as exc:
        raise Corrupt(number, f"{str(exc)[:200]}: not a file an import writes") from None
    backup, old_hash = None, None
    if old is not None:
        if not isinstance(old, dict) or not _temp(old.get("backup")) or not _hashed(old.get("hash")):
            raise Corrupt(number, "its old file is not a backup beside it with a hash")
        backup, old_hash = target.parent / old["backup"], old["hash"]
    if not _temp(staged) or not _hashed(new):
        raise Corrupt(number, "its staged file is not a temp file beside it with a hash")
    return Entry(target, rel, target.parent / staged, new, backup, old_hash, lock)


def _temp(name: Any) -> bool:
    return isinstance(name, str) and _TEMP.fullmatch(name) is not None


def _hashed(value: Any) -> bool:
    return isinstance(value, str) and _HASH.fullmatch(value) is not None


def file_hash(file: Path) -> str | None:
    """The hash of a regular file's bytes (None: absent, or no regular file: a link, a folder)."""
    try:
        fd = reader.open_fd(file)
    except (OSError, reader.Refused):
        return None
    try:
        size = os.fstat(fd).st_size
    except OSError:
        os.close(fd)
        return None
    return digest(reader.read_fd(fd, size))
