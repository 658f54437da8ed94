"""`leafwise trust`: which commands from this plan's files may run, approved by the person.

Plan files are untrusted (docs/security.md): a `done_when` command check or a
cycle's verify command runs only once approved here, like `direnv allow`. The
approvals live in the person's own config folder (store/trust.py), never in
the repository.

Approving is a person's act (docs/security.md, "Approvals"): never on MCP (the
approving arguments are CLI-only), never for a call that names an agent, and on
the CLI only after the person confirms on a terminal, or passes `--yes`. No
answer anywhere hands out the approving line: where approval is missing, the
answer is `Wait: a person approves … (leafwise trust)` (`hints.approval_wait`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any

from leafwise.commands.contract import (
    EXIT_CONFLICT,
    EXIT_NOT_FOUND,
    EXIT_USAGE,
    MAX_ITEMS,
    CommandError,
    Mutation,
    NextAction,
    Result,
    clean,
    done,
    fix,
    inert,
    wait,
)
from leafwise.commands.core.hints import approval_wait
from leafwise.commands.plan_files import PlanCommand, plan_commands
from leafwise.commands.registry import Ctx, on_agent_surface
from leafwise.store.config_dirs import outside

HEX = frozenset("0123456789abcdef")
def person_here(agent: str | None = None) -> bool:
    """Whether this call comes from a person at a terminal: not on an agent's surface (MCP), no agent
    named (on the call or in `LEAFWISE_AGENT`), and a terminal on both stdin and stderr.

    The MCP server's stdin is the protocol's pipe, an agent's shell tool gives pipes, and a test's
    `capture_output` too, so none of them is a person here. stderr is asked as well as stdin so that a
    child whose stdin is inherited from a developer's terminal (pytest) never waits for an answer.
    """
    if on_agent_surface() or agent or (os.environ.get("LEAFWISE_AGENT") or "").strip():
        return False
    try:
        return bool(sys.stdin and sys.stderr and sys.stdin.isatty() and sys.stderr.isatty())
    except (AttributeError, ValueError, OSError):  # a closed or replaced stream
        return False


def subject(items: Sequence[PlanCommand]) -> str:
    """What waits for approval, in words for a Wait line: the node or cycle that asks, never the
    command's text (a clone's author wrote it, and it could spell any command line)."""
    owners = sorted({(c.source, c.owner) for c in items})
    if len(items) == 1:
        c = items[0]
        return (f"the done_when check of node {clean(c.owner, 80)}" if c.source == "node"
                else f"the verify command of cycle {clean(c.owner, 80)}")
    named = ", ".join(f"{'node' if s == 'node' else 'cycle'} {clean(o, 80)}" for s, o in owners[:3])
    more = f" and {len(owners) - 3} more" if len(owners) > 3 else ""
    return f"{len(items)} commands from this plan's files ({named}{more})"


def not_by_an_agent(ctx: Ctx, items: Sequence[PlanCommand], why: str, mutation_op: str) -> CommandError:
    """The refusal of an approval that did not come from a person at a terminal: a Wait, never a
    Fix that repeats the approving line (nor names the flag that skips the question)."""
    message = f"{why}; nothing was approved"
    return CommandError("approval_needs_a_person", message, approval_wait(ctx.cmd, subject(items)),
                        exit_code=EXIT_CONFLICT, category="refused", source=("plan", None),
                        details={"commands": [c.as_dict() for c in items]},
                        mutation=Mutation("trust_commands", mutation_op, False, message),
                        text=_listing(items, "Would approve"))


def _keys(ctx: Ctx, raw: tuple[str, ...]) -> list[str]:
    keys = [h.strip().lower() for h in raw if h.strip()]
    for key in keys:
        if len(key) < 8 or any(c not in HEX for c in key):
            raise CommandError("invalid_hash", f"{key[:80]!r} is not a command hash (8 to 64 hex digits)",
                               fix(ctx.cmd("trust"), "the listing shows each command's hash"),
                               exit_code=EXIT_USAGE, category="usage")
    return keys


def _chosen(ctx: Ctx, listed: list[PlanCommand], wanted: list[str], everything: bool) -> list[PlanCommand]:
    """The not yet approved commands the call names (by hash prefix, or all of them)."""
    chosen: dict[str, PlanCommand] = {}
    for key in wanted:
        match = [c for c in listed if c.hash.startswith(key)]
        if not match:
            raise CommandError("unknown_hash", f"no command of this plan has the hash {key}",
                               fix(ctx.cmd("trust"), "list the plan's commands and their hashes"),
                               exit_code=EXIT_NOT_FOUND, category="not_found")
        chosen.update((c.hash, c) for c in match)
    if everything:
        chosen.update((c.hash, c) for c in listed)
    return [c for c in chosen.values() if not c.trusted]


def _listing(items: Sequence[PlanCommand], head: str) -> list[str]:
    lines = [f"{head} ({len(items)}):"]
    for c in items:
        where = f"node {c.owner}" if c.source == "node" else f"cycle {c.owner}"
        lines.append(f"  {c.short}  {where}: {c.shown}")
    return lines


def confirm(items: Sequence[PlanCommand]) -> bool:
    """Ask the person at the terminal, showing each command's exact text (inert: an escape sequence in
    it cannot hide part of it); only `y` or `yes` approves."""
    lines = _listing(items, "Approve these commands for this plan? Each would run with your rights")
    sys.stderr.write("\n".join(inert(line) for line in lines) + "\nApprove? [y/N] ")
    sys.stderr.flush()
    try:
        answer = sys.stdin.readline()
    except (OSError, ValueError, KeyboardInterrupt):
        return False
    return answer.strip().lower() in ("y", "yes")


def _approve(ctx: Ctx, chosen: list[PlanCommand], yes: bool, agent: str | None) -> bool:
    """Whether the person approves `chosen`: refused for an agent or without a terminal (unless `yes`)."""
    if on_agent_surface() or agent or (os.environ.get("LEAFWISE_AGENT") or "").strip():
        raise not_by_an_agent(ctx, chosen, "an agent cannot approve a command from a plan file: "
                                           "approvals come from a person", "approve")
    if yes:
        return True
    if not person_here():
        raise not_by_an_agent(ctx, chosen, "approving needs the person at a terminal to confirm, "
                                           "and this call has no terminal", "approve")
    return confirm(chosen)


def _action(ctx: Ctx, untrusted: list[PlanCommand]) -> NextAction:
    if untrusted:
        return approval_wait(ctx.cmd, subject(untrusted))
    return done("every command of this plan is approved (or there are none)")


def review(ctx: Ctx, allow: tuple[str, ...] = (), everything: bool = False, revoke: tuple[str, ...] = (),
           yes: bool = False, agent: str | None = None) -> Result:
    from leafwise.store import trust as store

    plan = ctx.plan()
    tree = store.planted_store(plan.paths.repo) if allow or everything else None
    if tree is not None:  # the plan root or a work tree of its repository (HOME at a clone's top)
        raise CommandError("approvals_inside_plan", f"the approvals file {store.store_path()} lies inside this "
                           f"plan's repository ({tree}), where its author could have written it; no approval "
                           "there counts",
                           wait("a person sets LEAFWISE_CONFIG_DIR to a folder outside the "
                                "repository, then approves again", "approvals live outside every repository"),
                           exit_code=EXIT_CONFLICT, category="conflict")
    listed = plan_commands(plan)
    wanted, dropped = _keys(ctx, allow), _keys(ctx, revoke)
    chosen = _chosen(ctx, listed, wanted, everything)
    changes: list[dict[str, Any]] = []
    declined = False
    if chosen:
        if _approve(ctx, chosen, yes, agent):
            store.allow(plan.paths.repo, sorted({c.command for c in chosen}))
            changes += [{"id": c.short, "field": "trusted", "from": False, "to": True} for c in chosen]
        else:
            declined = True
    if dropped:
        changes += [{"id": k[:16], "field": "trusted", "from": True, "to": False} for k in store.revoke(dropped)]
    if changes:
        listed = plan_commands(plan)
    untrusted = [c for c in listed if not c.trusted]
    lines = [f"Commands this plan's files would run ({len(listed)}; approvals in {store.store_path()}):"]
    for c in listed:
        where = f"node {c.owner}" if c.source == "node" else f"cycle {c.owner}"
        lines.append(f"  {c.short}  {'approved ' if c.trusted else 'NOT TRUSTED':11}  {where}: {c.shown}")
    if not listed:
        lines.append("  (none: no done_when command checks and no cycle verify commands)")
    if declined:
        lines.append("Not approved: you answered no; nothing changed.")
    # at most MAX_ITEMS, as every listed array (`bounded`); untrusted ones first, the ones a person acts on
    answered = sorted(listed, key=lambda c: c.trusted)[:MAX_ITEMS]
    result = {"commands": [c.as_dict() for c in answered], "total": len(listed),
              "truncated": len(answered) < len(listed), "untrusted": len(untrusted),
              "store": str(store.store_path())}
    applied = bool(changes)
    return Result(result, _action(ctx, untrusted), lines,
                  Mutation("trust_commands", "trust", applied,
                           f"{len(changes)} approval(s) changed" if applied else "listing only", changes))
