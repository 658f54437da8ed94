"""Progress: done percentages by release and epic, work in flight, and what comes next."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from ..store import CLOSED, Node, Plan
from .contract import Result, next_
from .hints import pick_hint
from .loop import live_claims, pick_for, task_view
from .registry import Ctx, Param, command

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
    for node in sorted((n for n in plan.nodes.values() if n.status == "in-progress"), key=key):
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


def bar(percent: int | None, width: int = 20) -> str:
    if percent is None:
        return "·" * width
    filled = round(width * percent / 100)
    return "█" * filled + "░" * (width - filled)


@command("progress", "Done percentages by release and epic, work in flight, the next task.",
         mutating=False, tool="get_progress", idempotent=True, params=(Param("agent", "who is asking"),))
def progress(ctx: Ctx, agent: str | None = None) -> Result:
    plan = ctx.plan()
    report = compute(plan)
    if not report.reconcile_release:
        from .reconcile_engine import closed_by_commits  # one `git log`, no code scan

        closed = closed_by_commits(plan)
        if closed and closed[0].effective_release:
            report.reconcile_release = closed[0].effective_release
    chosen = pick_for(ctx, agent, plan)
    claims = live_claims(ctx)
    for item in report.in_flight:
        claim = claims.get(item["id"])
        item["claim"] = claim.as_dict() if claim else None
    lines = [f"{plan.project.name}: {report.overall.done}/{report.overall.total} leaves done "
             f"({report.overall.percent or 0}%)", "", "Releases"]
    for t in report.releases:
        lines.append(f"  {t.id or '-':6} {bar(t.percent)} {t.percent if t.percent is not None else '-':>3}%  "
                     f"{t.done}/{t.total}  {t.in_progress} in progress, {t.blocked} blocked  {t.title}")
    lines += ["", "Epics"]
    for t in report.epics[:50]:
        lines.append(f"  {t.id:10} {bar(t.percent, 10)} {t.percent if t.percent is not None else '-':>3}%  "
                     f"{t.done}/{t.total}  {t.title}")
    if report.in_flight:
        lines += ["", "In progress"]
        for item in report.in_flight[:30]:
            who = f" [{item['assignee']}]" if item["assignee"] else ""
            left = "" if item["leaf"] else f" — {item['open_leaves_left']} open leaves left"
            lines.append(f"  {item['id']:10} {item['title']}{who}{left}")
    if chosen.node:
        lines += ["", f"Next task: {chosen.node.id} {chosen.node.title}"]
    hint = pick_hint(ctx, chosen, agent)
    if report.reconcile_release:
        hint = next_(ctx.cmd(f"reconcile --release {report.reconcile_release}"),
                     f"drafts in release {report.reconcile_release} look shipped (only drafts remain "
                     "beside done work, or a commit says one is finished)",
                     or_=hint.command if hint.marker == "next" else None)
        lines.append(f"Release {report.reconcile_release}: drafts look shipped — reconcile checks the code")
    return Result(
        {"overall": report.overall.as_dict(), "releases": [t.as_dict() for t in report.releases],
         "epics": [t.as_dict() for t in report.epics[:200]], "epics_total": len(report.epics),
         "in_progress": report.in_flight[:100], "next": task_view(plan, chosen.node) if chosen.node else None,
         "reconcile_suggested": report.reconcile_release},
        hint, lines)
