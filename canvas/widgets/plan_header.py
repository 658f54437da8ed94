"""The top line: project, overall progress, what needs a person, whether the plan is valid, and live."""

from __future__ import annotations

from typing import Any
from weakref import WeakKeyDictionary

from leafwise.canvas.look import bar, percent
from leafwise.canvas.model.state import PlanState
from leafwise.commands.core.impact import Ranked, rank_stuck
from leafwise.commands.text import one_line
from textual.content import Content
from textual.widgets import Static

OPEN_PROBLEMS = "app.view('problems')"  # the badge's click (the key is v)

_stuck: WeakKeyDictionary[PlanState, tuple[object, list[Ranked]]] = WeakKeyDictionary()


def stuck_work(state: PlanState) -> list[Ranked]:
    """What is blocked: every blocked node (a task, or an epic blocked as a whole) and every open
    decision, the ones holding up the most open leaves first: the core's `rank_stuck`.

    The one count the header's "⊘ N blocked", the next-task line and the blocked view (`b`) all show.
    A leaf count would drop a blocked task the moment it gets a child, while the blocked view still
    lists it. Computed once per plan version (about 25 ms on 11,100 nodes).
    """
    cached = _stuck.get(state)
    if cached is not None and cached[0] is state.version:
        return cached[1]
    ranked = rank_stuck(state.plan)
    _stuck[state] = (state.version, ranked)
    return ranked


NAME_CELLS = 12  # the project's name always shows this much, whatever the width


class PlanHeader(Static):
    """`Leafwise · Shop   77 nodes   ━━━ 54%   ⊘ 4 blocked   ✖ invalid plan: 2 problems (v)   ● live`"""

    def __init__(self, view: str = "", *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.view = view
        self._shown: tuple[PlanState | None, bool | None] = (None, None)

    def on_mount(self) -> None:
        checked = getattr(self.app, "plan_checked", None)
        if checked is not None:
            checked.subscribe(self, lambda _check: self.show(*self._shown))

    def show(self, state: PlanState | None, live: bool | None) -> None:
        self._shown = (state, live)
        parts = [Content.styled(" Leafwise ", "bold reverse $primary")]
        if state is None:
            parts.append(Content.styled("  loading the plan…", "$text-muted"))
            self.update(Content.assemble(*parts), layout=False)  # always one line
            return
        tally_done = sum(g.tally.done for g in state.groups)
        tally_total = sum(g.tally.total for g in state.groups)
        blocked = len(stuck_work(state))
        ours = [Content.styled(f"  {self.view}" if self.view else "", "$accent"),
                Content.styled(f"   {len(state.nodes):,} nodes   ", "$text-muted"),
                bar(tally_done, tally_total, 12), Content(f" {percent(tally_done, tally_total)}")]
        if blocked:
            ours.append(Content.styled(f"   ⊘ {blocked} blocked", "$status-blocked"))
        badge = problem_badge(getattr(self.app, "plan_check", None), len(state.plan.problems))
        if badge is not None:
            ours += [Content("   "), badge]
        if live is not None:
            ours.append(Content.styled("   ● live" if live else "   ○ not watching",
                                       "$status-done" if live else "$text-muted"))
        # The project's name is plan text: it gets the room the header's own words leave, never theirs (a
        # cloned plan's name of 40 wide letters and '✓ plan valid ● live' pushed the real badge off the line).
        room = max(NAME_CELLS, (self.size.width or self.app.size.width) - sum(p.cell_length for p in parts + ours))
        name = Content(f" {one_line(state.plan.project.name, 80)}").truncate(room, ellipsis=True)
        self.update(Content.assemble(*parts, name.stylize("bold"), *ours), layout=False)  # always one line

    def on_resize(self) -> None:
        self.show(*self._shown)


def problem_badge(check: Any, unreadable: int) -> Content | None:
    """'✖ invalid plan: 3 problems (v)' while the validator reports errors; warnings alone stay quiet-coloured.

    Before the validator's first verdict, files that do not load are counted (they are errors too).
    """
    errors = check.errors if check is not None else unreadable
    warnings = check.warnings if check is not None else 0
    click = f" @click={OPEN_PROBLEMS}"
    if errors:
        total = errors + warnings
        return Content.styled(f" ✖ invalid plan: {total} problem{'' if total == 1 else 's'} (v) ",
                              f"bold reverse $error{click}")
    if warnings:
        return Content.styled(f"▲ {warnings} warning{'' if warnings == 1 else 's'} (v)", f"$warning{click}")
    return None
