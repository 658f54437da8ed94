"""Leases on verifying a draft: `.leafwise/.cache/verify-leases/<ID>.json`, one per draft being verified.

The same lease as a task's claim (`store/claims.py` `Claim`, read and checked by its `from_data`), in a
namespace of its own: verifying a draft is not working on it, so `start`, the picker and the canvas's
agent lanes never see these. Local state (the cache folder is git-ignored): losing one only lets
another agent verify that draft too. Every change happens under the one `verify` lock
(`commands/domain/verifying.py`), so of 8 agents asking at once each gets a different draft.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta
from pathlib import Path

from leafwise.store import atomic, reader
from leafwise.store.claims import Claim, from_data, parse_time
from leafwise.store.paths import PlanPaths, check_id
from leafwise.store.timestamps import to_text, utc_now

TTL_MINUTES = 30
LOCK = "verify"  # the lock every lease change is made under (store/locks.py)


def folder(paths: PlanPaths) -> Path:
    cache = paths.own_folder(paths.dir / ".cache")
    return paths.own_folder(cache / "verify-leases")


# A lease file is this machine's own (written here, never by another clock): a heartbeat later than
# this allows for is no sign of life, and no lease outlives TTL_MINUTES from it. A force-added lease in
# a clone (heartbeat a day ahead, a week's expiry: what a task's claim allows) held every draft from
# `verify --next` for eight days.
CLOCK_SLACK = timedelta(minutes=5)


def read(paths: PlanPaths, node_id: str) -> Claim | None:
    try:
        data = reader.read_json(folder(paths) / f"{check_id(node_id)}.json", reader.CLAIM)
        lease = from_data(data, node_id)
    except (OSError, ValueError):
        return None
    heartbeat = parse_time(lease.heartbeat)
    if heartbeat > utc_now() + CLOCK_SLACK:
        return None
    longest = heartbeat + timedelta(minutes=TTL_MINUTES)
    if parse_time(lease.expires) > longest:
        return Claim(lease.node, lease.agent, lease.since, lease.heartbeat, to_text(longest))
    return lease


def read_all(paths: PlanPaths) -> dict[str, Claim]:
    found: dict[str, Claim] = {}
    try:
        names = os.listdir(folder(paths))
    except (FileNotFoundError, NotADirectoryError, ValueError):
        return found
    for name in names:  # a lease holds a draft: only those of the node files there are read
        if name.endswith(".json") and not name.startswith("."):
            try:
                node_id = check_id(name[:-5])
            except ValueError:
                continue
            lease = read(paths, node_id) if os.path.lexists(paths.node_file(node_id)) else None
            if lease is not None:
                found[lease.node] = lease
    return found


def write(paths: PlanPaths, node_id: str, agent: str, now: datetime, ttl_minutes: float = TTL_MINUTES) -> Claim:
    lease = Claim(node=node_id, agent=agent, since=to_text(now), heartbeat=to_text(now),
                  expires=to_text(now + timedelta(minutes=ttl_minutes)))
    # the cache folder is git-ignored and Leafwise's own: a file or link a clone force-added at the
    # folder's name made every `verify --next` fail ('File exists') for good
    target = atomic.make_own_folder(paths.own_folder(paths.dir / ".cache") / "verify-leases")
    path = target / f"{check_id(node_id)}.json"
    atomic.clear_planted(path)  # a folder a clone force-added at the name: no lease could ever be written
    atomic.replace(path, (json.dumps(lease.as_dict(), indent=1) + "\n").encode(), durable=False)
    return lease


def remove(paths: PlanPaths, node_id: str) -> bool:
    path = folder(paths) / f"{check_id(node_id)}.json"
    if atomic.clear_planted(path):
        return True
    try:
        path.unlink()
        return True
    except FileNotFoundError:
        return False
