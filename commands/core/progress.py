"""Progress: done percentages by release and epic, the one leaf count every surface uses, and the one
rule of how many cells of a progress bar are filled (the CLI's text bar and the canvas's bar both ask it)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from leafwise.store import CLOSED, Node, Plan, Status

NO_RELEASE = None



@dataclass(slots=True)
class Tally:
    """Leaf counts of one group; cancelled leaves leave the denominator."""

    id: str | None
    title: str
    done: int = 0
    draft: int = 0
    in_progress: int = 0
    blocked: int = 0
    cancelled: int = 0

    @property
    def total(self) -> int:
        return self.done + self.draft + self.in_progress + self.blocked

    @property
    def percent(self) -> int | None:
        return round(100 * self.done / self.total) if self.total else None

    def add(self, node: Node) -> None:
        status = node.status.replace("-", "_")
        setattr(self, status, getattr(self, status) + 1)

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "total": self.total, "percent": self.percent}



@dataclass(slots=True)
class PlanProgress:
    releases: list[Tally]
    epics: list[Tally]
    overall: Tally
    in_flight: list[dict[str, Any]] = field(default_factory=list)
    reconcile_release: str | None = None  # a release whose drafts look shipped



def compute(plan: Plan) -> PlanProgress:
    """One O(n) pass: each leaf counts toward its release, its top-level epic and the whole."""
    releases = {r.id: Tally(r.id, r.title) for r in plan.project.releases}
    unreleased = Tally(NO_RELEASE, "no release")
    overall = Tally("plan", plan.project.name)
    epics: dict[str, Tally] = {}
    top_of: dict[str, str] = {}
    for node in plan.nodes.values():
        if node.children:
            continue
        top = _top(plan, node, top_of)
        releases.get(node.effective_release, unreleased).add(node)
        overall.add(node)
        if top != node.id:
            if top not in epics:
                epics[top] = Tally(top, plan.nodes[top].title)
            epics[top].add(node)
    ordered_releases = list(releases.values()) + ([unreleased] if unreleased.total or unreleased.cancelled else [])
    key = plan.sort_key()
    ordered_epics = [epics[e] for e in sorted(epics, key=lambda e: key(plan.nodes[e]))]
    in_flight = []
    for node in sorted((n for n in plan.nodes.values() if n.status == Status.IN_PROGRESS), key=key):
        left = [d.id for d in plan.descendants(node.id) if not d.children and d.status not in CLOSED]
        in_flight.append({"id": node.id, "title": node.title, "assignee": node.assignee,
                          "leaf": not node.children, "open_leaves_left": len(left), "left": left[:10]})
    suggest = next((t.id for t in releases.values()
                    if t.draft and t.done and not t.in_progress and not t.blocked), None)
    return PlanProgress(ordered_releases, ordered_epics, overall, in_flight, suggest)



def _top(plan: Plan, node: Node, memo: dict[str, str]) -> str:
    chain = []
    cursor = node
    while cursor.parent and cursor.parent in plan.nodes and cursor.id not in memo and len(chain) < 10_000:
        chain.append(cursor.id)
        cursor = plan.nodes[cursor.parent]
    top = memo.get(cursor.id, cursor.id)
    for nid in chain:
        memo[nid] = top
    return top



def filled_cells(done: int, total: int, width: int) -> int | None:
    """How many of a bar's `width` cells are filled for `done` of `total`: any progress shows (never 0
    cells for work done) and only complete work fills the bar (never full before all is done).
    None: nothing to count (all cancelled, or nothing yet), which a bar shows dotted, never as 0%."""
    if total <= 0:
        return None
    filled = round(width * done / total)
    if done and not filled:
        filled = 1
    if done < total and filled == width:
        filled = width - 1
    return min(max(filled, 0), width)


def bar(done: int, total: int, width: int = 20) -> str:
    """The CLI's text bar for `done` of `total` (cells by `filled_cells`; nothing to count is dotted)."""
    filled = filled_cells(done, total, width)
    if filled is None:
        return "·" * width
    return "█" * filled + "░" * (width - filled)


def leaf_progress(plan: Plan, node: Node) -> tuple[int, int]:
    """(done, total) leaves under a node; cancelled leaves leave the denominator."""
    done = total = 0
    for item in plan.descendants(node.id) if node.children else [node]:
        if item.children or item.status == Status.CANCELLED:
            continue
        total += 1
        done += item.status == Status.DONE
    return done, total
