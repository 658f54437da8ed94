"""Forecasts: each release's burn-up from the journal, its velocity, and when it will finish.

The journal says when each leaf moved to done. A release's burn-up is the
running count of its done leaves by day (the scope is its leaves today);
velocity is the leaves done per day over the last 7 and 14 days; the projected
finish is today plus the open leaves over that velocity, against the release's
target date. One function for every surface (`leafwise progress`, the canvas).

Pure: it takes the journal's typed events (`commands.events.Event`, read by the caller through
`store/reader.py`: `commands/plan_files.py` `read_lines`, the canvas's journal tail), and a clock.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any, Iterable

from leafwise.store import Plan, Status

if TYPE_CHECKING:
    from leafwise.commands.events import Event

WINDOWS = (7, 14)
DONE_MARK = b'"done"'  # a journal line that never says "done" cannot close a leaf: readers skip it undecoded


@dataclass(slots=True)
class ReleaseForecast:
    release: str | None
    title: str
    target: date | None
    total: int  # leaves in scope today (cancelled ones left out)
    done: int
    burnup: list[tuple[date, int]] = field(default_factory=list)  # (day, done leaves by its end)
    velocity: dict[int, float] = field(default_factory=dict)  # window in days -> leaves per day
    finish: date | None = None  # projected; None when nothing moves (or all done)
    verdict: str = ""  # "done", "on track", "late by 6 days", "no progress in 14 days", "no target"
    late_days: int | None = None  # > 0 late, <= 0 on track; None without a target or a finish

    @property
    def remaining(self) -> int:
        return self.total - self.done

    def as_dict(self) -> dict[str, Any]:
        return {"release": self.release, "title": self.title,
                "target": self.target.isoformat() if self.target else None,
                "total": self.total, "done": self.done, "remaining": self.remaining,
                "velocity_7d": round(self.velocity.get(7, 0.0), 2),
                "velocity_14d": round(self.velocity.get(14, 0.0), 2),
                "finish": self.finish.isoformat() if self.finish else None,
                "late_days": self.late_days, "verdict": self.verdict,
                "burnup": [[d.isoformat(), n] for d, n in self.burnup]}


def _day(value: Any) -> date | None:
    if isinstance(value, datetime):
        return (value if value.tzinfo else value.replace(tzinfo=timezone.utc)).astimezone(timezone.utc).date()
    if isinstance(value, date):
        return value
    try:
        moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    return (moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)).astimezone(timezone.utc).date()


def done_days(events: Iterable[Event]) -> dict[str, date]:
    """The day each node last moved to done, from journal events (an event without a time skipped)."""
    out: dict[str, date] = {}
    for event in events:
        status = event.change("status")
        if event.node and status is not None and status.new == Status.DONE:
            day = _day(event.time)
            if day is not None:
                out[event.node] = day
    return out


def _target(value: Any) -> date | None:
    if value is None:
        return None
    return _day(value)


def forecast(plan: Plan, events: Iterable[Event], now: datetime | None = None) -> list[ReleaseForecast]:
    """One forecast per release (in release order, then work without a release if any)."""
    today = (now or datetime.now(timezone.utc)).astimezone(timezone.utc).date()
    days = done_days(events)
    by_release: dict[str | None, ReleaseForecast] = {
        r.id: ReleaseForecast(r.id, r.title, _target(r.target), 0, 0) for r in plan.project.releases}
    unreleased = ReleaseForecast(None, "no release", None, 0, 0)
    done_on: dict[str | None, list[date | None]] = {}
    for node in plan.nodes.values():
        if node.children or node.status == Status.CANCELLED:
            continue
        item = by_release.get(node.effective_release, unreleased)
        item.total += 1
        if node.status == Status.DONE:
            item.done += 1
            # Done with no journal line (an imported plan, a trimmed journal): the last update.
            done_on.setdefault(item.release, []).append(days.get(node.id) or _day(node.data.get("updated")))
    out = list(by_release.values()) + ([unreleased] if unreleased.total else [])
    for item in out:
        _project(item, done_on.get(item.release, []), today)
    return out


def _project(item: ReleaseForecast, finished: list[date | None], today: date) -> None:
    known = sorted(d for d in finished if d is not None and d <= today)
    before = len(finished) - len(known)  # done at an unknown time: counted from the start
    if known or before:
        start = known[0] if known else today
        running, i = before, 0
        day = start
        while day <= today:
            while i < len(known) and known[i] <= day:
                running += 1
                i += 1
            item.burnup.append((day, running))
            day += timedelta(days=1)
    for window in WINDOWS:
        since = today - timedelta(days=window)
        item.velocity[window] = sum(1 for d in known if d > since) / window
    if item.remaining <= 0:
        item.verdict = "done" if item.total else "empty"
        item.finish = known[-1] if known else None
        item.late_days = 0 if item.target else None
        return
    speed = item.velocity[14] or item.velocity[7]
    if speed <= 0:
        item.verdict = "no progress in 14 days"
        return
    item.finish = today + timedelta(days=math.ceil(item.remaining / speed))
    if item.target is None:
        item.verdict = f"finishes around {item.finish.isoformat()} (no target)"
        return
    item.late_days = (item.finish - item.target).days
    if item.late_days > 0:
        item.verdict = f"late by {item.late_days} day{'s' if item.late_days != 1 else ''}"
    else:
        item.verdict = "on track"


