"""What this machine has seen of the claim refs, and since when, on its own monotonic clock.

A steal is allowed only when this observer has seen a holder's ref unchanged for longer than the
claim's TTL. No other machine's clock is ever read: the first sighting of each SHA is kept as
`time.monotonic()` (one clock for every process of this machine), with the boot it belongs to, so a
reboot starts every observation afresh (later steals, never earlier ones).
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING

from leafwise.store import atomic, reader

if TYPE_CHECKING:
    from leafwise.commands.team.remote import Team

FILE = "observed.json"
BOOT_FILE = "/proc/sys/kernel/random/boot_id"


def _boot() -> str:
    try:
        return reader.read_text(BOOT_FILE, reader.SYSTEM).strip()[:64]
    except (OSError, ValueError):
        return "unknown"


def _load(team: Team) -> dict[str, list]:
    from leafwise.commands.team.remote import team_dir

    try:
        data = reader.read_json(team_dir(team.root) / FILE, reader.SETTINGS)
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("boot") != _boot() or not isinstance(data.get("refs"), dict):
        return {}
    return {k: v for k, v in data["refs"].items() if isinstance(v, list) and len(v) == 2
            and isinstance(v[0], str) and isinstance(v[1], (int, float))}


def seen(team: Team, copies: dict[str, str], now: float | None = None) -> None:
    """Record this fetch's sightings: a SHA seen before keeps its first sighting, a new one starts now."""
    from leafwise.commands.team.remote import team_dir

    now = time.monotonic() if now is None else now
    old = _load(team)
    refs = {ref: (old[ref] if ref in old and old[ref][0] == sha else [sha, now]) for ref, sha in copies.items()}
    if refs == old:
        return
    body = json.dumps({"boot": _boot(), "refs": refs}, indent=0, sort_keys=True).encode()
    atomic.replace(team_dir(team.root) / FILE, body, durable=False)


def unchanged_for(team: Team, ref: str, sha: str, now: float | None = None) -> float:
    """Seconds this machine has seen `ref` at `sha` without a change (0: not seen at that SHA)."""
    found = _load(team).get(ref)
    if not found or found[0] != sha:
        return 0.0
    return max(0.0, (time.monotonic() if now is None else now) - float(found[1]))
