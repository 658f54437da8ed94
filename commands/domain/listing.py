"""What `list` selects and how it orders: field filters, words, readiness and the sort orders.

Readiness is never decided here: `ready` is the picker's own scan (`core/picker.scan`, proved equal
to `core/readiness.blocker`), `waiting` asks `readiness.blocker`. Words are matched by substring on
case-folded text (no regular expression: time linear in the text for the bounded words we take),
docs read through `store/reader.py` with the doc cap.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable

from leafwise.commands.core import readiness
from leafwise.commands.core.picker import order_key, scan
from leafwise.store import Node, Plan, priority_rank, reader
from leafwise.store.claims import Claim
from leafwise.store.ids import id_order
from leafwise.store.paths import UnsafePath
from leafwise.store.schema import PRIORITY_RANK

SORTS = ("pick", "priority", "id", "title", "updated")  # unset: release order, then id
MAX_WORDS = 12  # words of one search; more is a sentence, not a query
MAX_WORD = 100  # characters of one word: keeps substring search linear in practice
WAITING = frozenset({readiness.BLOCKED_KIND, readiness.UNMET_KIND, readiness.MISSING_KIND})


@dataclass(frozen=True, slots=True)
class Filters:
    """The field filters of `list`; None: any value."""

    status: str | None = None
    release: str | None = None
    tag: str | None = None
    parent: str | None = None
    assignee: str | None = None
    priority: str | None = None  # "normal" matches an unset priority (the picker ranks them alike)

    def matches(self, node: Node) -> bool:
        return ((self.status is None or node.status == self.status)
                and (self.release is None or node.effective_release == self.release)
                and (self.tag is None or self.tag in node.tags)
                and (self.parent is None or node.parent == self.parent)
                and (self.assignee is None or node.assignee == self.assignee)
                and (self.priority is None
                     or priority_rank(node.data.get("priority")) == PRIORITY_RANK.get(self.priority)))

    def select(self, nodes: Iterable[Node]) -> list[Node]:
        return [n for n in nodes if self.matches(n)]


def ready(plan: Plan, holds: dict[str, Claim], exclude: set[str]) -> list[str]:
    """The ids the picker could hand out now, in the order successive `start --next` calls take them:
    its candidates (`picker.scan`), leaves first (the picker's leaf-first rule), each group in pick order."""
    candidates = scan(plan, holds, None, frozenset(exclude))[0]
    key = order_key(plan)
    return [n.id for n in sorted(candidates, key=lambda n: (bool(n.children), key(n)))]


def waiting(plan: Plan, holds: dict[str, Claim]) -> dict[str, str]:
    """Open nodes held back by a block or a dependency: {id: why} (`readiness.blocker`'s words)."""
    out: dict[str, str] = {}
    for node in plan.nodes.values():
        found = readiness.blocker(plan, node, holds)
        if found is not None and found.kind in WAITING:
            out[node.id] = found.reason
    return out


def search_words(text: str | None) -> list[str]:
    """The words of a search, case-folded, each once, in the order given."""
    if not text:
        return []
    words = dict.fromkeys(w[:MAX_WORD] for w in str(text).casefold().split())
    return list(words)[:MAX_WORDS]


def node_text(node: Node) -> str:
    """A node's own words: title, description, summary, blocked reason, trigger, tags and comments."""
    data = node.data
    parts = [node.title] + [data.get(k) for k in ("description", "summary", "blocked_reason", "trigger")]
    parts += node.tags
    for comment in data.get("comments") or []:
        parts.append(comment.get("text") if isinstance(comment, dict) else comment)
    return "\n".join(str(p) for p in parts if p).casefold()


def search(plan: Plan, nodes: list[Node], words: list[str]) -> dict[str, list[str]]:
    """The nodes whose text holds every word, in any order: {id: the docs that held words its own text
    lacks} ([]: its own text has them all). A node's docs are read only then, each doc once."""
    docs = DocTexts(plan)
    found: dict[str, list[str]] = {}
    for node in nodes:
        own = node_text(node)
        missing = [w for w in words if w not in own]
        used: list[str] = []
        for rel in node.docs if missing else ():
            text = docs.text(rel)
            if any(w in text for w in missing):
                used.append(rel)
                missing = [w for w in missing if w not in text]
            if not missing:
                break
        if not missing:
            found[node.id] = used
    return found


class DocTexts:
    """Docs read once each, case-folded: at most the doc cap, never through a link or a FIFO."""

    def __init__(self, plan: Plan):
        self.plan = plan
        self.seen: dict[str, str] = {}

    def text(self, rel: str) -> str:
        if rel not in self.seen:
            self.seen[rel] = self._read(rel)
        return self.seen[rel]

    def _read(self, rel: str) -> str:
        folder = self.plan.paths.dir
        try:
            raw = reader.read_bytes(self.plan.paths.inside(rel), reader.DOC, under=folder)
        except (OSError, UnsafePath, ValueError):  # missing, a link, a device: nothing to find in it
            return ""
        return reader.decode(raw[:reader.DOC.cap]).casefold()


def _stamp(node: Node) -> str:
    value = node.data.get("updated")
    return value.isoformat() if hasattr(value, "isoformat") else str(value or "")


def order(plan: Plan, nodes: list[Node], sort: str) -> list[Node]:
    """The nodes in one of `SORTS` or "release" (the default: release order, then id): pick (the picker's
    order: what it would take first), priority (high first, then release and id), id, title, updated
    (newest first)."""
    by_id = sorted(nodes, key=lambda n: id_order(n.id))
    if sort == "id":
        return by_id
    if sort == "updated":
        return sorted(by_id, key=_stamp, reverse=True)  # stable: ties stay in id order
    key = order_key(plan)
    keys: dict[str, Callable[[Node], Any]] = {
        "release": lambda n: key(n)[0],
        "pick": lambda n: (bool(n.children), key(n)),
        "priority": lambda n: (priority_rank(n.data.get("priority")), key(n)[0]),
        "title": lambda n: n.title.casefold(),
    }
    return sorted(by_id, key=keys[sort])
