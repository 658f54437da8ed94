"""Helpers (no tests here) for the canvas's Pilot tests: build the real app, wait for it, read its screen."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from leafwise.canvas.app import CanvasApp, make_canvas
from leafwise.canvas.screens.blocked import BlockedScreen
from leafwise.canvas.screens.reconcile import ReconcileScreen
from leafwise.canvas.widgets.plan_tree import PlanTree
from textual.widgets import Input

# The display clock the snapshots and age checks use: a day after the demo plan's last journal event.
FIXED_NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def canvas(root: Path, tmp_path: Path, *, watch: bool = False, **options) -> CanvasApp:
    app = make_canvas(root, watch=watch, settings_path=tmp_path / "settings.json", clock=lambda: FIXED_NOW,
                      **options)
    count_reloads(app)
    return app


def count_reloads(app: CanvasApp) -> None:
    """Count the app's full re-reads in `app.reloads` (ctrl+r, and the watcher's catch-up once it starts):
    `live()` waits for that catch-up instead of sleeping past it."""
    app.reloads = 0
    reload = app.action_reload

    def counted() -> None:
        app.reloads += 1
        reload()

    app.action_reload = counted


async def live(app: CanvasApp, pilot) -> None:
    """The plan is shown, the watcher runs, and its catch-up re-read (of what was written before the
    watcher started) is done: from now on a write shows through the watcher alone."""
    await ready(app, pilot)
    await until(pilot, lambda: app.live and app.reloads, what="the watcher and its catch-up re-read")
    await idle(pilot)


async def until(pilot, predicate: Callable[[], object], timeout: float = 15.0, step: float = 0.03, *,
                what: str | None = None) -> None:
    """Pause the app until `predicate()` holds (or fail after `timeout`, naming `what`)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for "
                                 f"{what or getattr(predicate, '__name__', predicate)}")
        await pilot.pause(step)


async def idle(pilot) -> None:
    """Every message handled and every worker (a command's write, a view's read) finished.

    What a test waits for before it checks that something did *not* happen: had the key or the dialog
    started a write, it would be done by now.
    """
    await pilot.pause()
    finite = [w for w in pilot.app.workers if w.group != "watch"]  # the watcher runs until the app ends
    if finite:  # (an empty list would mean all of them)
        await pilot.app.workers.wait_for_complete(finite)
    await pilot.pause()


async def ready(app: CanvasApp, pilot) -> None:
    """The plan is loaded and shown in the tree."""
    await until(pilot, lambda: app.state is not None and bool(tree(app).visible_keys()))
    await pilot.pause()


def tree(app: CanvasApp) -> PlanTree:
    return app.screen.query_one(PlanTree)


def row_text(app: CanvasApp, key: str) -> str:
    """The plain text a tree row draws now."""
    text = tree(app).row_text(key)
    assert text is not None, f"{key} is not on display"
    return text


def notices(app: CanvasApp) -> list[str]:
    return [f"{n.title}: {n.message}" for n in app.notices]


def node_file(root: Path, node_id: str) -> Path:
    return root / ".leafwise" / "nodes" / f"{node_id}.yaml"


async def settled(pilot, timeout: float = 30.0, step: float = 0.3) -> None:
    """The plan is loaded, text cursors stop blinking, workers are done and two screenshots `step` s apart agree.

    What a snapshot needs is a screen that stands still; a fixed pause is a guess a loaded machine
    loses. The default `step` is as long as the views' redraw delay (REFRESH_DELAY), so a redraw still
    to come shows as a difference; a test that only reads what a key changed at once may pass less.
    """
    app = pilot.app
    while app.state is None:
        await pilot.pause(0.02)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    before = None
    while True:
        for field in app.screen.query(Input):
            field.cursor_blink = False  # the cursor shows, steadily
        await pilot.pause(step)
        await idle(pilot)
        now = app.export_screenshot()
        if now == before:
            return
        if loop.time() > deadline:
            raise AssertionError("the canvas kept changing; it never settled")
        before = now


async def answer_prompt(app, pilot, text: str) -> None:
    """Wait for the open text prompt, put `text` in it and press Enter."""
    await until(pilot, lambda: app.screen.query("#prompt-input"))
    app.screen.query_one("#prompt-input").value = text
    await pilot.press("enter")


async def open_view(app, pilot, key: str, screen_type: type, listing: str, more_than: int = 0):
    """Press `key`, wait until the screen is a `screen_type` whose list `#listing` holds more than
    `more_than` options; returns that list."""
    await pilot.press(key)
    await until(pilot, lambda: isinstance(app.screen, screen_type)
                and app.screen.query_one(f"#{listing}").option_count > more_than)
    return app.screen.query_one(f"#{listing}")


async def open_blocked(app, pilot, row: str | None = None):
    """Press `b`, wait until the blocked view lists its tasks, highlight `row` if given; returns the list."""
    listing = await open_view(app, pilot, "b", BlockedScreen, "blocked-list")
    if row is not None:
        listing.highlighted = listing.get_option_index(row)
    return listing


READ_CODE_TIMEOUT = 60.0  # the reconcile view reads the whole shop's code in a worker; a loaded CI machine is slow


def reconcile_list(app):
    return app.screen.query_one("#reconcile-list")


async def open_reconcile(app, pilot, count: int | None = None) -> None:
    """Press `r` on a ready canvas and wait until the reconcile view lists its suggestions (`count` of them)."""
    await ready(app, pilot)
    await pilot.press("r")
    await until(pilot, lambda: isinstance(app.screen, ReconcileScreen) and app.screen.ran
                and not reconcile_list(app).loading and reconcile_list(app).option_count > 0
                and (count is None or reconcile_list(app).option_count == count),
                timeout=READ_CODE_TIMEOUT)
