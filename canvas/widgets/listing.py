"""The one list of the canvas's views: the same movement keys everywhere, and no wrap-around.

j/k and the arrows move one row, home/end jump to the ends, page up/down move a page; at
either end the cursor stays put (a held key never jumps from the last row to the first).
"""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import OptionList

MOVE_BINDINGS = [
    Binding("down,j", "cursor_down", "Down", show=False, id="list.down"),
    Binding("up,k", "cursor_up", "Up", show=False, id="list.up"),
    Binding("home", "first", "First", show=False, id="list.first"),
    Binding("end", "last", "Last", show=False, id="list.last"),
]


class Listing(OptionList):
    """An OptionList with vim keys and no wrap-around."""

    BINDINGS = MOVE_BINDINGS

    def _step(self, direction: int) -> None:
        count = self.option_count
        if not count:
            return
        index = self.highlighted
        if index is None:
            self.action_first() if direction > 0 else self.action_last()
            return
        index += direction
        while 0 <= index < count:
            if not self.get_option_at_index(index).disabled:
                self.highlighted = index
                return
            index += direction

    def action_cursor_down(self) -> None:
        self._step(1)

    def action_cursor_up(self) -> None:
        self._step(-1)
