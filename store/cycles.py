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
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, TypedDict

from leafwise.store import atomic, reader, safe_yaml, values
from leafwise.store.ids import agent_problem, is_node_id
from leafwise.store.globs import first_match  # noqa: F401 - the off-limits check: cycles.first_match
from leafwise.store.paths import PlanPaths, UnsafePath
from leafwise.store.safe_yaml import line_of_key
from leafwise.store.schema import MAX_TEXT_CHARS
from leafwise.store.timestamps import parse
from leafwise.store.writer import dump_yaml

NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")
MAX_ITERATIONS = 12
KINDS = ("for-each-work-item", "until-goal", "refine-until-quality", "retry-with-backoff",
         "reconcile-config", "review")
STATUSES = ("running", "stopped", "escalated")


class LedgerError(ValueError):
    """A ledger or cycle file that cannot be trusted (not a number, not a mapping, a planted value);
    `key` and `line` say where, when known."""

    def __init__(self, message: str, key: str | None = None, line: int | None = None):
        super().__init__(message)
        self.key = key
        self.line = line


MAX_TOKENS = values.MAX_COUNT
_TEXT_FIELDS = ("kind", "node", "agent", "status", "current", "stop_reason", "not_before", "started",
                "started_by", "updated")
_LIST_FIELDS = ("verify", "off_limits", "items_done")


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
        values_ = {k: v for k, v in data.items() if k in known}
        key = None
        try:  # every value checked here, where it is read: a planted one is this file's problem
            for key in ("max_iterations", "token_cap"):  # required: a missing one is refused too
                values_[key] = values.whole(values_.get(key), key, high=MAX_TOKENS)
            key = "tokens_used"
            values_[key] = values.whole(values_.get(key) or 0, key, high=MAX_TOKENS)
            for key in _TEXT_FIELDS:
                values.text(values_.get(key), key, limit=MAX_TEXT_CHARS)
            for key in ("node", "current"):  # they go into hints and journal lines: ids, matched whole
                if values_.get(key) is not None and not is_node_id(values_[key]):
                    raise ValueError(f"{key} {str(values_[key])[:40]!r} is not a node id")
            key = "agent"  # the one rule of an agent's name (a claim's too): it goes into hints
            if values_.get(key) is not None and (problem := agent_problem(values_[key])):
                raise ValueError(f"agent {problem}")
            key = "kind"  # every step of a loop is chosen by its kind
            if values_.get(key) not in KINDS:
                raise ValueError(f"kind {str(values_.get(key))[:40]!r} is not one of {', '.join(KINDS)}")
            key = "not_before"  # compared with the clock: a time with its zone, or none
            if values_.get(key) is not None and parse(str(values_[key])) is None:
                raise ValueError(f"not_before {str(values_[key])[:40]!r} is not a time with its zone, "
                                 "like 2026-11-29T20:00:00Z")
            for key in _LIST_FIELDS:
                values_[key] = values.texts(values_.get(key), key, limit=MAX_TEXT_CHARS)
            key = "items_done"
            if not all(is_node_id(i) for i in values_[key]):
                raise ValueError("items_done must be node ids")
            key = "last_verify"
            _check_last_verify(values_.get(key))
            key = "finished"
            values_[key] = bool(values_.get(key, False))
            key = None
            cycle = cls(name=name, **values_)
        except (TypeError, ValueError) as exc:
            raise LedgerError(f"cycles/{name}.yaml: {exc}", key) from exc
        cycle.max_iterations = min(cycle.max_iterations, MAX_ITERATIONS)
        if cycle.status not in STATUSES:
            raise LedgerError(f"cycles/{name}.yaml: status {cycle.status!r} is not one of {', '.join(STATUSES)}",
                              "status")
        return cycle


def _check_last_verify(lv: Any) -> None:
    """What `cycle verify` writes: its words go into reports, gates and a blocked reason (planted
    exit codes holding `\nFix: …` were copied into the task's blocked_reason)."""
    if lv is None:
        return
    if not isinstance(lv, dict):
        raise ValueError("last_verify must be a mapping")
    if lv.get("node") is not None and not is_node_id(lv["node"]):
        raise ValueError("last_verify.node is not a node id")
    if lv.get("iteration") is not None:
        values.whole(lv["iteration"], "last_verify.iteration", high=MAX_TOKENS)
    if not isinstance(lv.get("green", False), bool):
        raise ValueError("last_verify.green must be true or false")
    values.text(lv.get("at"), "last_verify.at", limit=40)
    codes = lv.get("exit_codes") or []
    if not isinstance(codes, list) or len(codes) > 1000:
        raise ValueError("last_verify.exit_codes must be a list of exit codes")
    for code in codes:
        values.whole(code, "last_verify.exit_codes item", low=-255, high=255)
    results = lv.get("results") or []
    if not isinstance(results, list) or not all(isinstance(r, dict) for r in results):
        raise ValueError("last_verify.results must be a list of mappings")


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
        text = reader.decode(reader.read_bytes(path, reader.LEDGER)).strip()
    except FileNotFoundError as exc:
        raise LedgerError(f"the ledger {path.name} is missing") from exc
    except (OSError, ValueError) as exc:  # a symlink, not a regular file
        raise LedgerError(f"the ledger {path.name} cannot be trusted: {exc}") from exc
    if not (text.isascii() and text.isdigit()) or len(text) > 12:  # "١٢" is a digit to str.isdigit
        raise LedgerError(f"the ledger {path.name} holds {text[:40]!r}, not a count", None, 1)
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
        raw = reader.read_capped(def_path(paths, name), reader.CYCLE)
        data = safe_yaml.load_yaml(raw, reader.CYCLE)
    except FileNotFoundError:
        return None
    except reader.Refused as exc:  # a link, not a file, too large, not YAML: this file's problem
        raise LedgerError(f"cycles/{name}.yaml cannot be trusted: {exc}", None, exc.line) from exc
    except OSError as exc:
        raise LedgerError(f"cycles/{name}.yaml cannot be read: {exc.strerror}") from exc
    try:
        return Cycle.from_dict(name, data)
    except LedgerError as exc:
        exc.line = line_of_key(raw, exc.key) if exc.key else 1
        raise


def names(paths: PlanPaths) -> list[str]:
    folder = paths.cycles
    if not folder.is_dir() or folder.is_symlink():
        return []
    return sorted(p.stem for p in folder.glob("*.yaml") if NAME_PATTERN.match(p.stem))


def check(cycle: Cycle) -> bytes:
    """The cycle file's bytes; LedgerError when `read` would refuse them: a command never writes a cycle
    it could not read back (a budget of 10^23 tokens, or 300 verify commands of 900 characters, made
    the cycle unreadable from then on, and so impossible to stop)."""
    Cycle.from_dict(cycle.name, cycle.as_dict())
    data = dump_yaml(cycle.as_dict())
    if len(data) > reader.CYCLE.cap:
        raise LedgerError(f"cycles/{cycle.name}.yaml would be {len(data):,} bytes; a cycle file holds at most "
                          f"{reader.CYCLE.cap:,}")
    return data


def with_a_verify_on_record(cycle: Cycle) -> Cycle:
    """The cycle as it would be after its largest verify: every command's result recorded (each output
    at most 400 characters of up to 4 bytes), so `start` refuses a cycle that could not record one."""
    results = [{"command": c, "exit_code": -15, "timed_out": True, "seconds": 300.0, "output": "\U0001f600" * 400}
               for c in cycle.verify]
    return replace(cycle, last_verify={"node": cycle.node, "iteration": MAX_ITERATIONS, "green": False,
                                       "at": "2026-01-01T00:00:00Z", "exit_codes": [-15] * len(results),
                                       "results": results})


def save(paths: PlanPaths, cycle: Cycle) -> None:
    try:
        data = check(cycle)
    except LedgerError:
        if not (cycle.last_verify or {}).get("results"):
            raise
        # a planted cycle near the cap: its verify is recorded by its exit codes, each command's
        # output left out, rather than written past what read accepts
        cycle.last_verify = {k: v for k, v in cycle.last_verify.items() if k != "results"}
        data = check(cycle)
    atomic.replace(def_path(paths, cycle.name), data)


def create(paths: PlanPaths, cycle: Cycle) -> None:
    """A new cycle: its definition and a ledger at 0 (call under the cycle's lock)."""
    save(paths, cycle)
    write_count(paths, cycle.name, 0)
