"""What this machine has seen of the claim refs, and since when, on its own monotonic clock.

A steal is allowed only when this observer has seen a holder's ref unchanged for longer than the
claim's TTL. No other machine's clock is ever read: the first sighting of each SHA is kept as
`time.monotonic()` (one clock for every process of this machine), with the boot it belongs to, so a
reboot starts every observation afresh (later steals, never earlier ones).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from leafwise.commands.team.records import records_locked
from leafwise.store import atomic, reader

FILE = "observed.json"
BOOT_FILE = "/proc/sys/kernel/random/boot_id"


def _boot() -> str:
    try:
        return reader.read_text(BOOT_FILE, reader.SYSTEM).strip()[:64]
    except (OSError, ValueError):
        return "unknown"


def _load(folder: Path) -> dict[str, list]:
    try:
        data = reader.read_json(folder / FILE, reader.SETTINGS)
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("boot") != _boot() or not isinstance(data.get("refs"), dict):
        return {}
    return {k: v for k, v in data["refs"].items() if isinstance(v, list) and len(v) == 2
            and isinstance(v[0], str) and isinstance(v[1], (int, float))}


def seen(folder: Path, copies: dict[str, str], now: float | None = None) -> None:
    """Record this fetch's sightings (in the clone's team folder): a SHA seen before keeps its first
    sighting, a new one starts now. Under the team folder's records lock: every fetch of every process
    of the clone reads, changes and writes this file, and a writer that loaded it before another's
    write would put a later first sighting back (a steal later than its TTL) or drop a ref's."""
    with records_locked(folder):
        _seen(folder, copies, time.monotonic() if now is None else now)


def _seen(folder: Path, copies: dict[str, str], now: float) -> None:
    old = _load(folder)
    refs = {ref: (old[ref] if ref in old and old[ref][0] == sha else [sha, now]) for ref, sha in copies.items()}
    if refs == old:
        return
    body = json.dumps({"boot": _boot(), "refs": refs}, indent=0, sort_keys=True).encode()
    atomic.replace(folder / FILE, body, durable=False)


def load(folder: Path) -> dict[str, list]:
    """This clone's sightings, read once for many `unchanged_for` (a remote with many refs would make a
    read per ref quadratic)."""
    return _load(folder)


def unchanged_for(folder: Path, ref: str, sha: str, now: float | None = None,
                  sightings: dict[str, list] | None = None) -> float:
    """Seconds this machine has seen `ref` at `sha` without a change (0: not seen at that SHA)."""
    found = (_load(folder) if sightings is None else sightings).get(ref)
    if not found or found[0] != sha:
        return 0.0
    return max(0.0, (time.monotonic() if now is None else now) - float(found[1]))
