"""Writing plan files safely: locks, compare-and-swap, atomic replace, round-trip YAML.

Every rewrite of a node file:
1. takes the node's lock (an OS file lock: released when the process dies),
2. re-reads the file and compares its content hash with what the caller read
   (a mismatch is a `Conflict`, never a silent overwrite),
3. edits it with ruamel.yaml round-trip, so comments, key order, quoting and
   unknown keys survive,
4. writes a temporary file in the same folder, fsyncs it and renames it over
   the original, so a reader sees the old file or the new one, never half.
"""

from __future__ import annotations

import io
import os
import tempfile
from contextlib import contextmanager, nullcontext
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

from filelock import FileLock, Timeout

from .loader import check_node, digest_bytes
from .model import FIELD_ORDER
from .paths import PlanPaths

LOCK_TIMEOUT = 10.0
_ZULU = timezone(timedelta(0), "Z")  # str() of this tz is "Z": how ruamel writes the suffix
TEMP_PREFIX = ".lw-"


class Conflict(Exception):
    """The file changed since it was read."""

    def __init__(self, path: Path, message: str = ""):
        super().__init__(message or f"{path.name} changed since it was read")
        self.path = path


class LockBusy(Exception):
    """A lock could not be had in time (another writer holds it)."""

    def __init__(self, name: str, timeout: float):
        super().__init__(f"the lock on {name} is held by another writer (waited {timeout:g}s)")
        self.name = name


class Exists(Exception):
    """A file that should be new is already there."""


def utc_now() -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0)


def iso(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@contextmanager
def locked(paths: PlanPaths, name: str, timeout: float = LOCK_TIMEOUT) -> Iterator[None]:
    paths.locks.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(paths.locks / f"{name}.lock"), timeout=timeout)
    try:
        lock.acquire()
    except Timeout as exc:
        raise LockBusy(name, timeout) from exc
    try:
        yield
    finally:
        lock.release()


def atomic_write(path: Path, content: bytes, *, exclusive: bool = False) -> None:
    """Write `content` to `path` so readers never see a torn file.

    With `exclusive`, fail with `Exists` instead of replacing a file that is
    already there (used to allocate new ids without a global lock).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=TEMP_PREFIX, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(content)
            fh.flush()
            os.fsync(fh.fileno())
        if exclusive:
            try:
                os.link(tmp, path)  # atomic create-if-absent
            except FileExistsError as exc:
                raise Exists(path) from exc
            os.unlink(tmp)
        else:
            os.replace(tmp, path)
        tmp = ""
        _fsync_dir(path.parent)
    finally:
        if tmp and os.path.exists(tmp):
            os.unlink(tmp)


def _fsync_dir(folder: Path) -> None:
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


# --- round-trip YAML -------------------------------------------------------

def _yaml():
    from ruamel.yaml import YAML  # imported on the write path only

    y = YAML()
    y.preserve_quotes = True
    y.width = 4096
    # `key: null` as DESIGN.md writes it, not a bare `key:`
    y.representer.add_representer(
        type(None), lambda rep, _v: rep.represent_scalar("tag:yaml.org,2002:null", "null"))
    return y


def _guess_indent(text: str) -> tuple[int, int]:
    """(mapping indent, block-sequence offset) as a human wrote them."""
    mapping, offset = 2, 0
    lines = text.splitlines()
    for i, line in enumerate(lines):
        stripped = line.lstrip(" ")
        if stripped.startswith("- ") or stripped == "-":
            dash = len(line) - len(stripped)
            for prev in reversed(lines[:i]):
                if prev.strip() and not prev.lstrip().startswith("#"):
                    parent_indent = len(prev) - len(prev.lstrip(" "))
                    if prev.rstrip().endswith(":"):
                        offset = max(0, dash - parent_indent)
                    break
            break
    return mapping, offset


def _to_yaml_value(value: Any) -> Any:
    """Timestamps as plain `2026-11-29T20:00:00Z`, like the rest of the format."""
    if isinstance(value, datetime):
        from ruamel.yaml.timestamp import TimeStamp

        v = value.astimezone(timezone.utc)
        ts = TimeStamp(v.year, v.month, v.day, v.hour, v.minute, v.second, tzinfo=_ZULU)
        ts._yaml["t"] = True
        return ts
    if isinstance(value, dict):
        for key in list(value):
            value[key] = _to_yaml_value(value[key])
    elif isinstance(value, list):
        for i, item in enumerate(value):
            value[i] = _to_yaml_value(item)
    return value


def dump_yaml(data: Any, *, indent: tuple[int, int] = (2, 0)) -> bytes:
    y = _yaml()
    mapping, offset = indent
    y.indent(mapping=mapping, sequence=mapping + offset, offset=offset)
    buf = io.StringIO()
    y.dump(data, buf)
    return buf.getvalue().encode()


def render_new_node(fields: dict[str, Any]) -> bytes:
    """A fresh node file in the canonical key order, block style, flow lists."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    doc = CommentedMap()
    ordered = [k for k in FIELD_ORDER if k in fields] + [k for k in fields if k not in FIELD_ORDER]
    for key in ordered:
        value = fields[key]
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            seq = CommentedSeq(value)
            seq.fa.set_flow_style()
            value = seq
        doc[key] = _to_yaml_value(value)
    return dump_yaml(doc)


Edit = Callable[[dict[str, Any]], None]


def edit_node(paths: PlanPaths, node_id: str, expected_digest: str | None, edit: Edit,
              *, lock: bool = True) -> tuple[bytes, bytes]:
    """Apply `edit` to the round-tripped mapping of one node file.

    Returns (old bytes, new bytes). Raises Conflict if the file changed since
    the caller read it (its digest differs from `expected_digest`), and
    FileNotFoundError if it is gone. `lock=False` when the caller already
    holds the node's lock (OS file locks are not re-entrant).
    """
    path = paths.node_file(node_id)
    with locked(paths, node_id) if lock else nullcontext():
        raw = path.read_bytes()
        if expected_digest is not None and digest_bytes(raw) != expected_digest:
            raise Conflict(path)
        text = raw.decode()
        doc = _yaml().load(text)
        edit(doc)
        for key, value in list(doc.items()):
            doc[key] = _to_yaml_value(value)
        new = dump_yaml(doc, indent=_guess_indent(text))
        check_node(_plain(new), node_id)
        if new != raw:
            atomic_write(path, new)
        return raw, new


def _plain(raw: bytes) -> Any:
    from .loader import parse_yaml

    return parse_yaml(raw)


def create_node(paths: PlanPaths, node_id: str, fields: dict[str, Any]) -> bytes:
    content = render_new_node(fields)
    check_node(_plain(content), node_id)
    atomic_write(paths.node_file(node_id), content, exclusive=True)
    return content


def write_text(path: Path, text: str) -> None:
    atomic_write(path, text.encode())
