"""Every claim of the team as this clone sees it: `claims(root, fetch)` (the canvas polls it), the rows
of `leafwise team status`, and `holds`: the claims as the picker's holds (`next`, `start`, the canvas)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from leafwise.commands.team import protocol, refs, remote
from leafwise.store import CLOSED, Plan
from leafwise.store import claims as leases
from leafwise.store.ids import id_order
from leafwise.store.timestamps import to_text


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
    here: bool = False  # made by this clone on the branch it is on now (its outcome is this branch's)
    merged: str = ""  # canvas --follow: the default branch (`origin/main`) that has the task closed, not pulled here


@dataclass(frozen=True, slots=True)
class Followed:
    """What one poll of `canvas --follow` brings: the claims, and the remote's default branch as
    fetched with them (`upstream.Upstream`; None when the remote's HEAD names no branch)."""

    claims: list[TeamClaim]
    upstream: object | None


def claims(root: Path, fetch: bool) -> list[TeamClaim]:
    """The team's claims for the plan found from `root`, fetched from the remote first when `fetch`
    (TeamError when it does not answer), else from this clone's last copies; by node id."""
    team = remote.load_team(root)
    copies = remote.fetch(team.root, team) if fetch else None
    return rows(protocol.snapshot(team, copies), where(team.root))


def followed(root: Path, fetch: bool = True) -> Followed:
    """`claims`, with the remote's default branch fetched in the same request (`upstream.py`): the
    canvas's poll, so a person on any machine sees what was merged there."""
    from leafwise.commands.team import upstream

    team = remote.load_team(root)
    copies = upstream.fetch(team)[0] if fetch else None
    return Followed(rows(protocol.snapshot(team, copies), where(team.root)), upstream.read(team))


def where(root: Path) -> tuple[str, str] | None:
    """This clone's id and the branch it is on: what makes a claim's outcome this branch's (None in a
    clone that never joined: no claim is its own; following the team reads, it makes no id)."""
    return (remote.clone_id(root), remote.branch(root)) if remote.joined(root) else None


def rows(seen: dict[str, protocol.Remote], here: tuple[str, str] | None = None) -> list[TeamClaim]:
    """The claims as rows, by node id; `here` (this clone, its branch) marks the rows made here."""
    out = []
    for node_id in sorted(seen, key=lambda n: (id_order(n), n)):  # HX-6 before HX-10, as the plan lists them
        item = seen[node_id]
        state = item.state
        if state is None:
            out.append(TeamClaim(node_id, "", "", "", "unreadable", item.unchanged_s))
            continue
        out.append(TeamClaim(node_id, state.agent, state.clone, state.branch, state.state, item.unchanged_s,
                             item.stale, state.ttl_s, here == (state.clone, state.branch)))
    return out


def done_elsewhere(rows: Iterable[TeamClaim], plan: Plan) -> list[TeamClaim]:
    """Tasks open in `plan` whose claim says done by another clone or on another branch: finished on a
    branch not merged into this one yet (`next`'s and the canvas's Wait for the merge), by id."""
    nodes = plan.nodes
    return sorted((r for r in rows if r.state == refs.TERMINAL and not r.here and r.node_id in nodes
                   and nodes[r.node_id].status not in CLOSED), key=lambda r: id_order(r.node_id))


def held_open(rows: Iterable[TeamClaim], plan: Plan) -> list[str]:
    """Tasks open in `plan` whose claim is held and not silent past its TTL: work left, that comes free
    by itself when its holder finishes or goes silent, so the nearer step is the picker's Wait for its
    holder, never the merge Wait (which reads as "nothing left", and an agent stops beside the task)."""
    nodes = plan.nodes
    return sorted((r.node_id for r in rows if r.state == "held" and not r.stale and r.node_id in nodes
                   and nodes[r.node_id].status not in CLOSED), key=id_order)


def merge_waiting(rows: Iterable[TeamClaim], plan: Plan) -> list[TeamClaim]:
    """The claims the merge Wait names (`team_reads.merge_wait_for`: `next`, `start --next`, `complete`,
    the canvas's Next bar): the tasks done on other clones' branches, none while a task is `held_open`."""
    rows = list(rows)
    return [] if held_open(rows, plan) else done_elsewhere(rows, plan)


def holds(rows: Iterable[TeamClaim], now: datetime, me: str | None = None) -> tuple[dict[str, leases.Claim], set[str]]:
    """The claims as leases the picker understands (a held claim not silent past its TTL, named
    `agent@clone` unless its clone is `me`, expiring when this machine may take it), and the tasks
    never to hand out: done or blocked in their claim, or a claim that cannot be read (its owner repairs it)."""
    found: dict[str, leases.Claim] = {}
    closed: set[str] = set()
    for row in rows:
        if row.state == "unreadable" or row.state in refs.CLOSED_STATES:
            closed.add(row.node_id)
            continue
        if row.state != "held" or row.stale:
            continue
        agent = row.agent if me is not None and row.clone == me else f"{row.agent}@{row.clone}"
        last = now - timedelta(seconds=max(0.0, row.age_seconds))
        found[row.node_id] = leases.Claim(row.node_id, agent[:leases.MAX_AGENT_CHARS], to_text(last), to_text(last),
                                          to_text(last + timedelta(seconds=row.ttl_seconds)))
    return found, closed
