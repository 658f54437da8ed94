"""The plan as a tree: release → epic → … → leaf, kept in step with the files by diffing.

Rows are keyed by node id (release groups by `@` + release id). Children are
added only when a branch is first expanded, so an 11,000-node plan opens with
a hundred rows. A change never rebuilds the tree: `apply()` relabels the rows
that changed, adds or removes only the rows that moved, and keeps the cursor
and the expanded branches. Labels are drawn at paint time from the state, so a
relabel is just a repaint of one line.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterable, Iterator

from leafwise.canvas.model.query import Query
from leafwise.canvas.model.state import Delta, Group, PlanState
from leafwise.canvas.widgets.tree_rows import RowPainter
from leafwise.store import CLOSED
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

GROUP = "@"  # row keys of release groups: "@R1", "@" for no release
TOGGLE = Style.from_meta({"toggle": True})
FLASH_SECONDS = 1.6
MATCH_LIMIT = 150  # filter matches shown at once (4+ screens); the rest are counted, not drawn


def group_key(group: Group) -> str:
    return GROUP + group.key


@dataclass(frozen=True, slots=True)
class FilterResult:
    matches: int
    shown: int


class PlanTree(Tree[str]):
    """Release groups and the node hierarchy with status, assignee and progress."""

    _batching = 0  # class defaults: Tree's __init__ already invalidates
    _invalid = False
    ICON_NODE = "▸ "
    ICON_NODE_EXPANDED = "▾ "
    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("l,right", "expand_row", "Expand", show=False),
        Binding("h,left", "collapse_row", "Collapse / go to parent", show=False),
        Binding("g,home", "scroll_home", "First row", show=False),
        Binding("G,end", "scroll_end", "Last row", show=False),
    ]
    COMPONENT_CLASSES = Tree.COMPONENT_CLASSES | {
        "plan-tree--draft", "plan-tree--active", "plan-tree--blocked", "plan-tree--done",
        "plan-tree--cancelled", "plan-tree--decision", "plan-tree--dim", "plan-tree--group",
        "plan-tree--bar-empty", "plan-tree--flash", "plan-tree--reason", "plan-tree--closed-title",
        "plan-tree--context",
    }

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
        super().__init__("plan", id=id)
        self.show_root = False
        self.guide_depth = 3
        self.state: PlanState | None = None
        self._rows: dict[str, TreeNode[str]] = {}
        self._populated: set[str] = set()
        self._expanded: set[str] = set()  # what the person opened (kept while filtering)
        self._flash: dict[str, float] = {}
        self._flash_timer = None
        self.hide_closed = False
        self.query_text = ""
        self._query: Query | None = None
        self._visible: set[str] | None = None  # filter mode: matches and their ancestors
        self._matched: set[str] = set()
        self._last_result: FilterResult | None = None
        self._all_matched: tuple[object, Query, list[str]] | None = None  # (state version, query, all matches)
        self._painter = RowPainter(self._style)
        # Row texts by key, reused while (node object, width, flash, filter role, counts) stay the same;
        # nodes are replaced, never mutated, when their file changes.
        self._labels: dict[str, tuple[object, tuple, Text]] = {}

    # --- building -------------------------------------------------------------

    def _invalidate(self) -> None:
        # Tree invalidates (and asks for a layout) on every add, remove, expand and collapse;
        # a filter keystroke does hundreds of those. Inside `_batch()` they become one.
        if self._batching:
            self._invalid = True
        else:
            super()._invalidate()

    @contextmanager
    def _batch(self) -> Iterator[None]:
        self._batching += 1
        try:
            yield
        finally:
            self._batching -= 1
            if not self._batching and self._invalid:
                self._invalid = False
                super()._invalidate()

    def show_plan(self, state: PlanState, expand_to: Iterable[str] = ()) -> None:
        """First fill: release groups open, tops listed, and the paths to `expand_to` opened."""
        self.state = state
        self._expanded.update(group_key(g) for g in state.groups)
        with self._batch():
            self._sync(self.root, None)
            for node_id in expand_to:
                if node_id in state.nodes:
                    self._open_path(node_id)
        if self.cursor_line < 0 and self.last_line >= 0:
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
            return [k for k in keys if k in self._visible]
        if self.hide_closed and key is not None:
            keys = [k for k in keys if state.nodes[k].status not in CLOSED]
        return keys

    def _has_children(self, key: str) -> bool:
        if key.startswith(GROUP):
            return True
        return bool(self._desired(key))

    def _add_row(self, parent: TreeNode[str], key: str, before: int | None = None) -> TreeNode[str]:
        expandable = self._has_children(key)
        row = parent.add(Text(), key, before=before, allow_expand=expandable)
        self._rows[key] = row
        if expandable and (key in self._expanded or self._visible is not None):
            self._sync(row, key)
            row.expand()
        return row

    def _forget(self, row: TreeNode[str]) -> None:
        """Drop a removed subtree's keys, unless a row elsewhere already took them over."""
        stack = [row]
        while stack:
            item = stack.pop()
            if item.data is not None and self._rows.get(item.data) is item:
                del self._rows[item.data]
                self._populated.discard(item.data)
            stack.extend(item.children)

    def _sync(self, row: TreeNode[str], key: str | None) -> None:
        """Make a row's children match `_desired(key)`: remove, insert, never rebuild."""
        desired = self._desired(key)
        current = [c.data for c in row.children]
        if key is not None:
            self._populated.add(key)
        if current == desired:
            return
        wanted = set(desired)
        cursor = self.cursor_node
        for child in list(row.children):
            if child.data not in wanted:
                self._forget(child)
                child.remove()
        # Rows that kept their place stay (with their subtrees); moved ones are re-added.
        position = 0
        for want in desired:
            present = row.children[position].data if position < len(row.children) else None
            if present == want:
                position += 1
                continue
            existing = self._rows.get(want)
            if existing is not None and existing.parent is row:
                self._forget(existing)
                existing.remove()
            self._add_row(row, want, before=position)
            position += 1
        if cursor is not None and cursor.data is not None and self._rows.get(cursor.data) is not cursor:
            self._park_cursor(cursor.data, row)

    def _park_cursor(self, key: str, fallback: TreeNode[str]) -> None:
        """The cursor's row was removed: follow it if it moved, else stay on its former parent."""

        def land() -> None:
            target = self._rows.get(key) or (fallback if fallback is not self.root else None)
            if target is not None:
                self.move_cursor(target)
            else:
                self.cursor_line = min(max(self.cursor_line, 0), self.last_line)

        self.call_after_refresh(land)

    def _unpopulate(self, row: TreeNode[str]) -> None:
        if row.is_expanded:
            row.collapse()
        for child in list(row.children):
            self._forget(child)
        row.remove_children()
        if row.data is not None:
            self._populated.discard(row.data)

    def _sync_all(self) -> None:
        with self._batch():
            self._sync_rows()

    def _sync_rows(self) -> None:
        """Diff every populated row against the state (and the filter), top down."""
        self._sync(self.root, None)
        queue = list(self.root.children)
        while queue:
            row = queue.pop()
            key = row.data
            assert key is not None
            allow = self._has_children(key)
            if row.allow_expand != allow:
                row.allow_expand = allow
                row.refresh()
            wanted_open = allow and (self._visible is not None or key in self._expanded)
            if key in self._populated and not wanted_open and self._visible is None:
                self._unpopulate(row)  # closed again after a filter: lazy again, cheap to keep
            elif key in self._populated:
                self._sync(row, key)
                queue.extend(row.children)
            if not allow:
                continue
            if wanted_open and not row.is_expanded:
                if key not in self._populated:
                    self._sync(row, key)
                    queue.extend(row.children)
                row.expand()
            elif not wanted_open and row.is_expanded:
                row.collapse()

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[str]) -> None:
        event.stop()
        key = event.node.data
        if key is None:
            return
        if self._visible is None:
            self._expanded.add(key)
        if key not in self._populated:
            with self._batch():
                self._sync(event.node, key)

    def on_tree_node_collapsed(self, event: Tree.NodeCollapsed[str]) -> None:
        event.stop()
        if self._visible is None and event.node.data is not None:
            self._expanded.discard(event.node.data)

    def on_tree_node_highlighted(self, event: Tree.NodeHighlighted[str]) -> None:
        event.stop()
        self.post_message(self.CursorMoved(event.node.data))

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
            self._sync_all()
        for key in delta.rows:
            row = self._rows.get(key)
            if row is not None:
                row.refresh()
        for group in state.groups:
            row = self._rows.get(group_key(group))
            if row is not None:
                row.refresh()
        self.flash(delta.changed | delta.added)

    def flash(self, keys: Iterable[str]) -> None:
        """Highlight changed rows for a moment; a change inside a closed branch lights the branch."""
        state = self.state
        if state is None:
            return
        until = time.monotonic() + FLASH_SECONDS
        for key in keys:
            target = key
            while target not in self._rows and target in state.nodes:
                parent = state.nodes[target].parent
                target = parent if parent in state.nodes else group_key_of(state, target)
            row = self._rows.get(target)
            if row is None:
                continue
            self._flash[target] = until
            row.refresh()
        if self._flash and self._flash_timer is None:
            self._flash_timer = self.set_interval(0.2, self._fade)

    def _fade(self) -> None:
        now = time.monotonic()
        for key in [k for k, t in self._flash.items() if t <= now]:
            del self._flash[key]
            row = self._rows.get(key)
            if row is not None:
                row.refresh()
        if not self._flash and self._flash_timer is not None:
            self._flash_timer.stop()
            self._flash_timer = None

    @property
    def flashing(self) -> set[str]:
        return set(self._flash)

    # --- navigation -------------------------------------------------------------

    def _open_path(self, node_id: str) -> TreeNode[str] | None:
        state = self.state
        assert state is not None
        chain = [a.id for a in reversed(state.plan.ancestors(node_id))] + [node_id]
        group = group_key_of(state, node_id)
        for key in [group, *chain[:-1]]:
            row = self._rows.get(key)
            if row is None:
                return None
            if key not in self._populated:
                self._sync(row, key)
            if not row.is_expanded:
                self._expanded.add(key)
                row.expand()
        return self._rows.get(node_id)

    def reveal(self, node_id: str) -> bool:
        """Open the branches down to a node and put the cursor on it."""
        state = self.state
        if state is None or node_id not in state.nodes:
            return False
        if self._visible is not None and node_id not in self._visible:
            self.set_filter("")
        if self.hide_closed and state.nodes[node_id].status in CLOSED:
            self.hide_closed = False
            self._sync_all()
        with self._batch():
            row = self._open_path(node_id)
        if row is None:
            return False
        self.call_after_refresh(self._land_on, row)
        return True

    def _land_on(self, row: TreeNode[str]) -> None:
        self.move_cursor(row)
        self.scroll_to_line(max(0, row.line - self.scrollable_content_region.height // 3), animate=False)

    def action_expand_row(self) -> None:
        row = self.cursor_node
        if row is not None and row.allow_expand and not row.is_expanded:
            row.expand()
        elif row is not None and row.children:
            self.move_cursor(row.children[0])

    def action_collapse_row(self) -> None:
        row = self.cursor_node
        if row is None:
            return
        if row.allow_expand and row.is_expanded:
            row.collapse()
        elif row.parent is not None and row.parent is not self.root:
            self.move_cursor(row.parent)

    def visible_keys(self) -> list[str]:
        """Keys of the rows on display, top to bottom (for tests and the bench)."""
        keys = []
        for line in range(self.last_line + 1):
            row = self.get_node_at_line(line)
            if row is not None and row.data is not None:
                keys.append(row.data)
        return keys

    @property
    def cursor_key(self) -> str | None:
        row = self.cursor_node
        return row.data if row is not None else None

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
        with self._batch():
            self._sync_rows()
            self._invalidate()  # rows that stayed may have changed between match and context
            if not text and keep and self.state is not None and keep in self.state.nodes:
                self._open_path(keep)  # the filter found it: the full tree opens where it is
        if keep and keep in self._rows and (self._query is None or keep in self._matched):
            self.call_after_refresh(self.move_cursor, self._rows[keep])
        elif self.last_line >= 0:
            self.call_after_refresh(self._first_match)
        self.post_message(self.FilterApplied(text, result))
        return result

    def _first_match(self) -> None:
        for line in range(self.last_line + 1):
            row = self.get_node_at_line(line)
            if row is not None and row.data in self._matched:
                self.move_cursor(row)
                return
        self.cursor_line = 0

    def _run_filter(self) -> FilterResult | None:
        state = self.state
        if self._query is None or state is None:
            self._visible = None
            self._matched = set()
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
        shown = matched[:MATCH_LIMIT] if len(matched) > MATCH_LIMIT else matched
        visible: set[str] = set()
        for nid in shown:
            visible.add(nid)
            visible.update(a.id for a in state.plan.ancestors(nid))
            visible.add(group_key_of(state, nid))
        self._visible = visible
        self._matched = set(shown)
        self._last_result = FilterResult(len(matched), len(shown))
        return self._last_result

    def set_hide_closed(self, hide: bool) -> None:
        self.hide_closed = hide
        self._sync_all()

    # --- drawing ------------------------------------------------------------------

    def get_label_width(self, node: TreeNode[str]) -> int:
        return 0  # labels fill the width they are given: no horizontal scrolling

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"plan-tree--{name}", partial=True)

    def render_label(self, node: TreeNode[str], base_style: Style, style: Style) -> Text:
        key = node.data
        state = self.state
        if key is None or state is None:
            return Text("")
        depth = -1
        cursor: TreeNode[str] | None = node
        while cursor is not None and cursor.parent is not None:
            depth += 1
            cursor = cursor.parent
        width = max(10, self.scrollable_content_region.width - depth * self.guide_depth - 1)
        if node.allow_expand:
            icon = Text(self.ICON_NODE_EXPANDED if node.is_expanded else self.ICON_NODE, base_style + TOGGLE)
        else:
            icon = Text("  ")
        flash = key in self._flash
        context = self._visible is not None and key not in self._matched  # only the path to a match
        if key.startswith(GROUP):
            subject: object = state.group(key[1:])
            stamp = (width, flash, context, subject and astuple_tally(subject))
        else:
            subject = state.nodes.get(key)
            stamp = (width, flash, context, state.counts.get(key))
        cached = self._labels.get(key)
        if cached is not None and cached[0] is subject and cached[1] == stamp:
            text = cached[2]
        else:
            if key.startswith(GROUP):
                text = self._painter.group(subject, width - 2) if subject else Text(key)
            else:
                text = self._painter.node(subject, stamp[3] or (0, 0), width - 2) if subject else Text(key)
            if flash:
                text.stylize(self._style("flash"))
            if context:
                text.stylize(self._style("context"))
            self._labels[key] = (subject, stamp, text)
        label = Text.assemble(icon, text)
        label.stylize(style)
        return label

    def notify_style_update(self) -> None:
        self._labels.clear()  # a new theme: every label is drawn again in its colours
        super().notify_style_update()


def astuple_tally(group: Group) -> tuple:
    tally = group.tally
    return (group.title, group.target, tally.done, tally.draft, tally.in_progress, tally.blocked, tally.cancelled)


def group_key_of(state: PlanState, node_id: str) -> str:
    return GROUP + state.group_of(node_id)
