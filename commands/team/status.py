"""Every claim of the team as this clone sees it: `claims(root, fetch)` (the canvas polls it) and the
rows of `leafwise team status`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from leafwise.commands.team import protocol, remote


@dataclass(frozen=True, slots=True)
class TeamClaim:
    """One task's claim: who (agent in clone), on which branch, its state ("held", "done", "released",
    "blocked", "unreadable"), and how long *this machine* has seen it unchanged (never another clock)."""

    node_id: str
    agent: str
    clone: str
    branch: str
    state: str
    age_seconds: float
    stale: bool = False  # held and silent here for longer than its TTL: another clone may take it
    ttl_seconds: float = 0.0


def claims(root: Path, fetch: bool) -> list[TeamClaim]:
    """The team's claims for the plan found from `root`, fetched from the remote first when `fetch`
    (TeamError when it does not answer), else from this clone's last copies; by node id."""
    team = remote.load_team(root)
    copies = remote.fetch(team.root, team) if fetch else None
    return rows(protocol.snapshot(team, copies))


def rows(seen: dict[str, protocol.Remote]) -> list[TeamClaim]:
    out = []
    for node_id in sorted(seen):
        item = seen[node_id]
        state = item.state
        if state is None:
            out.append(TeamClaim(node_id, "", "", "", "unreadable", item.unchanged_s))
            continue
        out.append(TeamClaim(node_id, state.agent, state.clone, state.branch, state.state, item.unchanged_s,
                             item.stale, state.ttl_s))
    return out
