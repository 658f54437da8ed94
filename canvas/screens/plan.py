"""The main screen: the tree, the detail pane, the next task, the activity feed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from leafwise.canvas.model.state import PlanState
from leafwise.canvas.screens.editing import EDIT_ACTIONS, EDIT_BINDINGS, Editing
from leafwise.canvas.screens.triage import TRIAGE_BINDINGS, Triage
from leafwise.canvas.widgets.activity_feed import ActivityFeed
from leafwise.canvas.widgets.footer import KeysFooter
from leafwise.canvas.widgets.next_task import NextTaskBar
from leafwise.canvas.widgets.node_detail import NodeDetail
from leafwise.canvas.widgets.plan_header import PlanHeader
from leafwise.canvas.widgets.plan_tree import PlanTree
from leafwise.canvas.widgets.quiet import set_content
from leafwise.commands.events import Event
from leafwise.store import Node
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Input, Static

if TYPE_CHECKING:
    from leafwise.canvas.app import CanvasApp
    from leafwise.canvas.live import PlanUpdate

NEXT_BAR_DELAY = 0.15  # bursts of writes recompute the pick and the detail once, not once per file


class PlanScreen(Editing, Triage, Screen):
    """Release → epic → leaf on the left, the selected node on the right, live."""

    app: CanvasApp
    AUTO_FOCUS = "#tree"
    BINDINGS = [
        Binding("slash", "filter", "Filter", id="plan.filter", tooltip="Filter rows as you type"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="plan.clear_filter"),
        Binding("n", "next_task", "Next task", id="plan.next",
                tooltip="Put the cursor on the task the picker hands out"),
        Binding("d", "toggle_closed", "Hide closed", show=False, id="plan.hide_closed",
                tooltip="Hide or show done and cancelled work"),
        Binding("f", "focus_feed", "Activity", show=False, id="plan.feed", tooltip="Move into the activity feed"),
        *[Binding(b.key, b.action, b.description, show=False, id=b.id, tooltip=b.tooltip) for b in TRIAGE_BINDINGS],
        *[Binding(str(n), f"answer_option({n})", f"Answer {n}", show=False, id=f"plan.answer_{n}",
                  tooltip="Answer the open decision of the highlighted node with this option") for n in range(1, 10)],
        *EDIT_BINDINGS,
    ]

    def compose(self) -> ComposeResult:
        yield PlanHeader(id="header")
        with Horizontal(id="main"):
            with Vertical(id="tree-pane"):
                yield PlanTree(id="tree")
                with Horizontal(id="filter-bar"):
                    yield Input(placeholder="filter: words · status:blocked · @agent · #tag · release:R1",
                                id="filter")
                    yield Static(id="filter-count")
            yield NodeDetail(id="detail")
        yield NextTaskBar(id="next")
        yield ActivityFeed(id="feed")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.query_one("#filter-bar").display = False
        self.query_one(PlanTree).loading = True
        self._next_timer = None
        self._detail_stale = self._docs_stale = False
        self.app.plan_loaded.subscribe(self, self.plan_loaded)
        self.app.plan_updated.subscribe(self, self.plan_updated)
        self.app.journal_grew.subscribe(self, self.journal_grew)
        if self.app.state is not None:
            self.plan_loaded(self.app.state)

    # --- the app's signals ---------------------------------------------------------

    def plan_loaded(self, state: PlanState) -> None:
        tree = self.query_one(PlanTree)
        tree.loading = False
        next_bar = self.query_one(NextTaskBar)
        next_bar.show(state)
        tree.show_plan(state, expand_to=[next_bar.next_id] if next_bar.next_id else [])
        tree.hide_closed = self.app.settings.hide_closed
        if tree.hide_closed:
            tree.set_hide_closed(True)
        self.query_one(PlanHeader).show(state, self.app.live)
        self.query_one(ActivityFeed).add_events(self.app.recent_events, state)
        if next_bar.next_id:
            tree.reveal(next_bar.next_id)
        tree.focus()

    def plan_updated(self, update: PlanUpdate) -> None:
        state = self.app.state
        if state is None:
            return
        self.query_one(PlanTree).apply(update.delta)  # the rows first: that is what people watch
        key = self.query_one(NodeDetail).key
        if key is not None and self._touches(state, key, update):
            self._detail_stale = True
            self._docs_stale |= bool(update.docs)
        self._schedule_next_bar()

    @staticmethod
    def _touches(state: PlanState, key: str, update: PlanUpdate) -> bool:
        """Does a change show in the detail pane of `key` (itself, its path, links, docs)?"""
        delta = update.delta
        if key.startswith("@"):
            return bool(delta)
        if key in delta.rows or key in delta.removed:
            return True
        node = state.nodes.get(key)
        if node is None:
            return False
        near = {a.id for a in state.plan.ancestors(key)} | set(node.depends_on) | set(state.needed_by(key))
        return bool(near & (delta.changed | delta.removed)) or bool(update.docs & set(node.docs + node.diagrams))

    def journal_grew(self, events: list[Event]) -> None:
        self.query_one(ActivityFeed).add_events(events, self.app.state)

    def _schedule_next_bar(self) -> None:
        if self._next_timer is None:
            self._next_timer = self.set_timer(NEXT_BAR_DELAY, self._refresh_next_bar)

    def _refresh_next_bar(self) -> None:
        """The slower parts, once per burst: the pick, the header, and a stale detail pane."""
        self._next_timer = None
        state = self.app.state
        if state is None:
            return
        self.query_one(NextTaskBar).show(state)
        self.query_one(PlanHeader).show(state, self.app.live)
        if self._detail_stale:
            detail = self.query_one(NodeDetail)
            detail.show(state, detail.key, refresh_docs=self._docs_stale)
            self._detail_stale = self._docs_stale = False

    def refresh_live_mark(self) -> None:
        # the watcher starts and stops on its own: it may find this screen mounted before its header is
        # composed or after it was removed (a canvas closed while starting), and then there is nothing to mark
        for header in self.query(PlanHeader):
            header.show(self.app.state, self.app.live)

    # --- moving around ---------------------------------------------------------------

    @on(PlanTree.CursorMoved)
    def cursor_moved(self, event: PlanTree.CursorMoved) -> None:
        state = self.app.state
        if state is not None:
            self.query_one(NodeDetail).show(state, event.key)
        # No refresh_bindings() here: the footer's keys do not depend on the row, and a
        # footer recompose per cursor move is what makes holding j feel slow.

    @on(NodeDetail.OpenNode)
    @on(ActivityFeed.OpenNode)
    @on(NextTaskBar.OpenNode)
    def open_node(self, event: NodeDetail.OpenNode | ActivityFeed.OpenNode | NextTaskBar.OpenNode) -> None:
        event.stop()
        self.reveal(event.node_id)

    def reveal(self, node_id: str) -> bool:
        tree = self.query_one(PlanTree)
        if not tree.reveal(node_id):
            self.app.notify(f"{node_id} is not in the plan any more", severity="warning")
            return False
        self._sync_filter_bar()
        tree.focus()
        return True

    def action_next_task(self) -> None:
        next_id = self.query_one(NextTaskBar).next_id
        if next_id:
            self.reveal(next_id)
        else:
            self.app.notify("The picker has no task to hand out right now (see the next line)")

    def action_focus_feed(self) -> None:
        self.query_one(ActivityFeed).focus()

    def action_toggle_closed(self) -> None:
        tree = self.query_one(PlanTree)
        tree.set_hide_closed(not tree.hide_closed)
        self.app.settings.hide_closed = tree.hide_closed
        self.app.save_settings()
        self.app.notify("Done and cancelled work hidden" if tree.hide_closed else "Showing all work",
                        timeout=2)

    # --- filtering ---------------------------------------------------------------------

    def action_filter(self) -> None:
        bar = self.query_one("#filter-bar")
        bar.display = True
        self.query_one("#filter", Input).focus()

    def action_clear_filter(self) -> None:
        tree = self.query_one(PlanTree)
        field = self.query_one("#filter", Input)
        if field.value or tree.query_text:
            field.value = ""
            tree.set_filter("")
        self.query_one("#filter-bar").display = False
        tree.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # The footer and a key press ask this as soon as the screen is current, possibly before the
        # widgets nested in its containers are mounted: then nothing is selected and no filter is open.
        if action == "clear_filter":
            try:
                return bool(self.query_one(PlanTree).query_text) or self.query_one("#filter-bar").display
            except NoMatches:
                return None
        if action in EDIT_ACTIONS:
            return self.edit_allowed(action)
        return self.triage_allowed(action)

    @on(Input.Changed, "#filter")
    def filter_changed(self, event: Input.Changed) -> None:
        self.query_one(PlanTree).set_filter(event.value)

    @on(Input.Submitted, "#filter")
    def filter_submitted(self, event: Input.Submitted) -> None:
        tree = self.query_one(PlanTree)
        if not event.value.strip():
            self.query_one("#filter-bar").display = False
        tree.focus()

    @on(PlanTree.FilterApplied)
    def filter_applied(self, event: PlanTree.FilterApplied) -> None:
        result = event.result
        if result is None:
            words = ""
        elif result.matches > result.shown:
            words = f"{result.shown} of {result.matches} shown"
        else:
            words = f"{result.matches} match" + ("" if result.matches == 1 else "es")
        set_content(self.query_one("#filter-count", Static), Content(words))  # a keystroke lays out only a new width
        self._sync_filter_bar()

    def _sync_filter_bar(self) -> None:
        tree = self.query_one(PlanTree)
        field = self.query_one("#filter", Input)
        if not tree.query_text and field.value.strip():
            field.value = ""
        if not tree.query_text and not field.has_focus:
            self.query_one("#filter-bar").display = False

    # --- triage target -----------------------------------------------------------------

    def edit_target(self) -> Node | None:
        return self.triage_target()

    def triage_target(self) -> Node | None:
        state = self.app.state
        try:
            key = self.query_one(PlanTree).cursor_key
        except NoMatches:  # the tree is not mounted yet (see check_action)
            return None
        if state is None or key is None:
            return None
        return state.nodes.get(key)
