"""The canvas app: the views, the keys, the theme and the toasts, over one live `PlanState`.

`make_canvas()` is the one way to build it (the CLI, the demo and the tests all use it). The app
is put together from parts, one job each:

- `live.LivePlan`: the first load, the file watcher and `absorb()` (how the canvas learns of a
  change); it publishes `plan_loaded`, `plan_updated` (a `PlanUpdate`), `journal_grew` (typed
  journal events) and `plan_checked` (the validator's verdict), which the screens subscribe to;
- `announcements.Announcements`: cascades, agents that block or ask, files that stop loading;
- `changes.PersonChanges`: the person's commands and their undo (ctrl+z);
- `navigation.Navigation`: switching views;
- `prebuild.Prebuild`: the main views built unseen before their first visit;
- `follow.FollowTeam`: with `follow`, the team's claims polled from the shared remote.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterable

from leafwise.canvas.announcements import Announcements
from leafwise.canvas.changes import PersonChanges
from leafwise.canvas.follow import ClaimSource, FollowTeam
from leafwise.canvas.live import PlanCheck, PlanUpdate, LivePlan
from leafwise.canvas.look import safe, set_display_clock
from leafwise.canvas.navigation import Navigation, epic_of
from leafwise.canvas.palette import CanvasCommands, system_commands
from leafwise.canvas.prebuild import PREBUILD_DELAY, PREBUILT_VIEWS, Prebuild
from leafwise.canvas.screens.agents import AgentsScreen
from leafwise.canvas.screens.blocked import BlockedScreen
from leafwise.canvas.screens.board import BoardScreen
from leafwise.canvas.screens.dependencies import DependenciesScreen
from leafwise.canvas.screens.plan import PlanScreen
from leafwise.canvas.screens.problems import ProblemsScreen
from leafwise.canvas.screens.progress import ProgressScreen
from leafwise.canvas.screens.reconcile import ReconcileScreen
from leafwise.canvas.settings import Settings, default_path
from leafwise.store import PlanPaths, find_root
from leafwise.themes import DEFAULT_THEME, STYLESHEET, THEMES, VARIABLE_DEFAULTS
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.notifications import SeverityLevel
from textual.screen import Screen

__all__ = ["PREBUILD_DELAY", "PREBUILT_VIEWS", "CanvasApp", "Notice", "PlanCheck", "PlanUpdate", "epic_of", "make_canvas"]

NOTICES_KEPT = 200  # toasts remembered in `CanvasApp.notices`
# Textual's own palette entries that the canvas's replace: "theme: …", "help: Keys", "app: Quit".
REPLACED_SYSTEM_COMMANDS = frozenset({"Theme", "Keys", "Quit"})


@dataclass(frozen=True, slots=True)
class Notice:
    """A toast the app posted, as a person saw it."""

    title: str
    message: str
    severity: SeverityLevel


class CanvasApp(LivePlan, Announcements, PersonChanges, Navigation, Prebuild, FollowTeam, App[int]):
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
                 clock: Callable[[], datetime] | None = None, prebuild: bool = False, follow: bool = False,
                 every: float | None = None, team_source: ClaimSource | None = None) -> None:
        super().__init__()
        set_display_clock(clock)
        self.paths = plan_root if isinstance(plan_root, PlanPaths) else find_root(explicit=plan_root)
        self.watch_enabled = watch
        self.debounce_ms = debounce_ms
        self.step_ms = step_ms
        self.settings_path = settings_path or default_path()
        self.settings = Settings.read(self.settings_path)
        self.notices: list[Notice] = []  # the toasts posted so far (the latest NOTICES_KEPT), oldest first
        self._init_live()
        self._init_announcements()
        self._init_changes()
        self._init_prebuild(prebuild)
        self._init_follow(follow, every, team_source)
        for theme in THEMES.values():
            self.register_theme(theme)
        wanted = self.settings.theme
        self.theme = wanted if wanted in self.available_themes else DEFAULT_THEME

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(VARIABLE_DEFAULTS)

    def on_mount(self) -> None:
        self.theme_changed_signal.subscribe(self, self._remember_theme)
        self.mode_change_signal.subscribe(self, self._mode_entered)
        self._load()
        self._start_following()

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

    def set_theme(self, name: str) -> None:
        self.theme = name

    def _remember_theme(self, theme: Any) -> None:
        if self.settings.theme != theme.name:
            self.settings.theme = theme.name
            self.save_settings()

    def save_settings(self) -> None:
        self.settings.write(self.settings_path)


def make_canvas(root: str | os.PathLike | None = None, *, watch: bool = True, settings_path: Path | None = None,
                cwd: Path | None = None, **options: Any) -> CanvasApp:
    """The canvas on the plan at `root`, or the one found from `cwd` (raises PlanNotFound)."""
    paths = find_root(cwd, root)
    return CanvasApp(paths, watch=watch, settings_path=settings_path, **options)
