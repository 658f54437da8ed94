"""Journal events as typed values, and how one reads to a person.

A journal line is a JSON object written by `commands/domain/nodes.py` `record` (through `store/journal.py`), but
anyone can edit `journal.jsonl`: `Event.read` takes whatever a line holds and never raises. A
field whose value has the wrong type, is too big or is nested too deep is not taken: its name
goes to `Event.unknown`. `Change` and `Moved` are the two shapes a journal line and a command's
envelope share (a field's old and new value; an ancestor a cascade moved), read the same way.

`phrase(event)` says what happened as `Piece`s: our own words, plus plan text (a title, a
reason, an id) marked with the length it may show at, which the caller makes inert and cuts
(the canvas colours the pieces by role). `words(event)` is the same sentence as one string.
Plain Python: the CLI's `log` path may import it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any, NamedTuple

from leafwise.commands.core.views import STATUS_WORDS, status_word
from leafwise.commands.text import clean, one_line
from leafwise.store.journal import MAX_EVENT_BYTES
from leafwise.store.safe_yaml import MAX_DEPTH, MAX_VALUES

# A change may hold any value a node file may hold (the loader's limits), within one journal line.
MAX_TEXT = MAX_EVENT_BYTES  # characters in one field (every text in it counted); a bigger value is unknown
MAX_ITEMS = MAX_VALUES  # values in one field, at every level of its lists and mappings
MAX_KEPT = 50  # other fields kept in `extra`, and field names kept in `unknown`
NAME_LIMIT = 60  # an unknown field's name as kept

Value = Any  # a JSON value within the limits above: None, bool, int, float, str, list, dict


class _Unfit(Exception):
    """A value over the limits (never leaves this module)."""


def plain_value(value: object) -> Value:
    """A copy of `value` if it is a JSON value within the limits, else raises `_Unfit`."""
    budget = {"items": MAX_ITEMS, "chars": MAX_TEXT}

    def copy(item: object, depth: int) -> Value:
        budget["items"] -= 1
        if budget["items"] < 0 or depth > MAX_DEPTH:
            raise _Unfit
        if item is None or isinstance(item, (bool, int, float)):
            return item
        if isinstance(item, str):
            budget["chars"] -= len(item)
            if budget["chars"] < 0:
                raise _Unfit
            return item
        if isinstance(item, list):
            return [copy(v, depth + 1) for v in item]
        if isinstance(item, dict) and all(isinstance(k, str) for k in item):
            return {k: copy(v, depth + 1) for k, v in item.items()}
        raise _Unfit

    return copy(value, 0)


def _text(value: object) -> str | None:
    """`value` if it is a text within the limits (else None)."""
    return value if isinstance(value, str) and len(value) <= MAX_TEXT else None


@dataclass(frozen=True, slots=True)
class Change:
    """One field of one node, before and after (`None` for a node that did not exist yet)."""

    node: str | None
    field: str
    old: Value
    new: Value

    @classmethod
    def read(cls, item: object) -> Change | None:
        """One entry of an envelope's `mutation.changes` ({id, field, from, to}); None if it is not one."""
        if not isinstance(item, Mapping):
            return None
        node, name = _text(item.get("id")), _text(item.get("field"))
        if not node or not name:
            return None
        try:
            return cls(node, name, plain_value(item.get("from")), plain_value(item.get("to")))
        except _Unfit:
            return None


@dataclass(frozen=True, slots=True)
class Moved:
    """An ancestor a cascade moved: its id, its status before and after, its title when said."""

    id: str
    old: str | None
    new: str | None
    title: str | None = None

    @classmethod
    def read(cls, item: object) -> Moved | None:
        """One entry of a `cascade` list ({id, from, to, title}); None if it names no node."""
        if not isinstance(item, Mapping):
            return None
        node = _text(item.get("id"))
        if not node:
            return None
        return cls(node, _text(item.get("from")), _text(item.get("to")), _text(item.get("title")))


def changes(items: object) -> tuple[Change, ...]:
    """The readable entries of an envelope's change list (anything else is skipped)."""
    return tuple(c for c in map(Change.read, items if isinstance(items, list) else ()) if c is not None)


def moves(items: object) -> tuple[Moved, ...]:
    """The readable entries of a cascade list (anything else is skipped)."""
    return tuple(m for m in map(Moved.read, items if isinstance(items, list) else ()) if m is not None)


# Text fields an event may carry, each read as a text or not at all.
TEXT_FIELDS = ("time", "actor", "command", "node", "title", "summary", "reason", "question", "choice", "note",
               "text", "path", "parent", "release", "cycle", "verdict", "decision", "renumbered_from", "repair", "why")
DETAIL_FIELDS = ("summary", "reason", "question", "choice")  # what an event says beside its node, in this order


@dataclass(frozen=True, slots=True)
class Event:
    """One journal line, typed. Every text is as written in the file: plan text, not yet made inert."""

    time: str | None = None
    actor: str | None = None
    command: str | None = None
    node: str | None = None
    title: str | None = None
    summary: str | None = None
    reason: str | None = None
    question: str | None = None
    choice: str | None = None
    note: str | None = None
    text: str | None = None
    path: str | None = None
    parent: str | None = None
    release: str | None = None
    cycle: str | None = None
    verdict: str | None = None
    decision: str | None = None  # a reconcile decision: "close" or "reject"
    renumbered_from: str | None = None
    repair: str | None = None
    why: str | None = None
    changes: tuple[Change, ...] = ()  # in the order written
    cascade: tuple[Moved, ...] = ()
    extra: Mapping[str, Value] = field(default_factory=lambda: MappingProxyType({}))  # other fields: plain texts, numbers, booleans
    unknown: tuple[str, ...] = ()  # fields whose value was not taken (wrong type, too big, too deep)

    @classmethod
    def read(cls, record: object) -> Event | None:
        """The event a journal line holds; None when it is not a JSON object. Never raises."""
        if not isinstance(record, Mapping):
            return None
        taken: dict[str, Any] = {}
        extra: dict[str, Value] = {}
        unknown: list[str] = []
        node = _text(record.get("node"))
        for key, value in record.items():
            name = key if isinstance(key, str) else repr(key)
            if name in TEXT_FIELDS:
                if value is None or _text(value) is not None:
                    taken[name] = value
                    continue
            elif name == "changes":
                if value is None or isinstance(value, Mapping):
                    taken["changes"] = _journal_changes(node, value or {}, unknown)
                    continue
            elif name == "cascade":
                if isinstance(value, list):
                    taken["cascade"] = moves(value)
                    if len(taken["cascade"]) < len(value):
                        unknown.append("cascade")
                    continue
                if isinstance(value, str) and len(value) <= NAME_LIMIT:  # an added node's cascade setting
                    extra["cascade"] = value
                    continue
            elif name not in _FIELDS and len(extra) < MAX_KEPT and (value is None or isinstance(value, (bool, int, float))
                                                                   or _text(value) is not None):
                extra[name] = value
                continue
            unknown.append(name)
        shown_unknown = tuple(dict.fromkeys(clean(n, NAME_LIMIT) for n in unknown))[:MAX_KEPT]
        return cls(**taken, extra=MappingProxyType(extra), unknown=shown_unknown)

    def change(self, name: str) -> Change | None:
        """The change of field `name` this event records, if any."""
        return next((c for c in self.changes if c.field == name), None)

    @property
    def detail(self) -> str | None:
        """What the event says beside its node: the summary, the reason, the question or the choice."""
        return next((t for t in (self.summary, self.reason, self.question, self.choice) if t), None)

    def mentions(self, node_id: str) -> bool:
        """Whether the event is about `node_id`, or moved it by a cascade."""
        return self.node == node_id or any(m.id == node_id for m in self.cascade)


_FIELDS = frozenset(f.name for f in fields(Event))


def _journal_changes(node: str | None, raw: Mapping[Any, Any], unknown: list[str]) -> tuple[Change, ...]:
    """A journal line's `changes` ({field: [old, new]}) as `Change`s; an unreadable one is unknown."""
    out: list[Change] = []
    for name, pair in raw.items():
        if isinstance(name, str) and len(name) <= MAX_TEXT and isinstance(pair, list) and len(pair) == 2:
            try:
                out.append(Change(node, name, plain_value(pair[0]), plain_value(pair[1])))
                continue
            except _Unfit:
                pass
        unknown.append(f"changes.{name}" if isinstance(name, str) else "changes")
    return tuple(out)


def read_all(records: Iterable[object]) -> list[Event]:
    """The events of journal records, in order (a record that is not an object is skipped)."""
    return [e for e in map(Event.read, records) if e is not None]


# --- how an event reads ------------------------------------------------------------------------

class Piece(NamedTuple):
    """A run of a sentence. `limit` set: plan text, to be made inert and cut to that many characters.

    `role`: "" (plain), "verb", "id" (an id or aside, muted), "status" (`status` says which),
    "cascade" (the ancestors a cascade moved).
    """

    text: str
    role: str = ""
    limit: int | None = None
    status: str | None = None


def _status(status: object) -> Piece:
    known = status is None or str(status) in STATUS_WORDS
    return Piece(status_word(status), "status", None if known else 20, str(status) if status is not None else None)


# How each command reads in a node's history: (verb, the event field quoted after it).
EVENT_WORDS: dict[str, tuple[str, str | None]] = {
    "add": ("added", "title"), "start": ("started", None), "complete": ("completed", "summary"),
    "block": ("blocked", "reason"), "unblock": ("unblocked", "note"), "cancel": ("cancelled", "reason"),
    "cascade": ("cascade", None), "ask": ("asked", "question"), "decide": ("decided", "choice"),
    "comment": ("commented", "text"), "heartbeat": ("heartbeat", None), "unclaim": ("released the claim", "why"),
    "doc": ("wrote", "path"), "renumber": ("renumbered", None), "repair": ("repaired", "repair"),
    "reconcile": ("reconcile", "decision"), "release add": ("added a release", "release"),
    "init": ("created the plan", None), "delivered": ("read the person's words", None),
}
SEPARATOR = {"complete": " —", "unblock": " —", "doc": ""}  # between the verb and its quoted text; else ":"
STATUS_SAID = {"add", "start", "complete", "block", "unblock", "cancel", "ask", "decide"}  # the verb says it
NOT_SAID = {"updated", "blocked_since", "blocked_from", "id"}  # stamps, or said by the verb
FIELD_WORDS = {"title": "renamed", "description": "described", "priority": "priority", "parent": "moved under",
               "release": "release", "depends_on": "dependencies", "assignee": "assigned", "tags": "tags"}
# The field of the node whose new value holds a quoted text an older (or hand-written) line lacks.
QUOTED_IN_CHANGES = {"reason": "blocked_reason", "question": "decision", "summary": "summary"}

Part = list[Piece]  # the runs between two spaces of a sentence


def _edit_words(changes: tuple[Change, ...]) -> list[Part]:
    """'renamed to "…"', 'priority high', 'status draft → blocked', or the fields' names."""
    out: list[Part] = []
    for change in changes:
        key, before, after = change.field, change.old, change.new
        if key in NOT_SAID:
            continue
        if key == "status":
            out.append([Piece("status "), _status(before), Piece(" → "), _status(after)] if before
                       else [Piece("status "), _status(after)])
        elif key == "title":
            out.append([Piece("renamed to “"), Piece(str(after or ""), limit=80), Piece("”")])
        elif key in ("priority", "release", "parent", "assignee") and isinstance(after, (str, type(None))):
            word = FIELD_WORDS[key]
            out.append([Piece(f"{word} "), Piece(after, limit=40)] if after else [Piece(f"{word} cleared")])
        elif key == "depends_on" and isinstance(before, list) and isinstance(after, list):
            added = [str(d) for d in after if d not in before]
            dropped = [str(d) for d in before if d not in after]
            part = [Piece("depends on ")]
            if added:
                part += [Piece("+"), Piece(", ".join(added), limit=60)]
            if dropped:
                part += [Piece(" ")] if added else []
                part += [Piece("−"), Piece(", ".join(dropped), limit=60)]
            out.append(part)
        elif key in FIELD_WORDS:
            out.append([Piece(FIELD_WORDS[key])])
        else:
            out.append([Piece("changed "), Piece(key, limit=30)])
    return out


def _quoted(event: Event, quoted: str | None) -> str | None:
    """The text said after the verb: the event's own field, else (older lines) the node's new value."""
    command = event.command or ""
    text = getattr(event, quoted) if quoted else (event.reason if command.startswith("cycle ") else None)
    if text or not quoted or quoted not in QUOTED_IN_CHANGES:
        return text
    change = event.change(QUOTED_IN_CHANGES[quoted])
    after = change.new if change is not None else None
    if isinstance(after, dict):
        after = after.get("question")
    return str(after) if after else None


def _joined(parts: list[Part], separator: str, role: str = "") -> Part:
    out: Part = []
    for index, part in enumerate(parts):
        if index:
            out.append(Piece(separator, role))
        out += part
    return out


def phrase(event: Event, about: str | None = None) -> tuple[Piece, ...]:
    """One event as a short sentence for the history of node `about` (or of the whole plan: None).

    'completed — Order page shows lines…', 'blocked: Waiting for keys', 'added under SHOP-4',
    'edited: renamed to “…”, priority high'; an event on another node that moved `about` by a
    cascade reads 'SHOP-26 started → this in progress  (cascade)'. Never a bare None, never a
    status change the verb already says. Without the time and the actor: the caller shows them.
    """
    command = event.command or "?"
    verb_text, quoted = EVENT_WORDS.get(command, (command, None))
    if command == "edit":
        verb_text = "edited"
    elif command == "doc" and event.change("docs") is not None:  # its first text: linked as it was written
        verb_text = "linked"
    verb = Piece(verb_text, "verb", None if command in EVENT_WORDS or command == "edit" else 40)
    if event.node and about and event.node != about:  # `about` moved because of an event on another node
        parts: list[Part] = [[Piece(event.node, "id", 40), Piece(" "), verb]]
        mine = next((m for m in event.cascade if m.id == about), None)
        if mine is not None:
            parts.append([Piece("→ this "), _status(mine.new), Piece("  (cascade)", "id")])
        return tuple(_joined(parts, " "))
    parts = [[verb]]
    if command == "add":
        if event.parent:
            parts.append([Piece("under "), Piece(event.parent, limit=40)])
        status = event.change("status")
        if status is not None and status.new and status.new != "draft":
            parts.append([Piece("as "), _status(status.new)])
    elif command == "renumber" and event.renumbered_from:
        parts.append([Piece("from "), Piece(event.renumbered_from, limit=40)])
    elif command.startswith("cycle ") and event.cycle:
        parts.append([Piece(event.cycle, limit=40)])
    elif command == "reconcile" and event.verdict:
        parts.append([Piece(event.verdict, limit=40)])
    if command not in STATUS_SAID and command != "doc":  # a doc's link is its verb: "linked docs/T-9.md"
        edits = _edit_words(event.changes)
        if edits:
            if command == "edit":
                parts[-1].append(Piece(":"))
            parts.append(_joined(edits, ", "))
    text = _quoted(event, quoted)
    if text and command != "add":  # an add's title is the node's own, shown above it
        parts[-1].append(Piece(SEPARATOR.get(command, ":")))
        parts.append([Piece(text, limit=120)])
    if event.cascade:
        moved = [[Piece(m.id, "cascade", 40), Piece(" ", "cascade"),
                  _status(m.new)._replace(role="cascade")] for m in event.cascade]
        parts.append([Piece("⇡ ", "cascade"), *_joined(moved, ", ", "cascade")])
    return tuple(_joined(parts, " "))


def words(event: Event, about: str | None = None) -> str:
    """`phrase(event, about)` as one line of text, its plan text made inert and cut."""
    return "".join(one_line(p.text, p.limit) if p.limit is not None else p.text for p in phrase(event, about))
