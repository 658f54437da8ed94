"""Finishing work: `complete` a task, and the cascade that closes each ancestor whose children are closed."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

from leafwise.commands.contract import (
    EXIT_CONFLICT,
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
from leafwise.commands.core import lifecycle, readiness
from leafwise.commands.core.cascade import cascades, closing_status
from leafwise.commands.core.hints import pick_hint
from leafwise.commands.domain import team_reads
from leafwise.commands.domain.claiming import next_view
from leafwise.commands.domain.holds import (
    conflict,
    guard_hold,
    held,
    live_claims,
    other_work,
    pick_for,
    pick_lock,
    team_move,
    unreadable_parents,
)
from leafwise.commands.domain.messages import carry_pick
from leafwise.commands.domain.owed_cascades import close_owed_in, owed
from leafwise.commands.domain.nodes import cascade_changes, change_list, get_node, patch, record, set_fields, write
from leafwise.commands.registry import Ctx
from leafwise.store import Node, Plan, Status
from leafwise.store import claims as leases
from leafwise.store.loader import read_node_file
from leafwise.store.writer import locked, scalar_edits


@contextmanager
def left_in_tree(ctx: Ctx, node_id: str, agent: str | None) -> Iterator[None]:
    """`work_tree.left_in_tree`, imported when a refusal comes: it brings git's runner (subprocess and
    the rest) to every command that imports this module (`start` does), and only a refusal asks git."""
    try:
        yield
    except CommandError:
        from leafwise.commands.domain.work_tree import left_in_tree as naming

        with naming(ctx, node_id, agent):
            raise


def complete(ctx: Ctx, node_id: str, summary: str, agent: str | None = None, force: bool = False) -> Result:
    """Mark a task done with a summary, close the ancestors it finishes, and answer the next task."""
    plan = ctx.plan()
    node = get_node(ctx, node_id, plan)
    node_id = node.id
    agent, force = (clean(agent, 80) if agent else None), ctx.overrides(force)
    summary = summary.strip() if isinstance(summary, str) else ""
    if not summary:
        raise CommandError("empty_summary", "complete needs a summary of what was done",
                           fix(ctx.cmd("complete", node_id, summary=placeholder("summary"), agent=agent),
                               "say what was done"),
                           exit_code=EXIT_USAGE, category="usage", source=("node", node_id))
    if node.status == Status.DONE:
        if (refused := team_reads.finished_by_other(ctx, plan, node_id, agent)) is not None:
            raise refused  # team mode: done here by another holder, whose claim took it from this agent
        return _already_done(ctx, plan, node_id, agent)
    forced_line = ctx.cmd("complete", node_id, summary=summary, force=True)
    with left_in_tree(ctx, node_id, agent):
        _refuse_unfinished(ctx, plan, node, agent, force, forced_line)
    warnings = _warnings(ctx, plan, node, agent)
    from leafwise.commands.domain.cycle_gates import (  # a cycle may require a green verify first
        check_complete,
        owning_cycle,
    )

    check_complete(ctx, node)
    cycle = owning_cycle(ctx, node)
    snapshot = [{"id": a.id, "status": a.status} for a in plan.ancestors(node_id)]
    was_blocked = (node.blocked_reason or "") if node.status == Status.BLOCKED else None
    overridden: list[str] = []

    def finish(doc: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
        if lifecycle.transition("complete", doc.get("status")) is None:
            raise conflict(ctx, "status_changed", f"{node_id} is now {clean(doc.get('status'))}", node, agent,
                           "complete_task")
        holder_now = guard_hold(ctx, node, agent, force, "complete_task", forced_line)
        if holder_now:
            overridden.append(holder_now)
        values: dict[str, Any] = {"status": Status.DONE, "summary": summary}
        if doc.get("blocked_reason") is not None:
            values["blocked_reason"] = None
        return set_fields(doc, values)

    settle = bool(node.parent or owed(plan))  # parents owed their close (children finished apart) close too
    with pick_lock(ctx) if settle else nullcontext(), scalar_edits():  # one step; scalar edits only
        # team mode: `done` on the claim ref first (refused when another clone took the task); the
        # outcome then goes into the YAML of this branch, committed with the code
        with left_in_tree(ctx, node_id, agent):  # a refusal names the agent's changed files and what to do
            team_move(ctx, plan, node, agent, "done", "complete_task", "complete", force=force)
            changes = write(ctx, node, finish)
        leases.remove(ctx.paths(), node_id)
        patch(plan, node_id, {"status": Status.DONE, "summary": summary})
        cascade = close_ancestors(ctx, plan, node)
        settled = close_owed_in(ctx, plan, agent) if settle else []  # each journalled as its cascade
    actor = agent or (ctx.person() if overridden else None)
    record(ctx, "complete", node_id, changes, actor=actor, cascade=cascade, summary=clean(summary, 500),
           forced_by=ctx.person() if overridden else None, holder=overridden[0] if overridden else None)
    forced_from = overridden[0] if overridden else None
    return _answer(ctx, plan, node, agent, summary, changes, (cascade, settled), snapshot, warnings, was_blocked,
                   forced_from, cycle)


def _already_done(ctx: Ctx, plan: Plan, node_id: str, agent: str | None) -> Result:
    """`complete` of a done task: nothing written, the next task named."""
    team_reads.refresh(ctx, plan)
    chosen = pick_for(ctx, agent, plan)
    view = next_view(plan, chosen)
    lines = [f"{node_id} is already done"] + carry_pick(ctx, plan, chosen, view, agent)
    return Result({"id": node_id, "status": Status.DONE, "cascade": [], "next": view},
                  pick_hint(ctx.cmd, chosen, agent), lines,
                  Mutation("complete_task", "complete", False, "already done"))


def _answer(ctx: Ctx, plan: Plan, node: Node, agent: str | None, summary: str, changes: dict[str, Any],
            closes: tuple[list[dict[str, Any]], list[dict[str, Any]]], snapshot: list[dict[str, Any]],
            warnings: list[dict[str, Any]], was_blocked: str | None, forced_from: str | None, cycle: Any) -> Result:
    """What `complete` says: the cascade (its ancestors', then the parents owed theirs), the cleared
    block, the warnings, and the next task (or, for a cycle's task, the cycle's tick)."""
    node_id = node.id
    cascade, settled = closes
    stale = team_reads.refresh(ctx, plan)  # team mode: the next task as the remote has it now, not as last seen
    chosen = pick_for(ctx, agent, plan)
    lines = [f"Completed {node_id} “{clean(node.title)}”" + (f" (taken from {forced_from} by force)"
                                                             if forced_from else "")]
    lines += [f"  cascade: {c['id']} “{clean(c['title'])}” {c['from']} → {c['to']}" for c in cascade]
    lines += [f"  cascade: {c['id']} “{clean(c['title'])}” {c['from']} → {c['to']} (every child is closed)"
              for c in settled]
    if was_blocked is not None:  # finishing it ends the block: say so, the reason leaves the task
        lines.append(f"  it was blocked ({clean(was_blocked or 'no reason', 200)}); the block is cleared")
    lines += [f"  warning: {w['message']}" for w in warnings]
    view = next_view(plan, chosen)
    if chosen.node:
        lines.append(f"Next task: {chosen.node.id} “{clean(chosen.node.title)}”")
        lines += [f"  ({stale}: another clone may have taken it since)"] if stale else []
        lines += carry_pick(ctx, plan, chosen, view, agent)
    hint = pick_hint(ctx.cmd, chosen, agent)
    if chosen.node is None and plan.project.settings.get("team"):  # what is left was finished in other clones
        merged, waiting_on = team_reads.merge_wait(ctx, plan)
        lines += merged
        hint = waiting_on or hint
    if cycle is not None:  # the loop's ledger decides what comes next
        hint = next_(ctx.cmd("cycle tick", cycle.name), f"{node_id} belongs to cycle {cycle.name}")
    return Result(
        {"id": node_id, "status": Status.DONE, "summary": summary, "ancestors_before": snapshot,
         "cascade": cascade, "closed": settled, "next": view, "warnings": warnings,
         "forced_from": forced_from},
        hint, lines,
        Mutation("complete_task", "complete", True, "done" + (" with cascade" if cascade or settled else ""),
                 change_list(node_id, changes) + cascade_changes(cascade + settled)))


def _refuse_unfinished(ctx: Ctx, plan: Plan, node: Node, agent: str | None, force: bool, forced_line: str) -> None:
    """Refuse what cannot be completed now: a closed task, open or unreadable children, another's
    hold, an open decision (a person may force the last two)."""
    node_id = node.id
    if lifecycle.transition("complete", node.status) is None:
        raise conflict(ctx, "closed", f"{node_id} is {node.status}; reopen it first "
                       f"({ctx.cmd('edit', node_id, set=['status=draft'])})", node, agent, "complete_task")
    open_kids = readiness.open_children(plan, node)
    if open_kids:
        raise conflict(ctx, "has_open_children",
                       f"{node_id} has {len(open_kids)} open child node(s), e.g. {open_kids[0]}",
                       node, agent, "complete_task")
    if node_id in unreadable_parents(plan):
        raise conflict(ctx, "child_unreadable", f"a child file of {node_id} does not load; it may still be open",
                       node, agent, "complete_task")
    claim = live_claims(ctx, plan).get(node_id)
    if claim and claim.agent != agent and not force:
        raise held(ctx, node, claim, agent, "complete_task", forced_line)
    if not force and node.open_decision is not None:
        raise CommandError("decision_open", f"{node_id} waits for a person's decision",
                           wait(f"a person answers the decision on {node_id} "
                                f"({ctx.cmd('decide', node_id, option=placeholder('N'))})",
                                "strategic questions are a person's",
                                or_=other_work(ctx, agent) if agent else None),
                           exit_code=EXIT_CONFLICT, category="conflict", source=("node", node_id),
                           mutation=Mutation("complete_task", "decision_open", False, "decision open"))
    if not force and agent and node.assignee and node.assignee != agent and not claim \
            and node.status != Status.DRAFT:  # a lapsed lease: the task is still another agent's to finish
        raise held(ctx, node, leases.Claim(node_id, str(node.assignee), "", "", ""), agent, "complete_task",
                   forced_line)


def _warnings(ctx: Ctx, plan: Plan, node: Node, agent: str | None) -> list[dict[str, Any]]:
    """The plan's errors elsewhere and the open dependencies, as warnings; an agent finishing work
    out of order is refused (the dependency's outcome may change it), a person is not."""
    from leafwise.commands.domain.validation import require_valid_for  # the validator: not on start's path

    node_id = node.id
    warnings = require_valid_for(ctx, plan, node, f"complete {node_id}")
    open_deps = readiness.unmet_dependencies(plan, node)
    if open_deps and ctx.for_agent:
        anyway = ctx.cmd("complete", node_id, summary=placeholder("summary"), force=True)
        raise conflict(ctx, "dependency_open", f"{node_id} depends on {clean(open_deps[0])}, which is not "
                       f"closed; a person may complete it anyway ({anyway})", node, agent, "complete_task")
    return warnings + [{"code": "dependency_open", "severity": "warning", "node": node_id, "file": None,
                        "line": None, "message": f"{node_id} depends on {clean(d)}, which is not closed",
                        "fix": ctx.cmd("show", d)} for d in open_deps[:3]]


def close_ancestors(ctx: Ctx, plan: Plan, node: Node) -> list[dict[str, Any]]:
    """Close each ancestor whose children are now all closed, nearest first.

    Each decision re-reads the children's files under the ancestor's lock, so
    two agents finishing the last two siblings at once still close the parent.
    """
    paths = ctx.paths()
    cascade: list[dict[str, Any]] = []
    unknown = unreadable_parents(plan)
    for ancestor in plan.ancestors(node.id):
        if not cascades(ancestor) or None in unknown or ancestor.id in unknown:
            break  # a child we cannot read may still be open: the parent stays as it is
        with locked(paths, ancestor.id):
            statuses = []
            for child_id in ancestor.children:
                fresh = read_node_file(paths.node_file(child_id))
                statuses.append(fresh.data.get("status") if fresh.data else Status.DRAFT)
            target = closing_status(statuses)
            if target is None:
                break
            before: list[str] = []

            def close(doc: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
                before.append(doc.get("status"))
                return set_fields(doc, {"status": target}) \
                    if lifecycle.transition(f"cascade: {target}", doc.get("status")) else {}

            if not write(ctx, ancestor, close, lock=False):
                break
        cascade.append({"id": ancestor.id, "title": ancestor.title, "from": before[0], "to": target})
        patch(plan, ancestor.id, {"status": target})
    return cascade
