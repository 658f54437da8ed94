"""The plan as a tree: release → epic → … → leaf, kept in step with the files by diffing.

Built on Textual's Line API (`ScrollView` + `render_line`, as toolong draws huge files): the
widget keeps one flat list of the rows on display (`model.tree_layout.Row`, keyed by node id;
release groups by `@` + release id) and draws only the lines in view. A change never rebuilds
what did not move: `apply()` re-walks the open branches only when the structure changed,
repaints only the lines whose rows look different, and keeps the cursor (by key) and the
expanded branches. Its parts: which rows show (`model.tree_layout`), the filter
(`model.tree_filter`), how lines are drawn (`tree_drawing`), the keys and the mouse
(`tree_navigation`); this module holds the widget's state and its live changes.
"""

from __future__ import annotations

import time
from typing import Iterable

from leafwise.canvas.model.query import Query
from leafwise.canvas.model.state import Delta, PlanState
from leafwise.canvas.model.tree_filter import FilterResult, Filtered, run_filter
from leafwise.canvas.model.tree_layout import Row, Shown, context_node, group_key, group_key_of, walk
from leafwise.canvas.widgets.tree_drawing import LINES_CACHED, TreeDrawing
from leafwise.canvas.widgets.tree_navigation import TreeNavigation
from leafwise.canvas.widgets.tree_rows import RowPainter
from leafwise.store import CLOSED
from rich.text import Text
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import var
from textual.scroll_view import ScrollView
from textual.strip import Strip

FLASH_SECONDS = 1.6
FLASH_TICK = 0.2  # seconds between two checks for flashes that are over


class PlanTree(TreeNavigation, TreeDrawing, ScrollView, can_focus=True):
    """Release groups and the node hierarchy with status, assignee and progress."""

    DEFAULT_CSS = """
    PlanTree {
        background: $surface;
        color: $foreground;
        & > .tree--guides { color: $surface-lighten-2; }
        & > .tree--guides-hover { color: $surface-lighten-2; }
        & > .tree--guides-selected { color: $block-cursor-blurred-background; }
        & > .tree--cursor {
            text-style: $block-cursor-blurred-text-style;
            background: $block-cursor-blurred-background;
        }
        & > .tree--highlight-line { background: $block-hover-background; }
        &:focus {
            background-tint: $foreground 5%;
            & > .tree--cursor {
                color: $block-cursor-foreground;
                background: $block-cursor-background;
                text-style: $block-cursor-text-style;
            }
            & > .tree--guides { color: $surface-lighten-3; }
            & > .tree--guides-hover { color: $surface-lighten-3; }
            & > .tree--guides-selected { color: $block-cursor-background; }
        }
        &:light {
            & > .tree--guides { color: $surface-darken-1; }
            & > .tree--guides-hover { color: $block-cursor-background; }
            & > .tree--guides-selected { color: $block-cursor-background; }
        }
    }
    PlanTree:ansi {
        color: ansi_default;
        & > .tree--guides { color: $ansi-background; }
        &:nocolor > .tree--cursor { text-style: reverse; }
    }
    """
    BINDINGS = [
        Binding("down,j", "cursor_down", "Down", show=False),
        Binding("up,k", "cursor_up", "Up", show=False),
        Binding("l,right", "expand_row", "Expand", show=False),
        Binding("h,left", "collapse_row", "Collapse / go to parent", show=False),
        Binding("enter,space", "toggle_row", "Open or close", show=False),
        Binding("shift+left", "cursor_parent", "Cursor to parent", show=False),
        Binding("shift+up", "cursor_previous_sibling", "Cursor to previous sibling", show=False),
        Binding("shift+down", "cursor_next_sibling", "Cursor to next sibling", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("g,home", "scroll_home", "First row", show=False),
        Binding("G,end", "scroll_end", "Last row", show=False),
    ]
    COMPONENT_CLASSES = {
        "tree--label", "tree--guides", "tree--guides-hover", "tree--guides-selected", "tree--cursor",
        "tree--highlight", "tree--highlight-line",
        "plan-tree--draft", "plan-tree--active", "plan-tree--blocked", "plan-tree--done",
        "plan-tree--cancelled", "plan-tree--decision", "plan-tree--dim", "plan-tree--group",
        "plan-tree--bar-empty", "plan-tree--flash", "plan-tree--reason", "plan-tree--closed-title",
        "plan-tree--context",
    }

    cursor_line: var[int] = var(-1, always_update=True)
    hover_line: var[int] = var(-1)

    class CursorMoved(Message):
        """The cursor is on another row (a node id, a context row's epic id, a group key, or None)."""

        def __init__(self, key: str | None) -> None:
            super().__init__()
            self.key = key

    class FilterApplied(Message):
        def __init__(self, text: str, result: FilterResult | None) -> None:
            super().__init__()
            self.text = text
            self.result = result

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.state: PlanState | None = None
        self._lines: list[Row] = []
        self._line_of: dict[str, int] = {}
        self._cursor_key: str | None = None
        self._cursor_path: tuple[str, ...] = ()  # the cursor row's path, to fall back on if the row goes
        self._expanded: set[str] = set()  # what the person opened (kept while filtering)
        self._flash: dict[str, float] = {}
        self._flash_timer = None
        self.hide_closed = False
        self.query_text = ""
        self._query: Query | None = None
        self._visible: set[str] | None = None  # filter mode: matches and their ancestors
        self._matched: set[str] = set()
        self._exact: tuple[str, ...] = ()  # filter mode: the node whose id the filter names exactly, and its path
        self._last_result: FilterResult | None = None
        self._filtered: Filtered | None = None  # the filter's last run (typing on searches within it)
        self._painter = RowPainter(self._style)
        # Row texts by key, reused while (node object, width, flash, filter role, counts) stay the same;
        # nodes are replaced, never mutated, when their file changes. The int numbers each text.
        self._labels: dict[str, tuple[object, tuple, Text, int]] = {}
        self._label_serial = 0
        self._strips: LRUCache[tuple, Strip] = LRUCache(LINES_CACHED)

    # --- public read-only views ----------------------------------------------------

    @property
    def rows(self) -> tuple[Row, ...]:
        """The rows on display, top to bottom."""
        return tuple(self._lines)

    def visible_keys(self) -> list[str]:
        """Keys of the rows on display, top to bottom (for tests and the bench)."""
        return [row.key for row in self._lines]

    @property
    def expanded(self) -> frozenset[str]:
        """The branches the person opened (kept while a filter shows its own)."""
        return frozenset(self._expanded)

    @property
    def cursor_key(self) -> str | None:
        return self._cursor_key

    @property
    def last_line(self) -> int:
        return len(self._lines) - 1

    @property
    def flashing(self) -> set[str]:
        return set(self._flash)

    def row_text(self, key: str) -> str | None:
        """The plain text a row draws now (toggle and label, without guides), or None if not on display."""
        line = self._line_of.get(key)
        if line is None:
            return None
        return self._label(self._lines[line]).plain

    # --- building -------------------------------------------------------------

    def show_plan(self, state: PlanState, expand_to: Iterable[str] = ()) -> None:
        """First fill: release groups open, tops listed, and the paths to `expand_to` opened."""
        self.state = state
        self._expanded.update(group_key(g) for g in state.groups)
        for node_id in expand_to:
            if node_id in state.nodes:
                self._open_path(node_id)
        self._relayout()
        if self.cursor_line < 0 and self._lines:
            self.cursor_line = 0

    def _shown(self) -> Shown:
        return Shown(self._visible, self._exact, self.hide_closed)

    def _relayout(self) -> None:
        """Re-walk the open branches; repaint and re-measure only if the rows on display changed."""
        if self.state is None:
            return
        fresh = walk(self.state, self._expanded, self._shown())
        if fresh == self._lines:
            return
        self._lines = fresh
        self._line_of = {row.key: line for line, row in enumerate(fresh)}
        self.virtual_size = Size(0, len(fresh))
        self._place_cursor()
        self.refresh()

    def _place_cursor(self) -> None:
        """Keep the cursor on its row; if the row went, follow it if it moved, else stay on its nearest parent."""
        key = self._cursor_key
        if key is None:
            return
        line = self._line_of.get(key)
        if line is None:
            nearest = next((k for k in reversed(self._cursor_path) if k in self._line_of), None)
            line = self._line_of[nearest] if nearest is not None else min(max(self.cursor_line, 0), self.last_line)
        self.cursor_line = line

    def watch_cursor_line(self, previous: int, line: int) -> None:
        row = self._lines[line] if 0 <= line < len(self._lines) else None
        key = row.key if row is not None else None
        self._cursor_path = row.path if row is not None else ()
        if previous != line:  # the cursor row and the guides under it change colour, nothing else
            self._refresh_branch(previous)
            self._refresh_branch(line)
        if key != self._cursor_key:
            self._cursor_key = key
            # A context row stands for its epic: the detail pane shows the epic.
            self.post_message(self.CursorMoved(key and (context_node(key) or key)))

    def _refresh_branch(self, line: int) -> None:
        """Repaint a row and the rows under it that are in view (a whole repaint restyles every line)."""
        if not 0 <= line < len(self._lines):
            return
        key = self._lines[line].key
        top = int(self.scroll_offset.y)
        bottom = min(len(self._lines), top + self.size.height)
        end = line + 1
        while end < bottom and key in self._lines[end].path:
            end += 1
        start = max(line, top)
        if end > start:
            self.refresh_lines(start, end - start)

    # --- live changes -----------------------------------------------------------

    def apply(self, delta: Delta) -> None:
        """Bring the rows in line with a state change, flashing what changed."""
        state = self.state
        if state is None:
            return
        refilter = self._query is not None and (delta.structural or any(
            (nid in self._matched) != self._query.matches(state.nodes[nid], state.search[nid])
            for nid in delta.changed if nid in state.nodes))
        if refilter:
            self._run_filter()
        if delta.structural or refilter or (self.hide_closed and any(
                (old in CLOSED) != (new in CLOSED) for _nid, old, new in delta.transitions)):
            self._relayout()
        for key in delta.rows:
            self._refresh_key(key)
        for group in state.groups:
            self._refresh_key(group_key(group))
        self.flash(delta.changed | delta.added)

    def _refresh_key(self, key: str) -> None:
        line = self._line_of.get(key)
        if line is not None:
            self.refresh_line(line)

    def flash(self, keys: Iterable[str]) -> None:
        """Highlight changed rows for a moment; a change inside a closed branch lights the branch."""
        state = self.state
        if state is None:
            return
        until = time.monotonic() + FLASH_SECONDS
        for key in keys:
            target = key
            while target not in self._line_of and target in state.nodes:
                parent = state.nodes[target].parent
                target = parent if parent in state.nodes else group_key_of(state, target)
            if target not in self._line_of:
                continue
            self._flash[target] = until
            self._refresh_key(target)
        if self._flash and self._flash_timer is None:
            self._flash_timer = self.set_interval(FLASH_TICK, self._fade)

    def _fade(self) -> None:
        now = time.monotonic()
        for key in [k for k, t in self._flash.items() if t <= now]:
            del self._flash[key]
            self._refresh_key(key)
        if not self._flash and self._flash_timer is not None:
            self._flash_timer.stop()
            self._flash_timer = None

    # --- filtering --------------------------------------------------------------

    def set_filter(self, text: str) -> FilterResult | None:
        """Show only rows matching `text` (and their ancestors); empty text restores the tree."""
        text = text.strip()
        if text == self.query_text:
            return self._last_result if text else None
        keep = self.cursor_key
        self.query_text = text
        self._query = Query.parse(text) if text else None
        result = self._run_filter()
        if not text and keep and self.state is not None and keep in self.state.nodes:
            self._open_path(keep)  # the filter found it: the full tree opens where it is
        self._relayout()
        self.refresh()  # rows that stayed may have changed between match and context
        if self._exact and self._exact[-1] in self._line_of:
            self.move_cursor_to(self._exact[-1])  # an exact id wins over where the cursor was
        elif keep and keep in self._line_of and (self._query is None or keep in self._matched):
            self.move_cursor_to(keep)
        elif self._lines:
            self._first_match()
        self.post_message(self.FilterApplied(text, result))
        return result

    def _first_match(self) -> None:
        exact = self._exact[-1] if self._exact else None
        line = self._line_of.get(exact) if exact else None
        if line is None:
            line = next((i for i, row in enumerate(self._lines) if row.key in self._matched), 0)
        self._move(line)

    def _run_filter(self) -> FilterResult | None:
        state = self.state
        if self._query is None or state is None:
            self._visible = None
            self._matched = set()
            self._exact = ()
            self._last_result = None
            return None
        self._filtered = found = run_filter(state, self._query, self._filtered)
        self._visible, self._matched, self._exact, self._last_result = \
            found.visible, found.matched, found.exact, found.result
        return found.result

    def set_hide_closed(self, hide: bool) -> None:
        self.hide_closed = hide
        self._relayout()
