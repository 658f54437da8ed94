"""Leased claims: `.leafwise/claims/<ID>.json`, one per held task, with an expiry.

A claim is a lease, not a lock: it survives restarts and expires on its own
when its holder stops heartbeating. Every change of a claim happens under the
node's lock (`start` in commands/loop.py, heartbeat/unclaim/renumber in
commands/claims.py, `repair`), so exactly one of many racing agents wins and
an expired lease is never removed after someone renewed it.
Claim files are written atomically: a crash leaves the old lease or the new.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta

from leafwise.store import atomic, reader, values
from leafwise.store.ids import agent_problem, is_node_id
from leafwise.store.paths import PlanPaths, check_id
from leafwise.store.timestamps import parse, to_text, utc_now

DEFAULT_TTL_MINUTES = 60
MAX_TTL_MINUTES = 7 * 24 * 60  # a lease longer than a week is a mistake, not a plan
TTL_SETTING = "claim_ttl_minutes"  # project.yaml settings: the plan's default lease length
MAX_AGENT_CHARS = 1000  # an agent's name, as a claim file may hold it
MAX_CLOCK_AHEAD = timedelta(days=1)  # how far a claim's heartbeat may be ahead of this machine's clock


@dataclass(frozen=True, slots=True)
class Claim:
    node: str
    agent: str
    since: str
    heartbeat: str
    expires: str

    def expired(self, now: datetime) -> bool:
        return parse_time(self.expires) <= now

    def heartbeat_age(self, now: datetime) -> timedelta:
        """How long ago the holder last showed a sign of life (start or heartbeat)."""
        return now - parse_time(self.heartbeat)

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


def parse_time(text: str) -> datetime:
    """A claim's (or a cycle's) time; ValueError when it does not name its zone (`read` drops such claims)."""
    moment = parse(text)
    if moment is None:
        raise ValueError(f"{text!r} is not a time with its zone, like 2026-11-29T20:00:00Z")
    return moment


# A claim file this machine did not write (no seal of its key: force-added in a clone, or a copy) holds
# for at most this long after it arrived (its file's mtime, which git sets at checkout, not the file):
# a committed claim with a heartbeat 23 h ahead and a week's expiry held every task for eight days.
UNSEALED_MINUTES = DEFAULT_TTL_MINUTES
SEAL = "claim"


def _sealed(claim: Claim) -> bytes:
    return json.dumps([claim.node, claim.agent, claim.since, claim.heartbeat, claim.expires]).encode()


def read(paths: PlanPaths, node_id: str) -> Claim | None:
    """The lease on `node_id`, or None: no claim, or a claim file that cannot be trusted (a link, not
    JSON, too large or deep, a value of the wrong kind, a time without its zone, another node's id).
    One this machine did not seal ends `UNSEALED_MINUTES` after its file last changed, at the latest."""
    from leafwise.store import cache

    path = paths.own_folder(paths.claims) / f"{check_id(node_id)}.json"
    try:
        data = reader.read_json(path, reader.CLAIM)
        claim = from_data(data, node_id)
        if cache.sealed_here(SEAL, _sealed(claim), data.get("seal")):
            return claim
        arrived = min(datetime.fromtimestamp(os.lstat(path).st_mtime, UTC), utc_now())
    except (OSError, ValueError):  # reader.Refused is a ValueError
        return None
    latest = arrived + timedelta(minutes=UNSEALED_MINUTES)
    if parse_time(claim.expires) > latest:
        claim = Claim(claim.node, claim.agent, claim.since, claim.heartbeat, to_text(latest))
    return claim


def from_data(data: object, node_id: str) -> Claim:
    """A claim from a claim file's JSON, every value checked; ValueError naming the wrong one."""
    if not isinstance(data, dict):
        raise ValueError("a claim file must be a JSON object")
    fields = {k: values.text(data.get(k), k, limit=MAX_AGENT_CHARS if k == "agent" else 64, optional=False)
              for k in ("node", "agent", "since", "heartbeat", "expires")}
    claim = Claim(**fields)  # type: ignore[arg-type]
    if claim.node != node_id:
        raise ValueError(f"the claim file of {node_id} names {claim.node[:40]!r}")
    for moment in (claim.since, claim.heartbeat, claim.expires):
        parse_time(moment)  # a planted or naive time would break every comparison with the clock
    if agent_problem(claim.agent):  # the name goes into hints: the one rule of an agent's name
        raise ValueError(f"the claim file of {node_id}: {agent_problem(claim.agent)}")
    # A heartbeat from the future is no sign of life: a planted "heartbeat: 9999-12-24" with the week's
    # cap below counted from it held the task until the year 9999 (doctor: "no expired claims").
    # A day of clock difference between machines is allowed.
    if parse_time(claim.heartbeat) > utc_now() + MAX_CLOCK_AHEAD:
        raise ValueError(f"the claim file of {node_id}: its heartbeat {claim.heartbeat[:40]!r} is in the future")
    if parse_time(claim.expires) - parse_time(claim.heartbeat) > timedelta(minutes=MAX_TTL_MINUTES):
        # a planted "expires: 9999-12-31" would hold the task forever: no lease outlives a week of silence
        capped = parse_time(claim.heartbeat) + timedelta(minutes=MAX_TTL_MINUTES)
        claim = Claim(claim.node, claim.agent, claim.since, claim.heartbeat, to_text(capped))
    return claim


def read_all(paths: PlanPaths) -> dict[str, Claim]:
    claims: dict[str, Claim] = {}
    try:
        names = os.listdir(paths.own_folder(paths.claims))
    except (FileNotFoundError, NotADirectoryError, ValueError):  # ValueError: a symlinked folder
        return claims
    try:  # a lease holds a node: only those of the node files there are read (a clone may bring 60,000
        # claim files of ids no node has, each read by every command: 2.4 s a `show`)
        nodes = {n[:-5] for n in os.listdir(paths.nodes) if n.endswith(".yaml")}
    except OSError:
        nodes = None
    for name in names:
        if name.endswith(".json") and not name.startswith(".") and (nodes is None or name[:-5] in nodes):
            claim = read(paths, name[:-5]) if is_node_id(name[:-5]) else None
            if claim is not None:
                claims[claim.node] = claim
    return claims



def write(paths: PlanPaths, node_id: str, agent: str, now: datetime, ttl_minutes: float,
          since: str | None = None) -> Claim:
    claim = Claim(node=node_id, agent=agent, since=since or to_text(now), heartbeat=to_text(now),
                  expires=to_text(now + timedelta(minutes=ttl_minutes)))
    _save(paths, claim)
    return claim


def _save(paths: PlanPaths, claim: Claim) -> None:
    from leafwise.store import cache

    path = paths.own_folder(paths.claims) / f"{check_id(claim.node)}.json"
    atomic.clear_planted(path)  # a folder a clone force-added at the name: no lease could ever be written
    sealed = {**claim.as_dict(), "seal": cache.seal_record(SEAL, _sealed(claim))}
    atomic.replace(path, (json.dumps(sealed, indent=1) + "\n").encode())


def remove(paths: PlanPaths, node_id: str, agent: str | None = None) -> bool:
    """Drop the claim on a node (only `agent`'s, when given); callers hold the node's lock."""
    if agent is not None:
        claim = read(paths, node_id)
        if claim is None or claim.agent != agent:
            return False
    path = paths.own_folder(paths.claims) / f"{check_id(node_id)}.json"
    if atomic.clear_planted(path):  # not a lease file at all (a folder, a link): gone as well
        return True
    try:
        path.unlink()
        return True
    except FileNotFoundError:
        return False


def move(paths: PlanPaths, old_id: str, new_id: str) -> Claim | None:
    """Carry a claim over to a node's new id (renumber); callers hold both locks."""
    claim = read(paths, old_id)
    if claim is None:
        return None
    moved = Claim(node=new_id, agent=claim.agent, since=claim.since,
                  heartbeat=claim.heartbeat, expires=claim.expires)
    _save(paths, moved)
    remove(paths, old_id)
    return moved


def live(claims: dict[str, Claim], now: datetime) -> dict[str, Claim]:
    return {k: c for k, c in claims.items() if not c.expired(now)}
