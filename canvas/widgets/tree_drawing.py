"""How the plan tree draws its lines: guides, the toggle, the row's label, hover and cursor colours.

Textual's Line API: `render_line(y)` draws only the lines in view, from the live state. A row's
label (`RowPainter`) is cached while what it shows stays the same, and each finished line is kept
in an LRU cache keyed by everything that changes how it looks.
"""

from __future__ import annotations

from leafwise.canvas.model.state import Group
from leafwise.canvas.model.tree_layout import GROUP, Row, context_node
from leafwise.canvas.widgets.team_mark import team_mark
from rich.style import Style
from rich.text import Text
from textual import events
from textual.strip import Strip

TOGGLE = Style.from_meta({"toggle": True})
GUIDE_DEPTH = 3  # cells of indentation per level
# Guide pieces (Tree's default lines at a depth of 3): space, vertical, last child, child.
GUIDES = ("   ", "│  ", "└─ ", "├─ ")
ICON_NODE = "▸ "
ICON_NODE_EXPANDED = "▾ "
LINES_CACHED = 1024  # at least; four screens' worth on a tall terminal


class TreeDrawing:
    """The part of `PlanTree` that draws (a mixin: `self` is the tree)."""

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
        epic = context_node(key)  # an epic shown above its tasks in another release's group
        if key.startswith(GROUP):
            subject: object = state.group(key[1:])
            stamp = (width, flash, context, row.expandable, row.expanded, subject and group_stamp(subject))
        elif epic is not None:
            subject = state.nodes.get(epic)
            stamp = (width, flash, context, row.expandable, row.expanded, epic)
        else:
            subject = state.nodes.get(key)
            team = team_mark(getattr(self.app, "team_claims", {}).get(key))  # canvas --follow
            stamp = (width, flash, context, row.expandable, row.expanded, state.counts.get(key), team)
        cached = self._labels.get(key)
        if cached is not None and cached[0] is subject and cached[1] == stamp:
            return cached[2], cached[3]
        if key.startswith(GROUP):
            text = self._painter.group(subject, width - 2) if subject else Text(key)
        elif epic is not None:
            text = self._painter.context(subject, width - 2) if subject else Text(key)
        else:
            text = self._painter.node(subject, stamp[5] or (0, 0), width - 2, stamp[6]) if subject else Text(key)
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
        super().notify_style_update()  # type: ignore[misc]

    def on_resize(self, event: events.Resize) -> None:
        self._strips.grow(max(LINES_CACHED, event.size.height * 4))
        self.refresh()


def group_stamp(group: Group) -> tuple:
    """What a group row shows: its label is drawn again when this changes."""
    tally = group.tally
    return (group.title, group.target, tally.done, tally.draft, tally.in_progress, tally.blocked, tally.cancelled)
