"""How one tree row reads: status mark, title, blocked reason, holder, id, and a bar or a status word.

Drawn at paint time for the visible rows only, from the live state, in the
tree's component styles (so every theme colours them).
"""

from __future__ import annotations

from typing import Callable

from leafwise.canvas.look import BAR_WIDTH, DECISION_MARK, bar_runs, percent
from leafwise.canvas.model.state import Group
from leafwise.commands.core.views import MARKS
from leafwise.commands.core.views import status_word
from leafwise.commands.text import one_line
from leafwise.store import CLOSED, Node
from rich.style import Style
from rich.text import Text

STATUS_CLASS = {"draft": "draft", "in-progress": "active", "blocked": "blocked", "done": "done",
                "cancelled": "cancelled"}


class RowPainter:
    """Builds row labels; `style(name)` gives the tree's `plan-tree--<name>` style."""

    def __init__(self, style: Callable[[str], Style]) -> None:
        self._style = style

    def progress(self, done: int, total: int) -> Text:
        """The canvas's bar (`look.bar_runs`) in the tree's styles, and its percentage."""
        out = Text()
        for cells, role in bar_runs(done, total, BAR_WIDTH):
            out.append(cells, self._style(role))
        if total > 0:
            out.append(f"{percent(done, total):>5}", self._style("dim"))
        else:
            out.append(" " * 5)  # where the percentage would be: the columns stay aligned
        return out

    def node(self, node: Node, counts: tuple[int, int], width: int, team: str = "") -> Text:
        """A node's row; `team` is its claim on the team's remote (`follow.team_mark`), shown instead of
        the assignee: it names the clone too."""
        closed = node.status in CLOSED
        decision = node.status == "blocked" and node.open_decision is not None
        status_style = self._style("decision" if decision else STATUS_CLASS.get(node.status, "draft"))
        left = Text()
        left.append(DECISION_MARK if decision else MARKS.get(node.status, "·"), status_style)
        left.append(" ")
        title_style = self._style("closed-title") if closed else Style()
        if node.status == "cancelled":
            title_style += Style(strike=True)
        left.append(one_line(node.title, 300), title_style)
        if node.status == "blocked":
            reason = node.blocked_reason or "no reason given"
            left.append("  ")
            left.append(one_line(reason, 160), self._style("reason"))
        # Right-hand columns in display order, each with its importance: on a narrow row the
        # least important give way first (assignee, then id), so the bar or status stays.
        parts: list[tuple[int, Text]] = []
        if team:
            parts.append((1, Text(team, self._style("active"))))
        elif node.assignee and not closed:
            parts.append((1, Text(f"@{one_line(node.assignee, 40)}", self._style("dim"))))
        parts.append((2, Text(f"{node.id:>9}", self._style("dim"))))
        if node.children:
            parts.append((3, self.progress(*counts)))
        else:
            parts.append((3, Text(f"{status_word(node.status):>13}", status_style)))
        return _fit(left, parts, width)

    def context(self, node: Node, width: int) -> Text:
        """An epic shown as context above its tasks that moved to another release (`tree_layout`
        `context_key`): dimmed, saying where the epic itself is; its bar stays on its own row."""
        dim = self._style("dim")
        left = Text(one_line(node.title, 300), dim)
        left.append(f"  (epic in {node.effective_release or 'no release'})", dim)
        return _fit(left, [(2, Text(f"{node.id:>9}", dim))], width)

    def group(self, group: Group, width: int) -> Text:
        left = Text()
        if group.key.startswith("!"):
            left.append(group.title, self._style("blocked"))
        else:
            left.append(group.key or "—", self._style("group"))
            left.append("  ")
            left.append(one_line(group.title, 200), self._style("group"))
            if group.target:
                left.append(f"  → {group.target}", self._style("dim"))
        tally = group.tally
        parts: list[tuple[int, Text]] = []
        if tally.in_progress:
            parts.append((1, Text(f"{tally.in_progress} active", self._style("active"))))
        if tally.blocked:
            parts.append((1, Text(f"{tally.blocked} blocked", self._style("blocked"))))
        parts.append((2, Text(f"{tally.done}/{tally.total}", self._style("dim"))))
        parts.append((3, self.progress(tally.done, tally.total)))
        return _fit(left, parts, width)


def _fit(left: Text, parts: list[tuple[int, Text]], width: int, title_room: int = 24) -> Text:
    """Left text truncated with an ellipsis, columns flush right. On a narrow row the least
    important columns give way until the title has `title_room` cells; the rule depends on
    the width only, so rows of one width keep their columns aligned."""
    kept = list(parts)
    while kept and width - sum(t.cell_len + 2 for _, t in kept) < title_room:
        kept.remove(min(kept, key=lambda part: part[0]))
    right = Text("  ").join(t for _, t in kept)
    room = width - right.cell_len - (2 if kept else 0)
    if left.cell_len > room:
        left.truncate(max(1, room), overflow="ellipsis")
    gap = width - left.cell_len - right.cell_len
    return Text.assemble(left, " " * max(gap, 2 if kept else 0), right)
