"""Bounded cycles: loops an agent cannot let run away.

A cycle is a loop with a hard cap on iterations (at most 12) and a token
budget. Its count lives in the ledger file `.leafwise/cycles/NAME.count`, never
in an agent's memory: `cycle tick` (cycle_ticks.py) moves the ledger first and
only then says what this iteration is for. At the cap or past the budget the
loop stops, blocks the task it was stuck on, writes an escalation to the journal
and refuses every further tick. `cycle verify` (cycle_runs.py) runs the verify
commands itself, so "it passes" is an exit code on record, not a claim.

This module reads a cycle and its report, and holds start, status and stop.
"""

from __future__ import annotations

from typing import Any, Iterable

from leafwise.commands.contract import (
    EXIT_CONFLICT,
    EXIT_INVALID,
    EXIT_NOT_FOUND,
    EXIT_USAGE,
    CommandError,
    Mutation,
    NextAction,
    Placeholder,
    Result,
    bounded,
    clean,
    done,
    fix,
    next_,
    placeholder,
    wait,
)
from leafwise.commands.core.picker import order_key
from leafwise.commands.domain import cycle_runs as runs
from leafwise.commands.domain.cycle_gates import FOR_EACH, running_cycles, scope_ids
from leafwise.commands.domain.nodes import get_node, record
from leafwise.commands.registry import Ctx
from leafwise.commands.text import plan_words
from leafwise.store import CLOSED, Node, Plan, Status
from leafwise.store import cycles as ledger
from leafwise.store.cycles import CycleRow
from leafwise.store.writer import iso, locked

GOAL_KINDS = ("until-goal", "refine-until-quality", "retry-with-backoff", "review")
REVIEW_DEFAULT_CAP = 4


# --- reading a cycle ---------------------------------------------------------

def load(ctx: Ctx, name: str) -> ledger.Cycle:
    """The cycle named `name`, or an error that says whether it is missing or broken."""
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


def count(ctx: Ctx, cycle: ledger.Cycle) -> int:
    """The ledger's count; an error when it cannot be read."""
    try:
        return ledger.read_count(ctx.paths(), cycle.name)
    except ledger.LedgerError as exc:  # fail safe: a count that cannot be read cannot prove room
        raise CommandError("ledger_unreadable", f"{exc}; the loop cannot prove it is under its cap",
                           fix(ctx.cmd("cycle stop", cycle.name),
                               "stop the loop; a person can write the real count back"),
                           exit_code=EXIT_INVALID, category="invalid_plan", source=("cycle", cycle.name)) from exc


def require_node(ctx: Ctx, plan: Plan, cycle: ledger.Cycle) -> None:
    """Refuse a step of a cycle whose `node` is no node of the plan (renamed or removed, by hand or by a
    merge): a for-each scoped to a gone subtree would walk the whole backlog, a goal on a gone task
    would tick with no task at all."""
    if cycle.node and cycle.node not in plan.nodes:
        message = (f"cycle {cycle.name} works on {cycle.node}, which is no node of this plan (renamed or "
                   "removed); nothing was counted")
        raise CommandError("cycle_node_gone", message,
                           fix(ctx.cmd("cycle stop", cycle.name), "stop it; start a cycle on the node it means now"),
                           exit_code=EXIT_CONFLICT, category="conflict", source=("cycle", cycle.name),
                           mutation=Mutation("cycle_tick", "cycle_node_gone", False, message))


def open_items(plan: Plan, cycle: ledger.Cycle) -> list[Node]:
    """What is left: open leaves in scope (for-each) or the cycle's open node, in pick order."""
    if cycle.kind != FOR_EACH:
        node = plan.get(cycle.node) if cycle.node else None
        return [node] if node and node.status not in CLOSED else []
    scope = scope_ids(plan, cycle)
    pool = (plan.nodes[i] for i in scope) if scope is not None else plan.nodes.values()
    return sorted((n for n in pool if not n.children and n.status not in CLOSED), key=order_key(plan))


def stuck_on(plan: Plan, cycle: ledger.Cycle) -> Node | None:
    """The open task the loop is on right now, if any."""
    node_id = cycle.current if cycle.kind == FOR_EACH else cycle.node
    node = plan.get(node_id) if node_id else None
    return node if node and node.status not in CLOSED else None


def report(plan: Plan, cycle: ledger.Cycle, iterations: int | None) -> dict[str, Any]:
    """The honest account: what was done, what is left, where it stopped."""
    left = open_items(plan, cycle)
    done_ids = cycle.items_done if cycle.kind == FOR_EACH else \
        [cycle.node] if cycle.node and cycle.node in plan.nodes and plan.nodes[cycle.node].status == Status.DONE else []
    stuck = stuck_on(plan, cycle)
    return {"status": cycle.status, "iterations": iterations, "cap": cycle.max_iterations,
            "tokens_used": cycle.tokens_used, "token_cap": cycle.token_cap, "done": list(done_ids),
            "left": bounded([{"id": n.id, "title": n.title, "status": n.status} for n in left], 20),
            "stopped_on": stuck.id if stuck else None, "last_verify": cycle.verify_summary()}


def report_lines(plan: Plan, account: dict[str, Any]) -> list[str]:
    """A report (see `report`) as text lines."""
    def named(ids: list[str]) -> str:
        return ", ".join(f"{i} {plan.nodes[i].title!r}" if i in plan.nodes else i for i in ids) or "none"

    left = account["left"]
    lines = [f"  done ({len(account['done'])}): {named(account['done'])}",
             f"  left ({left['total']}): {named([i['id'] for i in left['items']])}"
             + (" …" if left["truncated"] else "")]
    if account["stopped_on"]:
        label = "working on" if account["status"] == "running" else "stopped on"
        lines.append(f"  {label}: {named([account['stopped_on']])}")
    lv = account["last_verify"]
    if lv:
        lines.append(f"  last verify: {'green' if lv['green'] else 'red'}" + (f" on {lv['node']}" if lv["node"] else "")
                     + f", iteration {lv['iteration']}, exit codes {lv['exit_codes']}")
    return lines


def reminder(cycle: ledger.Cycle) -> list[str]:
    return [f"Off limits (never touch): {', '.join(cycle.off_limits)}"] if cycle.off_limits else []


def refused(ctx: Ctx, cycle: ledger.Cycle, tool: str) -> CommandError:
    """The answer to any step of a loop that is over."""
    message = f"cycle {cycle.name} is {cycle.status}: {cycle.stop_reason or 'no reason recorded'}; " \
              "no further iterations"
    return CommandError(f"cycle_{cycle.status}", message,
                        fix(ctx.cmd("cycle status", cycle.name), "the loop is over; read its report"),
                        exit_code=EXIT_CONFLICT, category="refused", source=("cycle", cycle.name),
                        mutation=Mutation(tool, "refused", False, message))


def finish(ctx: Ctx, plan: Plan, cycle: ledger.Cycle, iterations: int, why: str, tool: str) -> Result:
    """End a loop whose work is done: save it stopped, journal it, answer with its report."""
    cycle.status, cycle.finished, cycle.stop_reason, cycle.current = "stopped", True, why, None
    cycle.updated = iso(ctx.clock())
    ledger.save(ctx.paths(), cycle)
    account = report(plan, cycle, iterations)
    record(ctx, "cycle finish", cycle.node, {}, actor=cycle.agent, cycle=cycle.name, reason=why,
           iteration=iterations, done=account["done"])
    lines = [f"Cycle {cycle.name} finished after {iterations} of {cycle.max_iterations} iterations: {why}",
             *report_lines(plan, account)]
    return Result({"cycle": cycle.row(iterations), "report": account}, done(why), lines,
                  Mutation(tool, "finish", True, why,
                           [{"id": cycle.name, "field": "cycle", "from": "running", "to": "stopped"}]))


# --- cycle start ---------------------------------------------------------------

Limit = int | Placeholder  # a number in a Fix, or what the agent fills in


def _limits(ctx: Ctx, name: str, kind: str, max_iterations: int | None, token_cap: int | None,
            verify: tuple[str, ...], off_limits: tuple[str, ...], node: str | None,
            agent: str | None) -> int:
    """The iteration cap `start` may use; refuses (exit 2) a loop without real limits or a checkable goal."""
    def refuse(code: str, message: str, cap: Limit, tokens: Limit, why: str,
               checks: Iterable[str] = verify) -> CommandError:
        line = ctx.cmd("cycle start", name, kind=kind if kind in ledger.KINDS else FOR_EACH,
                       max_iterations=cap, token_cap=tokens, verify=list(checks), off_limits=list(off_limits),
                       node=node, agent=agent)
        return CommandError(code, message, fix(line, why), exit_code=EXIT_USAGE, category="usage",
                            source=("cycle", name), mutation=Mutation("cycle_start", code, False, message))

    some_cap, some_tokens = placeholder("1-12"), placeholder("tokens")
    tokens_arg = token_cap if token_cap and token_cap > 0 else some_tokens
    if kind not in ledger.KINDS:
        raise refuse("unknown_kind", f"kind {kind!r} is not one of {', '.join(ledger.KINDS)}",
                     max_iterations or some_cap, tokens_arg, "pick a known kind")
    if max_iterations is None and kind == "review":
        max_iterations = REVIEW_DEFAULT_CAP
    if max_iterations is None:
        raise refuse("missing_max_iterations", "--max-iterations is required: a loop without a cap never stops",
                     some_cap, tokens_arg, "choose how many iterations the loop may take, at most 12")
    if not 1 <= max_iterations <= ledger.MAX_ITERATIONS:
        cap = ledger.MAX_ITERATIONS if max_iterations > ledger.MAX_ITERATIONS else 1
        raise refuse("max_iterations_out_of_range",
                     f"--max-iterations {max_iterations} is outside 1..{ledger.MAX_ITERATIONS}; "
                     "longer work is several smaller cycles", cap, tokens_arg,
                     f"a loop may take at most {ledger.MAX_ITERATIONS} iterations")
    if token_cap is None or token_cap <= 0:
        raise refuse("missing_token_cap", "--token-cap is required: the loop needs a budget it cannot exceed",
                     max_iterations, some_tokens, "give the loop a token budget")
    if token_cap > ledger.MAX_TOKENS:
        raise refuse("token_cap_out_of_range", f"--token-cap {token_cap} is more than {ledger.MAX_TOKENS:,}",
                     max_iterations, ledger.MAX_TOKENS, "give the loop a budget it can keep count of")
    if node:
        get_node(ctx, node, ctx.plan())
    if kind in GOAL_KINDS and not verify and not node:
        raise refuse("no_goal", f"a {kind} cycle needs a goal Leafwise can check: --verify CMD "
                     "(or --node ID, reached when the node is done)", max_iterations, token_cap,
                     "add a command whose exit code says the goal is reached", checks=(placeholder("command"),))
    return max_iterations


def start(ctx: Ctx, name: str, kind: str, max_iterations: int | None = None, token_cap: int | None = None,
          verify: tuple[str, ...] = (), off_limits: tuple[str, ...] = (), node: str | None = None,
          agent: str | None = None) -> Result:
    """Create the cycle's ledger at 0 (refused without a cap, a budget and, for a goal, a check)."""
    ledger.check_name(name)
    verify = tuple(c for c in (clean(v, 1000) for v in verify) if c)
    off_limits = tuple(g for g in (clean(o, 300) for o in off_limits) if g)
    agent = clean(agent, 80) or None if agent else None
    max_iterations = _limits(ctx, name, kind, max_iterations, token_cap, verify, off_limits, node, agent)
    assert token_cap is not None  # _limits refuses a loop without a budget
    paths = ctx.paths()
    now = iso(ctx.clock())
    cycle = ledger.Cycle(name=name, kind=kind, max_iterations=max_iterations, token_cap=token_cap,
                         verify=list(verify), off_limits=list(off_limits), node=node, agent=agent,
                         started=now, updated=now, started_by=ctx.who(agent))
    try:
        ledger.check(ledger.with_a_verify_on_record(cycle))
    except ledger.LedgerError as exc:  # e.g. more verify commands or off-limits globs than a cycle file keeps
        raise CommandError("bad_cycle", str(exc),
                           fix(ctx.cmd("cycle status"), "start it within the limits a cycle file keeps"),
                           exit_code=EXIT_USAGE, category="usage", source=("cycle", name)) from exc
    with locked(paths, ledger.lock_name(name)):
        if ledger.exists(paths, name):
            running = name in {c.name for c in running_cycles(ctx)}
            message = f"a cycle named {name} already exists; a name is used once, its ledger is its history"
            raise CommandError("cycle_exists", message,
                               fix(ctx.cmd("cycle tick" if running else "cycle status", name),
                                   "carry on with it, or start a cycle under a new name"),
                               exit_code=EXIT_CONFLICT, category="conflict", source=("cycle", name),
                               mutation=Mutation("cycle_start", "cycle_exists", False, message))
        ledger.create(paths, cycle)
    approved = runs.approve_own(paths, verify, agent)
    record(ctx, "cycle start", node, {}, actor=agent, cycle=name, kind=kind, cap=max_iterations,
           token_cap=token_cap, verify=list(verify), off_limits=list(off_limits))
    lines = [f"Started cycle {name} ({kind}): at most {max_iterations} iterations, {token_cap} tokens; "
             f"ledger .leafwise/cycles/{name}.count = 0"]
    lines += [f"  verify: {v}" for v in verify] + _approval_lines(ctx, cycle, approved) + reminder(cycle)
    return Result(cycle.row(0), next_(ctx.cmd("cycle tick", name), "each iteration begins with a tick"),
                  lines, Mutation("cycle_start", "start", True, "cycle created, ledger at 0",
                                  [{"id": name, "field": "cycle", "from": None, "to": "running"}]))


def _approval_lines(ctx: Ctx, cycle: ledger.Cycle, approved: bool) -> list[str]:
    """Whether `cycle verify` may run the verify commands: the person typed them here, or they wait."""
    if approved:
        return ["  approved for this plan: you typed them on your terminal (leafwise trust lists them)"]
    waiting = runs.unapproved(ctx, cycle)
    if not waiting:
        return []
    return [f"  not approved yet ({len(waiting)}): cycle verify runs them once a person approves them "
            f"({ctx.cmd('trust')})"]


# --- cycle status, cycle stop ------------------------------------------------------

def status_rows(ctx: Ctx) -> list[CycleRow]:
    """Every cycle as a row (the canvas draws these); a broken one is a row saying so."""
    rows: list[CycleRow] = []
    for name in ledger.names(ctx.paths()):
        try:
            cycle = load(ctx, name)
        except CommandError as exc:
            rows.append(CycleRow(name=name, status="unreadable", error=exc.message))
            continue
        rows.append(cycle.row(ledger.count_or_none(ctx.paths(), name)))
    return rows


def _status_hint(ctx: Ctx, row: dict[str, Any], plan: Plan) -> NextAction:
    name = row["name"]
    if row["status"] == "running" and row.get("node") and row["node"] not in plan.nodes:
        return next_(ctx.cmd("cycle stop", name), f"its node {row['node']} is gone; a tick refuses")
    if row["status"] == "running":
        return next_(ctx.cmd("cycle tick", name), "the cycle is running")
    if row["status"] == "escalated":
        stuck = row["current"] or row["node"]
        after = f"after {ctx.cmd('unblock', stuck)} " if stuck else ""
        return wait(f"a person resolves the escalation: {plan_words(row['stop_reason'])}; {after}run {ctx.cmd('next')}",
                    "escalated to the owner")
    if row["status"] == "stopped" and row.get("finished"):
        return done(f"cycle {name} finished: {plan_words(row['stop_reason'])}")
    return next_(ctx.cmd("next"), f"cycle {name} is {row['status']}")


def status(ctx: Ctx, name: str | None = None) -> Result:
    """One cycle with its report, or every cycle as a row."""
    if name:
        ledger.check_name(name)
        cycle = load(ctx, name)
        row = cycle.row(ledger.count_or_none(ctx.paths(), name))
        plan = ctx.plan()
        row["report"] = report(plan, cycle, row["count"])
        lines = [_status_line(row), *report_lines(plan, row["report"]), *reminder(cycle)]
        return Result(bounded([row], None), _status_hint(ctx, row, plan), lines)
    rows = status_rows(ctx)
    live = [r for r in rows if r["status"] == "running"] or [r for r in rows if r["status"] == "escalated"]
    action = _status_hint(ctx, live[0], ctx.plan()) if live else next_(ctx.cmd("next"), "no cycle is running")
    lines = [_status_line(r) for r in rows] or ["No cycles."]
    return Result(bounded(rows, 100), action, lines)


def _status_line(row: dict[str, Any]) -> str:
    if row["status"] == "unreadable":
        return f"{row['name']}  unreadable: {row['error']}"
    cap, iterations = row["cap"], row["count"]
    bar = "█" * min(iterations or 0, cap) + "░" * max(cap - (iterations or 0), 0)
    text = (f"{row['name']}  {row['kind']}  {bar} {iterations if iterations is not None else '?'}/{cap}  "
            f"tokens {row['tokens_used']}/{row['token_cap']}  {row['status']}")
    return text + (f": {row['stop_reason']}" if row["stop_reason"] else "")


def stop(ctx: Ctx, name: str, reason: str | None = None) -> Result:
    """Stop a running cycle by hand; its ledger stays and further ticks are refused."""
    ledger.check_name(name)
    paths = ctx.paths()
    with locked(paths, ledger.lock_name(name)):
        cycle = load(ctx, name)
        before = cycle.status
        if cycle.running:
            cycle.status = "stopped"
            cycle.stop_reason = f"stopped by {ctx.who(cycle.agent)}" + (f": {clean(reason, 300)}" if reason else "")
            cycle.updated = iso(ctx.clock())
            ledger.save(paths, cycle)
    iterations = ledger.count_or_none(paths, name)
    applied = before == "running"
    if applied:
        record(ctx, "cycle stop", cycle.current or cycle.node, {}, cycle=name, reason=cycle.stop_reason,
               iteration=iterations)
    still = stuck_on(ctx.plan(), cycle)
    lines = [f"Cycle {name} {'stopped' if applied else 'was already ' + before}: {cycle.stop_reason}"]
    if still is not None:
        lines.append(f"  {still.id} stays {still.status}")
    return Result(cycle.row(iterations), next_(ctx.cmd("next"), "the loop is over"), lines,
                  Mutation("cycle_stop", "stop", applied, cycle.stop_reason or "",
                           [{"id": name, "field": "cycle", "from": before, "to": "stopped"}] if applied else []))
