"""`leafwise trust`: which commands from this plan's files may run, approved by the person.

Plan files are untrusted (docs/security.md): a `done_when` command check or a
cycle's verify command runs only once approved here, like `direnv allow`. The
approvals live in the person's own config folder (store/trust.py), never in
the repository. Approving is a CLI-only act: the MCP tool only lists.
"""

from __future__ import annotations

from leafwise.commands.contract import EXIT_NOT_FOUND, EXIT_USAGE, CommandError, Mutation, Result, done, fix, next_
from leafwise.commands.plan_files import PlanCommand, plan_commands
from leafwise.commands.registry import Ctx


def review(ctx: Ctx, allow: tuple[str, ...] = (), everything: bool = False, revoke: tuple[str, ...] = ()) -> Result:
    from leafwise.store import trust as store

    plan = ctx.plan()
    listed = plan_commands(plan)
    wanted = [h.strip().lower() for h in allow if h.strip()]
    dropped = [h.strip().lower() for h in revoke if h.strip()]
    for key in (*wanted, *dropped):
        if len(key) < 8 or any(c not in "0123456789abcdef" for c in key):
            raise CommandError("invalid_hash", f"{key[:80]!r} is not a command hash (8 to 64 hex digits)",
                               fix(ctx.cmd("trust"), "the listing shows each command's hash"),
                               exit_code=EXIT_USAGE, category="usage")
    chosen: list[PlanCommand] = []
    for key in wanted:
        match = [c for c in listed if c.hash.startswith(key)]
        if not match:
            raise CommandError("unknown_hash", f"no command of this plan has the hash {key}",
                               fix(ctx.cmd("trust"), "list the plan's commands and their hashes"),
                               exit_code=EXIT_NOT_FOUND, category="not_found")
        chosen += match
    if everything:
        chosen += [c for c in listed if not c.trusted]
    changes = []
    approved = {c.hash: c for c in chosen if not c.trusted}
    if approved:
        store.allow(plan.paths.repo, sorted({c.command for c in approved.values()}))
        changes += [{"id": c.short, "field": "trusted", "from": False, "to": True} for c in approved.values()]
    if dropped:
        gone = store.revoke(dropped)
        changes += [{"id": k[:16], "field": "trusted", "from": True, "to": False} for k in gone]
    if changes:
        listed = plan_commands(plan)
    untrusted = [c for c in listed if not c.trusted]
    lines = [f"Commands this plan's files would run ({len(listed)}; approvals in {store.store_path()}):"]
    for c in listed:
        mark = "approved " if c.trusted else "NOT TRUSTED"
        where = f"node {c.owner}" if c.source == "node" else f"cycle {c.owner}"
        lines.append(f"  {c.short}  {mark:11}  {where}: {c.command}")
    if not listed:
        lines.append("  (none: no done_when command checks and no cycle verify commands)")
    result = {"commands": [c.as_dict() for c in listed], "untrusted": len(untrusted),
              "store": str(store.store_path())}
    if untrusted:
        action = next_(ctx.cmd("trust", allow=untrusted[0].short),
                       "a person reads the command first and approves it only if they would run it themselves",
                       or_=ctx.cmd("validate"))
    else:
        action = done("every command of this plan is approved (or there are none)")
    applied = bool(changes)
    return Result(result, action, lines,
                  Mutation("trust_commands", "trust", applied,
                           f"{len(changes)} approval(s) changed" if applied else "listing only", changes))
