"""What the validator reports (commands.validate.find_problems); Enter jumps to the node."""

from __future__ import annotations

from leafwise.canvas.model.state import PlanState
from leafwise.canvas.screens.view import ViewScreen
from leafwise.commands.plan_files import find_problems
from leafwise.store import Problem
from textual import on
from textual.binding import Binding
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option


class ProblemsScreen(ViewScreen):
    VIEW_TITLE = "Problems"
    AUTO_FOCUS = "#problems-list"
    VIEW_ID = "problems"
    BINDINGS = [Binding("o,enter", "open", "Open node", id="problems.open", priority=True,
                        tooltip="Show the node in the tree")]

    def redraw(self, state: PlanState) -> None:
        problems = find_problems(state.plan)
        self.problems = problems
        errors = sum(1 for p in problems if p.severity == "error")
        summary = self.query_one("#problems-summary", Static)
        if not problems:
            summary.update(Content.styled("The plan is valid: no problems.", "$status-done"))
        else:
            summary.update(Content.assemble((f"{errors} error(s)", "bold $error"), "   ",
                                            (f"{len(problems) - errors} warning(s)", "$warning"),
                                            ("   Enter opens the node · the Fix line is the command to run",
                                             "$text-muted")))
        listing = self.query_one("#problems-list", OptionList)
        keep = listing.highlighted
        listing.set_options(self._option(i, p) for i, p in enumerate(problems))
        if problems:
            listing.highlighted = min(keep or 0, len(problems) - 1)
        self.refresh_bindings()

    @staticmethod
    def _option(index: int, problem: Problem) -> Option:
        error = problem.severity == "error"
        where = f"{problem.file}:{problem.line}" if problem.file and problem.line else (problem.file or "plan")
        head = Content.assemble(("✖ " if error else "▲ ", "bold $error" if error else "bold $warning"),
                                (f"{problem.code:<26}", "bold"), ((problem.node or "") + "  ", "$accent"),
                                (where, "$text-muted"))
        return Option(Content("\n").join([head, Content(f"   {problem.message}"),
                                          Content.assemble(("   Fix: ", "$text-muted"), (problem.fix, "$secondary"))]),
                      id=str(index))

    def _target(self) -> Problem | None:
        option = self.query_one("#problems-list", OptionList).highlighted_option
        problems = getattr(self, "problems", [])
        if option is None or option.id is None or int(option.id) >= len(problems):
            return None
        return problems[int(option.id)]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open":
            problem = self._target()
            return True if problem is not None and problem.node else None
        return True

    @on(OptionList.OptionHighlighted, "#problems-list")
    def highlighted(self) -> None:
        self.refresh_bindings()


    def action_open(self) -> None:
        problem = self._target()
        if problem is None or not problem.node:
            return
        state = self.app.state
        if state is not None and problem.node in state.nodes:
            self.app.open_node(problem.node)
        else:
            self.app.notify(f"{problem.node} does not load, so it is not in the tree: {problem.fix}",
                            severity="warning", timeout=8)
