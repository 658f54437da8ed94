"""`cycle tick`: begin a cycle's next iteration, or stop the loop at its cap or budget.

The ledger moves first (under the cycle's lock) and only then does the answer say
what this iteration is for; at a limit the loop blocks the task it was stuck on
and escalates to the owner (cycles.py reads a cycle and writes its report).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

from leafwise.commands.contract import (
    EXIT_CONFLICT,
    EXIT_USAGE,
    CommandError,
    Mutation,
    Result,
    done,
    fix,
    next_,
    placeholder,
    wait,
)
from leafwise.commands.core.picker import Pick
from leafwise.commands.core.views import task_view
from leafwise.commands.domain.blocking import block
from leafwise.commands.domain.cycle_gates import FOR_EACH, scope_ids
from leafwise.commands.domain.cycles import (
    count,
    finish,
    load,
    open_items,
    refused,
    reminder,
    report,
    report_lines,
    require_node,
    stuck_on,
)
from leafwise.commands.domain.holds import pick_for
from leafwise.commands.domain.nodes import record
from leafwise.commands.registry import Ctx
from leafwise.commands.text import plan_words
from leafwise.store import CLOSED, Node, Plan, Status
from leafwise.store import cycles as ledger
from leafwise.store.writer import iso, locked

BACKOFF_BASE, BACKOFF_MAX = 5, 300  # seconds: 5, 10, 20 … up to 5 minutes
WORK = {  # what one iteration does, by kind
    FOR_EACH: "do the work",
    "until-goal": "work toward the goal",
    "refine-until-quality": "improve the weakest part; the verify commands are the quality bar",
    "retry-with-backoff": "retry the operation",
    "review": "list the findings of severity critical or block; fix the class of each; "
              "re-check only the affected parts",
}


def _fold_current(plan: Plan, cycle: ledger.Cycle) -> None:
    """For-each: a finished current item joins `items_done`; a blocked or gone one is let go."""
    node = plan.get(cycle.current) if cycle.current else None
    if node is not None and node.status == Status.DONE and node.id not in cycle.items_done:
        cycle.items_done.append(node.id)
    if node is None or node.status in CLOSED or node.status == Status.BLOCKED:
        cycle.current = None


def _pick_item(ctx: Ctx, plan: Plan, cycle: ledger.Cycle) -> Pick:
    """The next work item: a started one in scope first, else the picker's choice inside the scope."""
    started = [n for n in open_items(plan, cycle) if n.status == Status.IN_PROGRESS
               and (cycle.agent is None or n.assignee in (None, cycle.agent))]
    if started:
        return Pick(started[0], "a started item of this cycle: finish it first")
    scope = scope_ids(plan, cycle)
    if scope is not None:  # the picker sees open work outside the scope as blocked
        plan = Plan(plan.paths, plan.project, {
            i: n if i in scope or n.status in CLOSED else replace(n, status=Status.BLOCKED)
            for i, n in plan.nodes.items()}, plan.problems)
    chosen = pick_for(ctx, cycle.agent, plan)
    if scope is not None:
        chosen.blocked = [n for n in chosen.blocked if n.id in scope]
    return chosen


def _goal_reached(plan: Plan, cycle: ledger.Cycle) -> str | None:
    """Why a non-for-each loop is over, or None while it is not."""
    node = plan.get(cycle.node) if cycle.node else None
    if node is not None:
        return f"{node.id} is {node.status}" if node.status in CLOSED else None
    if (cycle.last_verify or {}).get("green"):
        return "the verify commands are green: the goal is reached"
    return None


def _escalation_reason(cycle: ledger.Cycle, what: str, stuck: Node | None) -> str:
    reason = f"cycle {cycle.name} stopped at {what}" + (f" on {stuck.id}" if stuck else "")
    lv = cycle.last_verify or {}
    if stuck is not None and cycle.verify:
        if lv.get("node") != stuck.id:
            reason += "; no verify of it on record"
        elif not lv.get("green"):
            reason += f"; its last verify was red (exit codes {lv.get('exit_codes')})"
    return reason + "; a person decides how to go on"


def _escalate(ctx: Ctx, plan: Plan, cycle: ledger.Cycle, iterations: int, limit: str) -> CommandError:
    """Stop at a limit: block the task it was on, journal an escalation, say so plainly."""
    stuck = stuck_on(plan, cycle)
    what = (f"its cap ({iterations} of {cycle.max_iterations} iterations)" if limit == "cap"
            else f"its token budget ({cycle.tokens_used} of {cycle.token_cap} tokens)")
    reason = _escalation_reason(cycle, what, stuck)
    changes: list[dict[str, Any]] = []
    if stuck is not None:
        changes = block(ctx, stuck.id, reason=reason, agent=cycle.agent).mutation.changes
        plan = ctx.plan()
    cycle.status, cycle.stop_reason, cycle.updated = "escalated", reason, iso(ctx.clock())
    ledger.save(ctx.paths(), cycle)
    account = report(plan, cycle, iterations)
    record(ctx, "cycle escalate", stuck.id if stuck else cycle.node, {}, actor=cycle.agent, cycle=cycle.name,
           limit=limit, reason=reason, escalate_to="owner", iteration=iterations, tokens_used=cycle.tokens_used,
           done=account["done"], left=[i["id"] for i in account["left"]["items"]])
    lines = [f"Cycle {cycle.name} STOPPED at {what}. It did not finish; escalated to the owner.",
             *report_lines(plan, account)]
    if stuck is not None:
        lines.append(f"  {stuck.id} is now blocked: {reason}")
    return CommandError(
        "cycle_cap_reached" if limit == "cap" else "cycle_budget_spent", reason,
        fix(ctx.cmd("cycle status", cycle.name), "the loop is over: report it; a person decides what follows"),
        exit_code=EXIT_CONFLICT, category="refused", source=("cycle", cycle.name),
        details={"cycle": cycle.row(iterations), "report": account}, text=lines,
        mutation=Mutation("cycle_tick", "escalate", True, reason,
                          [{"id": cycle.name, "field": "cycle", "from": "running", "to": "escalated"},
                           *changes]))


def _nothing_ready(ctx: Ctx, cycle: ledger.Cycle, iterations: int, chosen: Pick) -> Result:
    """Open items remain but none can be handed out: wait, and spend no iteration on it."""
    tick_line = ctx.cmd("cycle tick", cycle.name)
    if chosen.held:
        node, claim = chosen.held[0]
        action = wait(f"{plan_words(claim.agent, 80)} holds {node.id} until {claim.expires}; then run {tick_line}", chosen.reason)
    elif chosen.blocked:
        node = chosen.blocked[0]
        action = wait(f"{node.id} is blocked ({plan_words(node.blocked_reason or 'no reason')}); after "
                      f"{ctx.cmd('unblock', node.id)} run {tick_line}", chosen.reason)
    else:
        action = wait(f"an open dependency closes; then run {tick_line}", chosen.reason)
    return Result({"cycle": cycle.row(iterations), "iteration": None, "item": None, "reason": chosen.reason},
                  action, [f"Cycle {cycle.name}: no work item is ready ({chosen.reason}); no iteration spent"],
                  Mutation("cycle_tick", "wait", False, "nothing ready; the ledger did not move"))


def tick(ctx: Ctx, name: str, tokens: int | None = None) -> Result:
    """Count the tokens, then finish, escalate, wait, or move the ledger and begin the next iteration.

    Every step from reading the ledger to writing it back happens under the cycle's one lock,
    so two agents ticking at once can never both pass the cap."""
    ledger.check_name(name)
    if tokens is not None and tokens < 0:
        raise CommandError("negative_tokens", "--tokens counts tokens spent; it cannot be negative",
                           fix(ctx.cmd("cycle tick", name, tokens=0), "report what was spent"),
                           exit_code=EXIT_USAGE, category="usage", source=("cycle", name))
    paths = ctx.paths()
    with locked(paths, ledger.lock_name(name)):
        cycle = load(ctx, name)
        if not cycle.running:
            if cycle.finished:
                why = cycle.stop_reason or "finished"
                return Result({"cycle": cycle.row(count(ctx, cycle)), "report": None}, done(why),
                              [f"Cycle {name} already finished: {why}"],
                              Mutation("cycle_tick", "finish", False, "already finished"))
            raise refused(ctx, cycle, "cycle_tick")
        iterations = count(ctx, cycle)
        plan = ctx.plan()
        require_node(ctx, plan, cycle)
        cycle.tokens_used = min(cycle.tokens_used + (tokens or 0), ledger.MAX_TOKENS)  # past any budget
        if cycle.kind == FOR_EACH:
            _fold_current(plan, cycle)
            if not open_items(plan, cycle):
                return finish(ctx, plan, cycle, iterations, f"every work item is done ({len(cycle.items_done)})",
                              "cycle_tick")
        elif (why := _goal_reached(plan, cycle)) is not None:
            return finish(ctx, plan, cycle, iterations, why, "cycle_tick")
        if cycle.tokens_used >= cycle.token_cap:
            raise _escalate(ctx, plan, cycle, iterations, "budget")
        if iterations >= cycle.max_iterations:
            raise _escalate(ctx, plan, cycle, iterations, "cap")
        item = plan.get(cycle.current) if cycle.current else None
        if cycle.kind == FOR_EACH and item is None:
            chosen = _pick_item(ctx, plan, cycle)
            if chosen.node is None:
                ledger.save(paths, cycle)  # the tokens spent still count
                return _nothing_ready(ctx, cycle, iterations, chosen)
            item = chosen.node
        iterations += 1
        ledger.write_count(paths, name, iterations)  # the ledger moves before anything else
        retry = item is not None and item.id == cycle.current
        backoff = 0
        if cycle.kind == "retry-with-backoff" and iterations > 1:
            backoff = min(BACKOFF_BASE * 2 ** (iterations - 2), BACKOFF_MAX)
            cycle.not_before = iso(ctx.clock() + timedelta(seconds=backoff))
        if cycle.kind == FOR_EACH:
            cycle.current = item.id
        cycle.updated = iso(ctx.clock())
        ledger.save(paths, cycle)
    target = item or (plan.get(cycle.node) if cycle.node else None)
    record(ctx, "cycle tick", target.id if target else None, {}, actor=cycle.agent, cycle=name,
           iteration=iterations, cap=cycle.max_iterations, tokens_used=cycle.tokens_used)
    return _iteration(ctx, plan, cycle, iterations, target, retry, backoff)


def _steps(ctx: Ctx, cycle: ledger.Cycle, target: Node | None, retry: bool, fresh: bool) -> list[str]:
    """This iteration's numbered steps, ending with the next tick."""
    start_line = ctx.cmd("start", target.id, agent=cycle.agent or placeholder("agent")) if target else ""
    steps = [start_line] if fresh else []
    if cycle.kind == "reconcile-config":
        steps.append(ctx.cmd("reconcile", node=cycle.node))
    else:
        steps.append("fix the class of the problem, not just this instance" if retry else WORK[cycle.kind])
    if cycle.verify:
        steps.append(f"{ctx.cmd('cycle verify', cycle.name)}   (runs: {'; '.join(cycle.verify)})")
    if target is not None and target.status not in CLOSED:
        steps.append(ctx.cmd("complete", target.id, summary=placeholder("summary"))
                     + ("   (needs a green verify)" if cycle.verify else ""))
    steps.append(ctx.cmd("cycle tick", cycle.name, tokens=placeholder("tokens")))
    return steps


def _iteration(ctx: Ctx, plan: Plan, cycle: ledger.Cycle, iterations: int, target: Node | None, retry: bool,
               backoff: int) -> Result:
    """What this iteration is for, by kind, with the steps and the one next action."""
    name = cycle.name
    verify_line = ctx.cmd("cycle verify", name)
    lines = [f"Iteration {iterations} of {cycle.max_iterations} · cycle {name} ({cycle.kind}) · "
             f"tokens {cycle.tokens_used} of {cycle.token_cap}"]
    if target is not None:
        label = "Still on" if retry else "Work item" if cycle.kind == FOR_EACH else "Task"
        lines.append(f"{label}: {target.id} {target.title!r}"
                     + (" (not done yet: fix the class of the problem)" if retry else ""))
    fresh = cycle.kind == FOR_EACH and target is not None and target.status == Status.DRAFT
    steps = _steps(ctx, cycle, target, retry, fresh)
    lines += [f"  {i}. {s}" for i, s in enumerate(steps, 1)]
    if iterations >= cycle.max_iterations:
        lines.append("Last iteration: if the work is not done after it, the next tick stops the loop and escalates.")
    lines += reminder(cycle)
    if backoff:
        action = wait(f"{backoff} seconds (until {cycle.not_before}); then retry and run {verify_line}",
                      f"back-off before retry {iterations}")
    elif fresh:
        action = next_(steps[0], "this iteration's work item")
    elif cycle.kind == "reconcile-config":
        action = next_(steps[0], "reconcile, then verify", or_=verify_line if cycle.verify else None)
    elif cycle.verify or target is None:
        action = next_(verify_line, "after the work, Leafwise runs the verify commands")
    else:
        action = next_(ctx.cmd("complete", target.id, summary=placeholder("summary")),
                       "no verify commands: complete the work when it is done",
                       or_=ctx.cmd("block", target.id, reason=placeholder("reason")))
    result = {"cycle": cycle.row(iterations), "iteration": iterations, "cap": cycle.max_iterations,
              "last": iterations >= cycle.max_iterations, "item": task_view(plan, target) if target else None,
              "retry": retry, "steps": steps, "verify": cycle.verify, "off_limits": cycle.off_limits,
              "backoff_seconds": backoff or None}
    return Result(result, action, lines,
                  Mutation("cycle_tick", "tick", True, f"iteration {iterations} of {cycle.max_iterations}",
                           [{"id": name, "field": "count", "from": iterations - 1, "to": iterations}]))
