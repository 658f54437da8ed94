"""New node ids: the next free `PREFIX-N`, never one another worktree of the clone has taken."""

from __future__ import annotations

import hashlib
import os
from contextlib import nullcontext
from pathlib import Path
from typing import Callable

from leafwise.store import atomic, reader
from leafwise.store.atomic import Exists
from leafwise.store.ids import MAX_NUMBER_DIGITS
from leafwise.store.locks import LOCK_TIMEOUT, hold
from leafwise.store.node_files import check_bytes, check_node
from leafwise.store.paths import PlanPaths
from leafwise.store.roundtrip import round_trip_yaml
from leafwise.store.safe_yaml import parse_yaml

CEILING = 10 ** MAX_NUMBER_DIGITS - 1  # the largest number an id holds


def create_numbered(paths: PlanPaths, prefix: str, render: Callable[[str], bytes]) -> tuple[str, bytes]:
    """Create a node file under the next free id `PREFIX-N`; returns (id, content).

    N is above every id on disk and, inside a git repository, above a counter
    kept in the git common dir that all worktrees of the clone share: two
    worktrees adding nodes on different branches never pick the same number
    (clones on other machines can still collide; validate reports that after
    the merge and `leafwise renumber` resolves it). The file is created
    exclusively, so a number taken meanwhile is skipped, never overwritten.
    """
    round_trip_yaml()  # import ruamel before the lock
    counter = _id_counter(paths, prefix)
    with hold(counter.with_suffix(".lock"), f"ids {prefix}", LOCK_TIMEOUT) if counter else nullcontext():
        number = max(highest_number(paths, prefix) + 1, _read_counter(counter))
        if number > CEILING:  # a planted PREFIX-999999999999 took the top: the lowest free number instead
            number = lowest_free(paths, prefix)
        for _attempt in range(1000):
            node_id = f"{prefix}-{number}"
            content = check_bytes(render(node_id), node_id)
            check_node(parse_yaml(content), node_id)
            try:
                atomic.create(paths.node_file(node_id), content)
            except Exists:
                number += 1
                continue
            if counter is not None:
                _write_counter(counter, number + 1)
            return node_id, content
    raise Exists(paths.nodes / f"{prefix}-{number}.yaml")  # pragma: no cover - 1000 files appeared meanwhile


def reserve(paths: PlanPaths, prefix: str, count: int) -> list[int]:
    """`count` numbers no file and no other worktree of the clone has taken, reserved in the shared
    counter, for files created later (each still exclusively: a number taken meanwhile is a conflict)."""
    counter = _id_counter(paths, prefix)
    with hold(counter.with_suffix(".lock"), f"ids {prefix}", LOCK_TIMEOUT) if counter else nullcontext():
        first = max(highest_number(paths, prefix) + 1, _read_counter(counter))
        if first + count - 1 <= CEILING:
            out = list(range(first, first + count))
        else:  # a planted PREFIX-999999999999 took the top: the lowest free numbers instead
            taken = numbers(paths, prefix)
            out = [n for n in range(1, len(taken) + count + 1) if n not in taken][:count]
        if counter is not None and out:
            _write_counter(counter, max(out) + 1)
    return out


def numbers(paths: PlanPaths, prefix: str) -> set[int]:
    """The N of every `PREFIX-N.yaml` file in the nodes folder that is an id (at most 12 digits: a
    longer planted name is no id, and never goes through int())."""
    head = prefix + "-"
    try:
        names = os.listdir(paths.nodes)
    except FileNotFoundError:
        return set()
    return {int(digits) for name in names if name.startswith(head) and name.endswith(".yaml")
            and (digits := name[len(head):-5]).isascii() and digits.isdigit() and len(digits) <= MAX_NUMBER_DIGITS}


def highest_number(paths: PlanPaths, prefix: str) -> int:
    """The largest N of the `PREFIX-N.yaml` files in the nodes folder (0 if none)."""
    return max(numbers(paths, prefix), default=0)


def lowest_free(paths: PlanPaths, prefix: str) -> int:
    taken = numbers(paths, prefix)
    return next(n for n in range(1, len(taken) + 2) if n not in taken)


def git_dirs(start: Path) -> tuple[Path, Path] | None:
    """(top of the work tree, the `.git` folder all its worktrees share) for `start`."""
    for folder in (start, *start.parents):
        dot = folder / ".git"
        if dot.is_dir():
            return folder, dot
        if dot.is_file():  # a linked worktree or a submodule: `gitdir: <path>`
            try:
                text = reader.read_text(dot, reader.POINTER).strip()
            except (OSError, ValueError):
                return None
            if not text.startswith("gitdir:"):
                return None
            gitdir = (folder / text[len("gitdir:"):].strip()).resolve()
            try:
                return folder, (gitdir / reader.read_text(gitdir / "commondir", reader.POINTER).strip()).resolve()
            except (OSError, ValueError):
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
        text = reader.read_text(counter, reader.POINTER).strip()
        return max(1, int(text)) if text.isascii() and text.isdigit() and len(text) <= 12 else 1
    except (OSError, ValueError):
        return 1


def _write_counter(counter: Path, value: int) -> None:
    try:
        atomic.replace(counter, f"{value}\n".encode())
    except OSError:
        pass  # the counter only makes collisions rarer; the id is already taken
