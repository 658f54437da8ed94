"""Lines that wrap under their own text (a hanging indent), not back at the left margin.

Textual's `Content` wraps every line from column 0. A `Hanging` is a Visual (Textual's public protocol
for what a widget draws) made of rows, each a `lead` drawn once at the left (a key column, an indent, a
bullet) and a `body` wrapped in the room to its right; its continuation lines start under the body.
A body wraps at spaces, as `Content` does; a word longer than the room is folded, except a row's
first word in a `Spilling` row (a path), which is shortened from its head. A row with an empty lead is an
ordinary line.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from textual.content import Content
from textual.css.styles import RulesMap
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual

Row = tuple[Content, Content]  # (lead, body)
# (lead, body, under): when the body's first word (a path) does not fit beside the lead, the lead stands
# alone and the body goes on the next lines, `under` cells in; a path wider than that loses its head to
# "…", never its file name, and is never folded.
Spilling = tuple[Content, Content, int]


def indented(text: Content | str, spaces: int) -> Row:
    """A row whose body starts after `spaces` blank cells, and so do its continuation lines."""
    return Content(" " * spaces), text if isinstance(text, Content) else Content(text)


class Hanging(Visual):
    """Rows of (lead, body); a bare `Content` row is a body with no lead."""

    def __init__(self, rows: Iterable[Row | Spilling | Content]) -> None:
        self.rows: list[Row | Spilling] = [row if isinstance(row, tuple) else (Content(""), row) for row in rows]

    def _laid_out(self, width: int) -> list[Row]:
        """The rows for `width`: a spilling row whose first word does not fit beside its lead becomes two."""
        out: list[Row] = []
        for row in self.rows:
            lead, body = row[0], row[1]
            if len(row) == 3:
                first = len(body.plain.split(" ", 1)[0])
                if first > self._room(lead, width)[1]:
                    under = Content(" " * row[2])
                    room = self._room(under, width)[1]
                    if first > room >= 8:  # wider than the panel: its head gives way ("…/routers/catalog.py:34")
                        body = Content.assemble("…", body[first - room + 1:])
                    out += [(Content(""), lead), (under, body)]
                    continue
            out.append((lead, body))
        return out

    @property
    def plain(self) -> str:
        """The text, one line per row (what a test or a copy reads)."""
        return "\n".join(row[0].plain + row[1].plain for row in self.rows)

    def __str__(self) -> str:
        return self.plain

    @staticmethod
    def _room(lead: Content, width: int) -> tuple[int, int]:
        """(lead cells, body cells): a lead that leaves the body under 8 cells is dropped to wrap as one."""
        cells = lead.cell_length
        return (cells, width - cells) if width - cells >= 8 else (0, width)

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return max((row[0].cell_length + row[1].get_optimal_width(rules, container_width)
                    for row in self.rows), default=0)

    def get_height(self, rules: RulesMap, width: int) -> int:
        total = 0
        for lead, body in self._laid_out(width):
            cells, room = self._room(lead, width)
            total += max(1, (body if cells else lead + body).get_height(rules, room))
        return total

    def render_strips(self, width: int, height: int | None, style: Style, options: RenderOptions) -> list[Strip]:
        if width <= 0:
            return []
        # A selection's offsets are counted in the widget's own lines, not this layout's: drawn without.
        plain = replace(options, selection=None) if options.selection is not None else options
        strips: list[Strip] = []
        rich_style = style.rich_style
        for lead, body in self._laid_out(width):
            cells, room = self._room(lead, width)
            if not cells:
                lines = (lead + body).render_strips(room, None, style, plain) or [Strip.blank(0)]
                strips += lines
                continue
            head = (lead.render_strips(cells, 1, style, plain) or [Strip.blank(0)])[0]
            head = head.crop_extend(0, cells, rich_style)
            pad = Strip.blank(cells, rich_style)
            lines = body.render_strips(room, None, style, plain) or [Strip.blank(0)]
            strips += [Strip.join([head if n == 0 else pad, line]) for n, line in enumerate(lines)]
        return strips[:height] if height is not None else strips
