"""Moving between the canvas's views: a view's key, a node shown in the tree, an epic's or a release's
board, a node's dependencies, and the help. Every view is a Textual mode, so each keeps its state."""

from __future__ import annotations

from leafwise.canvas.model.state import PlanState
from leafwise.canvas.screens.board import BoardScreen
from leafwise.canvas.screens.dependencies import DependenciesScreen
from leafwise.canvas.screens.help import HelpScreen
from leafwise.canvas.screens.plan import PlanScreen


class Navigation:
    """The part of `CanvasApp` that switches views (a mixin: `self` is the app)."""

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

    def _selected_id(self) -> str | None:
        """The node the current view has selected (a triage target first), if any."""
        finder = getattr(self.screen, "triage_target", None) or getattr(self.screen, "selected", None)
        node = finder() if finder else None
        return node.id if node is not None else None

    def action_dependencies(self, node_id: str | None = None) -> None:
        """Dependencies and impact of `node_id`, or of the node selected in the current view."""
        target = node_id or self._selected_id()
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
        target = node_id or self._selected_id()
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


def epic_of(state: PlanState, node_id: str) -> str:
    """The node itself when it has children (an epic, a feature), else its top-most ancestor (a leaf's epic)."""
    node = state.nodes[node_id]
    if node.children:
        return node_id
    ancestors = state.plan.ancestors(node_id)
    return ancestors[-1].id if ancestors else node_id
