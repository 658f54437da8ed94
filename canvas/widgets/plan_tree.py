"""The plan as a tree: release → epic → … → leaf, kept in step with the files by diffing.

Built on Textual's Line API (`ScrollView` + `render_line`, as toolong draws
huge files): the widget keeps one flat list of the rows on display (`Row`,
keyed by node id; release groups by `@` + release id) and draws only the lines
in view, from the live state, with an LRU cache of finished lines. Only the
branches a person opened are walked, so an 11,000-node plan opens with a
hundred rows. A change never rebuilds what did not move: `apply()` re-walks
the open branches only when the structure changed, repaints only the lines
whose rows look different, and keeps the cursor (by key) and the expanded
branches.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Iterable

from leafwise.canvas.model.query import Query
from leafwise.canvas.model.state import Delta, Group, PlanState
from leafwise.canvas.widgets.tree_rows import RowPainter
from leafwise.store import CLOSED
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import var
from textual.scroll_view import ScrollView
from textual.strip import Strip

GROUP = "@"  # row keys of release groups: "@R1", "@" for no release
TOGGLE = Style.from_meta({"toggle": True})
FLASH_SECONDS = 1.6
MATCH_LIMIT = 150  # filter matches shown at once (4+ screens); the rest are counted, not drawn
GUIDE_DEPTH = 3  # cells of indentation per level
# Guide pieces (Tree's default lines at a depth of 3): space, vertical, last child, child.
GUIDES = ("   ", "│  ", "└─ ", "├─ ")
ICON_NODE = "▸ "
ICON_NODE_EXPANDED = "▾ "


def exact_id(query: Query, matched: list[str]) -> str | None:
    """The match whose id is one of the query's words (or id: terms), whole and in any case."""
    wanted = {value for field, value in query.terms if field in (None, "id")}
    if not wanted:
        return None
    return next((nid for nid in matched if nid.casefold() in wanted), None)


def group_key(group: Group) -> str:
    return GROUP + group.key


@dataclass(frozen=True, slots=True)
class FilterResult:
    matches: int
    shown: int


@dataclass(frozen=True, slots=True)
class Row:
    """One line on display: its key, the keys above it, and how its guides and toggle look."""

    key: str
    path: tuple[str, ...]  # keys from the top-level group down to this row, this row included
    lasts: tuple[bool, ...]  # for path[1:]: is that row the last of its siblings (guides stop there)
    expandable: bool
    expanded: bool

    @property
    def depth(self) -> int:
        return len(self.path) - 1

    @property
    def parent(self) -> str | None:
        return self.path[-2] if len(self.path) > 1 else None


class PlanTree(ScrollView, can_focus=True):
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
        """The cursor is on another row (a node id, a group key, or None)."""

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
        self._all_matched: tuple[object, Query, list[str]] | None = None  # (state version, query, all matches)
        self._painter = RowPainter(self._style)
        # Row texts by key, reused while (node object, width, flash, filter role, counts) stay the same;
        # nodes are replaced, never mutated, when their file changes. The int numbers each text.
        self._labels: dict[str, tuple[object, tuple, Text, int]] = {}
        self._label_serial = 0
        self._strips: LRUCache[tuple, Strip] = LRUCache(1024)

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

    def _desired(self, key: str | None) -> list[str]:
        """The child keys a row should have now (filter and hide-closed applied)."""
        state = self.state
        assert state is not None
        if key is None:
            keys = [group_key(g) for g in state.groups]
        elif key.startswith(GROUP):
            group = state.group(key[1:])
            keys = list(group.tops) if group else []
        else:
            node = state.nodes.get(key)
            keys = list(node.children) if node else []
        if self._visible is not None:
            kept = [k for k in keys if k in self._visible]
            if self._exact:  # the branch holding the exact id match comes first, so that match is the first row
                lead = [k for k in kept if k in self._exact]
                kept = lead + [k for k in kept if k not in self._exact] if lead else kept
            return kept
        if self.hide_closed and key is not None:
            keys = [k for k in keys if state.nodes[k].status not in CLOSED]
        return keys

    def _walk(self) -> list[Row]:
        """The rows on display: every group, and below each row its children when it is open."""
        filtering = self._visible is not None
        rows: list[Row] = []
        # A stack of (key, path, lasts), pushed in reverse so rows come out in order.
        tops = self._desired(None)
        stack = [(key, (key,), ()) for key in reversed(tops)]
        while stack:
            key, path, lasts = stack.pop()
            children = self._desired(key)
            expandable = key.startswith(GROUP) or bool(children)
            expanded = expandable and (filtering or key in self._expanded)
            rows.append(Row(key, path, lasts, expandable, expanded))
            if expanded:
                count = len(children)
                for index in range(count - 1, -1, -1):
                    child = children[index]
                    if child not in path:  # a parent cycle never loops the walk
                        stack.append((child, path + (child,), lasts + (index == count - 1,)))
        return rows

    def _relayout(self) -> None:
        """Re-walk the open branches; repaint and re-measure only if the rows on display changed."""
        if self.state is None:
            return
        fresh = self._walk()
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
        if previous != line:
            self.refresh()  # the cursor row and the guides under it change colour
        if key != self._cursor_key:
            self._cursor_key = key
            self.post_message(self.CursorMoved(key))

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
            self._flash_timer = self.set_interval(0.2, self._fade)

    def _fade(self) -> None:
        now = time.monotonic()
        for key in [k for k, t in self._flash.items() if t <= now]:
            del self._flash[key]
            self._refresh_key(key)
        if not self._flash and self._flash_timer is not None:
            self._flash_timer.stop()
            self._flash_timer = None

    # --- navigation -------------------------------------------------------------

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
        query = self._query
        search = state.search
        nodes = state.nodes
        previous = self._all_matched
        if previous is not None and previous[0] is state.version and query.narrows(previous[1]):
            pool = (nid for nid in previous[2] if nid in nodes)  # typing on: search within the last matches
        else:
            pool = iter(nodes)
        matched = [nid for nid in pool if query.matches(nodes[nid], search[nid])]
        self._all_matched = (state.version, query, matched)
        exact = exact_id(query, matched)
        if exact is not None:  # "SHOP-1" ranks SHOP-1 before SHOP-10…19, and always among those shown
            matched = [exact, *(nid for nid in matched if nid != exact)]
        shown = matched[:MATCH_LIMIT] if len(matched) > MATCH_LIMIT else matched
        visible: set[str] = set()
        for nid in shown:
            visible.add(nid)
            visible.update(a.id for a in state.plan.ancestors(nid))
            visible.add(group_key_of(state, nid))
        self._visible = visible
        self._matched = set(shown)
        self._exact = ((group_key_of(state, exact), *(a.id for a in reversed(state.plan.ancestors(exact))), exact)
                       if exact is not None else ())
        self._last_result = FilterResult(len(matched), len(shown))
        return self._last_result

    def set_hide_closed(self, hide: bool) -> None:
        self.hide_closed = hide
        self._relayout()

    # --- drawing ------------------------------------------------------------------

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"plan-tree--{name}", partial=True)

    def _label(self, row: Row) -> Text:
        """The row's toggle and text (cached while what it shows stays the same)."""
        return self._label_entry(row)[0]

    def _label_entry(self, row: Row) -> tuple[Text, int]:
        state = self.state
        key = row.key
        if state is None:
            return Text(key), 0
        width = max(10, self.scrollable_content_region.width - row.depth * GUIDE_DEPTH - 1)
        flash = key in self._flash
        context = self._visible is not None and key not in self._matched  # only the path to a match
        if key.startswith(GROUP):
            subject: object = state.group(key[1:])
            stamp = (width, flash, context, row.expandable, row.expanded, subject and astuple_tally(subject))
        else:
            subject = state.nodes.get(key)
            stamp = (width, flash, context, row.expandable, row.expanded, state.counts.get(key))
        cached = self._labels.get(key)
        if cached is not None and cached[0] is subject and cached[1] == stamp:
            return cached[2], cached[3]
        if key.startswith(GROUP):
            text = self._painter.group(subject, width - 2) if subject else Text(key)
        else:
            text = self._painter.node(subject, stamp[5] or (0, 0), width - 2) if subject else Text(key)
        if flash:
            text.stylize(self._style("flash"))
        if context:
            text.stylize(self._style("context"))
        if row.expandable:
            icon = Text(ICON_NODE_EXPANDED if row.expanded else ICON_NODE, TOGGLE)
        else:
            icon = Text("  ")
        label = Text.assemble(icon, text)
        self._label_serial += 1
        self._labels[key] = (subject, stamp, label, self._label_serial)
        return label, self._label_serial

    def render_line(self, y: int) -> Strip:
        line = y + int(self.scroll_offset.y)
        width = self.size.width
        if not 0 <= line < len(self._lines):
            return Strip.blank(width, self.rich_style)
        row = self._lines[line]
        label, serial = self._label_entry(row)
        focus = self.has_focus
        hover_key = self._lines[self.hover_line].key if 0 <= self.hover_line < len(self._lines) else None
        is_hover = hover_key is not None and hover_key in row.path
        cursor_path = self._cursor_path
        # Guides under the cursor's row take the selected colour (as Textual's Tree draws them).
        selected_from = row.path.index(cursor_path[-1]) + 1 if focus and cursor_path \
            and cursor_path[-1] in row.path else len(row.path)
        hover_from = row.path.index(hover_key) + 1 if is_hover else len(row.path)
        cache_key = (line, row, serial, width, focus, line == self.cursor_line, line == self.hover_line, is_hover,
                     selected_from, hover_from)
        strip = self._strips.get(cache_key)
        if strip is None:
            strip = self._strips[cache_key] = self._draw(line, row, label, width, is_hover, selected_from,
                                                         hover_from)
        return strip

    def _draw(self, line: int, row: Row, label: Text, width: int, is_hover: bool, selected_from: int,
              hover_from: int) -> Strip:
        base_style = self.rich_style
        line_style = (self.get_component_rich_style("tree--highlight-line") if is_hover else base_style) \
            + Style(meta={"line": line})
        guide_base = self.get_component_rich_style("tree--guides", partial=True)
        guide_hover = guide_base + self.get_component_rich_style("tree--guides-hover", partial=True)
        guide_selected = guide_base + self.get_component_rich_style("tree--guides-selected", partial=True)
        out = Text(style=line_style)
        guide_style = guide_base
        # One guide per level between the group and this row; the last level gets a branch piece.
        for level in range(1, len(row.path)):
            guide_style = guide_selected if level >= selected_from else \
                guide_hover if level >= hover_from else guide_base
            if level < len(row.path) - 1:
                out.append(GUIDES[0] if row.lasts[level - 1] else GUIDES[1], guide_style)
        if len(row.path) > 1:
            out.append(GUIDES[2] if row.lasts[-1] else GUIDES[3], guide_style)
        label_style = self.get_component_rich_style("tree--label", partial=True)
        if line == self.hover_line:
            label_style += self.get_component_rich_style("tree--highlight", partial=True)
        if line == self.cursor_line:
            label_style += self.get_component_rich_style("tree--cursor", partial=False)
        shown = label.copy()
        shown.stylize(label_style)
        out.append_text(shown)
        out.truncate(width)
        out.pad_right(max(0, width - out.cell_len))
        return Strip(list(out.render(self.app.console)), width).simplify()

    def notify_style_update(self) -> None:
        self._labels.clear()  # a new theme: every label is drawn again in its colours
        self._strips.clear()
        super().notify_style_update()

    def on_resize(self, event: events.Resize) -> None:
        self._strips.grow(max(1024, event.size.height * 4))
        self.refresh()


def astuple_tally(group: Group) -> tuple:
    tally = group.tally
    return (group.title, group.target, tally.done, tally.draft, tally.in_progress, tally.blocked, tally.cancelled)


def group_key_of(state: PlanState, node_id: str) -> str:
    return GROUP + state.group_of(node_id)
