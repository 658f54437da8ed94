"""`leafwise reconcile`: find draft leaves that already shipped, with evidence; `--apply` closes them.

The scanner and matcher (commands/core/reconcile/) load inside the handler,
so listing or dispatching commands never pays for them.
"""

from __future__ import annotations

from typing import Any

from leafwise.commands.contract import (
    EXIT_NOT_FOUND,
    EXIT_USAGE,
    CommandError,
    Mutation,
    Result,
    clean,
    fix,
    next_,
)
from leafwise.commands.handlers.cycle_gates import check_paths, off_limits_for
from leafwise.commands.registry import Ctx, Param, command
from leafwise.store import Status

DEFAULT_MIN_CONFIDENCE = 0.8
DEFAULT_LIMIT = 100
NOTE_KEY = "reconcile_note"


@command(
    "reconcile", "Find draft leaves that already shipped, with file:line evidence; --apply closes them.",
    mutating=True, tool="reconcile",
    params=(Param("node", "only this node (a leaf, or a parent: its draft leaves)"),
            Param("release", "only draft leaves of this release"),
            Param("apply", "close shipped nodes (at or above --min-confidence) through complete", type=bool),
            Param("min_confidence", f"least confidence --apply acts on (default {DEFAULT_MIN_CONFIDENCE})",
                  type=float),
            Param("limit", f"most suggestions listed (default {DEFAULT_LIMIT})", type=int),
            Param("explain", "say why: the title's concepts and weights, the candidate evidence, each rule",
                  type=bool)),
    example="leafwise reconcile --release R1",
)
def reconcile(ctx: Ctx, node: str | None = None, release: str | None = None, apply: bool = False,
              min_confidence: float | None = None, limit: int | None = None, explain: bool = False) -> Result:
    from leafwise.commands.core.reconcile.engine import draft_leaves, suggest

    plan = ctx.plan()
    if node:
        from leafwise.commands.handlers.shared import get_node

        get_node(ctx, node, plan)
    if release and release not in plan.project.release_rank():
        raise CommandError("unknown_release", f"no release {release!r} in this plan",
                           fix(ctx.cmd("context"), "the plan's releases are listed there"),
                           exit_code=EXIT_NOT_FOUND, category="not_found", source=("release", release))
    threshold = DEFAULT_MIN_CONFIDENCE if min_confidence is None else min_confidence
    if not 0.0 <= threshold <= 1.0:
        raise CommandError("invalid_confidence", "--min-confidence must be between 0 and 1",
                           fix(ctx.cmd("reconcile --min-confidence 0.8"), "use a value like 0.8"),
                           exit_code=EXIT_USAGE, category="usage")
    limit = DEFAULT_LIMIT if limit is None or limit <= 0 else limit
    off_limits = _off_limits(ctx)
    report = suggest(plan, draft_leaves(plan, node, release), off_limits, explain=explain)
    applied: list[dict[str, Any]] = []
    refused: list[dict[str, Any]] = []
    changes: list[dict[str, Any]] = []
    if apply:
        applied, refused, changes = _apply(ctx, report.suggestions, threshold, off_limits)
    items = report.suggestions
    counts = {v: sum(1 for s in items if s["verdict"] == v) for v in ("shipped", "partial", "none")}
    result = {
        "suggestions": items[:limit], "applied": applied, "refused": refused,
        "scanned_files": report.scanned_files, "total": len(items), "limit": limit,
        "truncated": len(items) > limit, "counts": counts, "indexed": report.indexed,
        "seconds": report.seconds, "min_confidence": threshold, "off_limits": report.off_limits,
    }
    hint = _hint(ctx, items, applied, threshold, apply, release)
    lines = _text(items[:limit], report, applied, refused, counts)
    if explain:
        lines += _explain_text(items[:limit])
    reason = (f"closed {len(applied)}, refused {len(refused)}" if apply
              else "suggestions only; nothing written without --apply")
    return Result(result, hint, lines, Mutation("reconcile", "apply" if apply else "suggest",
                                                bool(changes), reason, changes))


def _off_limits(ctx: Ctx) -> list[str]:
    """Globs running cycles forbid writing to."""
    return [str(g) for g in off_limits_for(ctx)]


def _check_writes(ctx: Ctx, plan, node_id: str) -> None:
    """Refuse (CommandError) when the node's file or an ancestor's is off limits for a running cycle."""
    ids = [node_id] + [a.id for a in plan.ancestors(node_id)]
    check_paths(ctx, [ctx.paths().node_file(i).relative_to(ctx.paths().repo) for i in ids])


def evidence_summary(suggestion: dict[str, Any], limit: int = 3) -> str:
    parts = []
    for ev in suggestion["evidence"][:limit]:
        where = f"{ev['path']}:{ev['line']}" if ev.get("line") else str(ev.get("path") or "")
        parts.append(f"{ev['kind']} {ev.get('name') or ev['snippet']} ({where})" if where else
                     f"{ev['kind']} {ev.get('name') or ev['snippet']}")
    return "; ".join(parts)


def _apply(ctx: Ctx, suggestions: list[dict[str, Any]], threshold: float, off_limits: list[str]
           ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """Close shipped suggestions through `complete`; note what partial ones miss."""
    from leafwise.commands.handlers.agent_loop import complete
    from leafwise.commands.handlers.shared import (
        change_list,
        get_node,
        record,
        set_fields,
        write,
    )

    applied: list[dict[str, Any]] = []
    refused: list[dict[str, Any]] = []
    changes: list[dict[str, Any]] = []
    for s in suggestions:
        nid = s["id"]
        if s["verdict"] == "none":
            continue
        if off_limits:
            try:
                _check_writes(ctx, ctx.plan(), nid)
            except CommandError as exc:
                refused.append({"id": nid, "verdict": s["verdict"], "reason": exc.message, "code": exc.code})
                continue
        if s["verdict"] == "partial":
            note = clean("missing: " + "; ".join(s["missing"]) + (
                " | exists: " + "; ".join(s["exists"]) if s["exists"] else ""), 1000)
            node = get_node(ctx, nid)
            delta = write(ctx, node, lambda doc: set_fields(doc, {NOTE_KEY: note})
                          if doc.get("status") == Status.DRAFT else {})
            if delta:
                record(ctx, "reconcile", nid, delta)
                changes += change_list(nid, delta)
            refused.append({"id": nid, "verdict": "partial", "reason": "partial evidence: noted, left draft",
                            "note": note})
            continue
        if not s["evidence"]:  # never done without evidence
            refused.append({"id": nid, "verdict": "shipped", "reason": "no evidence recorded"})
            continue
        if s["confidence"] < threshold:
            refused.append({"id": nid, "verdict": "shipped",
                            "reason": f"confidence {s['confidence']} below {threshold}"})
            continue
        try:
            node = get_node(ctx, nid)
            if node.status != Status.DRAFT:
                raise CommandError("status_changed", f"{nid} is now {node.status}",
                                   fix(ctx.cmd(f"show {nid}"), "re-read the node"))
            recorded = [{"kind": ev["kind"], "path": ev["path"], "line": ev["line"],
                         "note": clean(ev.get("name") or ev["snippet"], 200)} for ev in s["evidence"][:8]]
            delta = write(ctx, node, lambda doc: set_fields(doc, {"evidence": recorded}))
            record(ctx, "reconcile", nid, delta, confidence=s["confidence"])
            changes += change_list(nid, delta)
            done = complete(ctx, nid, f"reconciled: {evidence_summary(s)}")
        except CommandError as exc:
            refused.append({"id": nid, "verdict": "shipped", "reason": exc.message, "code": exc.code})
            continue
        if done.mutation:
            changes += done.mutation.changes
        applied.append({"id": nid, "title": s["title"], "confidence": s["confidence"],
                        "summary": done.result.get("summary"), "cascade": done.result.get("cascade", [])})
    return applied, refused, changes


def _hint(ctx: Ctx, items: list[dict[str, Any]], applied: list[dict[str, Any]], threshold: float,
          did_apply: bool, release: str | None):
    done = {a["id"] for a in applied}
    pending = [s for s in items if s["verdict"] == "shipped" and s["id"] not in done
               and s["confidence"] >= threshold]
    if pending and not did_apply:
        first = pending[0]
        rest = ctx.cmd("reconcile --apply" + (f" --release {release}" if release else ""))
        return next_(ctx.cmd(f"reconcile --apply --node {first['id']}"),
                     f"{first['id']} looks shipped ({first['confidence']}): close it with its evidence",
                     or_=rest if len(pending) > 1 else None)
    if applied:
        reason = f"closed {len(applied)} shipped node(s); take the next task"
    elif did_apply and pending:
        reason = "nothing could be closed (see refused); take the next task"
    else:
        reason = "nothing looks shipped; take the next task"
    return next_(ctx.cmd("next"), reason)


def _text(items: list[dict[str, Any]], report, applied: list[dict[str, Any]], refused: list[dict[str, Any]],
          counts: dict[str, int]) -> list[str]:
    lines = [f"Reconcile: {len(items)} draft leaves against {report.scanned_files} files "
             f"({report.indexed} named things, {report.seconds:.2f} s): {counts['shipped']} shipped, "
             f"{counts['partial']} partial, {counts['none']} with no evidence"]
    for s in items:
        if s["verdict"] == "none":
            continue
        lines.append(f"  {s['verdict']:8} {s['id']:10} {s['title']}  ({s['confidence']})")
        for ev in s["evidence"][:4]:
            where = f"{ev['path']}:{ev['line']}" if ev.get("line") else ev["path"]
            lines.append(f"           {ev['kind']:9} {clean(ev.get('name') or ev['snippet'], 70)}  {where}")
        if s["verdict"] == "partial":
            for miss in s["missing"][:3]:
                lines.append(f"           missing: {miss}")
    for a in applied:
        lines.append(f"Closed {a['id']} {a['title']!r}" + "".join(
            f"; cascade {c['id']} {c['from']} → {c['to']}" for c in a["cascade"]))
    for r in refused:
        lines.append(f"Not closed {r['id']}: {r['reason']}")
    return lines


def _explain_text(items: list[dict[str, Any]]) -> list[str]:
    lines: list[str] = []
    for s in items:
        ex = s.get("explain")
        if not ex:
            continue
        lines.append(f"Why {s['id']} is {s['verdict']} ({s['confidence']}): {clean(s['title'], 100)}")
        lines.append("  concepts (weight: why):")
        for c in ex["concepts"]:
            lines.append(f"    {clean(c['word'], 30):16} {c['weight']:.2f}  {clean(c['why'], 100)}")
        lines.append("  candidate evidence (share of the title's weight; by its own name):")
        for c in ex["candidates"][:6]:
            lines.append(f"    {c['score']:.2f} {c['own']:.2f}  {c['kind']:10} {clean(c['name'], 50)}  "
                         f"{clean(c['path'], 60)}:{c['line']}  names {', '.join(c['matched']) or '-'}")
        lines.append("  rules:")
        for r in ex["rules"]:
            lines.append(f"    {clean(r, 150)}")
    return lines
