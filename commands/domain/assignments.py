"""`FIELD=VALUE`: how `edit --set` reads a field's new value, and how the canvas writes one that reads back."""

from __future__ import annotations

import json
import re
from typing import Any

from leafwise.store.safe_yaml import parse_yaml
from leafwise.store.schema import LIST_FIELDS


def parse_assignment(text: str) -> tuple[str, Any]:
    if "=" not in text:
        raise ValueError(f"{text!r} is not FIELD=VALUE")
    key, raw = text.split("=", 1)
    key = key.strip()
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", key):
        raise ValueError(f"{key!r} is not a field name")
    raw = raw.strip()
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'" and raw[0] not in raw[1:-1]:
        inner = raw[1:-1]  # quoted: the text as it is ("[WIP] x", "null", "~", "")
        return key, ([inner] if inner else []) if key in LIST_FIELDS else inner
    if raw in ("", "null", "~"):
        return key, None
    if key in LIST_FIELDS:
        if raw.startswith("["):
            value = _yaml_value(key, raw)
            if not isinstance(value, list):
                raise ValueError(f"{key} takes a list like [a, b]")
            return key, [str(v) for v in value]
        return key, [part.strip() for part in raw.split(",") if part.strip()]
    if raw[:1] in "[{" or key in ("evidence",):
        return key, _yaml_value(key, raw)
    return key, raw


def _yaml_value(key: str, raw: str) -> Any:
    """A value read as YAML; any YAML error (an alias, a tag, a bad key) is the user's usage error."""
    try:
        return parse_yaml(raw)
    except Exception as exc:  # noqa: BLE001 - any YAML error is a usage error here
        raise ValueError(f"{key}: a value starting with [ or {{ is read as YAML, and this one is not valid "
                         f"({str(exc).splitlines()[0]}); to keep the text as written, put it in quotes: "
                         f"{key}=\"...\"") from exc


def format_assignment(key: str, value: Any) -> str | None:
    """`key=value` that `parse_assignment` reads back to the same value; None when none does
    (a number or a boolean would come back as text; a text holding both kinds of quote that reads
    as something else unquoted)."""
    if value is None:
        return f"{key}=null"
    if isinstance(value, (list, dict)):
        return f"{key}=" + json.dumps(value, ensure_ascii=False)
    if not isinstance(value, str):
        return None
    for mark in "\"'":
        if mark not in value:
            return f"{key}={mark}{value}{mark}"
    if key in LIST_FIELDS or value[:1] in "[{":
        return None
    line = f"{key}={value}"  # both kinds of quote: as it is, when that reads back the same
    try:
        return line if parse_assignment(line) == (key, value) else None
    except ValueError:  # ` ['"`: the stripped value starts with `[` and is no YAML
        return None
