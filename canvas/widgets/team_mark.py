"""How a claim on the team's remote reads in the canvas (`canvas --follow`): the tree row's and the
board card's mark ("⚑ bob@laptop-3f2a"), the detail pane's line, and the holds the Next bar's pick
counts (`with_team`: the rule of `commands.team.status.holds`, as `next` counts them). The claims come
from `follow.FollowTeam`."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Protocol

from leafwise.canvas.look import clock
from leafwise.commands.text import one_line

MARKS = {"held": "⚑", "done": "✓", "blocked": "⊘"}  # the states a row shows (released: nobody holds it)


class TeamClaim(Protocol):
    """One claim as `commands.team.status.TeamClaim` carries it (the fields the canvas reads)."""

    node_id: str
    agent: str
    clone: str
    branch: str
    state: str
    age_seconds: float
    stale: bool
    ttl_seconds: float


def with_team(local: dict, team: Mapping[str, TeamClaim], now: datetime) -> tuple[dict, set[str]]:
    """The holds a pick in the canvas counts: the team's claims under this clone's own leases (which
    speak for this clone's agents), and the tasks a claim closes (done or blocked in another clone)."""
    if not team:
        return local, set()
    from leafwise.commands.team.status import holds

    remote, closed = holds(team.values(), now)  # type: ignore[arg-type]
    return {**remote, **local}, closed - set(local)


def holder(claim: TeamClaim) -> str:
    return f"{one_line(claim.agent, 40)}@{one_line(claim.clone, 40)}"


def team_mark(claim: TeamClaim | None) -> str:
    """What a tree row shows for a claim ("⚑ bob@laptop-3f2a"), or "" when nobody holds the task."""
    if claim is None or claim.state not in MARKS:
        return ""
    return f"{MARKS[claim.state]} {holder(claim)}" + (" stale" if claim.stale else "")


def team_line(claim: TeamClaim | None, since: datetime | None = None) -> str:
    """The detail pane's line: who, the state, the branch, and since when this machine has seen it
    unchanged (this machine's clock only: the holder's is never read)."""
    if claim is None:
        return ""
    seen = f" · unchanged here since {clock(since)}" if since is not None else ""
    if claim.state == "unreadable":
        return f"a claim this canvas cannot read{seen}"
    words = f"{holder(claim)} · {claim.state} on {one_line(claim.branch, 80) or 'no branch'}"
    if claim.stale:
        words += " · silent past its TTL (another clone may take it)"
    if claim.merged:
        words += f" · merged on {one_line(claim.merged, 80)}: git pull here"
    return words + seen
