"""Bounded cycles: loops an agent cannot let run away.

A cycle is a loop with a hard cap on iterations (at most 12) and a token
budget. Its count lives in the ledger file `.leafwise/cycles/NAME.count`, never
in an agent's memory: `cycle tick` moves the ledger first and only then says
what this iteration is for. At the cap or past the budget the loop stops, blocks
the task it was stuck on, writes an escalation to the journal and refuses every
further tick. `cycle verify` runs the verify commands itself, so "it passes" is
an exit code on record, not a claim.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any, Iterable

from leafwise.commands.contract import (
    EXIT_CONFLICT,
    EXIT_FAILURE,
    EXIT_INVALID,
    EXIT_NOT_FOUND,
    EXIT_USAGE,
    CommandError,
    Mutation,
    NextAction,
    Result,
    bounded,
    clean,
    done,
    fix,
    next_,
    quote,
    wait,
)
from leafwise.commands.core.hints import agent_arg
from leafwise.commands.core.picker import Pick, order_key
from leafwise.commands.core.views import task_view
from leafwise.commands.handlers import cycle_runs as runs
from leafwise.commands.handlers.agent_loop import block
from leafwise.commands.handlers.cycle_gates import FOR_EACH, check_paths, off_limits_for, running_cycles, scope_ids
from leafwise.commands.handlers.shared import get_node, pick_for, record
from leafwise.commands.registry import Ctx, Param, command
from leafwise.store import CLOSED, Node, Plan, Status
from leafwise.store import cycles as ledger
from leafwise.store.claims import parse_time
from leafwise.store.cycles import CycleRow
from leafwise.store.writer import iso, locked

GOAL_KINDS = ("until-goal", "refine-until-quality", "retry-with-backoff", "review")
REVIEW_DEFAULT_CAP = 4
VERIFY_TIMEOUT = 300.0
BACKOFF_BASE, BACKOFF_MAX = 5, 300  # seconds: 5, 10, 20 … up to 5 minutes
WORK = {  # what one iteration does, by kind
    FOR_EACH: "do the work",
    "until-goal": "work toward the goal",
    "refine-until-quality": "improve the weakest part; the verify commands are the quality bar",
    "retry-with-backoff": "retry the operation",
    "review": "list the findings of severity critical or block; fix the class of each; "
              "re-check only the affected parts",
}
NAME = Param("name", "the cycle's name (letters, digits, . _ -)", positional=True, required=True)


# --- reading a cycle ---------------------------------------------------------

def _load(ctx: Ctx, name: str) -> ledger.Cycle:
    try:
        cycle = ledger.read(ctx.paths(), name)
    except ledger.LedgerError as exc:
        raise CommandError("cycle_unreadable", str(exc), fix(ctx.cmd("doctor"), "the cycle file is broken"),
                           exit_code=EXIT_INVALID, category="invalid_plan", source=("cycle", name)) from exc
    if cycle is None:
        raise CommandError("cycle_not_found", f"no cycle named {name}",
                           fix(ctx.cmd("cycle status"), "list the cycles"),
                           exit_code=EXIT_NOT_FOUND, category="not_found", source=("cycle", name))
    return cycle


def _count(ctx: Ctx, cycle: ledger.Cycle) -> int:
    try:
        return ledger.read_count(ctx.paths(), cycle.name)
    except ledger.LedgerError as exc:  # fail safe: a count that cannot be read cannot prove room
        raise CommandError("ledger_unreadable", f"{exc}; the loop cannot prove it is under its cap",
                           fix(ctx.cmd(f"cycle stop {cycle.name}"),
                               "stop the loop; a person can write the real count back"),
                           exit_code=EXIT_INVALID, category="invalid_plan", source=("cycle", cycle.name)) from exc


def _open_items(plan: Plan, cycle: ledger.Cycle) -> list[Node]:
    """What is left: open leaves in scope (for-each) or the cycle's open node, in pick order."""
    if cycle.kind != FOR_EACH:
        node = plan.get(cycle.node) if cycle.node else None
        return [node] if node and node.status not in CLOSED else []
    scope = scope_ids(plan, cycle)
    pool = (plan.nodes[i] for i in scope) if scope is not None else plan.nodes.values()
    return sorted((n for n in pool if not n.children and n.status not in CLOSED), key=order_key(plan))


def _stuck(plan: Plan, cycle: ledger.Cycle) -> Node | None:
    """The open task the loop is on right now, if any."""
    node_id = cycle.current if cycle.kind == FOR_EACH else cycle.node
    node = plan.get(node_id) if node_id else None
    return node if node and node.status not in CLOSED else None


def _report(plan: Plan, cycle: ledger.Cycle, count: int | None) -> dict[str, Any]:
    """The honest account: what was done, what is left, where it stopped."""
    left = _open_items(plan, cycle)
    done_ids = cycle.items_done if cycle.kind == FOR_EACH else \
        [cycle.node] if cycle.node and cycle.node in plan.nodes and plan.nodes[cycle.node].status == Status.DONE else []
    stuck = _stuck(plan, cycle)
    return {"status": cycle.status, "iterations": count, "cap": cycle.max_iterations,
            "tokens_used": cycle.tokens_used, "token_cap": cycle.token_cap, "done": list(done_ids),
            "left": bounded([{"id": n.id, "title": n.title, "status": n.status} for n in left], 20),
            "stopped_on": stuck.id if stuck else None, "last_verify": cycle.verify_summary()}


def _report_lines(plan: Plan, report: dict[str, Any]) -> list[str]:
    def named(ids: list[str]) -> str:
        return ", ".join(f"{i} {plan.nodes[i].title!r}" if i in plan.nodes else i for i in ids) or "none"

    left = report["left"]
    lines = [f"  done ({len(report['done'])}): {named(report['done'])}",
             f"  left ({left['total']}): {named([i['id'] for i in left['items']])}"
             + (" …" if left["truncated"] else "")]
    if report["stopped_on"]:
        label = "working on" if report["status"] == "running" else "stopped on"
        lines.append(f"  {label}: {named([report['stopped_on']])}")
    lv = report["last_verify"]
    if lv:
        lines.append(f"  last verify: {'green' if lv['green'] else 'red'}" + (f" on {lv['node']}" if lv["node"] else "")
                     + f", iteration {lv['iteration']}, exit codes {lv['exit_codes']}")
    return lines


def _reminder(cycle: ledger.Cycle) -> list[str]:
    return [f"Off limits (never touch): {', '.join(cycle.off_limits)}"] if cycle.off_limits else []


def _refused(ctx: Ctx, cycle: ledger.Cycle, tool: str) -> CommandError:
    message = f"cycle {cycle.name} is {cycle.status}: {cycle.stop_reason or 'no reason recorded'}; " \
              "no further iterations"
    return CommandError(f"cycle_{cycle.status}", message,
                        fix(ctx.cmd(f"cycle status {cycle.name}"), "the loop is over; read its report"),
                        exit_code=EXIT_CONFLICT, category="refused", source=("cycle", cycle.name),
                        mutation=Mutation(tool, "refused", False, message))


# --- cycle start ---------------------------------------------------------------

def _start_line(ctx: Ctx, name: str, kind: str, cap: str, tokens: str, verify: Iterable[str],
                off_limits: Iterable[str], node: str | None, agent: str | None) -> str:
    rest = f"cycle start {quote(name)} --kind {kind} --max-iterations {cap} --token-cap {tokens}"
    rest += "".join(f" --verify {quote(v)}" for v in verify)
    rest += "".join(f" --off-limits {quote(g)}" for g in off_limits)
    rest += f" --node {node}" if node else ""
    rest += f" --agent {quote(agent)}" if agent else ""
    return ctx.cmd(rest)


@command("cycle start", "Start a bounded loop: a kind, a hard iteration cap (at most 12) and a token budget.",
         mutating=True, tool="cycle_start",
         example="cycle start fix-bugs --kind for-each-work-item --max-iterations 6 --token-cap 200000 "
                 "--verify true",
         params=(NAME,
                 Param("kind", "what the loop does", choices=ledger.KINDS, required=True),
                 Param("max_iterations", "the hard cap, 1 to 12 (required; a review defaults to 4)", type=int),
                 Param("token_cap", "the token budget of the whole loop (required)", type=int),
                 Param("verify", "a command whose exit code says the work is right (repeatable)", multiple=True),
                 Param("off_limits", "a path glob the loop must never touch (repeatable)", multiple=True),
                 Param("node", "the task it works on; for for-each, the subtree it walks"),
                 Param("agent", "the agent running the loop (e.g. claude-1)")))
def start(ctx: Ctx, name: str, kind: str, max_iterations: int | None = None, token_cap: int | None = None,
          verify: tuple[str, ...] = (), off_limits: tuple[str, ...] = (), node: str | None = None,
          agent: str | None = None) -> Result:
    ledger.check_name(name)
    verify = tuple(c for c in (clean(v, 1000) for v in verify) if c)
    off_limits = tuple(g for g in (clean(o, 300) for o in off_limits) if g)
    agent = clean(agent, 80) or None if agent else None

    def refuse(code: str, message: str, cap: str, tokens: str, why: str,
               checks: Iterable[str] = verify) -> CommandError:
        known = kind if kind in ledger.KINDS else FOR_EACH
        line = _start_line(ctx, name, known, cap, tokens, checks, off_limits, node, agent)
        return CommandError(code, message, fix(line, why), exit_code=EXIT_USAGE, category="usage",
                            source=("cycle", name), mutation=Mutation("cycle_start", code, False, message))

    tokens_arg = str(token_cap) if token_cap and token_cap > 0 else "<tokens>"
    if kind not in ledger.KINDS:
        raise refuse("unknown_kind", f"kind {kind!r} is not one of {', '.join(ledger.KINDS)}",
                     str(max_iterations or "<1-12>"), tokens_arg, "pick a known kind")
    if max_iterations is None and kind == "review":
        max_iterations = REVIEW_DEFAULT_CAP
    if max_iterations is None:
        raise refuse("missing_max_iterations", "--max-iterations is required: a loop without a cap never stops",
                     "<1-12>", tokens_arg, "choose how many iterations the loop may take, at most 12")
    if not 1 <= max_iterations <= ledger.MAX_ITERATIONS:
        cap = ledger.MAX_ITERATIONS if max_iterations > ledger.MAX_ITERATIONS else 1
        raise refuse("max_iterations_out_of_range",
                     f"--max-iterations {max_iterations} is outside 1..{ledger.MAX_ITERATIONS}; "
                     "longer work is several smaller cycles", str(cap), tokens_arg,
                     f"a loop may take at most {ledger.MAX_ITERATIONS} iterations")
    if token_cap is None or token_cap <= 0:
        raise refuse("missing_token_cap", "--token-cap is required: the loop needs a budget it cannot exceed",
                     str(max_iterations), "<tokens>", "give the loop a token budget")
    plan = ctx.plan()
    if node:
        get_node(ctx, node, plan)
    if kind in GOAL_KINDS and not verify and not node:
        raise refuse("no_goal", f"a {kind} cycle needs a goal Leafwise can check: --verify CMD "
                     "(or --node ID, reached when the node is done)", str(max_iterations), str(token_cap),
                     "add a command whose exit code says the goal is reached", checks=("<command>",))
    paths = ctx.paths()
    now = iso(ctx.clock())
    cycle = ledger.Cycle(name=name, kind=kind, max_iterations=max_iterations, token_cap=token_cap,
                         verify=list(verify), off_limits=list(off_limits), node=node, agent=agent,
                         started=now, updated=now, started_by=ctx.who(agent))
    with locked(paths, ledger.lock_name(name)):
        if ledger.exists(paths, name):
            running = name in {c.name for c in running_cycles(ctx)}
            message = f"a cycle named {name} already exists; a name is used once, its ledger is its history"
            raise CommandError("cycle_exists", message,
                               fix(ctx.cmd(f"cycle {'tick' if running else 'status'} {name}"),
                                   "carry on with it, or start a cycle under a new name"),
                               exit_code=EXIT_CONFLICT, category="conflict", source=("cycle", name),
                               mutation=Mutation("cycle_start", "cycle_exists", False, message))
        ledger.create(paths, cycle)
    runs.consent(paths, verify)
    record(ctx, "cycle start", node, {}, actor=agent, cycle=name, kind=kind, cap=max_iterations,
           token_cap=token_cap, verify=list(verify), off_limits=list(off_limits))
    lines = [f"Started cycle {name} ({kind}): at most {max_iterations} iterations, {token_cap} tokens; "
             f"ledger .leafwise/cycles/{name}.count = 0"]
    lines += [f"  verify: {v}" for v in verify] + _reminder(cycle)
    return Result(cycle.row(0), next_(ctx.cmd(f"cycle tick {name}"), "each iteration begins with a tick"),
                  lines, Mutation("cycle_start", "start", True, "cycle created, ledger at 0",
                                  [{"id": name, "field": "cycle", "from": None, "to": "running"}]))


# --- cycle tick ----------------------------------------------------------------

def _fold_current(plan: Plan, cycle: ledger.Cycle) -> None:
    """For-each: a finished current item joins `items_done`; a blocked or gone one is let go."""
    node = plan.get(cycle.current) if cycle.current else None
    if node is not None and node.status == Status.DONE and node.id not in cycle.items_done:
        cycle.items_done.append(node.id)
    if node is None or node.status in CLOSED or node.status == Status.BLOCKED:
        cycle.current = None


def _pick_item(ctx: Ctx, plan: Plan, cycle: ledger.Cycle) -> Pick:
    """The next work item: a started one in scope first, else the picker's choice inside the scope."""
    started = [n for n in _open_items(plan, cycle) if n.status == Status.IN_PROGRESS
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


def _finish(ctx: Ctx, plan: Plan, cycle: ledger.Cycle, count: int, why: str, tool: str) -> Result:
    cycle.status, cycle.finished, cycle.stop_reason, cycle.current = "stopped", True, why, None
    cycle.updated = iso(ctx.clock())
    ledger.save(ctx.paths(), cycle)
    report = _report(plan, cycle, count)
    record(ctx, "cycle finish", cycle.node, {}, actor=cycle.agent, cycle=cycle.name, reason=why,
           iteration=count, done=report["done"])
    lines = [f"Cycle {cycle.name} finished after {count} of {cycle.max_iterations} iterations: {why}",
             *_report_lines(plan, report)]
    return Result({"cycle": cycle.row(count), "report": report}, done(why), lines,
                  Mutation(tool, "finish", True, why,
                           [{"id": cycle.name, "field": "cycle", "from": "running", "to": "stopped"}]))


def _goal_reached(plan: Plan, cycle: ledger.Cycle) -> str | None:
    """Why a non-for-each loop is over, or None while it is not."""
    node = plan.get(cycle.node) if cycle.node else None
    if node is not None:
        return f"{node.id} is {node.status}" if node.status in CLOSED else None
    if (cycle.last_verify or {}).get("green"):
        return "the verify commands are green: the goal is reached"
    return None


def _escalate(ctx: Ctx, plan: Plan, cycle: ledger.Cycle, count: int, limit: str) -> CommandError:
    """Stop at a limit: block the task it was on, journal an escalation, say so plainly."""
    stuck = _stuck(plan, cycle)
    what = (f"its cap ({count} of {cycle.max_iterations} iterations)" if limit == "cap"
            else f"its token budget ({cycle.tokens_used} of {cycle.token_cap} tokens)")
    reason = f"cycle {cycle.name} stopped at {what}" + (f" on {stuck.id}" if stuck else "")
    lv = cycle.last_verify or {}
    if stuck is not None and cycle.verify:
        if lv.get("node") != stuck.id:
            reason += "; no verify of it on record"
        elif not lv.get("green"):
            reason += f"; its last verify was red (exit codes {lv.get('exit_codes')})"
    reason += "; a person decides how to go on"
    changes: list[dict[str, Any]] = []
    if stuck is not None:
        changes = block(ctx, stuck.id, reason=reason, agent=cycle.agent).mutation.changes
        plan = ctx.plan()
    cycle.status, cycle.stop_reason, cycle.updated = "escalated", reason, iso(ctx.clock())
    ledger.save(ctx.paths(), cycle)
    report = _report(plan, cycle, count)
    record(ctx, "cycle escalate", stuck.id if stuck else cycle.node, {}, actor=cycle.agent, cycle=cycle.name,
           limit=limit, reason=reason, escalate_to="owner", iteration=count, tokens_used=cycle.tokens_used,
           done=report["done"], left=[i["id"] for i in report["left"]["items"]])
    lines = [f"Cycle {cycle.name} STOPPED at {what}. It did not finish; escalated to the owner.",
             *_report_lines(plan, report)]
    if stuck is not None:
        lines.append(f"  {stuck.id} is now blocked: {reason}")
    return CommandError(
        "cycle_cap_reached" if limit == "cap" else "cycle_budget_spent", reason,
        fix(ctx.cmd(f"cycle status {cycle.name}"), "the loop is over: report it; a person decides what follows"),
        exit_code=EXIT_CONFLICT, category="refused", source=("cycle", cycle.name),
        details={"cycle": cycle.row(count), "report": report}, text=lines,
        mutation=Mutation("cycle_tick", "escalate", True, reason,
                          [{"id": cycle.name, "field": "cycle", "from": "running", "to": "escalated"},
                           *changes]))


def _nothing_ready(ctx: Ctx, cycle: ledger.Cycle, count: int, chosen: Pick) -> Result:
    """Open items remain but none can be handed out: wait, and spend no iteration on it."""
    tick = ctx.cmd(f"cycle tick {cycle.name}")
    if chosen.held:
        node, claim = chosen.held[0]
        action = wait(f"{claim.agent} holds {node.id} until {claim.expires}; then run {tick}", chosen.reason)
    elif chosen.blocked:
        node = chosen.blocked[0]
        action = wait(f"{node.id} is blocked ({node.blocked_reason or 'no reason'}); after "
                      f"{ctx.cmd(f'unblock {node.id}')} run {tick}", chosen.reason)
    else:
        action = wait(f"an open dependency closes; then run {tick}", chosen.reason)
    return Result({"cycle": cycle.row(count), "iteration": None, "item": None, "reason": chosen.reason},
                  action, [f"Cycle {cycle.name}: no work item is ready ({chosen.reason}); no iteration spent"],
                  Mutation("cycle_tick", "wait", False, "nothing ready; the ledger did not move"))


@command("cycle tick", "Begin the next iteration: moves the ledger first, then says what this iteration is for.",
         mutating=True, tool="cycle_tick", example="cycle tick fix-bugs --tokens 12000",
         params=(NAME, Param("tokens", "tokens spent since the last tick", type=int)))
def tick(ctx: Ctx, name: str, tokens: int | None = None) -> Result:
    ledger.check_name(name)
    if tokens is not None and tokens < 0:
        raise CommandError("negative_tokens", "--tokens counts tokens spent; it cannot be negative",
                           fix(ctx.cmd(f"cycle tick {name} --tokens 0"), "report what was spent"),
                           exit_code=EXIT_USAGE, category="usage", source=("cycle", name))
    paths = ctx.paths()
    with locked(paths, ledger.lock_name(name)):
        cycle = _load(ctx, name)
        if not cycle.running:
            if cycle.finished:
                why = cycle.stop_reason or "finished"
                return Result({"cycle": cycle.row(_count(ctx, cycle)), "report": None}, done(why),
                              [f"Cycle {name} already finished: {why}"],
                              Mutation("cycle_tick", "finish", False, "already finished"))
            raise _refused(ctx, cycle, "cycle_tick")
        count = _count(ctx, cycle)
        cycle.tokens_used += tokens or 0
        plan = ctx.plan()
        if cycle.kind == FOR_EACH:
            _fold_current(plan, cycle)
            if not _open_items(plan, cycle):
                return _finish(ctx, plan, cycle, count, f"every work item is done ({len(cycle.items_done)})",
                               "cycle_tick")
        elif (why := _goal_reached(plan, cycle)) is not None:
            return _finish(ctx, plan, cycle, count, why, "cycle_tick")
        if cycle.tokens_used >= cycle.token_cap:
            raise _escalate(ctx, plan, cycle, count, "budget")
        if count >= cycle.max_iterations:
            raise _escalate(ctx, plan, cycle, count, "cap")
        item = plan.get(cycle.current) if cycle.current else None
        if cycle.kind == FOR_EACH and item is None:
            chosen = _pick_item(ctx, plan, cycle)
            if chosen.node is None:
                ledger.save(paths, cycle)  # the tokens spent still count
                return _nothing_ready(ctx, cycle, count, chosen)
            item = chosen.node
        count += 1
        ledger.write_count(paths, name, count)  # the ledger moves before anything else
        retry = item is not None and item.id == cycle.current
        backoff = 0
        if cycle.kind == "retry-with-backoff" and count > 1:
            backoff = min(BACKOFF_BASE * 2 ** (count - 2), BACKOFF_MAX)
            cycle.not_before = iso(ctx.clock() + timedelta(seconds=backoff))
        if cycle.kind == FOR_EACH:
            cycle.current = item.id
        cycle.updated = iso(ctx.clock())
        ledger.save(paths, cycle)
    target = item or (plan.get(cycle.node) if cycle.node else None)
    record(ctx, "cycle tick", target.id if target else None, {}, actor=cycle.agent, cycle=name,
           iteration=count, cap=cycle.max_iterations, tokens_used=cycle.tokens_used)
    return _iteration(ctx, plan, cycle, count, target, retry, backoff)


def _iteration(ctx: Ctx, plan: Plan, cycle: ledger.Cycle, count: int, target: Node | None, retry: bool,
               backoff: int) -> Result:
    """What this iteration is for, by kind, with the steps and the one next action."""
    name = cycle.name
    verify_cmd = ctx.cmd(f"cycle verify {name}")
    start_cmd = ctx.cmd(f"start {target.id} --agent {agent_arg(cycle.agent)}") if target else ""
    complete_cmd = ctx.cmd(f'complete {target.id} --summary "<summary>"') if target else None
    lines = [f"Iteration {count} of {cycle.max_iterations} · cycle {name} ({cycle.kind}) · "
             f"tokens {cycle.tokens_used} of {cycle.token_cap}"]
    if target is not None:
        label = "Still on" if retry else "Work item" if cycle.kind == FOR_EACH else "Task"
        lines.append(f"{label}: {target.id} {target.title!r}"
                     + (" (not done yet: fix the class of the problem)" if retry else ""))
    fresh = cycle.kind == FOR_EACH and target is not None and target.status == Status.DRAFT
    steps = [start_cmd] if fresh else []
    if cycle.kind == "reconcile-config":
        steps.append(ctx.cmd("reconcile" + (f" --node {cycle.node}" if cycle.node else "")))
    else:
        steps.append("fix the class of the problem, not just this instance" if retry else WORK[cycle.kind])
    if cycle.verify:
        steps.append(f"{verify_cmd}   (runs: {'; '.join(cycle.verify)})")
    if complete_cmd and target.status not in CLOSED:
        steps.append(complete_cmd + ("   (needs a green verify)" if cycle.verify else ""))
    steps.append(ctx.cmd(f"cycle tick {name} --tokens <tokens>"))
    lines += [f"  {i}. {s}" for i, s in enumerate(steps, 1)]
    if count >= cycle.max_iterations:
        lines.append("Last iteration: if the work is not done after it, the next tick stops the loop and escalates.")
    lines += _reminder(cycle)
    if backoff:
        action = wait(f"{backoff} seconds (until {cycle.not_before}); then retry and run {verify_cmd}",
                      f"back-off before retry {count}")
    elif fresh:
        action = next_(start_cmd, "this iteration's work item")
    elif cycle.kind == "reconcile-config":
        action = next_(steps[0], "reconcile, then verify", or_=verify_cmd if cycle.verify else None)
    elif cycle.verify or complete_cmd is None:
        action = next_(verify_cmd, "after the work, Leafwise runs the verify commands")
    else:
        action = next_(complete_cmd, "no verify commands: complete the work when it is done",
                       or_=ctx.cmd(f'block {target.id} --reason "<reason>"'))
    result = {"cycle": cycle.row(count), "iteration": count, "cap": cycle.max_iterations,
              "last": count >= cycle.max_iterations, "item": task_view(plan, target) if target else None,
              "retry": retry, "steps": steps, "verify": cycle.verify, "off_limits": cycle.off_limits,
              "backoff_seconds": backoff or None}
    return Result(result, action, lines,
                  Mutation("cycle_tick", "tick", True, f"iteration {count} of {cycle.max_iterations}",
                           [{"id": name, "field": "count", "from": count - 1, "to": count}]))


# --- cycle verify --------------------------------------------------------------

@command("cycle verify", "Run the cycle's verify commands (real exit codes, a timeout); record them as evidence.",
         mutating=True, tool="cycle_verify", example="cycle verify fix-bugs",
         params=(NAME, Param("timeout", f"seconds each command may run (default {VERIFY_TIMEOUT:g})", type=float)))
def verify(ctx: Ctx, name: str, timeout: float | None = None) -> Result:
    ledger.check_name(name)
    paths = ctx.paths()
    cycle = _load(ctx, name)
    if not cycle.running:
        raise _refused(ctx, cycle, "cycle_verify")
    if not cycle.verify:
        raise CommandError("no_verify", f"cycle {name} has no verify commands",
                           fix(ctx.cmd(f"cycle tick {name}"), "this cycle is checked by its task, not by commands"),
                           exit_code=EXIT_USAGE, category="usage", source=("cycle", name))
    count = _count(ctx, cycle)
    plan = ctx.plan()
    target = plan.get((cycle.current if cycle.kind == FOR_EACH else cycle.node) or "")
    target_id = target.id if target else None
    lv = cycle.last_verify or {}
    if lv and not lv.get("green") and lv.get("iteration") == count and lv.get("node") == target_id:
        message = f"the verify of iteration {count} was already red; each fix-and-verify is one iteration"
        raise CommandError("verify_again", message, fix(ctx.cmd(f"cycle tick {name}"), "begin the next iteration"),
                           exit_code=EXIT_CONFLICT, category="refused", source=("cycle", name),
                           mutation=Mutation("cycle_verify", "verify_again", False, message))
    now = ctx.clock()
    if cycle.kind == "retry-with-backoff" and cycle.not_before and parse_time(cycle.not_before) > now:
        message = f"cycle {name} backs off until {cycle.not_before}"
        raise CommandError("backing_off", message,
                           wait(f"until {cycle.not_before}; then run {ctx.cmd(f'cycle verify {name}')}", "back-off"),
                           exit_code=EXIT_CONFLICT, category="conflict", source=("cycle", name),
                           mutation=Mutation("cycle_verify", "backing_off", False, message))
    runs.check_trusted(ctx, cycle)
    limit = timeout if timeout and timeout > 0 else VERIFY_TIMEOUT
    results = [runs.run(c, paths.repo, limit) for c in cycle.verify]  # outside the lock: they may take minutes
    green = all(r["exit_code"] == 0 for r in results)
    codes = [r["exit_code"] for r in results]
    at = ctx.clock()
    finished: Result | None = None
    with locked(paths, ledger.lock_name(name)):
        cycle = _load(ctx, name)
        if not cycle.running:
            raise _refused(ctx, cycle, "cycle_verify")
        cycle.last_verify = {"node": target_id, "iteration": count, "green": green, "at": iso(at),
                             "exit_codes": codes, "results": results}
        cycle.updated = iso(at)
        ledger.save(paths, cycle)
        record(ctx, "cycle verify", target_id, {}, actor=cycle.agent, cycle=name, iteration=count, green=green,
               exit_codes=codes)
        if green and cycle.kind != FOR_EACH and not cycle.node:  # a goal with no task: reached
            finished = _finish(ctx, plan, cycle, count, "the verify commands are green: the goal is reached",
                               "cycle_verify")
    changes = [{"id": name, "field": "last_verify", "from": None, "to": "green" if green else "red"}]
    if target is not None:
        changes.append(runs.add_verify_evidence(ctx, target, name, count, at, results))
    lines = [f"Verify of cycle {name}, iteration {count}" + (f", on {target_id}" if target else "") + ":"]
    lines += [f"  exit {r['exit_code']}{' (timed out)' if r['timed_out'] else ''}  {r['command']}  "
              f"({r['seconds']}s)" + (f"  → {r['output']}" if r["exit_code"] and r["output"] else "")
              for r in results]
    lines += _reminder(cycle)
    result = {"cycle": cycle.row(count), "green": green, "iteration": count, "node": target_id, "results": results}
    mutation = Mutation("cycle_verify", "verify", True, "green" if green else "red", changes)
    if not green:
        first = next(r for r in results if r["exit_code"] != 0)
        raise CommandError(
            "verify_red", f"verify is red: exit {first['exit_code']} from `{first['command']}`",
            fix(ctx.cmd(f"cycle tick {name}"), "the next iteration fixes the class of the problem"),
            exit_code=EXIT_FAILURE, category="refused", source=("cycle", name), details=result,
            mutation=mutation, text=lines)
    if finished is not None:
        mutation.changes += finished.mutation.changes
        return Result({**result, "report": finished.result["report"]}, finished.next_action,
                      lines + finished.text, mutation)
    if target is not None and target.status not in CLOSED:
        action = next_(ctx.cmd(f'complete {target_id} --summary "<summary>"'), "verify is green")
    else:
        action = next_(ctx.cmd(f"cycle tick {name}"), "verify is green; the next tick moves on")
    return Result(result, action, lines, mutation)


# --- cycle status, cycle stop ------------------------------------------------------

def status_rows(ctx: Ctx) -> list[CycleRow]:
    """Every cycle as a row (the canvas draws these); a broken one is a row saying so."""
    rows: list[CycleRow] = []
    for name in ledger.names(ctx.paths()):
        try:
            cycle = _load(ctx, name)
        except CommandError as exc:
            rows.append(CycleRow(name=name, status="unreadable", error=exc.message))
            continue
        rows.append(cycle.row(ledger.count_or_none(ctx.paths(), name)))
    return rows


def _status_hint(ctx: Ctx, row: dict[str, Any]) -> NextAction:
    name = row["name"]
    if row["status"] == "running":
        return next_(ctx.cmd(f"cycle tick {name}"), "the cycle is running")
    if row["status"] == "escalated":
        stuck = row["current"] or row["node"]
        after = f"after {ctx.cmd(f'unblock {stuck}')} " if stuck else ""
        return wait(f"a person resolves the escalation: {row['stop_reason']}; {after}run {ctx.cmd('next')}",
                    "escalated to the owner")
    if row["status"] == "stopped" and row.get("finished"):
        return done(f"cycle {name} finished: {row['stop_reason']}")
    return next_(ctx.cmd("next"), f"cycle {name} is {row['status']}")


@command("cycle status", "The cycles: kind, count of cap, tokens of budget, running, stopped or escalated.",
         mutating=False, tool="cycle_status", idempotent=True, listing=True, example="cycle status",
         params=(Param("name", "one cycle (with its report)", positional=True),))
def status(ctx: Ctx, name: str | None = None) -> Result:
    if name:
        ledger.check_name(name)
        cycle = _load(ctx, name)
        row = cycle.row(ledger.count_or_none(ctx.paths(), name))
        plan = ctx.plan()
        row["report"] = _report(plan, cycle, row["count"])
        lines = [_status_line(row), *_report_lines(plan, row["report"]), *_reminder(cycle)]
        return Result(bounded([row], None), _status_hint(ctx, row), lines)
    rows = status_rows(ctx)
    live = [r for r in rows if r["status"] == "running"] or [r for r in rows if r["status"] == "escalated"]
    action = _status_hint(ctx, live[0]) if live else next_(ctx.cmd("next"), "no cycle is running")
    lines = [_status_line(r) for r in rows] or ["No cycles."]
    return Result(bounded(rows, 100), action, lines)


def _status_line(row: dict[str, Any]) -> str:
    if row["status"] == "unreadable":
        return f"{row['name']}  unreadable: {row['error']}"
    cap, count = row["cap"], row["count"]
    bar = "█" * min(count or 0, cap) + "░" * max(cap - (count or 0), 0)
    text = (f"{row['name']}  {row['kind']}  {bar} {count if count is not None else '?'}/{cap}  "
            f"tokens {row['tokens_used']}/{row['token_cap']}  {row['status']}")
    return text + (f": {row['stop_reason']}" if row["stop_reason"] else "")


@command("cycle stop", "Stop a cycle by hand; its ledger stays and further ticks are refused.",
         mutating=True, tool="cycle_stop", idempotent=True, example="cycle stop fix-bugs",
         params=(NAME, Param("reason", "why it stops")))
def stop(ctx: Ctx, name: str, reason: str | None = None) -> Result:
    ledger.check_name(name)
    paths = ctx.paths()
    with locked(paths, ledger.lock_name(name)):
        cycle = _load(ctx, name)
        before = cycle.status
        if cycle.running:
            cycle.status = "stopped"
            cycle.stop_reason = f"stopped by {ctx.who(cycle.agent)}" + (f": {clean(reason, 300)}" if reason else "")
            cycle.updated = iso(ctx.clock())
            ledger.save(paths, cycle)
    count = ledger.count_or_none(paths, name)
    applied = before == "running"
    if applied:
        record(ctx, "cycle stop", cycle.current or cycle.node, {}, cycle=name, reason=cycle.stop_reason,
               iteration=count)
    still = _stuck(ctx.plan(), cycle)
    lines = [f"Cycle {name} {'stopped' if applied else 'was already ' + before}: {cycle.stop_reason}"]
    if still is not None:
        lines.append(f"  {still.id} stays {still.status}")
    return Result(cycle.row(count), next_(ctx.cmd("next"), "the loop is over"), lines,
                  Mutation("cycle_stop", "stop", applied, cycle.stop_reason or "",
                           [{"id": name, "field": "cycle", "from": before, "to": "stopped"}] if applied else []))


# The write gates live in cycles_gate (a light import for reconcile and the doc writers).
__all__ = ["check_paths", "off_limits_for", "start", "status", "status_rows", "stop", "tick", "verify"]
