"""The append-only event log: one JSON object per line in `journal.jsonl`.

Lines are whole: each is written by one `write(2)` under the journal lock, and
a line cut short by a crash (a full disk) is closed off before the next one,
so it costs that one line and never merges with the event after it. Readers
skip any line that is not a JSON object.
"""

from __future__ import annotations

import json
import os
from itertools import islice
from typing import Any, Iterator

from leafwise.store import reader
from leafwise.store.paths import PlanPaths, SymlinkRefused
from leafwise.store.timestamps import to_text, utc_now
from leafwise.store.writer import locked

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
MAX_EVENT_BYTES = reader.EVENT.cap  # a longer journal line is skipped by readers (bounded work)


def _open_read(paths: PlanPaths):
    """The journal for reading through the one reader (FileNotFoundError when absent, a link, or not
    a regular file: read as no journal; doctor reports the link)."""
    try:
        fd = reader.open_fd(paths.journal)
    except reader.Refused as exc:
        raise FileNotFoundError(str(paths.journal)) from exc
    return os.fdopen(fd, "rb")  # the reader's descriptor: a regular file, read in bounded blocks


def append(paths: PlanPaths, event: dict[str, Any]) -> dict[str, Any]:
    """Append one event; the lock keeps concurrent lines whole and in one piece."""
    return append_all(paths, [event])[0]


def append_all(paths: PlanPaths, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Append events together (one fsync): all of them, or, when the write fails, none (the
    journal is cut back to its size before, under the lock, so no other writer's line is lost)."""
    now = to_text(utc_now())
    records = [{"time": now, **event} for event in events]
    line = b"".join((json.dumps(r, ensure_ascii=False, separators=(",", ":"), default=str) + "\n").encode()
                    for r in records)
    with locked(paths, "journal"):
        # O_NOFOLLOW: a committed `journal.jsonl -> ~/.bashrc` must not receive our lines
        try:
            fd = os.open(paths.own_folder(paths.dir) / "journal.jsonl",
                         os.O_RDWR | os.O_APPEND | os.O_CREAT | _NOFOLLOW, 0o644)
        except OSError as exc:
            if exc.errno != 40:  # ELOOP
                raise
            raise SymlinkRefused(".leafwise/journal.jsonl is a symbolic link; Leafwise never writes "
                                 "through it (remove the link: git rm .leafwise/journal.jsonl)") from exc
        size = -1
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                line = b"\n" + line  # a torn last line: end it, so ours stays whole
            written = os.write(fd, line)
            while written < len(line):  # a short write on a full disk or a signal
                written += os.write(fd, line[written:])
            os.fsync(fd)
        except BaseException:
            if size >= 0:
                os.ftruncate(fd, size)
            raise
        finally:
            os.close(fd)
    return records


MAX_EVENTS = 5_000  # the most a read without a limit answers: the newest, for one node or all
MAX_DECODED = 4 * MAX_EVENTS  # lines a read decodes at most (holding the node's id is no proof it is its)
MAX_DECODED_BYTES = 8 * 1024 * 1024  # and bytes: 20,000 lines of 400 (an event is about 200)


def read(paths: PlanPaths, *, node: str | None = None, limit: int | None = None) -> list[dict[str, Any]]:
    """The newest `limit` events (oldest first; at most MAX_EVENTS), for one node or all; bad lines
    skipped. The bound holds for every read: a clone's 60 MB journal of 800,000 lines naming one task
    made each answer that carries that task's messages decode them all (`show` 6.2 s and 542 MB)."""
    # a line about the node holds its id as a JSON string: lines without it are never decoded
    needle = json.dumps(node, ensure_ascii=False).encode() if node is not None else None
    matching = (e for e in _iter_reverse(paths, needle, budget=MAX_DECODED) if node is None or e.get("node") == node
                or any(c.get("id") == node for c in _cascade(e)))
    events = list(islice(matching, min(limit, MAX_EVENTS) if limit is not None else MAX_EVENTS))  # from the end
    events.reverse()
    return events


def newest_first(paths: PlanPaths) -> Iterator[dict[str, Any]]:
    """Every event, newest first, decoded one at a time: an export streams a journal of any size."""
    return _iter_reverse(paths)


def _iter_reverse(paths: PlanPaths, needle: bytes | None = None, block: int = 65536,
                  budget: int | None = None) -> Iterator[dict[str, Any]]:
    """Events newest first; lines without `needle` are never decoded, and at most `budget` lines (and
    MAX_DECODED_BYTES) are."""
    left = [budget, MAX_DECODED_BYTES if budget is not None else None]  # lines, bytes

    def decoded(line: bytes) -> dict[str, Any] | None:
        if needle is not None and needle not in line:
            return None
        if left[0] is not None:
            if left[0] <= 0 or left[1] <= 0:
                raise _Spent
            left[0] -= 1
            left[1] -= len(line)
        return _decode(line)

    try:
        yield from _reverse(paths, decoded, block)
    except _Spent:
        return


class _Spent(Exception):
    """A read's budget of decoded lines is used up."""


def _reverse(paths: PlanPaths, decoded, block: int) -> Iterator[dict[str, Any]]:
    try:
        fh = _open_read(paths)
    except FileNotFoundError:
        return
    with fh:
        fh.seek(0, os.SEEK_END)
        pos = fh.tell()
        rest = b""
        skipping = False  # inside a line longer than MAX_EVENT_BYTES: dropped, never accumulated
        while pos > 0:
            step = min(block, pos)
            pos -= step
            fh.seek(pos)
            chunk = fh.read(step)
            if skipping:
                cut = chunk.rfind(b"\n")
                if cut < 0:
                    continue
                chunk, skipping = chunk[:cut + 1], False
            chunk += rest
            lines = chunk.split(b"\n")
            rest = lines.pop(0)
            if len(rest) > MAX_EVENT_BYTES:  # no event is this long: a planted line, skipped
                rest, skipping = b"", True
            for line in reversed(lines):
                event = decoded(line)
                if event is not None:
                    yield event
        event = decoded(rest)
        if event is not None:
            yield event


def _decode(line: bytes) -> dict[str, Any] | None:
    """One event, or None for a line that is not one: not JSON, too long or too deep (a planted
    line of 3,000 brackets would make Python's json recurse out), or a value of the wrong kind."""
    if not line.strip() or len(line) > MAX_EVENT_BYTES:
        return None
    try:
        event = reader.load_json(line, reader.EVENT)
    except ValueError:  # reader.Refused
        return None
    return event if isinstance(event, dict) and _well_formed(event) else None


_TEXT_KEYS = ("time", "command", "node", "actor")


def _well_formed(event: dict[str, Any]) -> bool:
    """The keys every reader relies on hold what Leafwise writes there (text; a list of mappings)."""
    if any(not isinstance(event.get(k), (str, type(None))) for k in _TEXT_KEYS):
        return False
    cascade = event.get("cascade")
    return cascade is None or (isinstance(cascade, list) and all(isinstance(c, dict) for c in cascade))


def _cascade(event: dict[str, Any]) -> list[dict[str, Any]]:
    return event.get("cascade") or []


def read_since(paths: PlanPaths, offset: int) -> tuple[list[dict[str, Any]], int]:
    """Events appended after byte `offset`, and the new offset (for a live feed)."""
    try:
        with _open_read(paths) as fh:
            fh.seek(0, os.SEEK_END)
            end = fh.tell()
            if end < offset:
                offset = 0  # truncated or replaced: start over
            offset = max(offset, end - reader.JOURNAL.cap)  # a planted giant journal: only its end
            fh.seek(offset)
            data = fh.read(end - offset)
    except FileNotFoundError:
        return [], 0
    complete = data.rfind(b"\n") + 1
    events = [e for e in (_decode(l) for l in data[:complete].split(b"\n")) if e is not None]
    return events, offset + complete
