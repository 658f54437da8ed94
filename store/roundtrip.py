"""Round-trip YAML: rewriting a file a person also edits, keeping their comments, key order
and quoting (ruamel.yaml), and splicing back every top-level key an edit left alone, so a
one-field edit is a one-field diff.
"""

from __future__ import annotations

import io
import re
from datetime import datetime
from typing import Any

from leafwise.store.model import Status
from leafwise.store.safe_yaml import parse_yaml, plan_loader
from leafwise.store.schema import FIELD_ORDER
from leafwise.store.timestamps import to_text


def round_trip_yaml():
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
    y.representer.add_representer(str, _represent_text)
    y.constructor.add_constructor("tag:yaml.org,2002:str", _construct_text)
    return y


def _construct_text(constructor, node):
    """A plain scalar the loader reads as no text (`nested: yes`) is kept plain when written back, so
    an edit never turns a planted or hand-written `yes` (True to the loader) into the text 'yes'."""
    from ruamel.yaml.constructor import RoundTripConstructor
    from ruamel.yaml.scalarstring import PlainScalarString

    value = RoundTripConstructor.construct_yaml_str(constructor, node)
    if type(value) is str and node.style is None and reads_as_other(value):
        return PlainScalarString(value)
    return value


def _represent_text(representer, value: str):
    """Text as ruamel writes it, quoted where the loader would read the plain form as no text.

    ruamel resolves a plain scalar by YAML 1.2 and the loader (PyYAML) by YAML 1.1: `yes`, `no`,
    `on`, `off` (any case) and sexagesimal numbers like `1:20` are text to the one and a bool or a
    number to the other, so `ask --option yes --option no` was read back as options True and False.
    NEL (U+0085) is a line break to YAML 1.1 only: inside quotes it was read back as a space.
    """
    node = representer.represent_scalar("tag:yaml.org,2002:str", value)
    if "\x85" in value:
        node.style = '"'  # escaped as \N
    elif node.style is None and reads_as_other(value):
        node.style = "'"
    return node


def reads_as_other(value: str) -> bool:
    """Whether the loader reads `value`, written plain, as something other than this text."""
    import yaml

    loader = plan_loader()  # the plan loader's own resolvers (timestamps stay text)
    return yaml.resolver.BaseResolver.resolve(loader, yaml.ScalarNode, value, (True, False)) \
        != "tag:yaml.org,2002:str"


def guess_indent(text: str) -> tuple[int, int]:
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


def to_yaml_value(value: Any) -> Any:
    """A `Status` as its plain string, like the format (times: the representer in `_yaml`)."""
    if isinstance(value, Status):
        return value.value  # a str subclass: ruamel would tag it !!python/object
    if isinstance(value, dict):
        for key in list(value):
            value[key] = to_yaml_value(value[key])
    elif isinstance(value, list):
        for i, item in enumerate(value):
            value[i] = to_yaml_value(item)
    return value


def dump_yaml(data: Any, *, indent: tuple[int, int] = (2, 0)) -> bytes:
    y = round_trip_yaml()
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
        doc[key] = to_yaml_value(value)
    return dump_yaml(doc)


# A top-level key at column 0: `key:`, `"key":` or `'key':` followed by a space or the line end.
_TOP_KEY = re.compile(r"""^(?:"([^"\n]*)"|'([^'\n]*)'|([^\s#'"\-?:{\[&*!|>%@`][^:#\n]*?))[ \t]*:(?:[ \t]|$)""")


def splice(old: str, new: str) -> str:
    """`new` with every top-level key the edit left alone copied from `old` byte for byte.

    ruamel keeps comments and most quoting, but re-emits `~` as `null`,
    re-indents odd nesting and drops comments on a replaced list; splicing
    the untouched keys' original lines back makes a one-field edit a
    one-field diff. If the result does not mean exactly `new`, `new` is kept.
    """
    new = keep_line_ends(old, new)
    old_blocks, new_blocks = key_blocks(old), key_blocks(new)
    if old_blocks is None or new_blocks is None:
        return new
    before, after = parse_yaml(old.encode()), parse_yaml(new.encode())
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
        same = parse_yaml(spliced.encode()) == after
    except Exception:  # noqa: BLE001 - any parse failure: keep ruamel's full dump
        same = False
    return spliced if same else new


def keep_line_ends(old: str, new: str) -> str:
    """`new` with the CRLF line ends of `old` when every line of `old` has one: ruamel writes LF, so
    an edit of a CRLF file left it with mixed ends (the lines spliced back CRLF, the changed ones LF,
    a kept comment with a stray CR). Kept LF when CRLF would read as anything else."""
    if "\r\n" not in old or old.count("\r\n") != old.count("\n"):
        return new
    converted = new.replace("\r\n", "\n").replace("\n", "\r\n")
    try:
        same = parse_yaml(converted.encode()) == parse_yaml(new.encode())
    except Exception:  # noqa: BLE001 - any parse failure: keep ruamel's own line ends
        same = False
    return converted if same else new


def key_blocks(text: str) -> list[tuple[str | None, str]] | None:
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
