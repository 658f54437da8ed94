"""One node file: read, parsed and checked against the schema, or the problem it is reported as."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from leafwise.store.ids import id_problem, is_node_id
from leafwise.store.model import STATUSES, Problem
from leafwise.store.safe_yaml import (
    MAX_NODE_BYTES,
    Refused,
    SchemaError,
    TooLarge,
    check_size,
    describe_error,
    digest_bytes,
    error_line,
    line_of_key,
    read_bounded,
    safe_load,
)
from leafwise.store.schema import CHECKS, problem_words


@dataclass
class Loaded:
    """The outcome of reading one node file."""

    data: dict[str, Any] | None
    digest: str
    error: tuple[str, int | None, str] | None = None  # (message, line, code)
    extra: dict[str, Any] = field(default_factory=dict)


def check_node(data: Any, stem: str) -> dict[str, Any]:
    """Raise SchemaError unless `data` is a node the model can hold (the strict fields of store/schema.py)."""
    if not isinstance(data, dict):
        raise SchemaError("a node file must be a YAML mapping of keys to values", None,
                          "rewrite the file as `key: value` lines with id, title and status")
    for key in CHECKS.required:
        if data.get(key) in (None, ""):
            raise SchemaError(f"required key {key!r} is missing", key if key in data else None,
                              f"add `{key}:` to the file")
    node_id = data["id"]
    if problem := id_problem(node_id):
        raise SchemaError(problem, "id", "set `id:` to a valid id equal to the file name")
    if node_id != stem:
        raise SchemaError(f"id {node_id!r} does not match the file name {stem}.yaml", "id",
                          f"run leafwise repair, or rename the file to {node_id}.yaml")
    get = data.get
    # Each loop is one kind of CHECKS, its test written out: this runs on every file a cold load parses.
    for key in CHECKS.text:
        if key in data and not isinstance(data[key], str):
            _wrong(key)
    if data["status"] not in STATUSES:  # a tuple: a planted list or mapping compares unequal, never raises
        raise SchemaError(f"status {data['status']!r} is not one of {', '.join(STATUSES)}",
                          "status", f"set status to {', '.join(STATUSES[:-1])} or {STATUSES[-1]}")
    for key in CHECKS.texts:
        value = get(key)
        if value is not None and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            _wrong(key)
    for key in CHECKS.value:
        value = get(key)
        if value is not None and not isinstance(value, (str, int, float)):
            _wrong(key)
    for key, choices in CHECKS.choices:
        if get(key) is not None and get(key) not in choices:
            _wrong(key)
    for key in CHECKS.lists:
        if get(key) is not None and not isinstance(get(key), list):
            _wrong(key)
    check_size(data)
    for key in CHECKS.as_text:
        if isinstance(get(key), (int, float)):
            data[key] = str(data[key])
    return data


def _wrong(key: str) -> None:
    message, fix = problem_words(key)
    raise SchemaError(message, key, fix)


def read_node_file(path: Path) -> Loaded:
    """One node file: every way it can be wrong becomes its own error, never an exception."""
    try:
        raw = read_bounded(path)
    except Refused as exc:
        return Loaded(None, "", (str(exc), exc.line, exc.code))
    except OSError as exc:
        return Loaded(None, "", (f"cannot read: {exc.strerror}", None, "unreadable_file"))
    digest = digest_bytes(raw)
    try:
        data = safe_load(raw)
    except Exception as exc:  # noqa: BLE001 - any parse or construction error is this file's problem
        code = exc.code if isinstance(exc, Refused) else "yaml_error"
        return Loaded(None, digest, (describe_error(exc), error_line(exc, raw), code))
    try:
        check_node(data, path.stem)
    except SchemaError as exc:
        return Loaded(None, digest, (f"{exc} ({exc.fix})" if exc.fix else str(exc),
                                     line_of_key(raw, exc.key), "schema_error"))
    return Loaded(data, digest)


def node_file_problem(nodes_rel: str, name: str, error: tuple[str, int | None, str]) -> Problem:
    """The problem a node file that does not load is reported as (`Loaded.error`), wherever it is read."""
    message, line, code = error
    stem = name[:-5]
    # the fix is a person's (or agent's) text edit; diagnose shows the file, line and cause (of the whole
    # plan when the file's name is no id: a planted "T-2\nx.yaml" is no argument diagnose takes)
    return Problem(code, "error", message, f"leafwise diagnose {stem}" if is_node_id(stem) else "leafwise diagnose",
                   node=stem, file=nodes_rel + name, line=line)


def check_bytes(content: bytes, node_id: str) -> bytes:
    """Refuse (TooLarge) a node file over MAX_NODE_BYTES: every writer passes here."""
    if len(content) > MAX_NODE_BYTES:
        raise TooLarge(f"{node_id}.yaml would be {len(content):,} bytes; the limit is {MAX_NODE_BYTES:,} "
                       f"bytes ({MAX_NODE_BYTES // 1024} KiB per node file)", None,
                       "put long text in a doc under .leafwise/docs/")
    return content
