"""A node file's format, declared once: its statuses and priorities, its fields, and from the
fields the loader's checks, the field lists and the JSON Schema.

`Status`, `OPEN`/`CLOSED` (the only status sets) and `PRIORITIES` are the values two of the fields
take; store/model.py and store/__init__.py re-export them, where most callers import them from.

`FIELDS` is the one declaration (name, kind, required, default, help, whether `edit --set` may
change it). Everything else here is derived from it: `check_node`'s tables (`CHECKS`), the lists
other modules use (`LIST_FIELDS`, `KNOWN_FIELDS` …) and `json_schema()`.

A field is *strict* when the model cannot hold a value of another kind (a title that is a list,
a `depends_on` that is a number): the loader refuses such a file. A lax field is described to
agents, but the loader keeps a planted value (`priority: urgent` ranks as normal) instead of
losing the whole node over it.
"""

from __future__ import annotations

from enum import StrEnum
from types import SimpleNamespace
from typing import Any, Literal

from leafwise.store.ids import ID_TEXT, MAX_ID_LENGTH


class Status(StrEnum):
    """A node's status. A StrEnum: each member is its YAML string, equal to it and hashed like it."""

    DRAFT = "draft"
    IN_PROGRESS = "in-progress"
    BLOCKED = "blocked"
    DONE = "done"
    CANCELLED = "cancelled"


STATUSES = tuple(s.value for s in Status)  # plain strings: CLI choices, messages, JSON keys
# The only status sets: blocked is open (it still has work to do), and a node is closed once
# done or cancelled. Members are StrEnums, so `"done" in CLOSED` holds for plain strings too.
CLOSED = frozenset({Status.DONE, Status.CANCELLED})
OPEN = frozenset(Status) - CLOSED

# A person's tie-breaker after the release. Unset (or a value a hand edit planted) counts as
# normal, so a plan without priorities keeps the order of release, depth, title, id.
PRIORITIES = ("high", "normal", "low")
DEFAULT_PRIORITY = "normal"
PRIORITY_RANK = {name: rank for rank, name in enumerate(PRIORITIES)}


def priority_rank(value: object) -> int:
    """The sort rank of a node's `priority` value: 0 high, 1 normal or unset, 2 low."""
    normal = PRIORITY_RANK[DEFAULT_PRIORITY]
    return PRIORITY_RANK.get(value, normal) if isinstance(value, str) else normal


def marked_priority(value: object) -> str | None:
    """The priority a listing shows beside a node: high or low; normal, unset or unknown shows nothing
    (a planted `priority: [high]` too: the lax field keeps any value, and a list is no key of a dict)."""
    return value if isinstance(value, str) and value in PRIORITY_RANK and value != DEFAULT_PRIORITY else None


def decision_options(decision: Any) -> list[str] | None:
    """A decision's options as a person chooses among them: its `options` list, each item text (a
    number is its text). None when the file holds anything else: `options: abc` is no list of three
    options a, b and c, `options: 5` none at all, and a mapping's keys or a nested list are no
    options a person was asked to choose from."""
    options = decision.get("options") if isinstance(decision, dict) else None
    if not isinstance(options, list):
        return None
    out = []
    for option in options:  # a bool is an old `- yes` read by YAML 1.1: kept as the loader reads it
        if not isinstance(option, (str, int, float)):
            return None
        out.append(option if isinstance(option, str) else str(option))
    return out


Kind = Literal["id", "text", "value", "status", "choice", "texts", "list", "mapping", "timestamp"]
Origin = Literal["person", "leafwise"]  # who sets it: people and agents, or Leafwise's own bookkeeping

CASCADE_MODES = ("auto", "manual")
MAX_TEXT_CHARS = 64 * 1024  # one text value: a title, summary, reason, a list item ...


class Field:
    """One field of a node file. A plain class, not a dataclass: the loader imports this module on
    every `leafwise next`, and generating a dataclass costs milliseconds there."""

    __slots__ = ("name", "kind", "help", "required", "default", "editable", "strict", "choices", "origin")

    def __init__(self, name: str, kind: Kind, help: str, *, required: bool = False,  # noqa: A002
                 default: Any = None, editable: bool = True, strict: bool = True,
                 choices: tuple[str, ...] = (), origin: Origin = "person"):
        self.name = name
        self.kind = kind
        self.help = help
        self.required = required
        self.default = default
        self.editable = editable  # `edit --set` may change it
        self.strict = strict  # the loader refuses a file whose value is of another kind
        self.choices = choices
        self.origin = origin

    def __repr__(self) -> str:
        return f"Field({self.name!r}, {self.kind!r})"


# The order is the canonical key order of a node file written from scratch.
FIELDS: tuple[Field, ...] = (
    Field("id", "id", "the node's id: its project's prefix, a dash and a number; equals the file name",
          required=True, editable=False),
    Field("title", "text", "a short name for the work", required=True),
    Field("parent", "value", "the id of the node above (absent or null: a top-level node)"),
    Field("release", "value", "the release it ships in (absent: inherited from the nearest ancestor)"),
    Field("status", "status", "draft, in-progress, blocked, done or cancelled", required=True,
          default="draft", choices=STATUSES),
    Field("assignee", "value", "who works on it"),
    Field("blocked_reason", "value", "why it is blocked (required while blocked)"),
    Field("summary", "value", "what was done (written by complete)"),
    Field("depends_on", "texts", "ids of the nodes that must close before it can start"),
    Field("tags", "texts", "labels, e.g. tech-debt"),
    Field("trigger", "value", "a deferred improvement: when it applies"),
    Field("cascade", "choice", "auto: it closes when its last child does; manual: a person closes it",
          default="auto", choices=CASCADE_MODES),
    Field("docs", "texts", "linked docs, relative to .leafwise/ (under docs/ or diagrams/)"),
    Field("diagrams", "texts", "linked diagram sources, relative to .leafwise/"),
    Field("evidence", "list", "what shows the work is done (verify runs, notes)"),
    Field("created", "timestamp", "when the node was added (UTC)", editable=False, strict=False),
    Field("updated", "timestamp", "when a command last changed it (UTC)", editable=False, strict=False),
    Field("description", "text", "free text about the work", strict=False),
    Field("priority", "choice", "high, normal or low: the tie-breaker after the release (unset: normal)",
          default=DEFAULT_PRIORITY, choices=PRIORITIES, strict=False),
    Field("follows", "value", "the node a tail was filed after", strict=False),
    Field("done_when", "list", "reconcile's declared checks (file, symbol, route, test, command)", strict=False),
    Field("blocked_from", "status", "the status it had before it was blocked", choices=STATUSES, strict=False,
          origin="leafwise"),
    Field("blocked_since", "timestamp", "when it was blocked (UTC)", strict=False, origin="leafwise"),
    Field("decision", "mapping", "a question for a person: question, options, answer", strict=False,
          origin="leafwise"),
    Field("decisions", "list", "the earlier decisions, oldest first (each a question, options and its answer): "
          "a new ask keeps the one it follows here", strict=False, origin="leafwise"),
    Field("comments", "list", "comments and unblock notes", strict=False, origin="leafwise"),
    Field("reconcile_note", "mapping", "what reconcile found when it closed the node", strict=False,
          origin="leafwise"),
    Field("reconcile_rejected", "mapping", "evidence a person said does not show it shipped", strict=False,
          origin="leafwise"),
    Field("renumbered_from", "value", "the id it had before renumber", strict=False, origin="leafwise"),
    Field("source", "mapping", "where an imported node came from: {tool, id} (import matches it again by this)",
          strict=False, origin="leafwise"),
)
BY_NAME = {f.name: f for f in FIELDS}

# The lists other modules use, all from FIELDS.
FIELD_ORDER = tuple(f.name for f in FIELDS)
REQUIRED_FIELDS = tuple(f.name for f in FIELDS if f.required)
LIST_FIELDS = tuple(f.name for f in FIELDS if f.kind == "texts")  # `edit --add/--remove`, `a,b` values
TEXT_FIELDS = tuple(f.name for f in FIELDS if f.kind in ("text", "value") and f.strict)
KNOWN_FIELDS = tuple(f.name for f in FIELDS if f.origin == "person")  # the names `edit` knows on any node
READ_ONLY_FIELDS = frozenset(f.name for f in FIELDS if f.origin == "person" and not f.editable)
EDITABLE_FIELDS = tuple(f.name for f in FIELDS if f.origin == "person" and f.editable)


def _strict(kind: str) -> tuple[str, ...]:
    return tuple(f.name for f in FIELDS if f.strict and f.kind == kind)


# `FIELDS` as the loader's tables, one tuple per kind, so `check_node` walks them without a dispatch.
CHECKS = SimpleNamespace(
    required=REQUIRED_FIELDS,
    text=_strict("text"),
    value=_strict("value"),
    texts=_strict("texts"),
    lists=_strict("list"),
    choices=tuple((f.name, f.choices) for f in FIELDS if f.strict and f.kind == "choice"),
    as_text=("parent", "release"),  # numbers kept as text: `parent: 12` names a node, it is no count
)


def problem_words(name: str) -> tuple[str, str]:
    """What the loader says of a strict field holding a value of another kind: (message, fix)."""
    field = BY_NAME[name]
    if field.kind == "text":
        return f"{name} must be text", f"quote the {name}"
    if field.kind == "value":
        return f"{name} must be a single value", f"write {name}: text"
    if field.kind == "texts":
        return f"{name} must be a list of strings", f"write {name}: [a, b]"
    if field.kind == "list":
        return f"{name} must be a list", f"write {name}: []"
    if field.kind == "choice":
        return f"{name} must be {' or '.join(field.choices)}", f"set {name}: {field.default or field.choices[0]}"
    raise ValueError(f"{name} ({field.kind}) has no kind check of its own")  # id and status: check_node's words


def _json_type(field: Field) -> dict[str, Any]:
    text = {"type": "string", "maxLength": MAX_TEXT_CHARS}
    if field.kind == "id":
        return {"type": "string", "pattern": f"^{ID_TEXT}$", "maxLength": MAX_ID_LENGTH}
    if field.kind == "text":
        return {**text, "minLength": 1} if field.required else {"type": ["string", "null"],
                                                                "maxLength": MAX_TEXT_CHARS}
    if field.kind == "value":  # the loader reads a number as its text
        return {"type": ["string", "number", "null"], "maxLength": MAX_TEXT_CHARS}
    if field.kind in ("status", "choice"):
        return {"enum": list(field.choices)} if field.required else {"enum": [*field.choices, None]}
    if field.kind == "texts":
        return {"type": ["array", "null"], "items": text}
    if field.kind == "list":
        return {"type": ["array", "null"]}
    if field.kind == "mapping":
        return {"type": ["object", "null"]}
    return {"type": ["string", "null"], "format": "date-time"}  # timestamp


def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a node file. Unknown keys are allowed: the loader keeps them."""
    properties = {}
    for field in FIELDS:
        prop = {**_json_type(field), "description": field.help}
        if field.default is not None:
            prop["default"] = field.default
        if not field.editable:
            prop["readOnly"] = True
        properties[field.name] = prop
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Leafwise node file (.leafwise/nodes/<ID>.yaml)",
        "type": "object",
        "required": list(REQUIRED_FIELDS),
        "properties": properties,
        "additionalProperties": True,
    }
