"""The three-way merge of one node file, key by key (git's merge driver: `leafwise merge-driver`).

Two branches that touch one node almost always change different fields, and both rewrite
`updated`; a line merge conflicts on that alone. Merged on the mapping instead:

- a field only one side changed takes that side's value (added and removed keys included);
- `updated` changed on both sides takes the newer time;
- list fields (`texts`: tags, depends_on, docs …; `list`: comments, decisions, evidence, done_when)
  changed on both sides merge as three-way sets in order: ours' items, then the items theirs added;
  an item either side removed stays removed, and none is added twice;
- any other field both sides changed differently is a conflict (`FieldConflict`).

The merged text is ours' file with the merged values written in: ours' key order and comments,
every key left alone byte for byte (`roundtrip.splice`), a key only theirs has placed after the
key it follows in theirs. A conflict gives two renderings (the conflicting fields as ours has them
and as theirs has them) and the text is git's conflict markers around those fields' lines only.

Inputs are untrusted (docs/security.md): each side passes the loader's own screen and parse
(`safe_yaml.parse_yaml`: the size cap, no anchors, aliases, merge keys or tags it refuses) and its
node check before ruamel sees it; the result must read back, through the same loader, as exactly the
merged values. Anything else raises `MergeRefused`, and the caller leaves git's plain conflict
(`plain_conflict`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from leafwise.store.node_files import check_bytes, check_node
from leafwise.store.reader import NODE, SchemaError, check_cap
from leafwise.store.roundtrip import dump_yaml, guess_indent, round_trip_yaml, splice
from leafwise.store.safe_yaml import parse_yaml
from leafwise.store.schema import BY_NAME
from leafwise.store.timestamps import parse as parse_time

ABSENT: Any = type("Absent", (), {"__repr__": lambda _self: "<absent>"})()  # a key the side does not have
# Fields merged as three-way sets of items when both sides changed them (from store/schema.py).
LIST_FIELDS = frozenset(f.name for f in BY_NAME.values() if f.kind in ("texts", "list"))
NEWER_FIELDS = frozenset({"updated"})  # bookkeeping: the later time of the two
MARKER_SIZE = 7  # git's default (`<<<<<<<`)


class MergeRefused(Exception):
    """A side the key-wise merge does not take (too large, not the loader's YAML, not a node, no
    common base), or a result that would not read back: git's plain conflict is left instead."""


@dataclass(frozen=True, slots=True)
class FieldConflict:
    """One field both sides changed to different values."""

    field: str
    base: Any
    ours: Any
    theirs: Any


@dataclass(frozen=True, slots=True)
class NodeMerge:
    """The merged file (with conflict markers when `conflicts`), and how each changed field merged."""

    text: bytes
    conflicts: tuple[FieldConflict, ...] = ()
    # each changed field -> "ours" | "theirs" (the one side that changed it), "both" (the same change),
    # "newer" (updated), "union" (a list) or "conflict"
    taken: dict[str, str] = field(default_factory=dict)

    @property
    def clean(self) -> bool:
        return not self.conflicts


@dataclass(frozen=True, slots=True)
class _Pick:
    """How one key merges: `side` "ours"/"theirs" takes that side's value; "union" takes `items`
    ((side, index) of each list item kept, in order); "conflict" has no merged value."""

    side: str
    items: tuple[tuple[str, int], ...] = ()
    how: str = ""  # what `taken` says: "ours", "theirs", "both", "newer", "union"; "": unchanged


def merge_node(base: bytes, ours: bytes, theirs: bytes, node_id: str | None = None) -> NodeMerge:
    """The key-wise three-way merge of one node file; `node_id` is its file name's stem, when known.

    Raises MergeRefused when a side is not a node the loader reads, or the result would not be one.
    """
    if ours == theirs:  # what git itself would write: nothing to merge
        return NodeMerge(ours)
    o, t = _node(ours, node_id, "ours"), _node(theirs, node_id, "theirs")
    if not base.strip():  # both sides added the file: two nodes that took one id, or an unknowable base
        raise MergeRefused("the file has no common base (both sides added it)")
    b = _node(base, node_id, "base")
    if base == ours:
        return NodeMerge(theirs, taken={k: "theirs" for k in _changed(b, t)})
    if base == theirs:
        return NodeMerge(ours, taken={k: "ours" for k in _changed(b, o)})
    picks = {key: _pick(key, b.get(key, ABSENT), o.get(key, ABSENT), t.get(key, ABSENT))
             for key in _key_order(o, t)}
    order = [key for key in _key_order(o, t) if picks[key].side != "absent"]
    taken = {k: p.how for k, p in picks.items() if p.how}
    conflicts = tuple(FieldConflict(k, b.get(k, ABSENT), o.get(k, ABSENT), t.get(k, ABSENT))
                      for k, p in picks.items() if p.side == "conflict")
    texts = (ours.decode(), theirs.decode())
    as_ours = _render(texts, picks, order, "ours", node_id or o["id"], (o, t))
    if not conflicts:
        return NodeMerge(as_ours, (), taken)
    as_theirs = _render(texts, picks, order, "theirs", node_id or o["id"], (o, t))
    return NodeMerge(_with_markers(as_ours.decode(), as_theirs.decode(), [c.field for c in conflicts]).encode(),
                     conflicts, taken)


def _node(raw: bytes, node_id: str | None, side: str) -> dict[str, Any]:
    """One side as the loader reads it (screened, parsed, checked), or MergeRefused saying why."""
    try:
        check_cap(raw, NODE)
        raw.decode("utf-8")
        data = parse_yaml(raw)
        return check_node(data, node_id or (data.get("id") if isinstance(data, dict) else "") or "")
    except UnicodeDecodeError:
        raise MergeRefused(f"{side} is not UTF-8 text") from None
    except SchemaError as exc:
        raise MergeRefused(f"{side} is not a node file: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - every parse failure (a yaml.YAMLError with its line)
        raise MergeRefused(f"{side} does not read as a plan file: {_first_line(exc)}") from None


def _first_line(exc: BaseException) -> str:
    problem = getattr(exc, "problem", None)
    return str(problem or exc).splitlines()[0][:200] if str(problem or exc) else type(exc).__name__


def _changed(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    return [k for k in dict.fromkeys([*before, *after]) if not _same(before.get(k, ABSENT), after.get(k, ABSENT))]


def _key_order(o: dict[str, Any], t: dict[str, Any]) -> list[str]:
    """Ours' keys in ours' order; a key only theirs has goes after the key it follows in theirs."""
    order = list(o)
    after: str | None = None
    for key in t:
        if key not in order:
            order.insert(order.index(after) + 1 if after is not None else 0, key)
        after = key
    return order


def _same(a: Any, b: Any) -> bool:
    """Equal values, where `.nan` equals `.nan` (as the writer compares them)."""
    return a == b or repr(a) == repr(b)


def _pick(key: str, b: Any, o: Any, t: Any) -> _Pick:
    """How `key` merges, from its value in the base, ours and theirs (ABSENT: not there)."""
    if _same(o, t) or _same(t, b):
        how = "" if _same(o, b) else "both" if _same(o, t) else "ours"
        return _Pick("absent" if o is ABSENT else "ours", how=how)
    if _same(o, b):
        return _Pick("absent" if t is ABSENT else "theirs", how="theirs")
    if key in NEWER_FIELDS and o is not ABSENT and t is not ABSENT:
        first, second = parse_time(o), parse_time(t)
        if first is not None and second is not None:
            return _Pick("ours" if first >= second else "theirs", how="newer")
    if key in LIST_FIELDS and all(v is ABSENT or v is None or isinstance(v, list) for v in (b, o, t)):
        return _union(b, o, t)
    return _Pick("conflict", how="conflict")


def _union(b: Any, o: Any, t: Any) -> _Pick:
    """A list both sides changed, as a three-way set in order: ours' items, then theirs' new ones;
    an item in the base that either side removed stays out."""
    base, mine, yours = (_items(v) for v in (b, o, t))
    removed = set(base) - set(yours)
    kept: list[tuple[str, int]] = []
    seen: set[str] = set()
    for i, item in enumerate(mine):
        if item not in removed:
            kept.append(("ours", i))
            seen.add(item)
    for j, item in enumerate(yours):
        if item not in base and item not in seen:
            kept.append(("theirs", j))
            seen.add(item)
    if not kept and o is ABSENT:
        return _Pick("absent", how="union")
    return _Pick("union", tuple(kept), how="union")


def _items(value: Any) -> list[str]:
    """A list's items as comparable text (a comment is a mapping: equal when all its keys are)."""
    if not isinstance(value, list):
        return []
    return [json.dumps(item, sort_keys=True, default=str) for item in value]


def _render(texts: tuple[str, str], picks: dict[str, _Pick], order: list[str], conflicted_as: str,
            node_id: str, plain: tuple[dict[str, Any], dict[str, Any]]) -> bytes:
    """Ours' file with the merged values written in (a conflicting field as `conflicted_as` has it),
    checked to read back as exactly those values."""
    yaml = round_trip_yaml()
    try:
        docs = (yaml.load(texts[0]), yaml.load(texts[1]))
    except Exception as exc:  # noqa: BLE001 - the loader took it; a parser that disagrees refuses the merge
        raise MergeRefused(f"the round-trip parser does not read a side: {_first_line(exc)}") from None
    expected = _merged_values(picks, order, conflicted_as, plain)
    _write_in(docs, picks, order, conflicted_as)
    new = dump_yaml(docs[0], indent=guess_indent(texts[0])).decode()
    text = splice(texts[0], new).encode()
    try:
        check_bytes(text, node_id)
        back = check_node(parse_yaml(text), node_id)
    except Exception as exc:  # noqa: BLE001 - over the size limit, or not a node the loader takes
        raise MergeRefused(f"the merged file would not load: {_first_line(exc)}") from None
    if not _same(back, check_node(expected, node_id)):
        raise MergeRefused("the merged file does not read back as the merged values")
    return text


def _side_value(pick: _Pick, conflicted_as: str) -> str:
    return conflicted_as if pick.side == "conflict" else pick.side


def _merged_values(picks: dict[str, _Pick], order: list[str], conflicted_as: str,
                   plain: tuple[dict[str, Any], dict[str, Any]]) -> dict[str, Any]:
    sides = {"ours": plain[0], "theirs": plain[1]}
    out: dict[str, Any] = {}
    for key in order:
        pick = picks[key]
        if pick.side == "union":
            out[key] = [sides[side][key][i] for side, i in pick.items]
            continue
        source = sides[_side_value(pick, conflicted_as)]
        if key in source:
            out[key] = source[key]
    return out


def _write_in(docs: tuple[Any, Any], picks: dict[str, _Pick], order: list[str], conflicted_as: str) -> None:
    """Edit ours' round-trip document (docs[0]) into the merged one, theirs' nodes moved in as they are."""
    mine, yours = docs
    for key in [k for k in mine if k not in order]:
        del mine[key]
    for position, key in enumerate(order):
        pick = picks[key]
        if pick.side == "union":
            value = _union_seq(mine.get(key), yours.get(key), pick.items)
        else:
            side = mine if _side_value(pick, conflicted_as) == "ours" else yours
            if key not in side:  # the side removed it (a conflict of a removal and a change)
                if key in mine:
                    del mine[key]
                continue
            if side is mine:
                continue
            value = side[key]
        if key in mine:
            mine[key] = value
        else:
            before = [k for k in order[:position] if k in mine]
            mine.insert(list(mine).index(before[-1]) + 1 if before else 0, key, value)


def _union_seq(mine: Any, yours: Any, items: tuple[tuple[str, int], ...]) -> Any:
    """The merged list built in one side's own sequence, so its style (flow or block) is kept."""
    carrier = mine if isinstance(mine, list) else yours
    taken = [(mine if side == "ours" else yours)[i] for side, i in items]
    for i in reversed(range(len(carrier))):
        del carrier[i]
    for item in taken:
        carrier.append(item)
    return carrier


def _key_blocks(text: str) -> tuple[str, list[tuple[str, str]]]:
    """(header, [(key, its lines)]): the text cut at each top-level key, found by the YAML parser
    (a key's block runs to the next key's line, comments after it included)."""
    import yaml

    root = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    lines = text.splitlines(keepends=True)
    starts = [(str(k.value), k.start_mark.line) for k, _v in root.value]
    bounds = [line for _key, line in starts] + [len(lines)]
    blocks = [(key, "".join(lines[start:bounds[i + 1]])) for i, (key, start) in enumerate(starts)]
    return "".join(lines[:bounds[0]]), blocks


def _with_markers(as_ours: str, as_theirs: str, fields: list[str]) -> str:
    """One text with git's conflict markers around the blocks of the keys the two renderings differ
    in (the conflicting fields); every other block is the same in both and written once."""
    head, mine = _key_blocks(as_ours)
    _head, yours = _key_blocks(as_theirs)
    ours_at, theirs_at = dict(mine), dict(yours)
    order = list(dict.fromkeys([k for k, _ in mine] + [k for k, _ in yours]))
    out = [head]
    for key in order:
        a, b = ours_at.get(key, ""), theirs_at.get(key, "")
        if a == b:
            out.append(a)
            continue
        label = key if key in fields else ", ".join(fields)
        out.append(_hunk(a, b, label))
    return "".join(out)


def _hunk(ours: str, theirs: str, label: str) -> str:
    """Markers around one key's two blocks; the comment and blank lines both end with stay after them."""
    a, b = ours.splitlines(keepends=True), theirs.splitlines(keepends=True)
    tail: list[str] = []
    while len(a) > 1 and len(b) > 1 and a[-1] == b[-1] and (not a[-1].strip() or a[-1].startswith("#")):
        tail.insert(0, a.pop())
        b.pop()
    mine, yours = (_ended("".join(part)) for part in (a, b))
    return (f"{'<' * MARKER_SIZE} ours: {label}\n{mine}{'=' * MARKER_SIZE}\n"
            f"{yours}{'>' * MARKER_SIZE} theirs: {label}\n{''.join(tail)}")


def _ended(text: str) -> str:
    return text if not text or text.endswith("\n") else text + "\n"


def plain_conflict(ours: bytes, theirs: bytes) -> bytes:
    """git's plain conflict of two texts the key-wise merge refused: the lines both sides start and
    end with written once, markers around the rest (what a person resolves by hand)."""
    a, b = ours.splitlines(keepends=True), theirs.splitlines(keepends=True)
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    middle_a, middle_b = a[head:len(a) - tail], b[head:len(b) - tail]
    fix = lambda part: b"".join(part) + (b"\n" if part and not part[-1].endswith(b"\n") else b"")  # noqa: E731
    return (b"".join(a[:head]) + b"<" * MARKER_SIZE + b" ours\n" + fix(middle_a) + b"=" * MARKER_SIZE + b"\n"
            + fix(middle_b) + b">" * MARKER_SIZE + b" theirs\n" + b"".join(a[len(a) - tail:]))
