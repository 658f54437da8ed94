"""A node file's scalar fields set as text: the bytes ruamel's round trip and `roundtrip.splice` write.

`complete` and the cascade it runs change only scalars (status, summary, a cleared blocked_reason,
updated). For a file in the plain shape Leafwise itself writes (below), `writer.edit_node` sets them
here without importing ruamel (a tenth of a `complete`): each changed key's one line becomes
`key: value`, a new key goes last, every other line stays as it was. That is what the round trip
gives for such a file, since `splice` copies back every untouched key's lines and ruamel writes
these values plain; tests/store/test_scalar_edit.py checks it byte for byte against ruamel over
generated files and edits. Anything else (a comment, a blank line, a value that needs quoting, a
key removed, a list) returns None, and the writer takes the round trip.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from leafwise.store.model import Status
from leafwise.store.roundtrip import key_blocks
from leafwise.store.timestamps import to_text

# Text ruamel writes plain and every YAML reader reads back as that same text: words of letters,
# digits and _ . / + - ( ) between single spaces, starting with a letter (never a number, a date,
# an indicator or a quote), and not a word YAML 1.1 reads as a boolean or null.
_WORDS = r"[A-Za-z][A-Za-z0-9_./+()-]*(?: [A-Za-z0-9_./+()-]+)*"
_TEXT = re.compile(_WORDS)
_RESERVED = frozenset({"y", "n", "yes", "no", "on", "off", "true", "false", "null"})
MAX_TEXT = 1000  # far below ruamel's line width (4096), which would fold a longer plain scalar
_TIME = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"
_ITEM = r"[A-Za-z][A-Za-z0-9_./-]*"
# The shape of a file this module edits: top-level `key: value` lines (a value plain, quoted
# without escapes, a time, a small integer, a flow list of ids) and `key:` over `- item` lines.
_VALUE = (rf"null|true|false|0|[1-9][0-9]{{0,9}}|{_TIME}|{_WORDS}|'[^'\n]*'|\"[^\"\\\n]*\""
          rf"|\[\]|\[{_ITEM}(?:, {_ITEM})*\]")
# Anchored at the start (\A): only ever used whole (fullmatch), and a search from every offset of a
# long line would be quadratic.
_LINE = re.compile(rf"\A(?:[a-z_][a-z0-9_]*:(?: (?:{_VALUE}))?|  - {_ITEM}|- {_ITEM})")


def render(value: Any) -> str | None:
    """A scalar as ruamel's round trip writes it here; None when this module cannot say."""
    if value is None:
        return "null"
    if isinstance(value, datetime):
        return to_text(value)
    if isinstance(value, Status):
        value = value.value
    if type(value) is str and len(value) <= MAX_TEXT and value.lower() not in _RESERVED \
            and _TEXT.fullmatch(value):
        return value
    return None


def as_read(value: Any) -> Any:
    """What the loader reads back where `render` wrote `value`."""
    if isinstance(value, datetime):
        return to_text(value)
    return value.value if isinstance(value, Status) else value


def plain_shape(text: str) -> bool:
    """Whether the file is one this module edits: every line of the shape above, no header, no
    comment, no blank line, ending with a newline."""
    if not text.endswith("\n") or "\r" in text:
        return False
    lines = text[:-1].split("\n")
    if not lines or lines[0][:1] in (" ", "-") or not all(_LINE.fullmatch(line) for line in lines):
        return False
    # no scalar YAML 1.1 reads as a boolean (ruamel, reading 1.2, may write it back otherwise)
    return not any(item.lower() in _BOOLEAN_WORDS for line in lines for item in _scalars(line))


_BOOLEAN_WORDS = _RESERVED - {"true", "false", "null"}


def _scalars(line: str) -> list[str]:
    """The whole scalars of a line of the shape: its value, its list item, or its flow list's items."""
    value = line.partition(": ")[2] if ": " in line else line.lstrip(" ")[2:] if line.lstrip(" ")[:2] == "- " else ""
    return value[1:-1].split(", ") if value[:1] == "[" else [value]


def rewrite(text: str, after: dict[str, Any], changed: list[str]) -> str | None:
    """`text` with each key of `changed` set to its value in `after` (new keys last, in `after`'s
    order); None when the file or a value is not one this module writes."""
    if not plain_shape(text):
        return None
    blocks = key_blocks(text)
    if blocks is None or blocks[0] != (None, ""):
        return None
    todo = set(changed)
    out: list[str] = []
    for key, block in blocks[1:]:
        if key in todo:
            value = render(after[key]) if key in after else None
            if value is None or block.count("\n") != 1 or block[len(key) + 2:len(key) + 3] in ("'", '"'):
                return None  # a removed key, a value to quote, a key over several lines, a quoted one
                # (ruamel writes a quoted value's successor quoted too)
            block = f"{key}: {value}\n"
        out.append(block)
    present = {key for key, _block in blocks[1:]}
    for key in after:
        if key in todo and key not in present:
            value = render(after[key])
            if value is None or not re.fullmatch(r"[a-z_][a-z0-9_]*", key):
                return None
            out.append(f"{key}: {value}\n")
    return "".join(out)
