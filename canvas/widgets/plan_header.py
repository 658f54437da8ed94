"""The top line: project, overall progress, what needs a person, and whether the view is live."""

from __future__ import annotations

from leafwise.canvas.look import bar, percent
from leafwise.canvas.model.state import PlanState
from textual.content import Content
from textual.widgets import Static


class PlanHeader(Static):
    """`Leafwise · Shop   77 nodes   ━━━━━━ 54%   ⊘ 4 blocked   ● live`"""

    def __init__(self, view: str = "", *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.view = view

    def show(self, state: PlanState | None, live: bool | None) -> None:
        parts = [Content.styled(" Leafwise ", "bold reverse $primary")]
        if state is None:
            parts.append(Content.styled("  loading the plan…", "$text-muted"))
            self.update(Content.assemble(*parts), layout=False)  # always one line
            return
        tally_done = sum(g.tally.done for g in state.groups)
        tally_total = sum(g.tally.total for g in state.groups)
        blocked = sum(g.tally.blocked for g in state.groups)
        parts += [Content.styled(f" {state.plan.project.name}", "bold"),
                  Content.styled(f"  {self.view}" if self.view else "", "$accent"),
                  Content.styled(f"   {len(state.nodes):,} nodes   ", "$text-muted"),
                  bar(tally_done, tally_total, 12), Content(f" {percent(tally_done, tally_total)}")]
        if blocked:
            parts.append(Content.styled(f"   ⊘ {blocked} blocked", "$status-blocked"))
        if state.plan.problems:
            parts.append(Content.styled(f"   ⚠ {len(state.plan.problems)} unreadable", "$warning"))
        if live is not None:
            parts.append(Content.styled("   ● live" if live else "   ○ not watching",
                                        "$status-done" if live else "$text-muted"))
        self.update(Content.assemble(*parts), layout=False)  # always one line
