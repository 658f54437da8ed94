"""Moving around the plan tree: the cursor keys, opening and closing branches, the mouse, and
`reveal()`, which opens the way down to a node from anywhere in the canvas."""

from __future__ import annotations

from leafwise.canvas.model.tree_layout import Row, group_key_of
from leafwise.store import CLOSED
from textual import events
from textual.geometry import Region


class TreeNavigation:
    """The part of `PlanTree` that moves the cursor and opens branches (a mixin: `self` is the tree)."""

    def _open_path(self, node_id: str) -> None:
        """Mark the group and the ancestors of a node open (the caller re-lays out)."""
        state = self.state
        assert state is not None
        self._expanded.add(group_key_of(state, node_id))
        self._expanded.update(a.id for a in state.plan.ancestors(node_id))

    def expand(self, key: str) -> None:
        """Open one row's branch (a no-op for a row without children)."""
        self._expanded.add(key)
        self._relayout()

    def collapse(self, key: str) -> None:
        self._expanded.discard(key)
        self._relayout()

    def move_cursor_to(self, key: str) -> bool:
        """Put the cursor on a row on display (False if it is not shown)."""
        line = self._line_of.get(key)
        if line is None:
            return False
        self.cursor_line = line
        self._scroll_cursor_visible()
        return True

    def reveal(self, node_id: str) -> bool:
        """Open the branches down to a node and put the cursor on it."""
        state = self.state
        if state is None or node_id not in state.nodes:
            return False
        if self._visible is not None and node_id not in self._visible:
            self.set_filter("")
        if self.hide_closed and state.nodes[node_id].status in CLOSED:
            self.hide_closed = False
        self._open_path(node_id)
        self._relayout()
        line = self._line_of.get(node_id)
        if line is None:
            return False
        self.cursor_line = line
        self.call_after_refresh(self._land_on, node_id)
        return True

    def _land_on(self, key: str) -> None:
        line = self._line_of.get(key)
        if line is not None:
            self.scroll_to(y=max(0, line - self.scrollable_content_region.height // 3), animate=False)

    def _scroll_cursor_visible(self) -> None:
        if self.cursor_line >= 0:
            self.scroll_to_region(Region(0, self.cursor_line, 1, 1), animate=False, x_axis=False, force=True)

    def _move(self, line: int) -> None:
        if self._lines:
            self.cursor_line = min(max(line, 0), self.last_line)
            self._scroll_cursor_visible()

    def action_cursor_down(self) -> None:
        self._move(self.cursor_line + 1)

    def action_cursor_up(self) -> None:
        self._move(self.cursor_line - 1 if self.cursor_line >= 0 else self.last_line)

    def action_page_down(self) -> None:
        self._move(max(self.cursor_line, 0) + self.scrollable_content_region.height - 1)

    def action_page_up(self) -> None:
        self._move(self.cursor_line - (self.scrollable_content_region.height - 1))

    def action_scroll_home(self) -> None:
        self._move(0)

    def action_scroll_end(self) -> None:
        self._move(self.last_line)

    def _cursor_row(self) -> Row | None:
        line = self.cursor_line
        return self._lines[line] if 0 <= line < len(self._lines) else None

    def action_expand_row(self) -> None:
        row = self._cursor_row()
        if row is None:
            return
        if row.expandable and not row.expanded:
            self.expand(row.key)
        elif row.expanded and self.cursor_line < self.last_line \
                and self._lines[self.cursor_line + 1].parent == row.key:
            self._move(self.cursor_line + 1)

    def action_collapse_row(self) -> None:
        row = self._cursor_row()
        if row is None:
            return
        if row.expanded:
            self.collapse(row.key)
        else:
            self.action_cursor_parent()

    def action_toggle_row(self) -> None:
        row = self._cursor_row()
        if row is not None and row.expandable:
            self.collapse(row.key) if row.expanded else self.expand(row.key)

    def action_cursor_parent(self) -> None:
        row = self._cursor_row()
        if row is not None and row.parent is not None:
            self.move_cursor_to(row.parent)

    def _sibling(self, step: int) -> None:
        row = self._cursor_row()
        if row is None:
            return
        line = self.cursor_line + step
        while 0 <= line < len(self._lines):
            other = self._lines[line]
            if other.depth < row.depth:
                return
            if other.depth == row.depth:
                self._move(line)
                return
            line += step

    def action_cursor_previous_sibling(self) -> None:
        self._sibling(-1)

    def action_cursor_next_sibling(self) -> None:
        self._sibling(1)

    # --- the mouse and focus -------------------------------------------------------------

    def on_click(self, event: events.Click) -> None:
        meta = event.style.meta
        line = meta.get("line")
        if not isinstance(line, int) or not 0 <= line < len(self._lines):
            return
        if meta.get("toggle"):
            row = self._lines[line]
            self.collapse(row.key) if row.expanded else self.expand(row.key)
        else:
            self.cursor_line = line

    def on_mouse_move(self, event: events.MouseMove) -> None:
        line = event.style.meta.get("line")
        self.hover_line = line if isinstance(line, int) else -1

    def on_leave(self, _: events.Leave) -> None:
        self.hover_line = -1

    def watch_hover_line(self, previous: int, line: int) -> None:
        self.refresh()

    def on_focus(self, _: events.Focus) -> None:
        self.refresh()  # the cursor and the guides under it take their focused colours

    def on_blur(self, _: events.Blur) -> None:
        self.refresh()
