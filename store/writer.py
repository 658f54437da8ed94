"""Writing plan files safely: locks, compare-and-swap, atomic replace, round-trip YAML.

Every rewrite of a node file:
1. takes the node's lock (an OS file lock, through filelock: released when the process dies),
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
"""

from __future__ import annotations

import hashlib
import io
import os
import re
from contextlib import contextmanager, nullcontext
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from leafwise.store import atomic
from leafwise.store.atomic import STALE_TEMP_SECONDS, TEMP_PREFIX, TEMP_SUFFIX, umask  # noqa: F401
from leafwise.store.loader import MAX_NODE_BYTES, TooLarge, check_node, digest_bytes, read_bounded, screen
from leafwise.store.model import Status
from leafwise.store.paths import PlanPaths
from leafwise.store.schema import FIELD_ORDER
from leafwise.store.timestamps import to_text
from leafwise.store.timestamps import to_text as iso  # noqa: F401 - the name handlers import
from leafwise.store.timestamps import utc_now  # noqa: F401

LOCK_TIMEOUT = 10.0
LOCK_POLL = 0.005  # pause between tries: locks are held for milliseconds


class Conflict(Exception):
    """The file changed since it was read (`field`: the key two writers both changed)."""

    def __init__(self, path: Path, message: str = "", field: str | None = None):
        super().__init__(message or f"{path.name} changed since it was read")
        self.path = path
        self.field = field


class LockBusy(Exception):
    """A lock could not be had in time (another writer holds it)."""

    def __init__(self, name: str, timeout: float):
        super().__init__(f"the lock on {name} is held by another writer (waited {timeout:g}s)")
        self.name = name


class Exists(Exception):
    """A file that should be new is already there."""


@contextmanager
def locked(paths: PlanPaths, name: str, timeout: float = LOCK_TIMEOUT) -> Iterator[None]:
    """Hold the cross-process lock `name` (a node id, "journal", "project")."""
    with _hold(paths.own_folder(paths.locks) / f"{name}.lock", name, timeout):
        yield


@contextmanager
def _hold(lock_path: Path, name: str, timeout: float) -> Iterator[None]:
    """filelock's OS lock (flock(2) on POSIX, msvcrt on Windows) on a file that is never deleted
    (`preserve_lock_file`, which also rules out filelock's soft fallback): the kernel releases it
    when the holder exits or is killed, so a crash never leaves a stuck lock. Not re-entrant: each
    hold is its own lock object and descriptor, so a second hold of one name in one process waits
    like any other writer (a caller that already holds a node's lock passes `lock=False`)."""
    from filelock import FileLock, Timeout  # the write path only: a read never locks

    lock_path.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(lock_path, timeout=timeout, mode=0o644, poll_interval=LOCK_POLL, preserve_lock_file=True)
    try:
        lock.acquire()
    except Timeout as exc:
        raise LockBusy(name, timeout) from exc
    try:
        yield
    finally:
        lock.release()


def atomic_write(path: Path, content: bytes, *, exclusive: bool = False) -> None:
    """Write `content` to `path` so readers never see a torn file (`atomic.replace`).

    With `exclusive`, fail with `Exists` instead of replacing a file that is
    already there (used to allocate new ids without a global lock).
    """
    if not exclusive:
        atomic.replace(path, content)
        return
    try:
        atomic.create(path, content)
    except FileExistsError as exc:
        raise Exists(path) from exc


def sweep_temp_files(paths: PlanPaths, *, dry_run: bool = False) -> list[Path]:
    """Temp files under `.leafwise/` left by writers that died mid-write (see `atomic.sweep`)."""
    return atomic.sweep(paths.dir, dry_run=dry_run)


# --- round-trip YAML -------------------------------------------------------

def _yaml():
    from ruamel.yaml import YAML  # imported on the write path only

    y = YAML()
    y.preserve_quotes = True
    y.width = 4096
    # `key: null` as docs/plan-format.md writes it, not a bare `key:`
    y.representer.add_representer(
        type(None), lambda rep, _v: rep.represent_scalar("tag:yaml.org,2002:null", "null"))
    # A time a command sets, as the format writes it (`2026-11-29T20:00:00Z`, unquoted: the text
    # resolves to a timestamp). Times read from the file are ruamel's TimeStamps and keep their text.
    y.representer.add_representer(
        datetime, lambda rep, v: rep.represent_scalar("tag:yaml.org,2002:timestamp", to_text(v)))
    # Never `&id001`/`*id001` for a value used twice (`created` and `updated` are one `now`): the
    # loader refuses anchors, so the writer writes every value out.
    y.representer.ignore_aliases = lambda _data: True
    return y


def _guess_indent(text: str) -> tuple[int, int]:
    """(mapping indent, block-sequence offset) as a human wrote them under top-level keys."""
    mapping = offset = None
    lines = [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    for above, line in zip(lines, lines[1:]):
        if above[:1] in (" ", "-") or not above.rstrip().endswith(":"):
            continue  # only the first line under a top-level `key:` tells the style
        indent = len(line) - len(line.lstrip(" "))
        if line.lstrip(" ").startswith("-"):
            offset = indent if offset is None else offset
        elif indent:
            mapping = indent if mapping is None else mapping
        if mapping is not None and offset is not None:
            break
    return mapping or 2, offset or 0


def _to_yaml_value(value: Any) -> Any:
    """A `Status` as its plain string, like the format (times: the representer in `_yaml`)."""
    if isinstance(value, Status):
        return value.value  # a str subclass: ruamel would tag it !!python/object
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
    y.indent(mapping=mapping, sequence=offset + 2, offset=offset)
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
    yaml = _yaml()  # import ruamel before the lock: the lock is held for milliseconds
    with locked(paths, node_id) if lock else nullcontext():
        raw = read_bounded(path)  # never through a symlink, never more than the limit
        screen(raw)  # no anchors, no deep nesting: what follows is bounded work
        if expected_digest is not None and digest_bytes(raw) != expected_digest:
            raise Conflict(path)
        new = _rewrite(yaml, raw, edit, node_id)
        if base is not None:
            _check_base(path, raw, new, base)
        if new != raw:
            atomic_write(path, new)
        return raw, new


def _rewrite(yaml: Any, raw: bytes, edit: Edit, node_id: str) -> bytes:
    text = raw.decode()
    doc = yaml.load(text)
    edit(doc)
    for key, value in list(doc.items()):
        doc[key] = _to_yaml_value(value)
    new = dump_yaml(doc, indent=_guess_indent(text))
    check_node(_plain(check_bytes(new, node_id)), node_id)
    return _splice(text, new.decode()).encode()


def check_bytes(content: bytes, node_id: str) -> bytes:
    """Refuse (TooLarge) a node file over MAX_NODE_BYTES: every writer passes here."""
    if len(content) > MAX_NODE_BYTES:
        raise TooLarge(f"{node_id}.yaml would be {len(content):,} bytes; the limit is {MAX_NODE_BYTES:,} "
                       f"bytes ({MAX_NODE_BYTES // 1024} KiB per node file)", None,
                       "put long text in a doc under .leafwise/docs/")
    return content


# A top-level key at column 0: `key:`, `"key":` or `'key':` followed by a space or the line end.
_TOP_KEY = re.compile(r"""^(?:"([^"\n]*)"|'([^'\n]*)'|([^\s#'"\-?:{\[&*!|>%@`][^:#\n]*?))[ \t]*:(?:[ \t]|$)""")


def _splice(old: str, new: str) -> str:
    """`new` with every top-level key the edit left alone copied from `old` byte for byte.

    ruamel keeps comments and most quoting, but re-emits `~` as `null`,
    re-indents odd nesting and drops comments on a replaced list; splicing
    the untouched keys' original lines back makes a one-field edit a
    one-field diff. If the result does not mean exactly `new`, `new` is kept.
    """
    old_blocks, new_blocks = _blocks(old), _blocks(new)
    if old_blocks is None or new_blocks is None:
        return new
    before, after = _plain(old.encode()), _plain(new.encode())
    if not isinstance(before, dict) or not isinstance(after, dict):
        return new
    original = dict(old_blocks)
    out: list[str] = []
    for key, text in new_blocks:
        if key is None:
            text = original.get(None, "")
        elif key in original and key in before and before[key] == after.get(key):
            text = original[key]
        elif key in original:  # changed: keep the comment lines that led to the next key
            text = _without_tail(text) + _tail(original[key])
        if out and out[-1] and not out[-1].endswith("\n"):
            out[-1] += "\n"
        out.append(text)
    spliced = "".join(out)
    try:
        same = _plain(spliced.encode()) == after
    except Exception:  # noqa: BLE001 - any parse failure: keep ruamel's full dump
        same = False
    return spliced if same else new


def _blocks(text: str) -> list[tuple[str | None, str]] | None:
    """The text cut at each top-level key: [(None, header), (key, its lines), ...]."""
    blocks: list[tuple[str | None, list[str]]] = [(None, [])]
    for line in text.splitlines(keepends=True):
        match = _TOP_KEY.match(line)
        if match:
            blocks.append((next(g for g in match.groups() if g is not None), [line]))
        else:
            blocks[-1][1].append(line)
    keys = [key for key, _lines in blocks[1:]]
    if len(set(keys)) != len(keys):
        return None
    return [(key, "".join(lines)) for key, lines in blocks]


def _trailing_count(text: str) -> int:
    """How many last lines are blank or column-0 comments (they lead to the next key)."""
    lines = text.splitlines(keepends=True)
    count = 0
    for line in reversed(lines[1:]):
        if line.strip() and not line.startswith("#"):
            break
        count += 1
    return count


def _tail(text: str) -> str:
    count = _trailing_count(text)
    return "".join(text.splitlines(keepends=True)[-count:]) if count else ""


def _without_tail(text: str) -> str:
    count = _trailing_count(text)
    lines = text.splitlines(keepends=True)
    return "".join(lines[:-count] if count else lines)


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
    data = _plain(raw)
    if not isinstance(data, dict):
        return {}
    try:
        return check_node(data, node_id)
    except ValueError:
        return data


def _plain(raw: bytes) -> Any:
    from leafwise.store.loader import parse_yaml

    return parse_yaml(raw)


def create_node(paths: PlanPaths, node_id: str, fields: dict[str, Any]) -> bytes:
    content = check_bytes(render_new_node(fields), node_id)
    check_node(_plain(content), node_id)
    atomic_write(paths.node_file(node_id), content, exclusive=True)
    return content


def rewrite(raw: bytes, node_id: str, edit: Edit) -> bytes:
    """A node file's bytes after `edit`, comments and style kept; checked as node `node_id`."""
    return _rewrite(_yaml(), raw, edit, node_id)


# --- id allocation ----------------------------------------------------------

def create_numbered(paths: PlanPaths, prefix: str, render: Callable[[str], bytes]) -> tuple[str, bytes]:
    """Create a node file under the next free id `PREFIX-N`; returns (id, content).

    N is above every id on disk and, inside a git repository, above a counter
    kept in the git common dir that all worktrees of the clone share: two
    worktrees adding nodes on different branches never pick the same number
    (clones on other machines can still collide; validate reports that after
    the merge and `leafwise renumber` resolves it). The file is created
    exclusively, so a number taken meanwhile is skipped, never overwritten.
    """
    _yaml()  # import ruamel before the lock
    counter = _id_counter(paths, prefix)
    with _hold(counter.with_suffix(".lock"), f"ids {prefix}", LOCK_TIMEOUT) if counter else nullcontext():
        number = max(highest_number(paths, prefix) + 1, _read_counter(counter))
        for _attempt in range(1000):
            node_id = f"{prefix}-{number}"
            content = check_bytes(render(node_id), node_id)
            check_node(_plain(content), node_id)
            try:
                atomic_write(paths.node_file(node_id), content, exclusive=True)
            except Exists:
                number += 1
                continue
            if counter is not None:
                _write_counter(counter, number + 1)
            return node_id, content
    raise Exists(paths.nodes / f"{prefix}-{number}.yaml")  # pragma: no cover - 1000 files appeared meanwhile


def highest_number(paths: PlanPaths, prefix: str) -> int:
    """The largest N of the `PREFIX-N.yaml` files in the nodes folder (0 if none)."""
    head = prefix + "-"
    highest = 0
    try:
        names = os.listdir(paths.nodes)
    except FileNotFoundError:
        return 0
    for name in names:
        if name.startswith(head) and name.endswith(".yaml") and name[len(head):-5].isdigit():
            highest = max(highest, int(name[len(head):-5]))
    return highest


def git_dirs(start: Path) -> tuple[Path, Path] | None:
    """(top of the work tree, the `.git` folder all its worktrees share) for `start`."""
    for folder in (start, *start.parents):
        dot = folder / ".git"
        if dot.is_dir():
            return folder, dot
        if dot.is_file():  # a linked worktree or a submodule: `gitdir: <path>`
            try:
                text = dot.read_text().strip()
            except OSError:
                return None
            if not text.startswith("gitdir:"):
                return None
            gitdir = (folder / text[len("gitdir:"):].strip()).resolve()
            try:
                return folder, (gitdir / (gitdir / "commondir").read_text().strip()).resolve()
            except OSError:
                return folder, gitdir  # a submodule: its gitdir is its own
    return None


def _id_counter(paths: PlanPaths, prefix: str) -> Path | None:
    repo = paths.repo.absolute()
    found = git_dirs(repo)
    if found is None:
        return None
    top, common = found
    where = str(repo.relative_to(top))  # the same in every worktree
    name = prefix if where == "." else f"{prefix}-{hashlib.sha1(where.encode()).hexdigest()[:8]}"
    folder = common / "leafwise" / "ids"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None  # a read-only repository: the exclusive create still guards the local folder
    return folder / f"{name}.next"


def _read_counter(counter: Path | None) -> int:
    if counter is None:
        return 1
    try:
        return max(1, int(counter.read_text().strip() or 1))
    except (OSError, ValueError):
        return 1


def _write_counter(counter: Path, value: int) -> None:
    try:
        atomic_write(counter, f"{value}\n".encode())
    except OSError:
        pass  # the counter only makes collisions rarer; the id is already taken


def write_text(path: Path, text: str) -> None:
    atomic_write(path, text.encode())
