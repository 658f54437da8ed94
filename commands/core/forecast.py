"""Forecasts: each release's burn-up from the journal, its rate, and when it will finish.

The journal says when each leaf moved to done; the plan's age runs from its first node's `created`
(or its first done leaf, without one). A release's scope is its leaves today plus the leaves of later
releases it waits on (`release_needs.waiting_ranks`: its remaining work includes them).

The rules, one home for every surface (`leafwise progress`, the canvas), documented in
docs/commands.md ("progress"):
- The rate is over the longest of the 14- and 7-day windows the plan's age covers (the 14-day one
  unless nothing was done in it); a plan younger than 7 days has one window, its whole age. A window
  is never longer than the history, and the answer names the window it chose.
- A finish date needs enough history: at least MIN_DONE of the release's leaves done at known times
  and a plan at least MIN_HISTORY old. Before that the verdict says what there is ("not enough
  history yet: 3 leaves done in 10 minutes") and there is no finish date; a plan at least
  MIN_HISTORY old whose chosen window saw nothing done says "no progress in <window>".
- The burn-up has one point per day, or per hour or minute for a short history, so no two points of
  its axis read the same (`axis_labels`).

Pure: it takes the journal's typed events (`commands.events.Event`, read by the caller through
`store/reader.py`: `commands/plan_files.py` `read_lines`, the canvas's journal tail), and a clock.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any, Iterable

from leafwise.commands.core.release_needs import waiting_ranks
from leafwise.store import Plan, Status

if TYPE_CHECKING:
    from leafwise.commands.events import Event

WINDOWS = (14, 7)  # days, longest first
MIN_DONE = 3  # leaves done at known times before a finish date is said
MIN_HISTORY = timedelta(hours=24)  # the plan's age before a finish date is said
DONE_MARK = b'"done"'  # a journal line that never says "done" cannot close a leaf: readers skip it undecoded
DAY, HOUR, MINUTE = timedelta(days=1), timedelta(hours=1), timedelta(minutes=1)


def span_words(span: timedelta) -> str:
    """'10 minutes', '5 hours', '3 days': a span in its largest whole unit."""
    seconds = max(0, int(span.total_seconds()))
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            n = seconds // size
            return f"{n} {unit}{'s' if n != 1 else ''}"
    return "under a minute"


@dataclass(frozen=True, slots=True)
class Rate:
    """Leaves done per day over one window, and which window."""

    done: int  # leaves done within the window
    window: timedelta
    whole_age: bool  # the window is the plan's whole age (younger than the shortest window)

    @property
    def per_day(self) -> float:
        days = self.window / DAY
        return self.done / days if days > 0 else 0.0

    @property
    def words(self) -> str:
        over = f"the plan's whole age ({span_words(self.window)})" if self.whole_age \
            else f"the last {span_words(self.window)}"
        return f"{self.per_day:.1f}/day over {over}"

    def as_dict(self) -> dict[str, Any]:
        return {"per_day": round(self.per_day, 2), "done": self.done, "window_hours": round(self.window / HOUR, 2),
                "whole_age": self.whole_age, "words": self.words}


@dataclass(slots=True)
class ReleaseForecast:
    release: str | None
    title: str
    target: date | None
    total: int  # leaves in scope today (cancelled ones left out), later releases' blockers included
    done: int
    burnup: list[tuple[date, int]] = field(default_factory=list)  # (day, or hour/minute as a datetime; done by then)
    velocity: dict[int, float] = field(default_factory=dict)  # window in days -> leaves per day (windows the age covers)
    rate: Rate | None = None  # the rate the finish date uses
    age: timedelta = timedelta(0)  # the plan's age
    step: timedelta = DAY  # the burn-up's step (`burnup_step` of the age)
    known_done: int = 0  # leaves done at a known time
    waits_on: list[str] = field(default_factory=list)  # open leaves of later releases this one waits on
    finish: date | None = None  # projected; None when nothing moves, all is done or history is short
    verdict: str = ""  # "done", "on track", "late by 6 days", "no progress in 14 days", "not enough history yet: …"
    late_days: int | None = None  # > 0 late, <= 0 on track; None without a target or a finish

    @property
    def remaining(self) -> int:
        return self.total - self.done

    @property
    def enough_history(self) -> bool:
        return self.known_done >= MIN_DONE and self.age >= MIN_HISTORY

    def as_dict(self) -> dict[str, Any]:
        return {"release": self.release, "title": self.title,
                "target": self.target.isoformat() if self.target else None,
                "total": self.total, "done": self.done, "remaining": self.remaining,
                "waits_on": self.waits_on[:50],
                "velocity_7d": _rounded(self.velocity.get(7)), "velocity_14d": _rounded(self.velocity.get(14)),
                "rate": self.rate.as_dict() if self.rate else None,
                "history": {"hours": round(self.age / HOUR, 2), "done": self.known_done,
                            "enough": self.enough_history},
                "finish": self.finish.isoformat() if self.finish else None,
                "late_days": self.late_days, "verdict": self.verdict,
                "burnup": [[d.isoformat(), n] for d, n in self.burnup]}


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def _moment(value: Any) -> datetime | None:
    """A plan value as a UTC time (a naive one counts as UTC); None when it is none, or has no UTC time
    (`0001-01-01T00:00:00+14:00` is before year 1 in UTC: a planted value, never a crash)."""
    if isinstance(value, date) and not isinstance(value, datetime):
        return datetime(value.year, value.month, value.day, tzinfo=timezone.utc)
    if value is None:
        return None
    try:
        moment = value if isinstance(value, datetime) else datetime.fromisoformat(str(value).replace("Z", "+00:00"))
        return (moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)).astimezone(timezone.utc)
    except (ValueError, OverflowError):
        return None


def _day(value: Any) -> date | None:
    moment = _moment(value)
    return moment.date() if moment else None


def done_times(events: Iterable[Event]) -> dict[str, datetime]:
    """The moment each node last moved to done, from journal events (an event without a time skipped)."""
    out: dict[str, datetime] = {}
    for event in events:
        status = event.change("status")
        if event.node and status is not None and status.new == Status.DONE:
            moment = _moment(event.time)
            if moment is not None:
                out[event.node] = moment
    return out


def done_days(events: Iterable[Event]) -> dict[str, date]:
    """The day each node last moved to done."""
    return {nid: moment.date() for nid, moment in done_times(events).items()}


def forecast(plan: Plan, events: Iterable[Event], now: datetime | None = None) -> list[ReleaseForecast]:
    """One forecast per release (in release order, then work without a release if any)."""
    now = (now or datetime.now(timezone.utc)).astimezone(timezone.utc)
    times = done_times(events)
    by_release: dict[str | None, ReleaseForecast] = {
        r.id: ReleaseForecast(r.id, r.title, _day(r.target), 0, 0) for r in plan.project.releases}
    order = [r.id for r in plan.project.releases]
    unreleased = ReleaseForecast(None, "no release", None, 0, 0)
    done_at: dict[str | None, list[datetime | None]] = {}
    waiting = waiting_ranks(plan, open_only=False)
    start = now
    for node in plan.nodes.values():
        created = _moment(node.data.get("created"))
        start = min(start, created) if created else start
        if node.children or node.status == Status.CANCELLED:
            continue
        homes = [by_release.get(node.effective_release, unreleased)]
        for need in sorted(waiting.get(node.id, ())):  # a later release's leaf counts where it is waited on
            homes.append(by_release[order[need]])
            if node.status != Status.DONE:
                homes[-1].waits_on.append(node.id)
        for item in homes:
            item.total += 1
            if node.status == Status.DONE:
                item.done += 1
                # Done with no journal line (an imported plan, a trimmed journal): the last update.
                done_at.setdefault(item.release, []).append(times.get(node.id) or _moment(node.data.get("updated")))
    known_starts = [m for ms in done_at.values() for m in ms if m is not None]
    start = min([start, *known_starts])
    out = list(by_release.values()) + ([unreleased] if unreleased.total else [])
    for item in out:
        item.waits_on.sort()
        _project(item, done_at.get(item.release, []), start, now)
    return out


def _project(item: ReleaseForecast, finished: list[datetime | None], start: datetime, now: datetime) -> None:
    known = sorted(m for m in finished if m is not None and m <= now)
    item.age, item.known_done, item.step = now - start, len(known), burnup_step(now - start)
    item.burnup = burnup(known, len(finished) - len(known), start, now)
    for days in WINDOWS:
        if item.age >= days * DAY:
            item.velocity[days] = sum(1 for m in known if m > now - days * DAY) / days
    if item.remaining <= 0:
        item.verdict = "done" if item.total else "empty"
        item.finish = known[-1].date() if known else None
        item.late_days = 0 if item.target else None
        return
    item.rate = _rate(known, item.age, now)
    if item.rate.per_day <= 0 and item.age >= MIN_HISTORY:  # a day or more of history, and none of it moved
        item.verdict = f"no progress in {span_words(item.rate.window)}"
        return
    if not item.enough_history:
        item.verdict = (f"not enough history yet: {item.known_done} lea{'f' if item.known_done == 1 else 'ves'} "
                        f"done in {span_words(item.age)}")
        return
    item.finish = now.date() + timedelta(days=math.ceil(item.remaining / item.rate.per_day))
    if item.target is None:
        item.verdict = f"finishes around {item.finish.isoformat()} (no target)"
        return
    item.late_days = (item.finish - item.target).days
    if item.late_days > 0:
        item.verdict = f"late by {item.late_days} day{'s' if item.late_days != 1 else ''}"
    else:
        item.verdict = "on track"


def _rate(known: list[datetime], age: timedelta, now: datetime) -> Rate:
    """Over the longest window the age covers that saw work done (the longest covered one if none did);
    the whole age when it covers no window."""
    covered = [days * DAY for days in WINDOWS if age >= days * DAY]
    if not covered:
        return Rate(len(known), age, True)
    rates = [Rate(sum(1 for m in known if m > now - window), window, False) for window in covered]
    return next((r for r in rates if r.done), rates[0])


def burnup_step(age: timedelta) -> timedelta:
    """A point per day for two days of history or more, per hour for two hours, else per minute."""
    return DAY if age >= 2 * DAY else HOUR if age >= 2 * HOUR else MINUTE


def burnup(known: list[datetime], before: int, start: datetime, now: datetime) -> list[tuple[date, int]]:
    """Done leaves by the end of each step from the plan's start to now (`before`: done at unknown
    times, counted from the start). Days are dates; hours and minutes are datetimes."""
    if not known and not before:
        return []
    step = burnup_step(now - start)
    if step == DAY:
        cursor: datetime = datetime(start.year, start.month, start.day, tzinfo=timezone.utc)
    else:
        cursor = start.replace(second=0, microsecond=0, minute=0 if step == HOUR else start.minute)
    points: list[tuple[date, int]] = []
    running, i = before, 0
    while cursor <= now:
        end = cursor + step
        while i < len(known) and known[i] < end:
            running += 1
            i += 1
        points.append((cursor.date() if step == DAY else cursor, running))
        cursor = end
    return points


def axis_labels(points: list[tuple[date, int]]) -> list[str]:
    """The burn-up's axis labels, one per point, no two alike: dates for days; for hours and minutes
    the time, with the day when the points span more than one."""
    if not points or not isinstance(points[0][0], datetime):
        return [d.isoformat() for d, _ in points]
    moments = [d for d, _ in points if isinstance(d, datetime)]
    one_day = moments[0].date() == moments[-1].date()
    return [m.strftime("%H:%M" if one_day else "%m-%d %H:%M") for m in moments]
