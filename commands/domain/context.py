"""`context`: everything an agent needs at the start of a session, in one bounded call."""

from __future__ import annotations

from collections import Counter
from typing import Any

from leafwise.commands.contract import Result, bounded, clean
from leafwise.commands.core.hints import pick_hint
from leafwise.commands.core.progress import compute
from leafwise.commands.core.views import task_view
from leafwise.commands.domain.holds import live_claims, pick_for
from leafwise.commands.domain.messages import carry_pick
from leafwise.commands.registry import Ctx
from leafwise.store import CLOSED, STATUSES, Plan, Status, reader


MAX_FILES = 1_000  # docs and diagrams listed: a planted folder of thousands (or 1,000 levels deep) is cut


def _files(folder, base) -> list[str]:
    """The files under `folder` as paths from `base`, through the one bounded walk (store/reader.py)."""
    if not folder.is_dir():
        return []
    prefix = folder.relative_to(base).as_posix()
    return sorted(f"{prefix}/{rel}" for rel in reader.walk(folder, limit=MAX_FILES))


def context(ctx: Ctx, agent: str | None = None, limit: int = 300) -> Result:
    """Meta, releases, the hierarchy (closed subtrees folded), backlog, stats and the next task."""
    plan = ctx.plan()
    report = compute(plan)
    claims = live_claims(ctx)
    chosen = pick_for(ctx, agent, plan)
    key = plan.sort_key()
    rows = _hierarchy(plan, key)
    counts = Counter(n.status for n in plan.nodes.values())
    leaves = [n for n in plan.nodes.values() if not n.children]
    result = {
        "project": {"pid": plan.project.pid, "name": plan.project.name, "id_prefix": plan.project.id_prefix,
                    "schema": plan.project.schema, "root": str(plan.paths.repo)},
        "releases": [{"id": r.id, "title": r.title, "target": r.target,
                      **{k: v for k, v in t.as_dict().items() if k not in ("id", "title")}}
                     for r, t in zip(plan.project.releases, report.releases)],
        "hierarchy": bounded(rows, limit),
        "backlog": {"by_status": {s: counts.get(s, 0) for s in STATUSES}, "leaves": len(leaves),
                    "open_leaves": sum(1 for n in leaves if n.status not in CLOSED)},
        "in_progress": [{**item, "claim": claims[item["id"]].as_dict() if item["id"] in claims else None}
                        for item in report.in_flight[:50]],
        "blocked": [{"id": n.id, "title": n.title, "reason": n.blocked_reason,
                     "decision": n.open_decision is not None}
                    for n in sorted((n for n in plan.nodes.values() if n.status == Status.BLOCKED), key=key)[:50]],
        "stats": {"nodes": len(plan.nodes), "leaves": len(leaves), "done_percent": report.overall.percent,
                  "load_problems": len(plan.problems), "claims": len(claims)},
        "docs": _files(plan.paths.dir / "docs", plan.paths.dir)[:200],
        "diagrams": _files(plan.paths.dir / "diagrams", plan.paths.dir)[:200],
        "next": task_view(plan, chosen.node) if chosen.node else None,
    }
    lines = [f"{plan.project.name} ({plan.project.pid}) — {len(plan.nodes)} nodes, "
             f"{report.overall.percent or 0}% of leaves done",
             "Releases: " + ", ".join(f"{r['id']} {clean(r['title'], 80)} {r['percent'] or 0}%"
                                     for r in result["releases"]),
             "Status: " + ", ".join(f"{s} {counts.get(s, 0)}" for s in STATUSES)]
    if result["blocked"]:
        lines.append("Blocked: " + "; ".join(f"{b['id']} ({b['reason']})" for b in result["blocked"][:5]))
    if plan.problems:
        lines.append(f"{len(plan.problems)} file(s) do not load — run {ctx.cmd('validate')}")
    if chosen.node:
        lines.append(f"Next task: {chosen.node.id} {clean(chosen.node.title)}")
        lines += carry_pick(ctx, plan, chosen, result["next"], agent)
    return Result(result, pick_hint(ctx.cmd, chosen, agent), lines)


def _hierarchy(plan: Plan, key: Any) -> list[dict[str, Any]]:
    """The hierarchy's rows, depth first: open work in full, closed subtrees folded to one row each."""
    rows: list[dict[str, Any]] = []
    stack = sorted(plan.roots(), key=key, reverse=True)
    while stack:
        node = stack.pop()
        rows.append({"id": node.id, "title": node.title, "status": node.status, "depth": node.depth,
                     "release": node.effective_release, "assignee": node.assignee,
                     "children": len(node.children),
                     **({"blocked_reason": node.blocked_reason} if node.status == Status.BLOCKED else {})})
        if node.status not in CLOSED:
            stack.extend(reversed([plan.nodes[c] for c in node.children]))
    return rows
