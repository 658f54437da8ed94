"""What the secondary views (blocked, progress, reconcile, problems) share."""

from __future__ import annotations

from typing import TYPE_CHECKING

from leafwise.canvas.model.state import PlanState
from leafwise.canvas.widgets.footer import KeysFooter
from leafwise.canvas.widgets.listing import Listing
from leafwise.canvas.widgets.plan_header import PlanHeader
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

if TYPE_CHECKING:
    from leafwise.canvas.app import CanvasApp
    from leafwise.canvas.live import PlanUpdate

REFRESH_DELAY = 0.3  # a burst of writes redraws a view once


class ViewScreen(Screen):
    """A full-screen view with the plan header; it redraws on changes while it is shown."""

    app: CanvasApp
    VIEW_TITLE = ""
    BINDINGS = [Binding("escape", "app.view('plan')", "Back to plan", id="view.back")]

    VIEW_ID = ""  # ids: "<id>-summary", "<id>-list" and, with SIDE_PANEL, "<id>-side" holding "<id>-detail"
    SIDE_PANEL = False

    def compose(self) -> ComposeResult:
        """Header, a summary line, the view's list (beside a detail panel), footer."""
        name = self.VIEW_ID
        yield PlanHeader(self.VIEW_TITLE, id="header")
        yield Static(id=f"{name}-summary", classes="view-summary")
        if self.SIDE_PANEL:
            with Horizontal(classes="view-body"):
                yield Listing(id=f"{name}-list", classes="view-list")
                with VerticalScroll(id=f"{name}-side", classes="view-side"):
                    yield Static(id=f"{name}-detail")
        else:
            yield Listing(id=f"{name}-list", classes="view-list")
        yield KeysFooter()

    def on_mount(self) -> None:
        self._pending = None
        self._stale = True
        self.app.plan_loaded.subscribe(self, lambda _state: self._changed())
        self.app.plan_updated.subscribe(self, self.plan_updated)
        self.call_after_refresh(self._redraw_if_stale)

    def on_screen_resume(self) -> None:
        self._redraw_if_stale()

    def _redraw_if_stale(self) -> None:
        """Mount and resume both ask on a first visit: the view is drawn once (a redraw can take 0.1 s)."""
        if self._stale:
            self._redraw()

    def plan_updated(self, update: PlanUpdate) -> None:
        self._changed()

    def _changed(self) -> None:
        self._stale = True
        if self.is_current and self._pending is None:
            self._pending = self.set_timer(REFRESH_DELAY, self._redraw)

    def _redraw(self) -> None:
        self._pending = None
        state = self.app.state
        self.query_one(PlanHeader).show(state, self.app.live if state else None)
        if state is None:
            return
        self._stale = False
        self.redraw(state)

    def redraw(self, state: PlanState) -> None:
        raise NotImplementedError
