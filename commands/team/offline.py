"""Claims made while the remote did not answer (`start --offline`): kept in this clone's git folder and
pushed create-only by `team sync`. A push that loses means another clone took the task meanwhile: the
agent is told to stop (`team sync` names it)."""

from __future__ import annotations

import json
from dataclasses import dataclass

from leafwise.commands.team import protocol, remote
from leafwise.commands.team.records import records_locked
from leafwise.commands.team.remote import Team
from leafwise.store import atomic, reader

FILE = "unsynced.json"


@dataclass(frozen=True, slots=True)
class Pushed:
    node: str
    agent: str
    won: bool
    holder: str  # who has it when lost


def _path(team: Team):
    return remote.team_dir(team.root) / FILE


def pending(team: Team) -> dict[str, dict]:
    """node id -> {agent, ttl_s, since} of the claims not pushed yet."""
    try:
        data = reader.read_json(_path(team), reader.SETTINGS)
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, dict) and isinstance(v.get("agent"), str)
            and isinstance(v.get("ttl_s"), (int, float))}


def _save(team: Team, items: dict[str, dict]) -> None:
    atomic.replace(_path(team), (json.dumps(items, indent=1, sort_keys=True) + "\n").encode())


def remember(team: Team, node_id: str, agent: str, ttl_s: float, since: str) -> None:
    if not team.joined:  # a claim kept to push later is a claim: refused in a clone that never joined
        from leafwise.commands.team.session import not_joined

        raise not_joined()
    with records_locked(remote.team_dir(team.root)):  # agents of this clone claim offline at once
        items = pending(team)
        items[node_id] = {"agent": agent, "ttl_s": ttl_s, "since": since}
        _save(team, items)


def forget(team: Team, node_id: str) -> None:
    with records_locked(remote.team_dir(team.root)):
        items = pending(team)
        if items.pop(node_id, None) is not None:
            _save(team, items)


def push_all(team: Team, seen: dict[str, protocol.Remote]) -> list[Pushed]:
    """Push each offline claim create-only (or as mine when the ref is mine already); each one's fate."""
    out = []
    for node_id, item in sorted(pending(team).items()):
        outcome = protocol.claim(team, node_id, item["agent"], float(item["ttl_s"]), seen.get(node_id),
                                 str(item.get("since") or ""))
        held = outcome.state.holder if outcome.state and not outcome.won else ""
        out.append(Pushed(node_id, item["agent"], outcome.won, held))
        forget(team, node_id)
    return out
