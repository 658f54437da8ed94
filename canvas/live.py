"""How the canvas learns of a change: the first load, the file watcher, and `absorb()`, the one path
by which the watcher's batches and the person's own commands reach the state and the screens.

After every batch the app publishes `plan_updated` (a `PlanUpdate`) and, for new journal lines,
`journal_grew` (typed `commands.events.Event`s); the validator re-runs once per burst of writes
and publishes `plan_checked` when its verdict (the header's badge) changes.
"""

from __future__ import annotations

import asyncio
import gc
from dataclasses import dataclass, field
from typing import Any

from leafwise.canvas.model.state import Delta, PlanState
from leafwise.canvas.screens.plan import PlanScreen
from leafwise.commands.plan_files import find_problems
from leafwise.commands.events import Event, read_all
from leafwise.store import journal, load_plan
from leafwise.store.watch import PlanChanges, watch
from textual import work
from textual.app import ScreenStackError
from textual.signal import Signal

RECENT_EVENTS = 60  # journal lines the feed starts with
CHECK_DELAY = 0.5  # a burst of writes re-runs the validator once (0.1-0.2 s on 11,100 nodes, in a thread)
RELOAD_AFTER_START = 0.4  # seconds: one full re-read catches what was written before the watcher started


@dataclass(frozen=True, slots=True)
class PlanCheck:
    """What the validator last said about the plan (the header's badge)."""

    errors: int
    warnings: int


@dataclass
class PlanUpdate:
    """One batch of changes as the screens see it."""

    delta: Delta
    claims: bool = False
    docs: set[str] = field(default_factory=set)
    cycles: bool = False


class LivePlan:
    """The part of `CanvasApp` that keeps `state` in step with the files (a mixin: `self` is the app)."""

    def _init_live(self) -> None:
        self.state: PlanState | None = None
        self.live = False  # the watcher runs
        self.recent_events: list[Event] = []
        self._journal_offset = 0
        self._absorbing = asyncio.Lock()
        self._stop_watch: asyncio.Event | None = None
        self.plan_loaded: Signal[PlanState] = Signal(self, "plan-loaded")
        self.plan_updated: Signal[PlanUpdate] = Signal(self, "plan-updated")
        self.journal_grew: Signal[list[Event]] = Signal(self, "journal-grew")
        self.plan_checked: Signal[PlanCheck] = Signal(self, "plan-checked")
        self.plan_check: PlanCheck | None = None  # None until the validator has run once
        self._check_timer: Any = None

    # --- the first load ---------------------------------------------------------------

    @work(thread=True, exclusive=True, group="load")
    def _load(self) -> None:
        offset = self.paths.journal.stat().st_size if self.paths.journal.exists() else 0
        recent = read_all(journal.read(self.paths, limit=RECENT_EVENTS))
        state = PlanState.load(self.paths)
        self.call_from_thread(self._loaded, state, recent, offset)

    def _loaded(self, state: PlanState, recent: list[Event], offset: int) -> None:
        self.state = state
        # Tens of thousands of long-lived plan objects would make every full garbage collection
        # scan them (100 ms pauses on an 11,000-node plan): park them out of the collector's way.
        gc.freeze()
        self.recent_events = recent
        self._journal_offset = offset
        self.plan_loaded.publish(state)
        if state.plan.problems:
            self.notify(f"{len(state.plan.problems)} file(s) do not load; press v to see them",
                        severity="warning")
        self._schedule_check()  # after the first frames: the validator's walk would compete with them
        if self.watch_enabled:
            self._watch_files()
        self._start_prebuild()

    # --- watching ---------------------------------------------------------------------

    @work(exclusive=True, group="watch")
    async def _watch_files(self) -> None:
        self._stop_watch = asyncio.Event()
        self.live = True
        self._refresh_live_mark()
        # Anything written between the load and the watcher's start is caught by one full re-read.
        self.set_timer(RELOAD_AFTER_START, self.action_reload)
        try:
            async for changes in watch(self.paths, debounce_ms=self.debounce_ms, step_ms=self.step_ms,
                                       stop_event=self._stop_watch):
                await self.absorb(changes)
        except (OSError, RuntimeError) as exc:  # e.g. the system's inotify limit
            self.notify(f"{exc}\nThe screen no longer follows the files; ctrl+r re-reads them.",
                        title="Live updates stopped", severity="error", timeout=20)
        finally:
            self.live = False
            self._refresh_live_mark()

    def _refresh_live_mark(self) -> None:
        try:
            screen = self.screen
        except (ScreenStackError, KeyError):  # the app is closing: no screen to mark
            return
        if isinstance(screen, PlanScreen) and screen.is_mounted:
            screen.refresh_live_mark()

    def action_reload(self) -> None:
        self._reload()

    @work(exclusive=True, group="reload")
    async def _reload(self) -> None:
        if self.state is None:
            return
        await self.absorb(PlanChanges(project=True, journal=True, claims=True))

    def on_unmount(self) -> None:
        if self._stop_watch is not None:
            self._stop_watch.set()

    # --- one batch of changes ---------------------------------------------------------

    async def absorb(self, changes: PlanChanges) -> None:
        """Re-read what changed and tell the screens: the one path for watcher and commands alike."""
        state = self.state
        if state is None or not changes:
            return
        async with self._absorbing:
            broken_before = {p.file for p in state.plan.problems}
            known = dict(state.nodes) if changes.project else {
                nid: state.nodes[nid] for nid in changes.nodes if nid in state.nodes}
            delta = await self._read_changes(state, changes)
            events: list[Event] = []
            if changes.journal:
                records, self._journal_offset = await asyncio.to_thread(
                    journal.read_since, self.paths, self._journal_offset)
                events = read_all(records)
            if delta.problems_changed:
                self._announce_problems([p for p in state.plan.problems if p.file not in broken_before])
            if delta.removed:
                self._announce_removed([known[nid] for nid in sorted(delta.removed) if nid in known], events)
            if delta:
                self._schedule_check()
            if delta or changes.claims or changes.docs or changes.cycles:
                self.plan_updated.publish(PlanUpdate(delta, changes.claims, set(changes.docs), changes.cycles))
            if events:
                self.recent_events = (self.recent_events + events)[-RECENT_EVENTS:]
                self.journal_grew.publish(events)
                self._announce(events)

    async def _read_changes(self, state: PlanState, changes: PlanChanges) -> Delta:
        """The files that changed, read in a thread and merged into `state`."""
        if changes.project:
            fresh = await asyncio.to_thread(load_plan, self.paths)
            delta = state.replace(fresh)
            gc.freeze()
            return delta
        if changes.nodes:
            loaded = await asyncio.to_thread(state.read, set(changes.nodes))
            return state.apply(loaded)
        return Delta()

    # --- the validator's verdict (the header's "invalid plan" badge) ---------------------

    def _schedule_check(self) -> None:
        if self._check_timer is None:
            self._check_timer = self.set_timer(CHECK_DELAY, self._check_plan)

    @work(thread=True, exclusive=True, group="check")
    def _check_plan(self) -> None:
        state = self.state
        if state is None:
            return
        version = state.version
        try:
            problems = find_problems(state.plan)
        except RuntimeError:  # the plan changed under the walk (a dict resized): try again shortly
            self.call_from_thread(self._checked, None, None)
            return
        errors = sum(1 for p in problems if p.severity == "error")
        self.call_from_thread(self._checked, PlanCheck(errors, len(problems) - errors), version)

    def _checked(self, check: PlanCheck | None, version: object) -> None:
        self._check_timer = None
        state = self.state
        if check is not None:
            changed = check != self.plan_check
            self.plan_check = check
            if changed:
                self.plan_checked.publish(check)
        if check is None or (state is not None and state.version is not version):
            self._schedule_check()  # the plan moved meanwhile: this verdict may be stale
