"""The plan in memory: nodes, releases and the indexes every command walks."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator

from leafwise.store.paths import PlanPaths

# The statuses, their open/closed sets and the priority order are part of the node format, declared
# in store/schema.py beside the fields that take them; they are imported from here as much as from there.
from leafwise.store.schema import (  # noqa: F401
    CLOSED,
    DEFAULT_PRIORITY,
    FIELD_ORDER,
    OPEN,
    PRIORITIES,
    PRIORITY_RANK,
    STATUSES,
    Status,
    priority_rank,
)


def open_decision(data: dict[str, Any]) -> dict[str, Any] | None:
    """A node's open decision: its `decision` mapping, when that has a question and no answer yet.

    The one rule, for a loaded node (`Node.open_decision`) and for a file's
    mapping re-read under its lock (`decide`). Without a question there is
    nothing a person could answer: such a node is plainly blocked.
    """
    decision = data.get("decision")
    if isinstance(decision, dict) and decision.get("question") and not decision.get("answer"):
        return decision
    return None


@dataclass(frozen=True, slots=True)
class Release:
    id: str
    title: str
    target: str | None = None


@dataclass(slots=True)
class Project:
    pid: str
    name: str
    id_prefix: str
    releases: list[Release]
    schema: int = 1
    settings: dict[str, Any] = field(default_factory=dict)
    former_prefixes: tuple[str, ...] = ()  # prefixes of ids given before `project set --prefix`

    def release_rank(self) -> dict[str, int]:
        return {r.id: i for i, r in enumerate(self.releases)}


@dataclass(slots=True)
class Problem:
    """One thing wrong with the plan, as the validator and the loader report it."""

    code: str
    severity: str  # "error" | "warning"
    message: str
    fix: str
    node: str | None = None
    file: str | None = None
    line: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "code": self.code, "severity": self.severity, "node": self.node,
            "file": self.file, "line": self.line, "message": self.message, "fix": self.fix,
        }


@dataclass(slots=True)
class Node:
    id: str
    title: str
    status: Status
    data: dict[str, Any]  # every key of the file, unknown ones included
    file: str  # path relative to the repository, for messages
    digest: str  # content hash of the file as read, for compare-and-swap
    children: list[str] = field(default_factory=list)
    depth: int = 0
    effective_release: str | None = None

    @property
    def parent(self) -> str | None:
        return self.data.get("parent") or None

    @property
    def release(self) -> str | None:
        return self.data.get("release") or None

    @property
    def assignee(self) -> str | None:
        return self.data.get("assignee") or None

    @property
    def blocked_reason(self) -> str | None:
        return self.data.get("blocked_reason") or None

    @property
    def summary(self) -> str | None:
        return self.data.get("summary") or None

    @property
    def depends_on(self) -> list[str]:
        return self.data.get("depends_on") or []  # read-only view: hot in the picker and validator

    @property
    def tags(self) -> list[str]:
        return list(self.data.get("tags") or [])

    @property
    def docs(self) -> list[str]:
        return list(self.data.get("docs") or [])

    @property
    def diagrams(self) -> list[str]:
        return list(self.data.get("diagrams") or [])

    @property
    def cascade(self) -> str:
        return self.data.get("cascade") or "auto"

    @property
    def open_decision(self) -> dict[str, Any] | None:
        """The decision a person still has to answer (see `open_decision`)."""
        return open_decision(self.data)

    @property
    def is_open(self) -> bool:
        return self.status in OPEN

    @property
    def is_leaf(self) -> bool:
        return not self.children

    def as_dict(self) -> dict[str, Any]:
        """The node as an agent sees it: the file's keys plus what is derived."""
        out = {key: self.data.get(key) for key in FIELD_ORDER if key in self.data}
        out.update({k: v for k, v in self.data.items() if k not in out})
        out.update(
            id=self.id, title=self.title, status=self.status,
            effective_release=self.effective_release, depth=self.depth,
            children=list(self.children), file=self.file,
        )
        return out


@dataclass(slots=True)
class Plan:
    paths: PlanPaths
    project: Project
    nodes: dict[str, Node]
    problems: list[Problem]  # load-time problems: unparsable or schema-breaking files

    def get(self, node_id: str) -> Node | None:
        return self.nodes.get(node_id)

    def ancestors(self, node_id: str) -> list[Node]:
        """Parent first, up to the top; stops at a missing parent or a cycle."""
        chain: list[Node] = []
        seen = {node_id}
        node = self.nodes.get(node_id)
        while node and node.parent and node.parent not in seen:
            seen.add(node.parent)
            node = self.nodes.get(node.parent)
            if node:
                chain.append(node)
        return chain

    def descendants(self, node_id: str) -> Iterator[Node]:
        stack = list(reversed(self.nodes[node_id].children)) if node_id in self.nodes else []
        seen = {node_id}
        while stack:
            child = self.nodes.get(stack.pop())
            if child is None or child.id in seen:
                continue
            seen.add(child.id)
            yield child
            stack.extend(reversed(child.children))

    def roots(self) -> list[Node]:
        """The tops of the hierarchy: no parent, a missing one, or the entry of a parent cycle (so a
        looped part of a hostile plan is still shown, under its entry)."""
        entries = self.loop_entries()
        return [n for n in self.nodes.values() if not n.parent or n.parent not in self.nodes or n.id in entries]

    def loop_entries(self) -> frozenset[str]:
        """The nodes where a parent cycle was cut: their own parent, or a parent whose chain comes back
        to them (`loader.index` gives such an entry depth 0 though its parent exists)."""
        nodes = self.nodes
        return frozenset(n.id for n in nodes.values()
                         if n.depth == 0 and n.parent and (n.parent == n.id or n.parent in nodes))

    def looped(self) -> frozenset[str]:
        """Every node in or under a parent cycle: the hierarchy above it is broken, so it is no work
        to hand out (`readiness.blocker`) until `validate`'s Fix cuts the cycle."""
        entries = self.loop_entries()
        if not entries:
            return entries
        return entries | {d.id for entry in entries for d in self.descendants(entry)}

    def sort_key(self):
        """Release order (no release last), then title and id: the canonical sibling order."""
        rank = self.project.release_rank()
        last = len(rank)

        def key(node: Node):
            return (rank.get(node.effective_release, last), node.title.casefold(), node.id)

        return key
