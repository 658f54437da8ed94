"""The agent loop: next, start, complete (with cascade), block, unblock, cancel."""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, nullcontext
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
    quote,
    wait,
)
from leafwise.commands.core.cascade import cascades, closing_status
from leafwise.commands.core import lifecycle, readiness
from leafwise.commands.core.hints import agent_arg, blocker_hint, pick_hint
from leafwise.commands.core.picker import Pick, pick, until
from leafwise.commands.core.views import message_lines, task_view
from leafwise.commands.handlers.shared import (
    cascade_changes,
    change_list,
    get_node,
    live_claims,
    move_status,
    pick_for,
    plain,
    record,
    require_project,
    set_fields,
    ttl_minutes,
    unreadable_parents,
    write,
)
from leafwise.commands.handlers.validation import require_valid_for
from leafwise.commands.registry import Ctx, Param, command
from leafwise.store import Node, Plan, Status
from leafwise.store import claims as leases
from leafwise.store.loader import read_node_file
from leafwise.store.writer import LockBusy, locked

ID = Param("node_id", "node id", positional=True, required=True)
AGENT = Param("agent", "the agent's name (e.g. claude-1)")

MAX_TTL_MINUTES = 7 * 24 * 60  # a lease longer than a week is a mistake, not a plan


def _conflict(ctx: Ctx, code: str, message: str, node: Node, agent: str | None, tool: str,
              action=None) -> CommandError:
    alt = ctx.cmd(f"start --next --agent {agent_arg(agent)}") if agent else ctx.cmd("next")
    return CommandError(code, message, action or fix(alt, "take another task"),
                        exit_code=EXIT_CONFLICT, category="conflict", source=("node", node.id),
                        mutation=Mutation(tool, code, False, message))


ONE_LINE_LIMIT = 1000  # characters of a block reason, cancel reason or unblock note


def one_line(ctx: Ctx, text: str | None, what: str, again: str, node_id: str) -> str:
    """A reason or note as stored: one line, every hidden character shown; refused rather than cut
    when it is longer than a row can carry (details belong in a comment or a doc)."""
    value = clean(text, len(str(text)) * 8 + 1) if text else ""  # never cut here
    if len(value) > ONE_LINE_LIMIT:
        raise CommandError("too_long", f"the {what} is {len(value):,} characters; a {what} is at most "
                           f"{ONE_LINE_LIMIT:,} (put the details in a comment or a doc)",
                           fix(ctx.cmd(again), f"a shorter {what}"),
                           exit_code=EXIT_USAGE, category="usage", source=("node", node_id))
    return value


def _held(ctx: Ctx, node: Node, claim: leases.Claim, agent: str | None, tool: str,
          forced: str | None = None) -> CommandError:
    """Exit 3 with `Wait:` for the lease; `Or:` other work for an agent, `--force` for a person."""
    if agent:
        alt = ctx.cmd(f"start --next --agent {agent_arg(agent)}")
    else:
        alt = ctx.cmd(forced) if forced else None
    message = f"{node.id} is held by {claim.agent} {until(claim)}"
    return CommandError("claim_held", message,
                        wait(f"{claim.agent} holds {node.id} {until(claim)}", "held by another agent",
                             or_=alt),
                        exit_code=EXIT_CONFLICT, category="held_by_other_agent", source=("node", node.id),
                        details={"holder": claim.agent, "expires": claim.expires},
                        mutation=Mutation(tool, "claim_held", False, message))


def check_ttl(ctx: Ctx, ttl: float | None, line: str) -> float | None:
    """A lease length in minutes: a positive finite number up to a week, or a usage error."""
    if ttl is None:
        return None
    if not isinstance(ttl, (int, float)) or not math.isfinite(ttl) or not 0 < ttl <= MAX_TTL_MINUTES:
        raise CommandError("invalid_ttl", f"--ttl {ttl!s} is not a number of minutes between 0 and "
                           f"{MAX_TTL_MINUTES} (a week)", fix(ctx.cmd(f"{line} --ttl 60"), "a lease of an hour"),
                           exit_code=EXIT_USAGE, category="usage")
    return float(ttl)


def holding(ctx: Ctx, node: Node, now) -> leases.Claim | None:
    """Who holds the node now, its lease and file read under its lock (the rule of `readiness.hold_from`)."""
    paths = ctx.paths()
    lease = leases.read(paths, node.id)
    data = {} if lease is not None else read_node_file(paths.node_file(node.id)).data or {}
    return readiness.hold_from(node.id, lease, now, data.get("status"), data.get("assignee"), not node.children)


def guard_hold(ctx: Ctx, node: Node, agent: str | None, force: bool, tool: str, forced_line: str) -> str | None:
    """Refuse to touch a task another agent holds unless a person forces it.

    Call under the node's lock. Returns the holder overridden by --force (to journal), else None.
    """
    claim = holding(ctx, node, ctx.clock())
    if claim is None or claim.agent == agent:
        return None
    if not force:
        raise _held(ctx, node, claim, agent, tool, forced_line)
    return claim.agent


def _task_lines(view: dict[str, Any]) -> list[str]:
    lines = message_lines(view.get("messages") or [])
    if view.get("inherited_docs"):
        lines.append("  docs from above: " + ", ".join(f"{d['path']} ({d['from']})" for d in view["inherited_docs"]))
    return lines


@command("next", "The task to work on now (one plan state, one answer).", mutating=False,
         tool="get_next_task", idempotent=True,
         params=(AGENT, Param("explain", "say why the nearest other nodes were passed over", type=bool)))
def next_task(ctx: Ctx, agent: str | None = None, explain: bool = False) -> Result:
    plan = ctx.plan()
    chosen = pick_for(ctx, agent, plan, explain=explain)
    hint = pick_hint(ctx.cmd, chosen, agent)
    result: dict[str, Any] = {"task": task_view(plan, chosen.node) if chosen.node else None,
                              "reason": chosen.reason, "resumed": chosen.resumed,
                              "open": chosen.open_count,
                              "blocked": [n.id for n in chosen.blocked[:20]],
                              "held": [{"id": n.id, "agent": c.agent, "expires": c.expires}
                                       for n, c in chosen.held[:20]]}
    if explain:
        result["passed_over"] = chosen.passed
    lines: list[str] = []
    if chosen.node:
        path = " › ".join(a["title"] for a in result["task"]["ancestors"])
        lines.append(f"{chosen.node.id}  {clean(chosen.node.title)}" + (f"   ({clean(path, 300)})" if path else ""))
        lines.append(f"  why: {chosen.reason}")
        lines += _task_lines(result["task"])
    else:
        lines.append(f"No task to hand out: {chosen.reason}")
    for item in chosen.passed:
        lines.append(f"  passed over {item['id']} “{clean(item['title'])}”: {clean(item['why'])}")
    return Result(result, hint, lines)


@command("start", "Claim a task for an agent and mark it (and its draft ancestors) in progress; "
         "--next picks and claims in one step.",
         mutating=True, tool="start_task", idempotent=True,
         params=(Param("node_id", "node id (or --next)", positional=True),
                 Param("agent", "the agent's name (e.g. claude-1)", required=True),
                 Param("ttl", "lease length in minutes (default 60)", type=float),
                 Param("next", "pick the next task and claim it under one lock", type=bool)))
def start(ctx: Ctx, node_id: str | None = None, agent: str = "", ttl: float | None = None,
          next: bool = False) -> Result:  # noqa: A002 - the flag's name
    agent = clean(agent, 80) if agent else ""
    line = f"start {node_id}" if node_id and not next else "start --next"
    if not agent:
        raise CommandError("missing_agent", "--agent must name the agent",
                           fix(ctx.cmd(f"{line} --agent <agent>"), "say who works on it"),
                           exit_code=EXIT_USAGE, category="usage")
    ttl = check_ttl(ctx, ttl, f"{line} --agent {agent_arg(agent)}")
    if next and node_id:
        raise CommandError("usage", "give a node id or --next, not both",
                           fix(ctx.cmd(f"start --next --agent {agent_arg(agent)}"), "let the picker choose"),
                           exit_code=EXIT_USAGE, category="usage")
    if not next and not node_id:
        raise CommandError("missing_argument", "start needs a node id or --next",
                           fix(ctx.cmd(f"start --next --agent {agent_arg(agent)}"), "let the picker choose"),
                           exit_code=EXIT_USAGE, category="usage")
    if next:
        return _start_next(ctx, agent, ttl)
    plan = ctx.plan()
    node = get_node(ctx, node_id, plan)
    if not node.children:
        return _claim(ctx, plan, node, agent, ttl)
    with _pick_lock(ctx):  # a parent: judge its children as they are once no cascade is half done
        plan = ctx.plan(fresh=True)
        return _claim(ctx, plan, get_node(ctx, node.id, plan), agent, ttl)


@contextmanager
def _pick_lock(ctx: Ctx) -> Iterator[None]:
    """The plan's pick lock. `start --next` chooses under it, a parent is claimed under it and a
    completion closes its ancestors under it: so no agent is handed a parent in the moment between
    its last child's completion and the cascade that closes it."""
    stack = ExitStack()
    try:
        stack.enter_context(locked(ctx.paths(), "pick"))
    except LockBusy as exc:
        raise CommandError("lock_busy", str(exc), wait("the pick lock is free (a few seconds)",
                                                       "other agents are taking or finishing work"),
                           exit_code=EXIT_CONFLICT, category="conflict") from exc
    with stack:
        yield


LOST_RACE = {"claim_held", "status_changed", "lock_busy", "closed", "blocked", "has_open_children",
             "dependency_open"}


def _start_next(ctx: Ctx, agent: str, ttl: float | None) -> Result:
    """Pick and claim under the plan's pick lock; a task lost to a writer outside it is skipped."""
    skipped: set[str] = set()
    with _pick_lock(ctx):
        for _ in range(50):
            plan = ctx.plan(fresh=True)
            claims = live_claims(ctx, plan)
            chosen = pick(plan, claims, agent, exclude=(unreadable_parents(plan) - {None}) | skipped)
            if chosen.node is None:
                return Result({"task": None, "reason": chosen.reason, "open": chosen.open_count,
                               "claim": None, "cascade": []},
                              pick_hint(ctx.cmd, chosen, agent), [f"No task to hand out: {chosen.reason}"],
                              Mutation("start_task", "start", False, chosen.reason))
            try:
                return _claim(ctx, plan, chosen.node, agent, ttl, why=chosen.reason)
            except CommandError as exc:
                if exc.code not in LOST_RACE:
                    raise
                skipped.add(chosen.node.id)
                ctx.forget()
    raise CommandError("lock_busy", "every candidate changed while being claimed",
                       wait("the plan settles (a few seconds)", "many writers at once"),
                       exit_code=EXIT_CONFLICT, category="conflict")


START_REFUSALS = {readiness.CLOSED_KIND: ("closed", "{id} is {status}; closed work is not restarted"),
                  readiness.BLOCKED_KIND: ("blocked", "{id} is blocked: {reason}"),
                  readiness.OPEN_CHILDREN_KIND: ("has_open_children", "{id} has {count} open child node(s); a parent "
                                                 "is work only once its children are closed"),
                  readiness.UNMET_KIND: ("dependency_open", "{id} depends on {first}, which is not closed"),
                  readiness.MISSING_KIND: ("dependency_open", "{id} depends on {first}, which does not exist")}


def _not_ready(ctx: Ctx, plan: Plan, node: Node, found: readiness.Blocker, agent: str) -> CommandError:
    """`start` refused for what `readiness.blocker` found; a missing dependency gets its own fix."""
    code, text = START_REFUSALS[found.kind]
    message = text.format(id=node.id, status=node.status, reason=clean(node.blocked_reason), count=len(found.ids),
                          first=clean(found.ids[0]) if found.ids else "")
    action = None
    if found.kind == readiness.MISSING_KIND:  # no other task makes this one startable: repair the plan
        repair = blocker_hint(ctx.cmd, plan, node, found, {})
        action = fix(repair.command, repair.reason, or_=ctx.cmd(f"start --next --agent {agent_arg(agent)}"))
    return _conflict(ctx, code, message, node, agent, "start_task", action)


def _claim(ctx: Ctx, plan: Plan, node: Node, agent: str, ttl: float | None, why: str | None = None) -> Result:
    node_id = node.id
    require_project(ctx, plan, f"start {node_id}")  # complete would refuse the work later
    ttl = ttl_minutes(plan, ttl)
    found = readiness.blocker(plan, node, {}, agent)  # the holds are judged under the node's lock below
    if found is not None:
        raise _not_ready(ctx, plan, node, found, agent)
    now = ctx.clock()
    paths = ctx.paths()
    try:
        with locked(paths, node_id):
            claim = leases.read(paths, node_id)
            fresh = read_node_file(paths.node_file(node_id))
            if fresh.data is None or lifecycle.transition("start", fresh.data.get("status")) is None:
                status = fresh.data.get("status") if fresh.data else "unreadable"
                raise _conflict(ctx, "status_changed", f"{node_id} is now {clean(status)}", node, agent,
                                "start_task")
            hold = holding(ctx, node, now)
            if hold and hold.agent != agent:
                raise _held(ctx, node, hold, agent, "start_task")
            ours = claim is not None and claim.agent == agent and not claim.expired(now)
            new_claim = leases.write(paths, node_id, agent, now, ttl, since=claim.since if ours else None)
            try:
                changes = write(ctx, node, lambda doc: set_fields(doc, {"status": Status.IN_PROGRESS,
                                                                        "assignee": agent}), lock=False)
            except BaseException:
                if not ours:  # no claim left behind for a task that was never marked started
                    leases.remove(paths, node_id)
                raise
    except LockBusy as exc:
        raise CommandError("lock_busy", str(exc), wait(f"the lock on {node_id} is free (a few seconds)",
                                                       "another writer is changing it"),
                           exit_code=EXIT_CONFLICT, category="conflict", source=("node", node_id)) from exc
    cascade = _open_ancestors(ctx, plan, node)
    record(ctx, "start", node_id, changes, actor=agent, cascade=cascade, claim_expires=new_claim.expires)
    listed = change_list(node_id, changes)
    view = task_view(plan, node)
    view["status"] = Status.IN_PROGRESS
    finish = ctx.cmd(f'complete {node_id} --summary "<summary>" --agent {agent_arg(agent)}')
    if node.docs or view["inherited_docs"]:
        hint = next_(ctx.cmd(f"doc {node_id} --agent {agent_arg(agent)}"),
                     "read the task's docs (and its parents') before the code",
                     or_=finish)
    else:
        hint = next_(finish, "no docs: do the work, then complete",
                     or_=ctx.cmd(f'block {node_id} --reason "<reason>" --agent {agent_arg(agent)}'))
    lines = [f"Started {node_id} “{clean(node.title)}” for {agent} (lease until {new_claim.expires})"]
    if why:
        lines.append(f"  why: {why}")
    lines += [f"  {c['id']}: {c['from']} → {c['to']}" for c in cascade]
    lines += _task_lines(view)
    return Result({"task": view, "claim": new_claim.as_dict(), "cascade": cascade}, hint, lines,
                  Mutation("start_task", "start", True, "claimed and started",
                           listed + cascade_changes(cascade)))


def _open_ancestors(ctx: Ctx, plan: Plan, node: Node) -> list[dict[str, Any]]:
    """Mark draft ancestors in progress (each re-checked under its own lock)."""
    cascade: list[dict[str, Any]] = []
    for ancestor in plan.ancestors(node.id):
        row = lifecycle.transition("start: draft ancestors", ancestor.status)
        if row is not None and (moved := move_status(ctx, ancestor, ancestor.status, row.target)):
            cascade.append(moved)
    return cascade


def _close_ancestors(ctx: Ctx, plan: Plan, node: Node) -> list[dict[str, Any]]:
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
        _patch(plan, ancestor.id, {"status": target})
    return cascade


def _patch(plan: Plan, node_id: str, values: dict[str, Any]) -> None:
    """Keep the in-memory plan in step with what was written (for the follow-up pick)."""
    node = plan.nodes[node_id]
    node.data.update(values)
    node.status = Status(node.data["status"])


FORCE = Param("force", "a person overrides another agent's lease (journaled with who)", type=bool)


@command("complete", "Mark a task done with a summary; closed ancestors cascade; answers the next task.",
         mutating=True, tool="complete_task",
         params=(ID, Param("summary", "what was done (one or two sentences)", required=True), AGENT, FORCE))
def complete(ctx: Ctx, node_id: str, summary: str, agent: str | None = None, force: bool = False) -> Result:
    plan = ctx.plan()
    node = get_node(ctx, node_id, plan)
    node_id = node.id
    agent = clean(agent, 80) if agent else None
    summary = summary.strip() if isinstance(summary, str) else ""
    if not summary:
        raise CommandError("empty_summary", "complete needs a summary of what was done",
                           fix(ctx.cmd(f'complete {node_id} --summary "<summary>"'
                                       + (f" --agent {agent_arg(agent)}" if agent else "")), "say what was done"),
                           exit_code=EXIT_USAGE, category="usage", source=("node", node_id))
    if node.status == Status.DONE:
        chosen = pick_for(ctx, agent, plan)
        return Result({"id": node_id, "status": Status.DONE, "cascade": [], "next": _next_view(plan, chosen)},
                      pick_hint(ctx.cmd, chosen, agent), [f"{node_id} is already done"],
                      Mutation("complete_task", "complete", False, "already done"))
    if lifecycle.transition("complete", node.status) is None:
        raise _conflict(ctx, "closed", f"{node_id} is {node.status}; reopen it first "
                        f"({ctx.cmd(f'edit {node_id} --set status=draft')})", node, agent, "complete_task")
    open_kids = readiness.open_children(plan, node)
    if open_kids:
        raise _conflict(ctx, "has_open_children",
                        f"{node_id} has {len(open_kids)} open child node(s), e.g. {open_kids[0]}",
                        node, agent, "complete_task")
    if node_id in unreadable_parents(plan):
        raise _conflict(ctx, "child_unreadable", f"a child file of {node_id} does not load; it may still be open",
                        node, agent, "complete_task")
    forced_line = f'complete {node_id} --summary {quote(summary)} --force'
    held = live_claims(ctx, plan).get(node_id)
    if held and held.agent != agent and not force:
        raise _held(ctx, node, held, agent, "complete_task", forced_line)
    if not force and node.open_decision is not None:
        raise CommandError("decision_open", f"{node_id} waits for a person's decision",
                           wait(f"a person answers the decision on {node_id} "
                                f"({ctx.cmd(f'decide {node_id} --option <N>')})", "strategic questions are a person's",
                                or_=ctx.cmd(f"start --next --agent {agent_arg(agent)}") if agent else None),
                           exit_code=EXIT_CONFLICT, category="conflict", source=("node", node_id),
                           mutation=Mutation("complete_task", "decision_open", False, "decision open"))
    if not force and agent and node.assignee and node.assignee != agent and not held \
            and node.status != Status.DRAFT:  # a lapsed lease: the task is still another agent's to finish
        raise _held(ctx, node, leases.Claim(node_id, str(node.assignee), "", "", ""), agent, "complete_task",
                    forced_line)
    warnings = require_valid_for(ctx, plan, node, f"complete {node_id}")
    open_deps = readiness.unmet_dependencies(plan, node)
    if open_deps and agent and not force:  # work out of order: the dependency's outcome may change it
        anyway = ctx.cmd(f'complete {node_id} --summary "<summary>" --force')
        raise _conflict(ctx, "dependency_open", f"{node_id} depends on {clean(open_deps[0])}, which is not "
                        f"closed; a person may complete it anyway ({anyway})", node, agent, "complete_task")
    warnings += [{"code": "dependency_open", "severity": "warning", "node": node_id, "file": None, "line": None,
                  "message": f"{node_id} depends on {clean(d)}, which is not closed", "fix": ctx.cmd(f"show {d}")}
                 for d in open_deps[:3]]
    from leafwise.commands.handlers.cycle_gates import (  # a cycle may require a green verify first
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
            raise _conflict(ctx, "status_changed", f"{node_id} is now {clean(doc.get('status'))}", node, agent,
                            "complete_task")
        holder_now = guard_hold(ctx, node, agent, force, "complete_task", forced_line)
        if holder_now:
            overridden.append(holder_now)
        values: dict[str, Any] = {"status": Status.DONE, "summary": summary}
        if doc.get("blocked_reason") is not None:
            values["blocked_reason"] = None
        return set_fields(doc, values)

    with _pick_lock(ctx) if node.parent else nullcontext():  # the node and its cascade, seen as one step
        changes = write(ctx, node, finish)
        leases.remove(ctx.paths(), node_id)
        _patch(plan, node_id, {"status": Status.DONE, "summary": summary})
        cascade = _close_ancestors(ctx, plan, node)
    actor = agent or (ctx.person() if overridden else None)
    record(ctx, "complete", node_id, changes, actor=actor, cascade=cascade, summary=clean(summary, 500),
           forced_by=ctx.person() if overridden else None, holder=overridden[0] if overridden else None)
    chosen = pick_for(ctx, agent, plan)
    listed = change_list(node_id, changes)
    lines = [f"Completed {node_id} “{clean(node.title)}”" + (f" (taken from {overridden[0]} by force)"
                                                             if overridden else "")]
    lines += [f"  cascade: {c['id']} “{clean(c['title'])}” {c['from']} → {c['to']}" for c in cascade]
    if was_blocked is not None:  # finishing it ends the block: say so, the reason leaves the task
        lines.append(f"  it was blocked ({clean(was_blocked or 'no reason', 200)}); the block is cleared")
    lines += [f"  warning: {w['message']}" for w in warnings]
    if chosen.node:
        lines.append(f"Next task: {chosen.node.id} “{clean(chosen.node.title)}”")
    hint = pick_hint(ctx.cmd, chosen, agent)
    if cycle is not None:  # the loop's ledger decides what comes next
        hint = next_(ctx.cmd(f"cycle tick {quote(cycle.name)}"), f"{node_id} belongs to cycle {cycle.name}")
    return Result(
        {"id": node_id, "status": Status.DONE, "summary": summary, "ancestors_before": snapshot,
         "cascade": cascade, "next": _next_view(plan, chosen), "warnings": warnings,
         "forced_from": overridden[0] if overridden else None},
        hint, lines,
        Mutation("complete_task", "complete", True, "done" + (" with cascade" if cascade else ""),
                 listed + cascade_changes(cascade)))


def _next_view(plan: Plan, chosen: Pick) -> dict[str, Any] | None:
    return task_view(plan, chosen.node) if chosen.node else None


@command("block", "Block a task with a reason (shown wherever the task is).", mutating=True,
         tool="block_task", idempotent=True,
         params=(ID, Param("reason", "why it cannot go on", required=True), AGENT, FORCE))
def block(ctx: Ctx, node_id: str, reason: str, agent: str | None = None, force: bool = False) -> Result:
    plan = ctx.plan()
    node = get_node(ctx, node_id, plan)
    node_id = node.id
    agent = clean(agent, 80) if agent else None
    again = f'block {node_id} --reason "<reason>"' + (f" --agent {agent_arg(agent)}" if agent else "")
    reason = one_line(ctx, reason, "reason", again, node_id)
    if not reason:
        raise CommandError("empty_reason", "block needs a reason a person can act on",
                           fix(ctx.cmd(again), "say what is missing"),
                           exit_code=EXIT_USAGE, category="usage", source=("node", node_id))
    if lifecycle.transition("block", node.status) is None:
        raise _conflict(ctx, "closed", f"{node_id} is {node.status}; closed work cannot be blocked",
                        node, agent, "block_task")
    forced_line = f"block {node_id} --reason {quote(reason)} --force"
    held = live_claims(ctx, plan).get(node_id)
    if held and held.agent != agent and not force:
        raise _held(ctx, node, held, agent, "block_task", forced_line)
    now = ctx.clock()
    overridden: list[str] = []

    def mark(doc: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
        status = doc.get("status")
        if lifecycle.transition("block", status) is None:
            raise _conflict(ctx, "status_changed", f"{node_id} is now {clean(status)}", node, agent, "block_task")
        holder_now = guard_hold(ctx, node, agent, force, "block_task", forced_line)
        if holder_now:
            overridden.append(holder_now)
        values: dict[str, Any] = {"status": Status.BLOCKED, "blocked_reason": reason}
        if status != Status.BLOCKED:
            values["blocked_from"] = status
            values["blocked_since"] = now
        return set_fields(doc, values)

    changes = write(ctx, node, mark)
    leases.remove(ctx.paths(), node_id)
    record(ctx, "block", node_id, changes, actor=agent or (ctx.person() if overridden else None), reason=reason,
           forced_by=ctx.person() if overridden else None, holder=overridden[0] if overridden else None)
    _patch(plan, node_id, {"status": Status.BLOCKED, "blocked_reason": reason})
    chosen = pick_for(ctx, agent, plan)
    listed = change_list(node_id, changes)
    return Result({"id": node_id, "status": Status.BLOCKED, "reason": reason, "next": _next_view(plan, chosen)},
                  pick_hint(ctx.cmd, chosen, agent), [f"Blocked {node_id}: {reason}"],
                  Mutation("block_task", "block", bool(listed), "blocked" if listed else "already blocked so",
                           listed))


@command("unblock", "Unblock a task, restoring the status it had before; --note tells the agent why.",
         mutating=True, tool="unblock_task", idempotent=True,
         params=(ID, Param("note", "a word for the agent who takes the task next (shown until it is done)"),
                 AGENT))
def unblock(ctx: Ctx, node_id: str, note: str | None = None, agent: str | None = None) -> Result:
    plan = ctx.plan()
    node = get_node(ctx, node_id, plan)
    node_id = node.id
    if node.open_decision is not None:  # unblocking would leave the question unanswered for good
        raise CommandError("open_decision", f"{node_id} waits for a person's answer to its decision",
                           fix(ctx.cmd(f"show {node_id}"),
                               f"read the question, then answer it: leafwise decide {node_id} --option N"),
                           exit_code=EXIT_CONFLICT, category="conflict", source=("node", node_id))
    note = one_line(ctx, note, "note", f'unblock {node_id} --note "<text>"', node_id) or None
    who = ctx.who(agent) if agent else ctx.person()
    now = ctx.clock()

    def clear(doc: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
        if lifecycle.transition("unblock", doc.get("status")) is None:
            return {}
        before = doc.get("blocked_from")
        restored = before if before in lifecycle.RESTORED else Status.DRAFT
        changed = set_fields(doc, {"status": restored, "blocked_reason": None})
        for key in ("blocked_from", "blocked_since"):
            if key in doc:
                changed[key] = (plain(doc.pop(key)), None)
        if note:
            changed.update(add_comment(doc, {"by": who, "at": now, "kind": "unblock", "text": note}))
        return changed

    changes = write(ctx, node, clear)
    status = changes.get("status", (None, node.status))[1]
    holder = node.assignee if status == Status.IN_PROGRESS else None
    # Block gave the lease up; back in progress, the holder gets a fresh one, so the task returns to
    # the pool by itself if that agent is gone (a lease-less assignment would hold it for good).
    claim = leases.write(ctx.paths(), node_id, holder, now, ttl_minutes(plan, None)) if holder and changes \
        else leases.read(ctx.paths(), node_id)
    if changes:
        record(ctx, "unblock", node_id, changes, actor=who, note=note,
               claim_expires=claim.expires if claim and holder else None)
    listed = change_list(node_id, changes)
    other = ctx.cmd(f"start --next --agent {agent_arg(agent)}")
    if holder:
        hint = next_(ctx.cmd(f'complete {node_id} --summary "<summary>" --agent {agent_arg(holder)}'),
                     f"back in progress for {holder}" + (f" (lease until {claim.expires})" if claim else ""),
                     or_=other)
    elif status == Status.IN_PROGRESS:
        hint = next_(ctx.cmd(f"start {node_id} --agent {agent_arg(agent)}"), "back in progress, held by no one")
    else:
        hint = next_(other, "the task is available again")
    lines = [f"Unblocked {node_id} → {status}" if listed else f"{node_id} was not blocked"]
    if note and listed:
        lines.append(f"  note for the agent: {note}")
    return Result({"id": node_id, "status": status, "changes": listed, "note": note if listed else None}, hint,
                  lines,
                  Mutation("unblock_task", "unblock", bool(listed),
                           "unblocked" if listed else "not blocked; nothing to do", listed))


def add_comment(doc: dict[str, Any], item: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """Append a comment to a node mapping (round-trip: a block list of flow mappings)."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    current = doc.get("comments")
    before = plain(current) if current is not None else None
    if not isinstance(current, list):
        current = CommentedSeq()
        doc["comments"] = current
    entry = CommentedMap((k, v) for k, v in item.items() if v is not None)
    entry.fa.set_flow_style()
    current.append(entry)
    return {"comments": (before, plain(current))}


@command("cancel", "Cancel a node (and its open descendants) with a reason.", mutating=True,
         tool="cancel_node", destructive=True, idempotent=True,
         params=(ID, Param("reason", "why the work is dropped", required=True)))
def cancel(ctx: Ctx, node_id: str, reason: str) -> Result:
    plan = ctx.plan()
    node = get_node(ctx, node_id, plan)
    reason = one_line(ctx, reason, "reason", f'cancel {node.id} --reason "<reason>"', node.id)
    if not reason:
        raise CommandError("empty_reason", "cancel needs a reason",
                           fix(ctx.cmd(f'cancel {node_id} --reason "<reason>"'), "say why it is dropped"),
                           exit_code=EXIT_USAGE, category="usage", source=("node", node_id))
    if node.status != Status.CANCELLED and lifecycle.transition("cancel", node.status) is None:
        raise _conflict(ctx, "closed", f"{node_id} is {node.status}; {node.status} work is not cancelled", node, None,
                        "cancel_node")
    targets = [node] + [d for d in plan.descendants(node_id) if lifecycle.transition("cancel", d.status)]
    listed: list[dict[str, Any]] = []

    def drop(doc: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
        if lifecycle.transition("cancel", doc.get("status")) is None:
            return {}
        return set_fields(doc, {"status": Status.CANCELLED, "summary": f"Cancelled: {reason}"})

    with _pick_lock(ctx) if node.parent else nullcontext():  # as in complete: the cascade is part of the step
        for target in targets:
            changes = write(ctx, target, drop)
            if changes:
                leases.remove(ctx.paths(), target.id)
                _patch(plan, target.id, {"status": Status.CANCELLED})
                record(ctx, "cancel", target.id, changes, reason=reason)
                listed += change_list(target.id, changes)
        cascade = _close_ancestors(ctx, plan, node)
    if cascade:
        record(ctx, "cascade", node_id, {}, cascade=cascade)
    chosen = pick_for(ctx, None, plan)
    return Result({"id": node_id, "cancelled": sorted({c["id"] for c in listed}), "cascade": cascade},
                  pick_hint(ctx.cmd, chosen, None),
                  [f"Cancelled {node_id}" + (f" and {len(targets) - 1} open descendant(s)" if len(targets) > 1 else "")
                   + f": {reason}"] + [f"  cascade: {c['id']} {c['from']} → {c['to']}" for c in cascade],
                  Mutation("cancel_node", "cancel", bool(listed), "cancelled" if listed else "already closed",
                           listed + cascade_changes(cascade), safe=False))

