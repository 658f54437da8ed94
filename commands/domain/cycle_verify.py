"""`cycle verify`: run the cycle's verify commands and record their real exit codes.

One verify per iteration: a red verify is answered by the next tick, never by
running the same check again. The commands run outside the cycle's lock (they
may take minutes); the outcome is written under it, and as evidence on the task
(cycle_runs.py runs them).
"""

from __future__ import annotations

from typing import Any

from leafwise.commands.contract import (
    EXIT_CONFLICT,
    EXIT_FAILURE,
    EXIT_USAGE,
    CommandError,
    Mutation,
    Result,
    fix,
    next_,
    placeholder,
    wait,
)
from leafwise.commands.domain import cycle_runs as runs
from leafwise.commands.domain.cycle_gates import FOR_EACH
from leafwise.commands.domain.cycles import count, finish, load, refused, reminder, require_node
from leafwise.commands.domain.nodes import record
from leafwise.commands.registry import Ctx
from leafwise.store import CLOSED, Node
from leafwise.store import cycles as ledger
from leafwise.store.claims import parse_time
from leafwise.store.writer import iso, locked

VERIFY_TIMEOUT = 300.0


def _has_verify(ctx: Ctx, cycle: ledger.Cycle) -> None:
    """Refuse a verify of a loop that is over, or that has nothing to run."""
    if not cycle.running:
        raise refused(ctx, cycle, "cycle_verify")
    if not cycle.verify:
        raise CommandError("no_verify", f"cycle {cycle.name} has no verify commands",
                           fix(ctx.cmd("cycle tick", cycle.name), "this cycle is checked by its task, not by commands"),
                           exit_code=EXIT_USAGE, category="usage", source=("cycle", cycle.name))


def _may_verify(ctx: Ctx, cycle: ledger.Cycle, iterations: int, target_id: str | None) -> None:
    """Refuse a second verify of one iteration, a verify while backing off, or commands nobody approved."""
    name = cycle.name
    lv = cycle.last_verify or {}
    if lv and not lv.get("green") and lv.get("iteration") == iterations and lv.get("node") == target_id:
        message = f"the verify of iteration {iterations} was already red; each fix-and-verify is one iteration"
        raise CommandError("verify_again", message, fix(ctx.cmd("cycle tick", name), "begin the next iteration"),
                           exit_code=EXIT_CONFLICT, category="refused", source=("cycle", name),
                           mutation=Mutation("cycle_verify", "verify_again", False, message))
    if cycle.kind == "retry-with-backoff" and cycle.not_before and parse_time(cycle.not_before) > ctx.clock():
        message = f"cycle {name} backs off until {cycle.not_before}"
        raise CommandError("backing_off", message,
                           wait(f"until {cycle.not_before}; then run {ctx.cmd('cycle verify', name)}", "back-off"),
                           exit_code=EXIT_CONFLICT, category="conflict", source=("cycle", name),
                           mutation=Mutation("cycle_verify", "backing_off", False, message))
    runs.check_trusted(ctx, cycle)


def _lines(cycle: ledger.Cycle, iterations: int, target_id: str | None, results: list[dict[str, Any]]) -> list[str]:
    lines = [f"Verify of cycle {cycle.name}, iteration {iterations}" + (f", on {target_id}" if target_id else "") + ":"]
    lines += [f"  exit {r['exit_code']}{' (timed out)' if r['timed_out'] else ''}  {r['command']}  "
              f"({r['seconds']}s)" + (f"  → {r['output']}" if r["exit_code"] and r["output"] else "")
              for r in results]
    return lines + reminder(cycle)


def verify(ctx: Ctx, name: str, timeout: float | None = None) -> Result:
    """Run the verify commands (a timeout each), record the exit codes; a green goal with no task ends the loop."""
    ledger.check_name(name)
    paths = ctx.paths()
    cycle = load(ctx, name)
    _has_verify(ctx, cycle)
    iterations = count(ctx, cycle)
    plan = ctx.plan()
    require_node(ctx, plan, cycle)
    target: Node | None = plan.get((cycle.current if cycle.kind == FOR_EACH else cycle.node) or "")
    target_id = target.id if target else None
    _may_verify(ctx, cycle, iterations, target_id)
    limit = timeout if timeout and timeout > 0 else VERIFY_TIMEOUT
    results = [runs.run(c, paths.repo, limit) for c in cycle.verify]  # outside the lock: they may take minutes
    green = all(r["exit_code"] == 0 for r in results)
    codes = [r["exit_code"] for r in results]
    at = ctx.clock()
    finished: Result | None = None
    with locked(paths, ledger.lock_name(name)):
        cycle = load(ctx, name)
        if not cycle.running:
            raise refused(ctx, cycle, "cycle_verify")
        cycle.last_verify = {"node": target_id, "iteration": iterations, "green": green, "at": iso(at),
                             "exit_codes": codes, "results": results}
        cycle.updated = iso(at)
        ledger.save(paths, cycle)
        record(ctx, "cycle verify", target_id, {}, actor=cycle.agent, cycle=name, iteration=iterations,
               green=green, exit_codes=codes)
        if green and cycle.kind != FOR_EACH and not cycle.node:  # a goal with no task: reached
            finished = finish(ctx, plan, cycle, iterations, "the verify commands are green: the goal is reached",
                              "cycle_verify")
    changes = [{"id": name, "field": "last_verify", "from": None, "to": "green" if green else "red"}]
    if target is not None:
        changes.append(runs.add_verify_evidence(ctx, target, name, iterations, at, results))
    lines = _lines(cycle, iterations, target_id, results)
    result = {"cycle": cycle.row(iterations), "green": green, "iteration": iterations, "node": target_id,
              "results": results}
    mutation = Mutation("cycle_verify", "verify", True, "green" if green else "red", changes)
    if not green:
        first = next(r for r in results if r["exit_code"] != 0)
        raise CommandError(
            "verify_red", f"verify is red: exit {first['exit_code']} from `{first['command']}`",
            fix(ctx.cmd("cycle tick", name), "the next iteration fixes the class of the problem"),
            exit_code=EXIT_FAILURE, category="refused", source=("cycle", name), details=result,
            mutation=mutation, text=lines)
    if finished is not None:
        mutation.changes += finished.mutation.changes
        return Result({**result, "report": finished.result["report"]}, finished.next_action,
                      lines + finished.text, mutation)
    if target is not None and target.status not in CLOSED:
        action = next_(ctx.cmd("complete", target.id, summary=placeholder("summary")), "verify is green")
    else:
        action = next_(ctx.cmd("cycle tick", name), "verify is green; the next tick moves on")
    return Result(result, action, lines, mutation)
