"""Waiting without polling: `next --wait` and `start --next --wait` block until work comes free.

The normal call (`next`, or the pick-and-claim of `start --next`) runs first. While it answers
`Wait:`, the call sleeps in a watch on the plan's own files (`store/watch.ChangeWait`) until a
node, project or lease file changes, the earliest lease that holds work back ends (a task freed
by time alone writes no file), in team mode `TEAM_POLL_SECONDS` pass (each attempt fetches the
remote's claims: another clone's release is seen within one poll), the time runs out, or the surface stops the wait (an MCP client
cancelled: `stopping`). Then the normal call runs again, so a woken `start --next` claims under
the same pick lock as ever: of two agents woken by one write, one gets the task and the other
waits on. On timeout the answer is the normal one (`Wait:` and what to wait on).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime, timezone
from typing import Any

from leafwise.commands.contract import EXIT_USAGE, CommandError, Result, fix, placeholder
from leafwise.commands.core.picker import Pick
from leafwise.commands.registry import Ctx
from leafwise.store.claims import parse_time

TEAM_POLL_SECONDS = 3.0  # team mode: a wait also asks the remote this often (one fetch each: other clones write no file here)
MAX_WAIT_SECONDS = 600  # one call waits at most ten minutes; a longer wait is the same call again
_AFTER_EXPIRY = 0.05  # a lease counts as ended only once `expires` is past (`Claim.expired`)

# What ends a wait early (anything with `is_set()`), set by a surface around a call: the MCP
# server runs each call in a worker thread, which inherits the context of the call's task.
_STOP: ContextVar[Any] = ContextVar("leafwise_wait_stop", default=None)

Attempt = Callable[[], "tuple[Result, Pick | None]"]


@contextmanager
def stopping(event: Any) -> Iterator[None]:
    """Within this block (and the worker threads started from it), a wait ends once `event.is_set()`."""
    token = _STOP.set(event)
    try:
        yield
    finally:
        _STOP.reset(token)


def check_wait(ctx: Ctx, seconds: Any, name: str, *positional: Any, **args: Any) -> float:
    """`--wait` in seconds: 0 (answer at once) up to MAX_WAIT_SECONDS, or a usage error whose fix is
    command `name` with these arguments and the seconds left to the agent."""
    if seconds is None:
        return 0.0
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not math.isfinite(seconds) \
            or not 0 <= seconds <= MAX_WAIT_SECONDS:
        shown = f"{seconds:g}" if isinstance(seconds, (int, float)) and not isinstance(seconds, bool) else str(seconds)
        raise CommandError("invalid_wait", f"--wait {shown} is not a number of seconds from 0 to "
                           f"{MAX_WAIT_SECONDS} (ten minutes); after a timeout, call again",
                           fix(ctx.cmd(name, *positional, wait=placeholder("seconds"), **args),
                               f"wait at most {MAX_WAIT_SECONDS} seconds a call"),
                           exit_code=EXIT_USAGE, category="usage")
    return float(seconds)


def until_work(ctx: Ctx, seconds: float, attempt: Attempt) -> Result:
    """`attempt()` (an answer and the pick behind it), again after each change that may free work,
    until it answers anything but `Wait:` or `seconds` pass."""
    if seconds <= 0:
        return attempt()[0]
    from leafwise.store.watch import ChangeWait  # imported here: `next` without --wait never watches

    started = time.monotonic()
    deadline = started + seconds
    stop = _STOP.get()
    try:
        watch = ChangeWait(ctx.paths())  # before the first attempt: no write after it goes unseen
    except (OSError, RuntimeError):  # not even a polling watch (the folder unreadable): answer now
        return attempt()[0]
    slept = False
    with watch:
        result, chosen = attempt()
        poll = TEAM_POLL_SECONDS if ctx.plan().project.settings.get("team") else math.inf  # the plan attempt read
        asked = time.monotonic()  # the last attempt (in team mode: the last fetch of the remote's claims)
        while result.next_action.marker == "wait" and not _is_set(stop):
            left = deadline - time.monotonic()
            if left <= 0:
                break
            changes = watch.wait(min(left, lease_end(ctx, chosen), max(0.0, asked + poll - time.monotonic())), stop)
            slept = True
            if _is_set(stop):
                break  # the caller is gone: claim nothing for it
            if changes is not None and not (changes.plan_stale or changes.claims) and time.monotonic() < asked + poll:
                continue  # the journal, docs or cycles: nothing that frees work (a busy journal delays no poll)
            ctx.forget()
            result, chosen = _again(attempt, result, chosen)
            asked = time.monotonic()
    return _waited(result, time.monotonic() - started, slept)


def _again(attempt: Attempt, result: Result, chosen: Pick | None) -> tuple[Result, Pick | None]:
    """The attempt once more; a remote that stops answering mid-wait keeps the wait going (the last
    answer stands, the next poll asks again)."""
    try:
        return attempt()
    except CommandError as exc:
        if exc.code != "remote_unreachable":
            raise
        return result, chosen


def lease_end(ctx: Ctx, chosen: Pick | None) -> float:
    """Seconds until the first lease that holds work back ends (inf: none ends by time)."""
    if chosen is None:
        return math.inf
    now = ctx.clock()
    ahead = [(parse_time(claim.expires) - now).total_seconds() for _node, claim in chosen.held if claim.expires]
    ahead = [s for s in ahead if s > 0]  # a lapsed lease holds nothing (`effective_holds`)
    if not ahead:
        return math.inf
    # the plan's clock counts whole seconds (`store/timestamps.utc_now`): the instant is up to 1 s later
    lag = min(max((datetime.now(timezone.utc) - now).total_seconds(), 0.0), 1.0)
    return max(min(ahead) - lag, 0.0) + _AFTER_EXPIRY


def _is_set(stop: Any) -> bool:
    return stop is not None and bool(stop.is_set())


def _waited(result: Result, seconds: float, slept: bool) -> Result:
    """The answer, saying how long the call waited for it (`result.waited`, and a line if it slept)."""
    if isinstance(result.result, dict):
        result.result["waited"] = round(seconds, 3)
    if slept:
        result.text.append(f"  waited {seconds:.1f} s" + (": nothing came free" if result.next_action.marker
                                                           == "wait" else " for it"))
    return result
