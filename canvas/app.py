"""The canvas app: loads the plan, watches its files, runs commands, hosts the views.

`make_canvas()` is the one way to build it (the CLI, the demo and the tests
all use it). The app owns the live `PlanState`; screens subscribe to three
signals: `plan_loaded`, `plan_updated` (a `PlanUpdate` after every batch of
file changes) and `journal_grew` (new journal events for the feed).
"""

from __future__ import annotations

import asyncio
import functools
import gc
import os
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterable

from leafwise.canvas import bridge
from leafwise.canvas.bridge import Outcome, Request
from leafwise.canvas.look import safe, set_display_clock
from leafwise.canvas.model.state import Delta, PlanState
from leafwise.canvas.model.undo import Action, UndoPlan, involved, plan_undo, record_of
from leafwise.canvas.palette import CanvasCommands, system_commands
from leafwise.canvas.screens.agents import AgentsScreen
from leafwise.canvas.screens.blocked import BlockedScreen
from leafwise.canvas.screens.board import BoardScreen
from leafwise.canvas.screens.dependencies import DependenciesScreen
from leafwise.canvas.screens.help import HelpScreen
from leafwise.canvas.screens.plan import PlanScreen
from leafwise.canvas.screens.problems import ProblemsScreen
from leafwise.canvas.screens.progress import ProgressScreen
from leafwise.canvas.screens.reconcile import ReconcileScreen
from leafwise.canvas.settings import Settings, default_path
from leafwise.commands.core.validate import find_problems
from leafwise.commands.events import Event, read_all
from leafwise.store import PlanPaths, find_root, journal, load_plan
from leafwise.store.watch import PlanChanges, watch
from leafwise.themes import DEFAULT_THEME, STYLESHEET, THEMES, VARIABLE_DEFAULTS
from textual import work
from textual.app import App, ScreenStackError, SystemCommand
from textual.binding import Binding
from textual.driver import Driver
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.signal import Signal

RECENT_EVENTS = 60  # journal lines the feed starts with
NOTICES_KEPT = 200  # toasts remembered in `CanvasApp.notices`
# Textual's own palette entries that the canvas's replace: "theme: …", "help: Keys", "app: Quit".
REPLACED_SYSTEM_COMMANDS = frozenset({"Theme", "Keys", "Quit"})
ANNOUNCE_LIMIT = 3  # more announcements than this in one batch become one summary
CHECK_DELAY = 0.5  # a burst of writes re-runs the validator once (0.1-0.2 s on 11,100 nodes, in a thread)
PREBUILT_VIEWS = ("board", "blocked", "progress")  # built while the person reads the tree (see _prebuild_view)
PREBUILD_DELAY = 0.8  # seconds after the plan is shown: after the first frames and the validator's first run
PREBUILD_GAP = 0.05  # seconds between two views' background builds
PREBUILD_REFRESHES = 2  # refreshes awaited while a view is built unseen: it fills, then it is laid out and drawn
PREBUILD_WAIT = 1.0  # seconds one of those refreshes may take before the build gives up


@dataclass(frozen=True, slots=True)
class PlanCheck:
    """What the validator last said about the plan (the header's badge)."""

    errors: int
    warnings: int


@dataclass(frozen=True, slots=True)
class Notice:
    """A toast the app posted, as a person saw it."""

    title: str
    message: str
    severity: SeverityLevel


@dataclass
class PlanUpdate:
    """One batch of changes as the screens see it."""

    delta: Delta
    claims: bool = False
    docs: set[str] = field(default_factory=set)
    cycles: bool = False


class CanvasApp(App[int]):
    """Leafwise's canvas over the plan in `plan_root` (a repository folder or its `.leafwise/`)."""

    TITLE = "Leafwise"
    CSS_PATH = str(STYLESHEET)
    MODES = {"plan": PlanScreen, "blocked": BlockedScreen, "progress": ProgressScreen,
             "reconcile": ReconcileScreen, "problems": ProblemsScreen, "board": BoardScreen,
             "agents": AgentsScreen, "dependencies": DependenciesScreen}
    DEFAULT_MODE = "plan"
    COMMANDS = App.COMMANDS | {CanvasCommands}
    COMMAND_PALETTE_DISPLAY = "Commands"
    BINDINGS = [
        Binding("b", "view('blocked')", "Blocked", id="view.blocked", tooltip="Blocked tasks and open decisions"),
        Binding("p", "view('progress')", "Progress", id="view.progress", tooltip="Done % by release and epic"),
        Binding("r", "view('reconcile')", "Reconcile", id="view.reconcile",
                tooltip="Drafts that look shipped, with evidence"),
        Binding("v", "view('problems')", "Problems", id="view.problems", tooltip="What the validator reports"),
        Binding("K", "view('board')", "Board", id="view.board", tooltip="A column per status; move cards"),
        Binding("ctrl+k", "epic_board", "Epic board", show=False, id="view.epic_board",
                tooltip="The board of the selected epic (a leaf's epic)"),
        Binding("A", "view('agents')", "Agents", show=False, id="view.agents",
                tooltip="A lane per agent: task, since when, heartbeat, stale or idle"),
        Binding("i", "dependencies", "Dependencies", show=False, id="view.dependencies",
                tooltip="What the selected node waits on, what waits on it, what it holds up"),
        Binding("question_mark,f1", "help", "Help", id="app.help", tooltip="Every key"),
        Binding("q", "quit", "Quit", id="app.quit"),
        Binding("ctrl+r", "reload", "Reload", show=False, id="plan.reload",
                tooltip="Re-read every file (the live view does this by itself)"),
        Binding("ctrl+z", "undo", "Undo", show=False, id="app.undo",
                tooltip="Take back your last change in this session (any view)"),
    ]

    def __init__(self, plan_root: str | os.PathLike | PlanPaths, *, watch: bool = True,
                 settings_path: Path | None = None, debounce_ms: int = 50, step_ms: int = 5,
                 clock: Callable[[], datetime] | None = None, prebuild: bool = False) -> None:
        super().__init__()
        # Build the main views unseen after opening (see _prebuild_view). Off by default: while a view is
        # built, `app.screen` is that hidden view for code running beside the app's queue.
        self.prebuild = prebuild
        set_display_clock(clock)
        self.paths = plan_root if isinstance(plan_root, PlanPaths) else find_root(explicit=plan_root)
        self.watch_enabled = watch
        self.debounce_ms = debounce_ms
        self.step_ms = step_ms
        self.settings_path = settings_path or default_path()
        self.settings = Settings.read(self.settings_path)
        self.state: PlanState | None = None
        self.live = False
        self.recent_events: list[Event] = []
        self.me = bridge.person(str(self.paths.repo))  # the person at the keyboard, the actor of every action
        self.notices: list[Notice] = []  # the toasts posted so far (the latest NOTICES_KEPT), oldest first
        self.undo_stack: list[Action] = []  # the changes made in this session, the latest last (ctrl+z)
        self._undoing = False
        self.attention_sent = 0  # bells / desktop notifications sent (a test reads it)
        self.terminal: Driver | None = None  # the driver writing to the terminal, once running (get_driver_class)
        self.prebuilt: set[str] = set()  # views built in the background before their first visit
        self.entered: set[str] = set()  # the modes switched to so far, seen or built unseen: their screens exist
        self._journal_offset = 0
        self._absorbing = asyncio.Lock()
        self._stop_watch: asyncio.Event | None = None
        self.plan_loaded: Signal[PlanState] = Signal(self, "plan-loaded")
        self.plan_updated: Signal[PlanUpdate] = Signal(self, "plan-updated")
        self.journal_grew: Signal[list[Event]] = Signal(self, "journal-grew")
        self.plan_checked: Signal[PlanCheck] = Signal(self, "plan-checked")
        self.undone: Signal[list[str]] = Signal(self, "undone")  # node ids an undo restored
        self.plan_check: PlanCheck | None = None  # None until the validator has run once
        self._check_timer: Any = None
        for theme in THEMES.values():
            self.register_theme(theme)
        wanted = self.settings.theme
        self.theme = wanted if wanted in self.available_themes else DEFAULT_THEME

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver for this platform, which tells the app it is the one in use (`terminal`, where
        `attention` writes its desktop notification)."""
        return announcing(super().get_driver_class())

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(VARIABLE_DEFAULTS)

    def on_mount(self) -> None:
        self.theme_changed_signal.subscribe(self, self._remember_theme)
        self.mode_change_signal.subscribe(self, self._mode_entered)
        self._load()

    # --- loading and watching ---------------------------------------------------------

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
        if self.prebuild:
            self.set_timer(PREBUILD_DELAY, self._prebuild_next)

    def _mode_entered(self, mode: str) -> None:
        self.entered.add(mode)

    def _prebuild_next(self) -> None:
        """Build the next view not built yet (see `_prebuild_view`), from the app's own message queue."""
        self.call_later(self._prebuild_view)

    async def _prebuild_view(self) -> None:
        """Build one of the board, blocked and progress views unseen, so that its first visit costs what a
        return visit does (tens of ms instead of 0.4-0.8 s on 11,100 nodes); then schedule the next.

        A Textual mode's screen is built on its first `switch_mode`: composed, styled, the whole app's
        CSS refreshed, filled, laid out and drawn, all between the key and the frame. This does that
        switch while the person reads the tree, inside `batch_update()` (no frame is shown while it
        lasts) and switches back at once: the view is composed, filled, laid out and drawn into its
        widgets' caches, unseen. It runs in the app's message queue, so a key pressed meanwhile waits
        for it (at most one view's build) and then goes to the screen the person sees. Public Textual
        calls only: `switch_mode`, `batch_update`, `wait_for_refresh`.
        """
        todo = [mode for mode in PREBUILT_VIEWS if mode not in self.prebuilt and mode not in self.entered]
        if not todo or not self.is_running:
            return
        if len(self.screen_stack) > 1:  # a dialog or the help is open: not now
            self.set_timer(PREBUILD_GAP * 4, self._prebuild_next)
            return
        mode, back = todo[0], self.current_mode
        try:
            with self.batch_update():
                await self.switch_mode(mode)
                screen = self.screen
                self.refresh_css(animate=False)  # styled as the app is now: no CSS refresh on the visit
                for _ in range(PREBUILD_REFRESHES):  # filled, then laid out and drawn (unseen)
                    if not screen.is_attached:
                        break
                    await asyncio.wait_for(screen.wait_for_refresh(), PREBUILD_WAIT)
                await self.switch_mode(back)
        except ScreenStackError:  # the app is closing
            return
        except asyncio.TimeoutError:  # never keep the person's keys waiting: back to the view they see
            await self.switch_mode(back)
            return
        self.prebuilt.add(mode)
        if len(todo) > 1:
            self.set_timer(PREBUILD_GAP, self._prebuild_next)  # keys and frames go first between two views

    @work(exclusive=True, group="watch")
    async def _watch_files(self) -> None:
        self._stop_watch = asyncio.Event()
        self.live = True
        self._refresh_live_mark()
        # Anything written between the load and the watcher's start is caught by one full re-read.
        self.set_timer(0.4, self.action_reload)
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

    async def absorb(self, changes: PlanChanges) -> None:
        """Re-read what changed and tell the screens: the one path for watcher and commands alike."""
        state = self.state
        if state is None or not changes:
            return
        async with self._absorbing:
            broken_before = {p.file for p in state.plan.problems}
            known = dict(state.nodes) if changes.project else {
                nid: state.nodes[nid] for nid in changes.nodes if nid in state.nodes}
            if changes.project:
                fresh = await asyncio.to_thread(load_plan, self.paths)
                delta = state.replace(fresh)
                gc.freeze()
            elif changes.nodes:
                loaded = await asyncio.to_thread(state.read, set(changes.nodes))
                delta = state.apply(loaded)
            else:
                delta = Delta()
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

    def _announce(self, events: list[Event]) -> None:
        """Cascades, and blocks or questions from agents, as notifications (a burst becomes one)."""
        state = self.state
        notes: list[tuple[str, str, str]] = []

        def title_of(node_id: str | None, fallback: str | None = None) -> str:
            node = state.nodes.get(node_id) if state is not None and node_id else None
            return node.title if node is not None else str(fallback or node_id)

        for event in events:
            command, node_id = event.command, event.node
            if command == "complete" and event.cascade:
                chain = [f"{title_of(node_id)} → done"]
                chain += [f"{title_of(m.id, m.title)} → {m.new}" for m in event.cascade]
                notes.append((", ".join(chain), "Cascade", "information"))
            elif command in ("block", "ask") and event.actor != self.me:
                what = event.question or event.reason or ""
                notes.append((f"{node_id} {title_of(node_id)}: {what}",
                              "Decision needed" if command == "ask" else f"Blocked by {event.actor}",
                              "warning"))
        if any(n[2] == "warning" for n in notes):
            self.attention()
        if len(notes) > ANNOUNCE_LIMIT:
            cascades = sum(1 for n in notes if n[1] == "Cascade")
            blocks = len(notes) - cascades
            self.notify(f"{cascades} cascade(s) and {blocks} block(s) just now — see the activity feed",
                        title="Busy agents")
            return
        for message, title, severity in notes:
            self.notify(message, title=title, severity=severity, timeout=6)

    def attention(self) -> None:
        """An agent blocked or asked: ring the terminal bell and, where the terminal supports it, raise a
        desktop notification (OSC 9 and OSC 777). The `attention` setting turns it off."""
        if not self.settings.attention:
            return
        self.attention_sent += 1
        self.bell()
        driver = self.terminal
        if driver is not None and not self.is_headless:
            title = "Leafwise: an agent needs you"
            driver.write(f"\x1b]9;{title}\x07\x1b]777;notify;Leafwise;{title}\x07")

    def _announce_problems(self, fresh: list[Any]) -> None:
        """A file that stopped loading is news: it has left the tree until it is fixed."""
        for problem in fresh[:ANNOUNCE_LIMIT]:
            self.notify(f"{problem.message}\nFix: {problem.fix}", title=f"{problem.file} does not load",
                        severity="warning", timeout=10)
        if len(fresh) > ANNOUNCE_LIMIT:
            self.notify(f"{len(fresh)} files do not load; press v to see them", severity="warning")

    def _announce_removed(self, gone: list[Any], events: list[Event]) -> None:
        """A node whose file disappeared (deleted by hand, or by git) leaves the tree: say so."""
        renumbered = {e.renumbered_from for e in events if e.renumbered_from}
        gone = [n for n in gone if n.id not in renumbered
                and not (self.paths.nodes / f"{n.id}.yaml").exists()]  # unreadable ones: _announce_problems
        for node in gone[:ANNOUNCE_LIMIT]:
            self.notify(f"{node.id} {node.title}\nIts file {self.paths.dir.name}/nodes/{node.id}.yaml was deleted "
                        f"(by hand or by git); git restore brings it back.",
                        title=f"{node.id} left the plan", severity="warning", timeout=10)
        if len(gone) > ANNOUNCE_LIMIT:
            self.notify(f"{len(gone)} node files were deleted (by hand or by git): "
                        + ", ".join(n.id for n in gone[:12]) + (" …" if len(gone) > 12 else ""),
                        title="Nodes left the plan", severity="warning", timeout=10)

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

    # --- commands ----------------------------------------------------------------------

    def run_request(self, request: Request, on_done: Callable[[Outcome], object] | None = None) -> None:
        """Run a registry command for the person at the keyboard, in a worker thread."""
        node = self.state.nodes.get(request.node or "") if self.state is not None else None
        before = dict(node.data) if node is not None else {}  # what undo may need that the answer does not say
        self._run_request(request, on_done, before)

    @work(thread=True, group="commands")
    def _run_request(self, request: Request, on_done: Callable[[Outcome], object] | None,
                     before: dict[str, Any] | None = None) -> None:
        outcome = bridge.run(self.paths.repo, request, actor=self.me)
        self.call_from_thread(self._request_done, request, outcome, on_done, before)

    async def _request_done(self, request: Request, outcome: Outcome,
                            on_done: Callable[[Outcome], object] | None, before: dict[str, Any] | None = None
                            ) -> None:
        if outcome.exit_code:
            self.notify(bridge.error_text(outcome, self.paths.repo), title=f"{request.label}: refused", severity="error",
                        timeout=12)
        else:
            self._remember(request, outcome, before)
        # The watcher would see these writes too; reading them now makes the answer instant.
        await self.absorb(PlanChanges(nodes=bridge.touched_ids(outcome), journal=True, claims=True))
        if on_done is not None:
            on_done(outcome)

    def _remember(self, request: Request, outcome: Outcome, before: dict[str, Any] | None = None) -> None:
        """Say what the command did, and keep how to take it back (or say at once that it cannot be)."""
        said = outcome.text[0] if outcome.text else "done"
        action = record_of(request.name, request.args, outcome.envelope, request.label,
                           doc_before=request.doc_before, before=before)
        if isinstance(action, str):
            self.notify(f"{said}\nThis cannot be undone: {action}.", title=request.label, severity="warning",
                        timeout=10)
            return
        if action is not None:
            self.undo_stack.append(action)
            said += "\nctrl+z takes it back"
        self.notify(said, title=request.label, timeout=4)

    # --- undo ----------------------------------------------------------------------------

    def action_undo(self) -> None:
        """Take back the last change made in this session, through the commands that restore it."""
        if self._undoing:
            self.notify("Still taking back the previous change…", timeout=3)
            return
        if not self.undo_stack:
            self.notify("Nothing to undo: no change was made in this canvas session", timeout=3)
            return
        if self.state is None:
            return
        self._undoing = True
        self.call_later(self._undo, self.undo_stack.pop())

    async def _undo(self, action: Action) -> None:
        state = self.state
        if state is None:
            self._undoing = False
            return
        # The files as they are now, not as the watcher last reported them: an agent may have just written.
        await self.absorb(PlanChanges(nodes=involved(state.nodes, action), journal=True, claims=True))
        plan = plan_undo(state.nodes, action, self.me)
        if plan.refused or not plan.steps:
            self._undoing = False
        if plan.refused:
            more = " ctrl+z again takes back the change before it." if self.undo_stack else ""
            self.notify(f"Not undone: {plan.refused}.{more}", title=f"Undo “{action.label}”", severity="warning",
                        timeout=12)
            return
        if not plan.steps:
            self.notify(f"Nothing left to take back for “{action.label}”." + "".join(f"\n{c}" for c in plan.caveats),
                        title="Undo", timeout=6)
            return
        self._run_undo(action, plan)

    @work(thread=True, group="commands")
    def _run_undo(self, action: Action, plan: UndoPlan) -> None:
        outcomes: list[Outcome] = []
        for step in plan.steps:
            outcome = bridge.run(self.paths.repo, Request(step.command, step.args, f"Undo: {action.label}"),
                                 actor=self.me)
            outcomes.append(outcome)
            if outcome.exit_code:
                break
        self.call_from_thread(self._undo_done, action, plan, outcomes)

    async def _undo_done(self, action: Action, plan: UndoPlan, outcomes: list[Outcome]) -> None:
        self._undoing = False
        done = [step.says for step, outcome in zip(plan.steps, outcomes) if not outcome.exit_code]
        failed = outcomes[-1] if outcomes and outcomes[-1].exit_code else None
        if failed is None:
            lines = [f"Took back “{action.label}”:", *[f"  {line}" for line in done], *plan.caveats]
            self.notify("\n".join(lines), title="Undone", timeout=8)
        else:
            step = plan.steps[len(outcomes) - 1]
            lines = [f"Stopped at: {step.says}", bridge.error_text(failed, self.paths.repo)]
            lines += ["Taken back before it:", *[f"  {line}" for line in done]] if done else ["Nothing was changed."]
            self.notify("\n".join(lines), title=f"Undo “{action.label}”: refused", severity="error", timeout=15)
        touched: set[str] = set()
        for outcome in outcomes:
            touched |= bridge.touched_ids(outcome)
        await self.absorb(PlanChanges(nodes=touched, journal=True, claims=True))
        self.undone.publish(list(plan.touched))

    # --- views, help, themes, palette, toasts -------------------------------------------------

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """The palette's app-wide entries: ours ("group: verb"), then the Textual defaults we keep."""
        yield from system_commands(self)
        for command in super().get_system_commands(screen):
            if command.title not in REPLACED_SYSTEM_COMMANDS:
                yield command

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = False) -> None:
        """Post a toast, and remember it in `notices`.

        Toasts quote plan text (titles, reasons, questions, errors), so they are never markup
        (`markup` is accepted for Textual's signature and ignored) and their text is made inert.
        """
        message, title = safe(message), safe(title, newlines=False)
        self.notices.append(Notice(title, message, severity))
        del self.notices[:-NOTICES_KEPT]
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    def action_view(self, name: str) -> None:
        if self.current_mode == name and name != "plan":
            self.switch_mode("plan")
        else:
            self.switch_mode(name)

    def open_node(self, node_id: str) -> None:
        """Show a node in the tree, from any view."""
        self.call_later(self._open_node, node_id)

    async def _open_node(self, node_id: str) -> None:
        if self.current_mode != "plan":
            await self.switch_mode("plan")
        if isinstance(self.screen, PlanScreen):
            self.screen.reveal(node_id)

    def action_dependencies(self, node_id: str | None = None) -> None:
        """Dependencies and impact of `node_id`, or of the node selected in the current view."""
        target = node_id
        if target is None:
            finder = getattr(self.screen, "triage_target", None) or getattr(self.screen, "selected", None)
            node = finder() if finder else None
            target = node.id if node is not None else None
        if target is None:
            self.notify("Select a node first", timeout=3)
            return
        self.call_later(self._open_dependencies, target)

    async def _open_dependencies(self, node_id: str) -> None:
        # A mode, like the board: pushed on top of the plan's mode it could not be left for the plan.
        if self.current_mode != "dependencies":
            await self.switch_mode("dependencies")
        screen = self.screen
        if isinstance(screen, DependenciesScreen):
            screen.show_node(node_id)

    def action_epic_board(self, node_id: str | None = None) -> None:
        """The board of an epic's subtree: `node_id`, or the selected node if it has children, else its epic."""
        state = self.state
        target = node_id
        if target is None:
            finder = getattr(self.screen, "triage_target", None) or getattr(self.screen, "selected", None)
            node = finder() if finder else None
            target = node.id if node is not None else None
        if state is None or target is None or target not in state.nodes:
            self.notify("Select an epic or one of its tasks first", timeout=3)
            return
        self.call_later(self._open_board, epic_of(state, target))

    def action_board(self, scope: str | None = None) -> None:
        """The board of the whole plan (None), a release ("@R1") or an epic (its id)."""
        self.call_later(self._open_board, scope)

    async def _open_board(self, scope: str | None) -> None:
        if self.current_mode != "board":
            await self.switch_mode("board")
        screen = self.screen
        if isinstance(screen, BoardScreen):
            screen.set_scope(scope)

    def open_node_next(self) -> None:
        self.call_later(self._on_plan_screen, "action_next_task")

    def toggle_closed(self) -> None:
        self.call_later(self._on_plan_screen, "action_toggle_closed")

    async def _on_plan_screen(self, action: str) -> None:
        if self.current_mode != "plan":
            await self.switch_mode("plan")
        if isinstance(self.screen, PlanScreen):
            getattr(self.screen, action)()

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    def set_theme(self, name: str) -> None:
        self.theme = name

    def _remember_theme(self, theme: Any) -> None:
        if self.settings.theme != theme.name:
            self.settings.theme = theme.name
            self.save_settings()

    def save_settings(self) -> None:
        self.settings.write(self.settings_path)


@functools.cache
def announcing(base: type[Driver]) -> type[Driver]:
    """`base`, telling a `CanvasApp` that it is its terminal when it starts."""

    class Announcing(base):  # type: ignore[misc, valid-type]
        def __init__(self, app: App[Any], *args: Any, **kwargs: Any) -> None:
            super().__init__(app, *args, **kwargs)
            if isinstance(app, CanvasApp):
                app.terminal = self

    Announcing.__name__ = Announcing.__qualname__ = f"Announcing{base.__name__}"
    return Announcing


def epic_of(state: PlanState, node_id: str) -> str:
    """The node itself when it has children (an epic, a feature), else its top-most ancestor (a leaf's epic)."""
    node = state.nodes[node_id]
    if node.children:
        return node_id
    ancestors = state.plan.ancestors(node_id)
    return ancestors[-1].id if ancestors else node_id


def make_canvas(root: str | os.PathLike | None = None, *, watch: bool = True, settings_path: Path | None = None,
                cwd: Path | None = None, **options: Any) -> CanvasApp:
    """The canvas on the plan at `root`, or the one found from `cwd` (raises PlanNotFound)."""
    paths = find_root(cwd, root)
    return CanvasApp(paths, watch=watch, settings_path=settings_path, **options)
