"""`leafwise reconcile`: find draft leaves that already shipped, with evidence; `--apply` closes them.

A person's two decisions on a suggestion go through the same command:
`--reject ID` records on the node that this evidence does not show it shipped
(`reconcile_rejected: {evidence: <hash of the evidence>, by, at}`), and the
suggestion stays hidden until its evidence changes; `--close ID --note TEXT`
closes a partial (or shipped) suggestion anyway, recording its evidence and
completing the node with "closed by <person>: <note>".

The scanner and matcher (commands/reconcile/) load inside `reconcile`,
so listing or dispatching commands never pays for them.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from leafwise.commands.contract import (
    EXIT_CONFLICT,
    EXIT_FAILURE,
    EXIT_NOT_FOUND,
    EXIT_USAGE,
    CommandError,
    Mutation,
    Result,
    clean,
    fix,
    next_,
    placeholder,
    wait,
)
from leafwise.commands.domain.cycle_gates import check_paths, off_limits_for
from leafwise.commands.domain.finishing import complete
from leafwise.commands.domain.nodes import change_list, get_node, record, set_fields, write
from leafwise.commands.registry import Ctx
from leafwise.store import Plan, Status
from leafwise.store.writer import iso

DEFAULT_MIN_CONFIDENCE = 0.8
DEFAULT_LIMIT = 100
NOTE_KEY = "reconcile_note"
REJECTED_KEY = "reconcile_rejected"
NOTE_LIMIT = 500
# shipped: measured ≥ 0.95 precision (declared checks, closing commits), --apply closes it; likely: what
# the lexical rules find, a lead for `leafwise verify` or a person, never closed unattended.
BANDS = ("shipped", "likely", "partial", "none")


def reconcile(ctx: Ctx, node: str | None = None, release: str | None = None, apply: bool = False,
              min_confidence: float | None = None, limit: int | None = None, explain: bool = False,
              reject: str | None = None, close: str | None = None, note: str | None = None) -> Result:
    """Suggest the draft leaves that shipped (and with `apply` close them), or take a person's decision."""
    from leafwise.commands.reconcile.engine import draft_leaves

    if reject or close:
        return _decide(ctx, reject, close, note, apply)
    plan = ctx.plan()
    if node:
        get_node(ctx, node, plan)
    if release and release not in plan.project.release_rank():
        raise CommandError("unknown_release", f"no release {release!r} in this plan",
                           fix(ctx.cmd("context"), "the plan's releases are listed there"),
                           exit_code=EXIT_NOT_FOUND, category="not_found", source=("release", release))
    threshold = DEFAULT_MIN_CONFIDENCE if min_confidence is None else min_confidence
    if not 0.0 <= threshold <= 1.0:
        raise CommandError("invalid_confidence", "--min-confidence must be between 0 and 1",
                           fix(ctx.cmd("reconcile", min_confidence=0.8), "use a value like 0.8"),
                           exit_code=EXIT_USAGE, category="usage")
    limit = DEFAULT_LIMIT if limit is None or limit <= 0 else limit
    off_limits = _off_limits(ctx)
    report = scanned(ctx, [n.id for n in draft_leaves(plan, node, release)], off_limits, explain)
    for s in report.suggestions:
        s.setdefault("reason", reason_of(s))
    rejected = [_rejected_view(s, plan.nodes[s["id"]].data[REJECTED_KEY]) for s in report.suggestions
                if is_rejected(s, plan.nodes[s["id"]].data)]
    hidden = {r["id"] for r in rejected}
    report.suggestions = [s for s in report.suggestions if s["id"] not in hidden]
    applied: list[dict[str, Any]] = []
    refused: list[dict[str, Any]] = []
    changes: list[dict[str, Any]] = []
    if apply:
        applied, refused, changes = _apply(ctx, report.suggestions, threshold, off_limits)
    items = report.suggestions
    counts = {v: sum(1 for s in items if s["verdict"] == v) for v in BANDS}
    result = {
        "suggestions": items[:limit], "applied": applied, "refused": refused,
        "scanned_files": report.scanned_files, "total": len(items), "limit": limit,
        "truncated": len(items) > limit, "counts": counts, "indexed": report.indexed,
        "seconds": report.seconds, "min_confidence": threshold, "off_limits": report.off_limits,
        "rejected": rejected,
    }
    hint = _hint(ctx, items, applied, threshold, apply, release)
    lines = _text(items[:limit], report, applied, refused, counts)
    if rejected:
        lines.append(f"{len(rejected)} rejected suggestion(s) hidden until their evidence changes: "
                     + ", ".join(r["id"] for r in rejected[:10]))
    if explain:
        lines += _explain_text(items[:limit])
    reason = (f"closed {len(applied)}, refused {len(refused)}" if apply
              else "suggestions only; nothing written without --apply")
    return Result(result, hint, lines, Mutation("reconcile", "apply" if apply else "suggest",
                                                bool(changes), reason, changes))


SCAN_WAITS = {
    "deadline": "a person narrows the scan (reconcile --node ID) or raises its deadline (LEAFWISE_RECONCILE_DEADLINE)",
    "stopped": "a person runs reconcile again (it was stopped before it finished)",
    "failed": "a person looks at why reconcile's scan of the code failed",
}


def scanned(ctx: Ctx, node_ids: list[str], off_limits: list[str], explain: bool = False):
    """The engine's report for `node_ids`, from a child process with a deadline (`reconcile/worker.py`):
    the code it reads is a clone author's, and must never freeze the canvas or the MCP server."""
    from leafwise.commands.reconcile.worker import ScanStopped, deadline, scan

    try:
        return scan(str(ctx.paths().repo), node_ids, off_limits, explain)
    except ScanStopped as exc:
        code = {"deadline": "reconcile_deadline", "stopped": "reconcile_stopped"}.get(exc.why, "reconcile_failed")
        where = (f"; a person sets it with LEAFWISE_RECONCILE_DEADLINE (seconds, now {deadline():g})"
                 if exc.why == "deadline" else "")
        raise CommandError(
            code, f"reconcile wrote nothing: {exc.detail}{where}",
            wait(SCAN_WAITS.get(exc.why, SCAN_WAITS["failed"]), "the plan is unchanged; other work goes on",
                 or_=ctx.cmd("next")),
            exit_code=EXIT_FAILURE, category="io", source=("plan", None),
            details={"why": exc.why, "seconds": round(exc.seconds, 3), "deadline_s": deadline()},
        ) from None


def evidence_hash(evidence: list[dict[str, Any]]) -> str:
    """What a rejection is tied to: the evidence's kinds, places and names (not its weights)."""
    key = [[ev.get("kind"), ev.get("path"), ev.get("line"), ev.get("name") or ev.get("snippet")]
           for ev in evidence]
    return hashlib.sha256(json.dumps(key, sort_keys=True, default=str).encode()).hexdigest()[:16]


def is_rejected(suggestion: dict[str, Any], data: dict[str, Any]) -> bool:
    """A person rejected this very evidence (the same hash) for this node."""
    mark = data.get(REJECTED_KEY)
    return (suggestion["verdict"] != "none" and isinstance(mark, dict)
            and mark.get("evidence") == evidence_hash(suggestion["evidence"]))


def _rejected_view(suggestion: dict[str, Any], mark: dict[str, Any]) -> dict[str, Any]:
    return {"id": suggestion["id"], "title": suggestion["title"], "verdict": suggestion["verdict"],
            "by": clean(mark.get("by") or "", 80), "at": str(mark.get("at") or "")}


def reason_of(suggestion: dict[str, Any]) -> str:
    """The one-line why of a suggestion, as the CLI says it: its evidence, or what is missing."""
    missing = [clean(m, 120) for m in suggestion.get("missing") or []]
    if suggestion["verdict"] == "shipped":
        return "evidence: " + (evidence_summary(suggestion, 2) or "recorded")
    if suggestion["verdict"] == "likely":
        if suggestion.get("lead") == "words":  # no rule's bar is met: say so, in the room of one piece
            return "a lead to verify (the words, no rule met): " + (evidence_summary(suggestion, 1) or "recorded")
        return "a lead to verify: " + (evidence_summary(suggestion, 2) or "recorded")
    if suggestion["verdict"] == "partial":
        return "missing: " + ("; ".join(missing[:3]) or "part of the title")
    return "; ".join(missing[:2]) or "no evidence names it"


def _decide(ctx: Ctx, reject: str | None, close: str | None, note: str | None, apply: bool) -> Result:
    """A person's decision on one suggestion: reject it, or close the node anyway."""
    if (reject and close) or apply:
        raise CommandError("conflicting_flags", "use one of --reject, --close or --apply at a time",
                           fix(ctx.cmd("reconcile", node=reject or close), "look at the suggestion first"),
                           exit_code=EXIT_USAGE, category="usage")
    node_id = str(reject or close)
    note = clean(note, NOTE_LIMIT) if note else ""
    if close and not note:
        raise CommandError("note_required", "closing a suggestion anyway needs a note saying why",
                           fix(ctx.cmd("reconcile", close=node_id, note=placeholder("note")), "say why it is done"),
                           exit_code=EXIT_USAGE, category="usage", source=("node", node_id))
    suggestion = _one_suggestion(ctx, node_id)
    _check_writes(ctx, ctx.plan(), node_id)
    if reject:
        return _reject(ctx, suggestion, note)
    return _close(ctx, suggestion, note)


def _one_suggestion(ctx: Ctx, node_id: str) -> dict[str, Any]:
    """The suggestion for one draft leaf; an error when there is none to decide on."""
    plan = ctx.plan()
    node = get_node(ctx, node_id, plan)
    if node.status != Status.DRAFT or node.children:
        raise CommandError("not_a_draft_leaf", f"{node.id} is {node.status}"
                           + (" with children" if node.children else "") + ": reconcile decides on draft leaves",
                           fix(ctx.cmd("show", node.id), "look at the node"),
                           exit_code=EXIT_CONFLICT, category="conflict", source=("node", node.id))
    found = scanned(ctx, [node.id], _off_limits(ctx)).suggestions[0]
    found.setdefault("reason", reason_of(found))
    if found["verdict"] == "none":
        raise CommandError("no_suggestion", f"reconcile suggests nothing for {node.id}: {found['reason']}",
                           fix(ctx.cmd("complete", node.id, summary=placeholder("summary")),
                               "with no evidence, complete it as work done"),
                           exit_code=EXIT_CONFLICT, category="conflict", source=("node", node.id))
    return found


def _reject(ctx: Ctx, suggestion: dict[str, Any], note: str) -> Result:
    node_id = suggestion["id"]
    who = ctx.who()
    mark = {"evidence": evidence_hash(suggestion["evidence"]), "by": who, "at": iso(ctx.clock()),
            **({"note": note} if note else {})}

    def mutate(doc: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
        if doc.get("status") != Status.DRAFT:
            raise CommandError("status_changed", f"{node_id} is now {clean(doc.get('status'))}",
                               fix(ctx.cmd("show", node_id), "re-read the node"),
                               exit_code=EXIT_CONFLICT, category="conflict", source=("node", node_id))
        old = doc.get(REJECTED_KEY)
        if isinstance(old, dict) and old.get("evidence") == mark["evidence"]:
            return {}
        doc[REJECTED_KEY] = dict(mark)
        return {REJECTED_KEY: (dict(old) if isinstance(old, dict) else old, dict(mark))}

    delta = write(ctx, get_node(ctx, node_id), mutate)
    if delta:
        record(ctx, "reconcile", node_id, delta, decision="reject", verdict=suggestion["verdict"],
               confidence=suggestion["confidence"], note=note or None)
    lines = [f"Rejected the {suggestion['verdict']} suggestion for {node_id} “{clean(suggestion['title'])}”"
             + ("" if delta else " (already rejected)"),
             "  hidden from reconcile until its evidence changes"]
    return Result({"id": node_id, "decision": "reject", "rejected": mark, "verdict": suggestion["verdict"]},
                  next_(ctx.cmd("reconcile"), "the other suggestions"), lines,
                  Mutation("reconcile", "reject", bool(delta),
                           "rejection recorded" if delta else "already rejected for this evidence",
                           change_list(node_id, delta)))


def _close(ctx: Ctx, suggestion: dict[str, Any], note: str) -> Result:
    node_id = suggestion["id"]
    who = ctx.who()
    recorded = [{"kind": ev["kind"], "path": ev["path"], "line": ev["line"],
                 "note": clean(ev.get("name") or ev["snippet"], 200)} for ev in suggestion["evidence"][:8]]
    summary = f"closed by {who}: {note}"
    changes: list[dict[str, Any]] = []
    delta = write(ctx, get_node(ctx, node_id), lambda doc: set_fields(doc, {"evidence": recorded})
                  if doc.get("status") == Status.DRAFT else {})
    if delta:
        record(ctx, "reconcile", node_id, delta, decision="close", verdict=suggestion["verdict"],
               confidence=suggestion["confidence"], missing=suggestion["missing"][:5], note=note)
        changes += change_list(node_id, delta)
    done = complete(ctx, node_id, summary)
    if done.mutation:
        changes += done.mutation.changes
    cascade = done.result.get("cascade", [])
    lines = [f"Closed {node_id} “{clean(suggestion['title'])}” anyway ({suggestion['verdict']}, "
             f"{suggestion['confidence']}): {clean(summary, 300)}"]
    lines += [f"  missing was: {clean(m, 150)}" for m in suggestion["missing"][:3]]
    lines += [f"  cascade {c['id']} {c['from']} → {c['to']}" for c in cascade]
    return Result({"id": node_id, "decision": "close", "by": who, "note": note, "summary": summary,
                   "verdict": suggestion["verdict"], "evidence": recorded, "cascade": cascade,
                   "next": done.result.get("next")},
                  done.next_action, lines,
                  Mutation("reconcile", "close", True, f"closed by {who} with a note", changes))


def _off_limits(ctx: Ctx) -> list[str]:
    """Globs running cycles forbid writing to."""
    return [str(g) for g in off_limits_for(ctx)]


def _check_writes(ctx: Ctx, plan: Plan, node_id: str) -> None:
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
    applied: list[dict[str, Any]] = []
    refused: list[dict[str, Any]] = []
    changes: list[dict[str, Any]] = []
    for s in suggestions:
        nid = s["id"]
        if s["verdict"] == "none":
            continue
        if s["verdict"] == "likely":  # the words match; only reading the code can say it shipped
            refused.append({"id": nid, "verdict": "likely",
                            "reason": "likely, not shipped: a lead to verify (leafwise verify), never closed by --apply"})
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
                                   fix(ctx.cmd("show", nid), "re-read the node"))
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
        rest = ctx.cmd("reconcile", release=release, apply=True)
        return next_(ctx.cmd("reconcile", node=first["id"], apply=True),
                     f"{first['id']} looks shipped ({first['confidence']}): close it with its evidence",
                     or_=rest if len(pending) > 1 else None)
    below = [s for s in items if s["verdict"] == "shipped" and s["id"] not in done and s["confidence"] < threshold]
    likely = [s for s in items if s["verdict"] == "likely"]
    if likely:
        first = likely[0]
        closed = f"closed {len(applied)} shipped node(s); " if applied else ""
        return next_(ctx.cmd("verify", first["id"]),
                     f"{closed}{first['id']} is likely shipped (the words match; not proven): read where its "
                     f"evidence points and record a verdict"
                     + (f"; {len(likely) - 1} more likely" if len(likely) > 1 else ""),
                     or_=ctx.cmd("verify", next=True, agent=placeholder("agent")) if len(likely) > 1 else None)
    if applied:
        reason = f"closed {len(applied)} shipped node(s); take the next task"
    elif did_apply and pending:
        reason = "nothing could be closed (see refused); take the next task"
    elif below:
        reason = (f"{len(below)} look(s) shipped below --min-confidence {threshold}: a person confirms them "
                  f"(canvas: r, then a); take the next task")
    else:
        reason = "nothing looks shipped; take the next task"
    return next_(ctx.cmd("next"), reason)


def _text(items: list[dict[str, Any]], report, applied: list[dict[str, Any]], refused: list[dict[str, Any]],
          counts: dict[str, int]) -> list[str]:
    lines = [f"Reconcile: {len(items)} draft {'leaf' if len(items) == 1 else 'leaves'} against "
             f"{report.scanned_files} files "
             f"({report.indexed} named things, {report.seconds:.2f} s): {counts['shipped']} shipped, "
             f"{counts['likely']} likely, {counts['partial']} partial, {counts['none']} with no evidence"]
    for s in items:
        if s["verdict"] == "none":
            continue
        lines.append(f"  {s['verdict']:8} {s['id']:10} {clean(s['title'])}  ({s['confidence']})")
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
