"""Time as the plan writes it: UTC, to the second, `2026-11-29T20:00:00Z`.

Every timestamp Leafwise writes (node files, claims, the journal, the trust store) comes from
`to_text(utc_now())`, and every one it reads to compare with the clock goes through `parse`,
which takes only times that say their zone: guessing the zone of a naive time would make a lease
expire hours early or late.
"""

from __future__ import annotations

from datetime import datetime, timezone

TEXT_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def utc_now() -> datetime:
    """Now, in UTC, whole seconds (what a file can hold)."""
    return datetime.now(timezone.utc).replace(microsecond=0)


def to_text(moment: datetime) -> str:
    """`2026-11-29T20:00:00Z`. A naive `moment` (a hand-written `2026-11-29 20:00:00` read back by
    the round-trip parser) counts as UTC, like every time in the plan, whatever this machine's zone."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        moment = moment.replace(tzinfo=timezone.utc)
    moment = moment.astimezone(timezone.utc)
    return f"{moment.year:04d}" + moment.strftime(TEXT_FORMAT[2:])  # C's %Y writes the year 1 as "1"


def parse(text: object) -> datetime | None:
    """A time that names its zone (`…Z`, `…+02:00`), as an aware datetime; None for anything else.

    Takes what a file may hold: text in ISO 8601, or an aware datetime (a YAML loader's timestamp).
    """
    if isinstance(text, datetime):
        moment = text
    elif isinstance(text, str) and 0 < len(text) <= 64:
        try:
            moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00").replace("z", "+00:00"))
        except ValueError:
            return None
    else:
        return None
    if moment.tzinfo is None or moment.utcoffset() is None:
        return None
    try:  # `0001-01-01T00:00:00+14:00` names no UTC time: what every comparison would need
        moment.astimezone(timezone.utc)
    except OverflowError:
        return None
    return moment
