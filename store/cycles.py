"""The bounded-loop ledger: `.leafwise/cycles/NAME.count` and `NAME.yaml`.

The iteration count lives in its own file as plain integer text, so the
count is whatever the file says: an agent's memory of it does not matter and a
person can correct it with an editor. The `.yaml` beside it holds the cycle's
definition and state (kind, caps, tokens, verify commands, off-limits globs,
status). Changes happen under the lock `cycle-NAME` (see `lock_name`); each
file is replaced atomically.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, TypedDict

from leafwise.store import atomic
from leafwise.store.globs import first_match  # noqa: F401 - the off-limits check: cycles.first_match
from leafwise.store.loader import read_bounded, safe_load
from leafwise.store.paths import PlanPaths, UnsafePath
from leafwise.store.writer import dump_yaml

NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")
MAX_ITERATIONS = 12
KINDS = ("for-each-work-item", "until-goal", "refine-until-quality", "retry-with-backoff",
         "reconcile-config", "review")
STATUSES = ("running", "stopped", "escalated")


class LedgerError(ValueError):
    """A ledger or cycle file that cannot be trusted (not a number, not a mapping)."""



class CycleRow(TypedDict, total=False):
    """One cycle as `cycle status` lists it (its `items`) and the canvas draws it.

    A ledger that does not load is a row with only name, status "unreadable" and error.
    """

    name: str
    kind: str
    count: int | None  # iterations so far (the ledger file); None if the ledger is missing
    cap: int
    tokens_used: int
    token_cap: int
    status: str  # running | stopped | escalated | unreadable
    finished: str | None
    stop_reason: str | None
    node: str | None
    current: str | None
    agent: str | None
    verify: list[str]
    off_limits: list[str]
    items_done: list[str]
    last_verify: dict[str, Any] | None
    error: str

@dataclass(slots=True)
class Cycle:
    name: str
    kind: str
    max_iterations: int
    token_cap: int
    tokens_used: int = 0
    verify: list[str] = field(default_factory=list)
    off_limits: list[str] = field(default_factory=list)
    node: str | None = None  # the task (or, for for-each, the subtree) the cycle works on
    agent: str | None = None
    status: str = "running"
    current: str | None = None  # for-each: the work item of the running iteration
    items_done: list[str] = field(default_factory=list)
    finished: bool = False  # stopped because the work is done, not at a limit
    stop_reason: str | None = None
    last_verify: dict[str, Any] | None = None  # {node, iteration, green, at, results: [...]}
    not_before: str | None = None  # retry-with-backoff: no retry before this time
    started: str | None = None
    started_by: str | None = None
    updated: str | None = None

    @property
    def running(self) -> bool:
        return self.status == "running"

    def row(self, count: int | None) -> CycleRow:
        """The cycle as `cycle status` lists it and the canvas draws it."""
        return {
            "name": self.name, "kind": self.kind, "count": count, "cap": self.max_iterations,
            "tokens_used": self.tokens_used, "token_cap": self.token_cap, "status": self.status,
            "finished": self.finished, "stop_reason": self.stop_reason, "node": self.node,
            "current": self.current, "agent": self.agent, "verify": self.verify,
            "off_limits": self.off_limits, "items_done": self.items_done,
            "last_verify": self.verify_summary(),
        }

    def verify_summary(self) -> dict[str, Any] | None:
        lv = self.last_verify
        return {k: lv.get(k) for k in ("node", "iteration", "green", "at", "exit_codes")} if lv else None

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        del data["name"]  # the file name is the name
        return data

    @classmethod
    def from_dict(cls, name: str, data: Any) -> Cycle:
        if not isinstance(data, dict):
            raise LedgerError(f"cycles/{name}.yaml is not a mapping of keys to values")
        known = {f.name for f in fields(cls)} - {"name"}
        values = {k: v for k, v in data.items() if k in known}
        try:
            cycle = cls(name=name, **values)
            cycle.max_iterations = min(int(cycle.max_iterations), MAX_ITERATIONS)
            cycle.token_cap = int(cycle.token_cap)
            cycle.tokens_used = int(cycle.tokens_used or 0)
        except (TypeError, ValueError) as exc:
            raise LedgerError(f"cycles/{name}.yaml: {exc}") from exc
        cycle.verify = [str(v) for v in cycle.verify or []]
        cycle.off_limits = [str(v) for v in cycle.off_limits or []]
        cycle.items_done = [str(v) for v in cycle.items_done or []]
        if cycle.status not in STATUSES:
            raise LedgerError(f"cycles/{name}.yaml: status {cycle.status!r} is not one of {', '.join(STATUSES)}")
        return cycle


def check_name(name: str) -> str:
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        raise UnsafePath(f"{name!r} is not a cycle name (letters, digits, . _ -; up to 64)")
    return name


def lock_name(name: str) -> str:
    return f"cycle-{check_name(name)}"


def count_path(paths: PlanPaths, name: str) -> Path:
    return paths.own_folder(paths.cycles) / f"{check_name(name)}.count"


def def_path(paths: PlanPaths, name: str) -> Path:
    return paths.own_folder(paths.cycles) / f"{check_name(name)}.yaml"


def read_count(paths: PlanPaths, name: str) -> int:
    """The iteration count as the ledger file says it; a missing or garbled file is an error."""
    path = count_path(paths, name)
    try:
        text = read_bounded(path, 64).decode("utf-8", "replace").strip()
    except FileNotFoundError as exc:
        raise LedgerError(f"the ledger {path.name} is missing") from exc
    except ValueError as exc:  # a symlink, not a regular file
        raise LedgerError(f"the ledger {path.name} cannot be trusted: {exc}") from exc
    if not text.isdigit():
        raise LedgerError(f"the ledger {path.name} holds {text[:40]!r}, not a count")
    return int(text)


def count_or_none(paths: PlanPaths, name: str) -> int | None:
    """The count for display: None when the ledger cannot be read."""
    try:
        return read_count(paths, name)
    except LedgerError:
        return None


def write_count(paths: PlanPaths, name: str, count: int) -> None:
    atomic.replace(count_path(paths, name), f"{count}\n".encode())


def exists(paths: PlanPaths, name: str) -> bool:
    return def_path(paths, name).exists() or count_path(paths, name).exists()


def read(paths: PlanPaths, name: str) -> Cycle | None:
    try:
        raw = read_bounded(def_path(paths, name))
    except FileNotFoundError:
        return None
    except ValueError as exc:  # a symlink
        raise LedgerError(f"cycles/{name}.yaml cannot be trusted: {exc}") from exc
    try:
        data = safe_load(raw)
    except Exception as exc:  # noqa: BLE001 - any YAML error means the file cannot be trusted
        raise LedgerError(f"cycles/{name}.yaml is not valid YAML: {exc}") from exc
    return Cycle.from_dict(name, data)


def names(paths: PlanPaths) -> list[str]:
    folder = paths.cycles
    if not folder.is_dir() or folder.is_symlink():
        return []
    return sorted(p.stem for p in folder.glob("*.yaml") if NAME_PATTERN.match(p.stem))


def save(paths: PlanPaths, cycle: Cycle) -> None:
    atomic.replace(def_path(paths, cycle.name), dump_yaml(cycle.as_dict()))


def create(paths: PlanPaths, cycle: Cycle) -> None:
    """A new cycle: its definition and a ledger at 0 (call under the cycle's lock)."""
    save(paths, cycle)
    write_count(paths, cycle.name, 0)
