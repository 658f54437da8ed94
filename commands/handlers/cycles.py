"""Bounded cycles: start, tick, verify, status, stop (commands/domain/cycles.py, cycle_ticks.py,
cycle_verify.py)."""

from __future__ import annotations

from leafwise.commands.contract import Result
from leafwise.commands.domain import cycle_ticks, cycle_verify, cycles
from leafwise.commands.registry import ACTING, Ctx, Param, command
from leafwise.store import cycles as ledger

NAME = Param("name", "the cycle's name (letters, digits, . _ -)", positional=True, required=True)


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
                 ACTING))
def start(ctx: Ctx, name: str, kind: str, max_iterations: int | None = None, token_cap: int | None = None,
          verify: tuple[str, ...] = (), off_limits: tuple[str, ...] = (), node: str | None = None,
          agent: str | None = None) -> Result:
    return cycles.start(ctx, name, kind, max_iterations, token_cap, verify, off_limits, node, agent)


@command("cycle tick", "Begin the next iteration: moves the ledger first, then says what this iteration is for.",
         mutating=True, tool="cycle_tick", example="cycle tick fix-bugs --tokens 12000",
         params=(NAME, Param("tokens", "tokens spent since the last tick", type=int), ACTING))
def tick(ctx: Ctx, name: str, tokens: int | None = None, agent: str | None = None) -> Result:
    return cycle_ticks.tick(ctx, name, tokens)


@command("cycle verify", "Run the cycle's verify commands (real exit codes, a timeout); record them as evidence.",
         mutating=True, tool="cycle_verify", example="cycle verify fix-bugs",
         params=(NAME, Param("timeout", f"seconds each command may run (default {cycle_verify.VERIFY_TIMEOUT:g})",
                             type=float), ACTING))
def verify(ctx: Ctx, name: str, timeout: float | None = None, agent: str | None = None) -> Result:
    return cycle_verify.verify(ctx, name, timeout)


@command("cycle status", "The cycles: kind, count of cap, tokens of budget, running, stopped or escalated.",
         mutating=False, tool="cycle_status", idempotent=True, listing=True, example="cycle status",
         params=(Param("name", "one cycle (with its report)", positional=True),))
def status(ctx: Ctx, name: str | None = None) -> Result:
    return cycles.status(ctx, name)


@command("cycle stop", "Stop a cycle by hand; its ledger stays and further ticks are refused.",
         mutating=True, tool="cycle_stop", idempotent=True, example="cycle stop fix-bugs",
         params=(NAME, Param("reason", "why it stops"), ACTING))
def stop(ctx: Ctx, name: str, reason: str | None = None, agent: str | None = None) -> Result:
    return cycles.stop(ctx, name, reason)
