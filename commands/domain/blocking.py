"""Stopping work: `block` a task with a reason, `unblock` it (its status before comes back), `cancel`
a node and its open descendants."""

from __future__ import annotations

from contextlib import nullcontext
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
)
from leafwise.commands.core import lifecycle
from leafwise.commands.core.hints import pick_hint
from leafwise.commands.domain.claiming import next_view
from leafwise.commands.domain.comments import add_comment
from leafwise.commands.domain.finishing import close_ancestors
from leafwise.commands.domain.holds import (
    conflict,
    guard_hold,
    held,
    live_claims,
    pick_for,
    pick_lock,
    team_move,
    team_released,
    ttl_minutes,
)
from leafwise.commands.domain.messages import carry_pick
from leafwise.commands.domain.nodes import cascade_changes, change_list, get_node, patch, plain, record, set_fields, write
from leafwise.commands.registry import Ctx
from leafwise.commands.text import plan_words
from leafwise.store import Status
from leafwise.store import claims as leases
from leafwise.store.ids import agent_problem

REASON_LIMIT = 1000  # characters of a block reason, cancel reason or unblock note


def reason_line(ctx: Ctx, text: str | None, what: str, again: str, node_id: str) -> str:
    """A reason or note as stored: one line, every hidden character shown; refused rather than cut
    when it is longer than a row can carry (details belong in a comment or a doc). `again`: the
    command line that asks once more."""
    value = clean(text, len(str(text)) * 8 + 1) if text else ""  # never cut here
    if len(value) > REASON_LIMIT:
        raise CommandError("too_long", f"the {what} is {len(value):,} characters; a {what} is at most "
                           f"{REASON_LIMIT:,} (put the details in a comment or a doc)",
                           fix(again, f"a shorter {what}"),
                           exit_code=EXIT_USAGE, category="usage", source=("node", node_id))
    return value


def block(ctx: Ctx, node_id: str, reason: str, agent: str | None = None, force: bool = False) -> Result:
    """Block a task with a reason a person can act on; its lease is given up."""
    plan = ctx.plan()
    node = get_node(ctx, node_id, plan)
    node_id = node.id
    agent = clean(agent, 80) if agent else None
    force = ctx.overrides(force)
    again = ctx.cmd("block", node_id, reason=placeholder("reason"), agent=agent)
    reason = reason_line(ctx, reason, "reason", again, node_id)
    if not reason:
        raise CommandError("empty_reason", "block needs a reason a person can act on",
                           fix(again, "say what is missing"),
                           exit_code=EXIT_USAGE, category="usage", source=("node", node_id))
    if lifecycle.transition("block", node.status) is None:
        raise conflict(ctx, "closed", f"{node_id} is {node.status}; closed work cannot be blocked",
                       node, agent, "block_task")
    forced_line = ctx.cmd("block", node_id, reason=reason, force=True)
    claim = live_claims(ctx, plan).get(node_id)
    if claim and claim.agent != agent and not force:
        raise held(ctx, node, claim, agent, "block_task", forced_line)
    now = ctx.clock()
    overridden: list[str] = []

    def mark(doc: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
        status = doc.get("status")
        if lifecycle.transition("block", status) is None:
            raise conflict(ctx, "status_changed", f"{node_id} is now {clean(status)}", node, agent, "block_task")
        holder_now = guard_hold(ctx, node, agent, force, "block_task", forced_line)
        if holder_now:
            overridden.append(holder_now)
        values: dict[str, Any] = {"status": Status.BLOCKED, "blocked_reason": reason}
        if status != Status.BLOCKED:
            values["blocked_from"] = status
            values["blocked_since"] = now
        return set_fields(doc, values)

    team_move(ctx, plan, node, agent, "blocked", "block_task", "block", force=force)  # other clones pass it by
    changes = write(ctx, node, mark)
    leases.remove(ctx.paths(), node_id)
    record(ctx, "block", node_id, changes, actor=agent or (ctx.person() if overridden else None), reason=reason,
           forced_by=ctx.person() if overridden else None, holder=overridden[0] if overridden else None)
    patch(plan, node_id, {"status": Status.BLOCKED, "blocked_reason": reason})
    chosen = pick_for(ctx, agent, plan)
    listed = change_list(node_id, changes)
    view = next_view(plan, chosen)
    return Result({"id": node_id, "status": Status.BLOCKED, "reason": reason, "next": view},
                  pick_hint(ctx.cmd, chosen, agent),
                  [f"Blocked {node_id}: {reason}", *carry_pick(ctx, plan, chosen, view, agent)],
                  Mutation("block_task", "block", bool(listed), "blocked" if listed else "already blocked so",
                           listed))


def _unblocked_hint(ctx: Ctx, node_id: str, status: Any, holder: str | None, claim: Any, agent: str | None):
    other = ctx.cmd("start", agent=agent or placeholder("agent"), next=True)
    if holder:  # an assignee may be any text: only a plain name is handed out as --agent
        return next_(ctx.cmd("complete", node_id, summary=placeholder("summary"),
                             agent=holder if agent_problem(holder) is None else placeholder("agent")),
                     f"back in progress for {plan_words(holder, 80)}" + (f" (lease until {claim.expires})" if claim else ""),
                     or_=other)
    if status == Status.IN_PROGRESS:
        return next_(ctx.cmd("start", node_id, agent=agent or placeholder("agent")), "back in progress, held by no one")
    return next_(other, "the task is available again")


def unblock(ctx: Ctx, node_id: str, note: str | None = None, agent: str | None = None) -> Result:
    """Unblock a task, restoring the status it had before; `note` rides along to the next agent."""
    node = get_node(ctx, node_id, plan := ctx.plan())
    node_id = node.id
    if node.open_decision is not None:  # unblocking would leave the question unanswered for good
        raise CommandError("open_decision", f"{node_id} waits for a person's answer to its decision",
                           fix(ctx.cmd("show", node_id),
                               f"read the question, then answer it: leafwise decide {node_id} --option N"),
                           exit_code=EXIT_CONFLICT, category="conflict", source=("node", node_id))
    note = reason_line(ctx, note, "note", ctx.cmd("unblock", node_id, note=placeholder("text")), node_id) or None
    who = ctx.who(agent) if agent else ctx.person()
    now = ctx.clock()
    at_work = {c.agent for c in leases.read_all(ctx.paths()).values() if not c.expired(now)}
    assigned: list[Any] = []  # the assignee as read under the lock

    def clear(doc: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
        if lifecycle.transition("unblock", doc.get("status")) is None:
            return {}
        before, assignee = doc.get("blocked_from"), doc.get("assignee")
        assigned.append(assignee)
        restored = lifecycle.unblocked_status(before, assignee in at_work)
        values: dict[str, Any] = {"status": restored, "blocked_reason": None}
        if restored == Status.DRAFT and before == Status.IN_PROGRESS and assignee is not None:
            values["assignee"] = None  # its agent is gone: the task is anyone's, as after unclaim
        changed = set_fields(doc, values)
        for key in ("blocked_from", "blocked_since"):
            if key in doc:
                changed[key] = (plain(doc.pop(key)), None)
        if note:
            changed.update(add_comment(doc, {"by": who, "at": now, "kind": "unblock", "text": note}))
        return changed

    if (changes := write(ctx, node, clear)):  # and in team mode the block's claim ref is free again
        team_released(ctx, plan, node, agent, force=True)
    status = changes.get("status", (None, node.status))[1]
    holder = (assigned[0] if assigned else node.assignee) if status == Status.IN_PROGRESS else None
    # Block gave the lease up; back in progress, the holder gets a fresh one, so the task returns to
    # the pool by itself if that agent is gone (a lease-less assignment would hold it for good).
    claim = leases.write(ctx.paths(), node_id, holder, now, ttl_minutes(plan, None)) if holder and changes \
        else leases.read(ctx.paths(), node_id)
    if changes:
        record(ctx, "unblock", node_id, changes, actor=who, note=note,
               claim_expires=claim.expires if claim and holder else None)
    listed = change_list(node_id, changes)
    hint = _unblocked_hint(ctx, node_id, status, holder, claim, agent)
    gone = assigned[0] if assigned and not holder and changes.get("assignee") else None
    lines = _unblocked_lines(node_id, status, holder, gone, note) if listed else [f"{node_id} was not blocked"]
    return Result({"id": node_id, "status": status, "changes": listed, "note": note if listed else None}, hint,
                  lines,
                  Mutation("unblock_task", "unblock", bool(listed),
                           "unblocked" if listed else "not blocked; nothing to do", listed))


def _unblocked_lines(node_id: str, status: str, holder: str | None, gone: str | None, note: str | None) -> list[str]:
    """What unblock says: where the task went (to whom, or why to the pool), and the note."""
    where = (f" (back to {clean(holder, 80)}, at work on other tasks)" if holder else
             f" ({clean(gone, 80)} holds no lease now: any agent may take it)" if gone else "")
    return [f"Unblocked {node_id} → {status}{where}"] + ([f"  note for the agent: {note}"] if note else [])


def cancel(ctx: Ctx, node_id: str, reason: str) -> Result:
    """Cancel a node and its open descendants with a reason; ancestors it closes cascade."""
    plan = ctx.plan()
    node = get_node(ctx, node_id, plan)
    again = ctx.cmd("cancel", node.id, reason=placeholder("reason"))
    reason = reason_line(ctx, reason, "reason", again, node.id)
    if not reason:
        raise CommandError("empty_reason", "cancel needs a reason", fix(again, "say why it is dropped"),
                           exit_code=EXIT_USAGE, category="usage", source=("node", node_id))
    if node.status != Status.CANCELLED and lifecycle.transition("cancel", node.status) is None:
        raise conflict(ctx, "closed", f"{node_id} is {node.status}; {node.status} work is not cancelled", node, None,
                       "cancel_node")
    targets = [node] + [d for d in plan.descendants(node_id) if lifecycle.transition("cancel", d.status)]
    listed: list[dict[str, Any]] = []

    def drop(doc: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
        if lifecycle.transition("cancel", doc.get("status")) is None:
            return {}
        return set_fields(doc, {"status": Status.CANCELLED, "summary": f"Cancelled: {reason}"})

    with pick_lock(ctx) if node.parent else nullcontext():  # as in complete: the cascade is part of the step
        for target in targets:
            changes = write(ctx, target, drop)
            if changes:
                leases.remove(ctx.paths(), target.id)
                patch(plan, target.id, {"status": Status.CANCELLED})
                record(ctx, "cancel", target.id, changes, reason=reason)
                listed += change_list(target.id, changes)
        cascade = close_ancestors(ctx, plan, node)
    if cascade:
        record(ctx, "cascade", node_id, {}, cascade=cascade)
    chosen = pick_for(ctx, None, plan)
    return Result({"id": node_id, "cancelled": sorted({c["id"] for c in listed}), "cascade": cascade},
                  pick_hint(ctx.cmd, chosen, None),
                  [f"Cancelled {node_id}" + (f" and {len(targets) - 1} open descendant(s)" if len(targets) > 1 else "")
                   + f": {reason}"] + [f"  cascade: {c['id']} {c['from']} → {c['to']}" for c in cascade],
                  Mutation("cancel_node", "cancel", bool(listed), "cancelled" if listed else "already closed",
                           listed + cascade_changes(cascade), safe=False))
