"""How one tree row reads: status mark, title, blocked reason, assignee, id, and a bar or a status word.

Drawn at paint time for the visible rows only, from the live state, in the
tree's component styles (so every theme colours them).
"""

from __future__ import annotations

from typing import Callable

from rich.style import Style
from rich.text import Text

from ...commands.reading import MARKS
from ...store import CLOSED, Node
from ..look import BAR_WIDTH, DECISION_MARK, STATUS_WORD, bar_cells, has_open_decision, one_line
from ..state import Group

STATUS_CLASS = {"draft": "draft", "in-progress": "active", "blocked": "blocked", "done": "done",
                "cancelled": "cancelled"}


class RowPainter:
    """Builds row labels; `style(name)` gives the tree's `plan-tree--<name>` style."""

    def __init__(self, style: Callable[[str], Style]) -> None:
        self._style = style

    def progress(self, done: int, total: int) -> Text:
        filled, empty = bar_cells(done, total, BAR_WIDTH)
        out = Text()
        if total <= 0:
            out.append("·" * BAR_WIDTH, self._style("bar-empty"))
            out.append("     ")
            return out
        out.append("━" * filled, self._style("done"))
        out.append("━" * empty, self._style("bar-empty"))
        out.append(f"{round(100 * done / total):>4}%", self._style("dim"))
        return out

    def node(self, node: Node, counts: tuple[int, int], width: int) -> Text:
        closed = node.status in CLOSED
        decision = node.status == "blocked" and has_open_decision(node)
        status_style = self._style("decision" if decision else STATUS_CLASS.get(node.status, "draft"))
        left = Text()
        left.append(DECISION_MARK if decision else MARKS.get(node.status, "·"), status_style)
        left.append(" ")
        title_style = self._style("closed-title") if closed else Style()
        if node.status == "cancelled":
            title_style += Style(strike=True)
        left.append(node.title, title_style)
        if node.status == "blocked":
            reason = node.blocked_reason or "no reason given"
            left.append("  ")
            left.append(one_line(reason, 160), self._style("reason"))
        right = Text()
        if node.assignee and not closed:
            right.append(f"@{node.assignee}", self._style("dim"))
            right.append("  ")
        right.append(f"{node.id:>9}", self._style("dim"))
        right.append("  ")
        if node.children:
            right.append_text(self.progress(*counts))
        else:
            right.append(f"{STATUS_WORD.get(node.status, node.status):>13}", status_style)
        return _fit(left, right, width)

    def group(self, group: Group, width: int) -> Text:
        left = Text()
        if group.key.startswith("!"):
            left.append(group.title, self._style("blocked"))
        else:
            left.append(group.key or "—", self._style("group"))
            left.append("  ")
            left.append(group.title, self._style("group"))
            if group.target:
                left.append(f"  → {group.target}", self._style("dim"))
        tally = group.tally
        right = Text()
        extra = []
        if tally.in_progress:
            extra.append((f"{tally.in_progress} active", "active"))
        if tally.blocked:
            extra.append((f"{tally.blocked} blocked", "blocked"))
        for words, cls in extra:
            right.append(words, self._style(cls))
            right.append("  ")
        right.append(f"{tally.done}/{tally.total}", self._style("dim"))
        right.append("  ")
        right.append_text(self.progress(tally.done, tally.total))
        return _fit(left, right, width)


def _fit(left: Text, right: Text, width: int) -> Text:
    """Left text truncated with an ellipsis, right text flush right; narrow rows keep the left."""
    if right.cell_len + 12 > width:
        right = Text()
    room = width - right.cell_len - (1 if right.cell_len else 0)
    if left.cell_len > room:
        left.truncate(max(1, room), overflow="ellipsis")
    gap = width - left.cell_len - right.cell_len
    return Text.assemble(left, " " * max(gap, 1 if right.cell_len else 0), right)
