"""What every importer produces: the items of another tracker, already in Leafwise's words.

A format module (`taskmaster.py`, `backlog.py`, …) reads its files and answers a `Parsed`: one
`Item` per task, issue or bead, its references still the source's own keys, and the releases the
source names. `writing.py` then matches them with the nodes of earlier imports (`source: {tool, id}`),
gives the new ones Leafwise ids and writes them. Nothing here touches the plan.

A field the format does not map goes to `Item.extra`, which lands in the node's doc as a JSON block
(`render_doc`): an import never drops what it cannot place.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from leafwise.commands.contract import CommandLine
from leafwise.store import PRIORITIES, STATUSES, Status
from leafwise.store import linear

# a status's words → Leafwise status, first match wins ("In Review" → in-progress, "Won't Do" → cancelled)
STATUS_WORDS = (
    ("cancel", Status.CANCELLED), ("won't", Status.CANCELLED), ("wont", Status.CANCELLED),
    ("duplicate", Status.CANCELLED), ("block", Status.BLOCKED), ("done", Status.DONE), ("complete", Status.DONE),
    ("closed", Status.DONE), ("resolved", Status.DONE), ("progress", Status.IN_PROGRESS),
    ("review", Status.IN_PROGRESS), ("doing", Status.IN_PROGRESS), ("started", Status.IN_PROGRESS),
    ("to do", Status.DRAFT), ("todo", Status.DRAFT), ("backlog", Status.DRAFT), ("draft", Status.DRAFT),
    ("open", Status.DRAFT), ("new", Status.DRAFT), ("triage", Status.DRAFT),
)
EXTRA_HEADING = "Imported fields"  # the doc section holding what no node field took
_SLUG = linear.compile(r"[^A-Za-z0-9._]+")  # a run of anything else (a dash too) is one dash


class InputError(Exception):
    """Input an import cannot take: the file, the item in it, what is wrong and how to fix it."""

    def __init__(self, file: str, item: str | None, message: str, fix: str,
                 command: Callable[[CommandLine], str] | None = None):
        super().__init__(f"{file}{f' ({item})' if item else ''}: {message}")
        self.file = file
        self.item = item
        self.message = message
        self.fix = fix
        self.command = command  # the Fix's command line, when it is not the import's own dry run
        self.skippable = False  # one item's problem: --partial would import the rest
        self.too_much = False  # over an import's size or item cap: the Fix imports a part of the file


@dataclass
class Item:
    """One node-to-be, in Leafwise's terms; `parent` and `depends_on` are source keys."""

    key: str  # the source's id, as text: unique within one import
    title: str
    where: str  # how a message names it: "tasks.json, tag master, task 3"
    status: str = "draft"
    parent: str | None = None
    release: str | None = None
    depends_on: list[str] = field(default_factory=list)
    priority: str | None = None
    assignee: str | None = None
    tags: list[str] = field(default_factory=list)
    description: str | None = None
    summary: str | None = None
    blocked_reason: str | None = None
    created: str | None = None
    sections: list[tuple[str, str]] = field(default_factory=list)  # (heading, text) of the doc; "" first: body
    extra: dict[str, Any] = field(default_factory=dict)
    source: dict[str, Any] | None = None  # a Leafwise export's own `source`, kept as it was
    keep: dict[str, Any] = field(default_factory=dict)  # node fields written as they are (a Leafwise export's)


@dataclass(frozen=True)
class ReleaseSpec:
    id: str
    title: str
    target: str | None = None


@dataclass(frozen=True)
class Skip:
    key: str | None
    where: str
    why: str


@dataclass
class Parsed:
    tool: str
    file: str
    items: list[Item] = field(default_factory=list)
    releases: list[ReleaseSpec] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # how the source's words were mapped
    fingerprints: bool = True  # `source.hash`: an item its source did not change is left as the plan has it


@dataclass
class Options:
    """What the person said on the command line, and the one rule for malformed items."""

    path: Path
    shown: str  # the path as the person gave it, for messages
    release: str | None = None
    partial: bool = False
    table: dict[str, dict[str, str]] = field(default_factory=dict)  # `--map`: {"status": {"Review": "in-progress"}}

    def bad(self, parsed: Parsed, key: str | None, where: str, message: str, fix: str, file: str | None = None) -> None:
        """A malformed item: the whole import's error, or with --partial a skip that says why."""
        if not self.partial:
            error = InputError(file or self.shown, where, message, fix + " (or import the rest with --partial)")
            error.skippable = True
            raise error
        parsed.skipped.append(Skip(key, where, f"{message}; {fix}"))

    def guarded(self, parsed: Parsed, key: str | None, where: str, step: Callable[[], Any]) -> None:
        """Run one item's mapping (`step`); a value of the wrong kind in it (`labels: 5`, `metadata: "x"`,
        `priority: []`: the code that reads a list, a mapping or a word gets a number) is that item's
        problem, like any other malformed item (`bad`), and nothing of the item is kept."""
        items, releases = len(parsed.items), len(parsed.releases)
        try:
            step()
        except (TypeError, AttributeError) as exc:
            del parsed.items[items:], parsed.releases[releases:]
            self.bad(parsed, key, where, f"a field holds a value of the wrong kind ({wrong_kind(exc)})",
                     "fix that item's field", parsed.file)

    def mapped(self, kind: str, value: str) -> str | None:
        """The person's own mapping of a source value (`--map status.Review=in-progress`), if any."""
        table = self.table.get(kind, {})
        return table.get(value, table.get(value.casefold()))


def parse_map(entries: tuple[str, ...] | list[str]) -> dict[str, dict[str, str]]:
    """`--map` values (`title=Summary,status.Review=in-progress`) as {kind: {source value: target}}.

    A key without a dot is a CSV column (`title=Summary`: kind "field"); `status.X`, `priority.X`
    and `label.X` map a source's status, priority or label X."""
    table: dict[str, dict[str, str]] = {}
    for entry in entries:
        for pair in str(entry).split(","):
            if not pair.strip():
                continue
            key, eq, value = pair.partition("=")
            if not eq or not key.strip():
                raise ValueError(f"{pair.strip()!r} is not KEY=VALUE")
            kind, dot, name = key.strip().partition(".")
            if dot and kind in ("status", "priority", "label"):
                table.setdefault(kind, {})[name.strip()] = value.strip()
            else:
                table.setdefault("field", {})[key.strip()] = value.strip()
    for kind, allowed in (("status", STATUSES), ("priority", PRIORITIES)):
        for name, value in table.get(kind, {}).items():
            if value not in allowed and value != "skip":
                raise ValueError(f"{kind}.{name}={value}: {value!r} is not one of {', '.join(allowed)} or skip")
    return table


def mapped_status(parsed: Parsed, options: Options, item: Item, word: str, statuses: dict[str, str],
                  tool: str) -> bool:
    """Set `item.status` from a source's status word (the person's --map first, then the tool's table):
    False when the item is skipped (mapped to skip) or the word is unknown (named, with the map to add)."""
    status = options.mapped("status", word) or statuses.get(word)
    if status == "skip":
        parsed.skipped.append(Skip(item.key, item.where, f"status {word} is mapped to skip"))
        return False
    if status is None:
        options.bad(parsed, item.key, item.where, f"status {word!r} is not a {tool} status",
                    f"map it: --map status.{word}=draft", parsed.file)
        return False
    item.status = status
    return True


def guess_status(word: str) -> str | None:
    """The Leafwise status a tracker's status name means, by its words; None when no rule knows it."""
    folded = word.casefold().strip()
    if folded in STATUSES:
        return folded
    return next((target for part, target in STATUS_WORDS if part in folded), None)


def release_id(name: str) -> str:
    """A release id made from a source's name (a tag, a milestone): letters, digits, . _ -."""
    slug = _SLUG.sub("-", str(name).strip()).strip("-._")[:64]
    return slug or "imported"


def text(value: Any) -> str | None:
    """A source's text value, or None for empty."""
    if value is None:
        return None
    out = value if isinstance(value, str) else str(value)
    return out if out.strip() else None


def day(value: Any) -> str | None:
    """YYYY-MM-DD from a date or timestamp text (a release's target), None if it is not one."""
    head = str(value or "")[:10]
    if len(head) == 10 and head[4] == "-" and head[7] == "-" and (head[:4] + head[5:7] + head[8:]).isdigit():
        return head
    return None


def render_doc(item: Item, tool: str) -> str | None:
    """The node's doc: the source's body and long texts as sections, then every unmapped field."""
    parts: list[str] = []
    for heading, body in item.sections:
        if body and body.strip():
            parts.append(f"## {heading}\n\n{body.strip()}" if heading else body.strip())
    if item.extra:
        block = json.dumps(item.extra, indent=2, ensure_ascii=False, sort_keys=True, default=str)
        parts.append(f"## {EXTRA_HEADING}\n\nFields from {tool} that no Leafwise field holds:\n\n```json\n{block}\n```")
    return "\n\n".join(parts) + "\n" if parts else None


def wrong_kind(exc: BaseException) -> str:
    """Python's words for a value of the wrong kind, plain and short (`'int' object is not iterable`)."""
    words = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return "".join(c if c.isprintable() else "?" for c in words)[:120]
