"""Writing plan files safely: locks, compare-and-swap, atomic replace, round-trip YAML.

Every rewrite of a node file:
1. takes the node's lock (an OS file lock: flock(2) on POSIX, filelock's on Windows; `locks`),
   released by the kernel when the process dies,
2. re-reads the file and compares its content hash with what the caller read
   (a mismatch is a `Conflict`, never a silent overwrite),
3. edits it with ruamel.yaml round-trip, so comments, key order, quoting and
   unknown keys survive,
4. writes a temporary file in the same folder, fsyncs it and renames it over
   the original, so a reader sees the old file or the new one, never half.

A process killed at any point (SIGKILL) leaves the old file or the new one,
never a torn one; its locks are `flock`s the kernel drops with the process;
at worst a `.lw-<pid>-*.tmp` file stays behind, which readers skip (dot files)
and `sweep_temp_files` (run by `repair`) removes once its writer is dead.

The steps live beside this module: the locks in `locks`, the replacing in `atomic`, the
round-trip and splicing in `roundtrip`, new ids in `numbering`.
"""

from __future__ import annotations

from contextlib import contextmanager, nullcontext
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from leafwise.store import atomic, scalar_edit

# Also imported from here by callers: the locks, atomic files, time, round-trip YAML and new ids.
from leafwise.store.atomic import STALE_TEMP_SECONDS, TEMP_PREFIX, TEMP_SUFFIX, Exists, umask  # noqa: F401
from leafwise.store.locks import LOCK_POLL, LOCK_TIMEOUT, LockBusy, locked  # noqa: F401
from leafwise.store.node_files import check_bytes, check_node
from leafwise.store.reader import SchemaError
from leafwise.store.numbering import create_numbered, git_dirs, highest_number  # noqa: F401
from leafwise.store.paths import PlanPaths
from leafwise.store.roundtrip import dump_yaml, guess_indent, render_new_node, round_trip_yaml, splice, to_yaml_value
from leafwise.store.roundtrip import round_trip_yaml as _yaml  # noqa: F401 - handlers/releases.py imports it
from leafwise.store.safe_yaml import digest_bytes, parse_yaml, read_bounded, screen
from leafwise.store.timestamps import to_text as iso  # noqa: F401
from leafwise.store.timestamps import utc_now  # noqa: F401


class Conflict(Exception):
    """The file changed since it was read (`field`: the key two writers both changed)."""

    def __init__(self, path: Path, message: str = "", field: str | None = None):
        super().__init__(message or f"{path.name} changed since it was read")
        self.path = path
        self.field = field


def atomic_write(path: Path, content: bytes, *, exclusive: bool = False) -> None:
    """Write `content` to `path` so readers never see a torn file (`atomic.replace`).

    With `exclusive`, fail with `Exists` instead of replacing a file that is
    already there (used to allocate new ids without a global lock).
    """
    (atomic.create if exclusive else atomic.replace)(path, content)


def sweep_temp_files(paths: PlanPaths, *, dry_run: bool = False) -> list[Path]:
    """Temp files under `.leafwise/` left by writers that died mid-write (see `atomic.sweep`)."""
    return atomic.sweep(paths.dir, dry_run=dry_run)


Edit = Callable[[dict[str, Any]], None]


def edit_node(paths: PlanPaths, node_id: str, expected_digest: str | None, edit: Edit,
              *, lock: bool = True, base: Mapping[str, Any] | None = None) -> tuple[bytes, bytes]:
    """Apply `edit` to the round-tripped mapping of one node file.

    Returns (old bytes, new bytes). The file is re-read under the node's lock,
    so the edit always applies to the current content. Two compare-and-swap
    guards raise `Conflict` instead of overwriting what another writer did:
    `expected_digest`, the whole file must be as the caller read it; `base`,
    the node's fields as the caller read them: every field the edit changes
    must still hold its `base` value (another writer's change to other fields
    is kept, the edit re-applied on top). FileNotFoundError if the file is
    gone. `lock=False` when the caller already holds the node's lock (OS file
    locks are not re-entrant).
    """
    path = paths.node_file(node_id)
    scalar = _SCALAR.get()
    # import ruamel before the lock: the lock is held for milliseconds
    yaml = None if scalar else round_trip_yaml()
    with locked(paths, node_id) if lock else nullcontext():
        raw = read_bounded(path)  # never through a symlink, never more than the limit
        screen(raw)  # no anchors, no deep nesting: what follows is bounded work
        if expected_digest is not None and digest_bytes(raw) != expected_digest:
            raise Conflict(path)
        new = _scalar_rewrite(raw, edit, node_id) if scalar else _rewrite(yaml, raw, edit, node_id)
        if base is not None:
            _check_base(path, raw, new, base)
        if new != raw:
            atomic_write(path, new)
        return raw, new


# Set by `scalar_edits()`: the edits of this context set scalar fields only (complete, its cascade).
_SCALAR: ContextVar[bool] = ContextVar("scalar_edits", default=False)


@contextmanager
def scalar_edits() -> Iterator[None]:
    """Within: every `edit_node` edit sets or clears scalar fields only (a status, a summary, a time),
    so the writer applies it to the file's plain fields, writes the text itself where that is the
    round trip's text (`scalar_edit`) and takes the round trip, with the same changes, where not."""
    token = _SCALAR.set(True)
    try:
        yield
    finally:
        _SCALAR.reset(token)


def _scalar_rewrite(raw: bytes, edit: Edit, node_id: str) -> bytes:
    """`_rewrite` for a scalar edit: run once on the plain fields; the same bytes, checks and splice."""
    before = parse_yaml(raw)
    if not isinstance(before, dict):
        return _rewrite(round_trip_yaml(), raw, edit, node_id)
    doc = dict(before)
    edit(doc)
    changed = [k for k in doc if k not in before or doc[k] != before[k] or type(doc[k]) is not type(before[k])]
    removed = [k for k in before if k not in doc]
    text = raw.decode()
    fast = None if removed else scalar_edit.rewrite(text, doc, changed)
    if fast is not None:
        new = fast.encode()
        check_node(_reread(new, node_id), node_id)
        if parse_yaml(new) == {k: scalar_edit.as_read(v) if k in changed else v for k, v in doc.items()}:
            return new

    def replay(ruamel_doc: dict[str, Any]) -> None:  # the same changes on the round-tripped mapping
        for key in removed:
            del ruamel_doc[key]
        for key in changed:
            ruamel_doc[key] = doc[key]

    return _rewrite(round_trip_yaml(), raw, replay, node_id)


def _rewrite(yaml: Any, raw: bytes, edit: Edit, node_id: str) -> bytes:
    text = raw.decode()
    doc = yaml.load(text)
    edit(doc)
    for key, value in list(doc.items()):
        doc[key] = to_yaml_value(value)
    new = dump_yaml(doc, indent=guess_indent(text))
    check_node(_reread(new, node_id), node_id)
    return splice(text, new.decode()).encode()


def _reread(new: bytes, node_id: str) -> Any:
    """The new bytes as the loader reads them: a value it refuses (past its count cap: "more than 10,000
    values") is the write's SchemaError, never a YAML error no caller expects."""
    import yaml

    try:
        return parse_yaml(check_bytes(new, node_id))
    except yaml.YAMLError as exc:
        raise SchemaError(f"the node would not load: {getattr(exc, 'problem', None) or exc}", None,
                          "write fewer or smaller values") from exc


def _check_base(path: Path, raw: bytes, new: bytes, base: Mapping[str, Any]) -> None:
    """Refuse an edit of a field that another writer changed since `base` was read."""
    fresh, after = _comparable(raw, path.stem), _comparable(new, path.stem)
    for key in sorted(set(fresh) | set(after)):
        if key == "updated" or _same(fresh.get(key), after.get(key)):
            continue  # not touched by this edit
        if not _same(fresh.get(key), base.get(key)):
            raise Conflict(path, f"{key} of {path.stem} changed since it was read "
                                 f"(was {base.get(key)!r}, now {fresh.get(key)!r})", field=key)


def _same(a: Any, b: Any) -> bool:
    """Equal values, where `.nan` equals `.nan` (nan != nan would make every edit a conflict)."""
    return a == b or repr(a) == repr(b)


def _comparable(raw: bytes, node_id: str) -> dict[str, Any]:
    """The file's fields as the loader gives them (what a caller's `base` holds)."""
    data = parse_yaml(raw)
    if not isinstance(data, dict):
        return {}
    try:
        return check_node(data, node_id)
    except ValueError:
        return data


def create_node(paths: PlanPaths, node_id: str, fields: dict[str, Any]) -> bytes:
    content = check_bytes(render_new_node(fields), node_id)
    check_node(parse_yaml(content), node_id)
    atomic_write(paths.node_file(node_id), content, exclusive=True)
    return content


def rewrite(raw: bytes, node_id: str, edit: Edit) -> bytes:
    """A node file's bytes after `edit`, comments and style kept; checked as node `node_id`."""
    return _rewrite(round_trip_yaml(), raw, edit, node_id)


def write_text(path: Path, text: str) -> None:
    atomic_write(path, text.encode())
