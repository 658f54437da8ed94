"""Team mode: claims on the shared git remote (`leafwise team …`; commands/team/ does the work).

All are a person's setup and upkeep commands, CLI only (`tool=None`): an agent's loop is still
`next`/`start`/`heartbeat`/`complete`, which in team mode also move the claim ref, and `next` already
names the tasks other clones hold. `team status` stays off MCP too: its rows are what `next`'s held
list says, and the tool budget is nearly spent.
"""

from __future__ import annotations

import importlib.util

from leafwise.commands.contract import Result
from leafwise.commands.domain import claiming
from leafwise.commands.registry import ACTING, Ctx, Param, command
from leafwise.commands.team import commands as team
from leafwise.commands.team import upkeep


@command("team init", "Turn team mode on: claims in refs/leafwise/* on the shared remote (probes the host).",
         mutating=True, tool=None,
         params=(Param("remote", "the git remote that holds the claims", default="origin"), ACTING))
def init(ctx: Ctx, remote: str | None = None, agent: str | None = None) -> Result:
    result = team.init(ctx, remote or "origin")
    result.text.extend(_merge_driver(ctx))
    return result


def _merge_driver(ctx: Ctx) -> list[str]:
    """The key-wise merge driver for node files (commands/domain/merging.py), set up when it is there."""
    if importlib.util.find_spec("leafwise.commands.domain.merging") is None:
        return []
    from leafwise.commands.domain import merging

    if not hasattr(merging, "install"):
        return []
    done = merging.install(ctx.paths().repo)
    return [f"  merge driver: {done.problem}" if done.problem or not done.driver else
            "  merge driver for node files set up (.leafwise/.gitattributes and this clone's git config)"]


@command("team join", "Join this clone to the team: its clone id and a first fetch of every claim.",
         mutating=True, tool=None, params=(ACTING,))
def join(ctx: Ctx, agent: str | None = None) -> Result:
    result = team.join(ctx)
    result.text.extend(_merge_driver(ctx))
    return result


@command("team status", "Every claim: agent@clone, branch, state, age as observed here.", mutating=False,
         tool=None, idempotent=True,
         params=(Param("local", "this clone's last copies, without fetching", type=bool),))
def status(ctx: Ctx, local: bool = False) -> Result:
    return team.show_status(ctx, fetch=not local)


@command("team sync", "Fetch the claims, push offline claims create-only, clean old done tombstones.",
         mutating=True, tool=None, idempotent=True,
         params=(Param("grace_days", "days a done claim stays after its task is done here (default 7)",
                       type=float), ACTING))
def sync(ctx: Ctx, grace_days: float | None = None, agent: str | None = None) -> Result:
    return upkeep.sync(ctx, upkeep.GRACE_DAYS if grace_days is None else grace_days)


@command("team claim", "Claim a task in this clone only while the remote is unreachable; team sync pushes it.",
         mutating=True, tool=None,
         params=(Param("node_id", "node id (or --next)", positional=True),
                 Param("next", "pick the next task and claim it", type=bool),
                 Param("agent", "the agent's name", required=True),
                 Param("ttl", "lease length in minutes (default 60)", type=float)))
def claim(ctx: Ctx, node_id: str | None = None, agent: str = "", ttl: float | None = None,
          next: bool = False) -> Result:  # noqa: A002 - the flag's name
    return claiming.start(ctx, node_id, agent, ttl, next, offline=True)


@command("team doctor", "Probe the host live: create-only, second create, CAS update, atomic pair, delete.",
         mutating=False, tool=None)
def doctor(ctx: Ctx) -> Result:
    return team.run_doctor(ctx)


@command("team repair", "Restore claim refs a force-push or push --mirror deleted, from this clone's copies.",
         mutating=True, tool=None, idempotent=True,
         params=(Param("dry_run", "say what would be restored", type=bool), ACTING))
def repair(ctx: Ctx, dry_run: bool = False, agent: str | None = None) -> Result:
    return upkeep.repair(ctx, dry_run)
