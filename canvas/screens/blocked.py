"""Blocked-work triage: every blocked task with its reason and age, open decisions first."""

from __future__ import annotations

from leafwise.canvas.look import ago, blocked_for, blocked_since, clock, mark, plan_text
from leafwise.canvas.model.state import PlanState
from leafwise.canvas.screens.triage import TRIAGE_BINDINGS, Triage
from leafwise.canvas.screens.view import ViewScreen
from leafwise.canvas.widgets.hanging import Hanging, indented
from leafwise.canvas.widgets.node_detail import headed
from leafwise.canvas.widgets.plan_header import stuck_work
from leafwise.commands.core.impact import Ranked
from leafwise.commands.text import one_line, path_line
from leafwise.store import Node
from leafwise.store.schema import decision_options
from textual import on
from textual.binding import Binding
from textual.content import Content
from textual.css.query import NoMatches
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option


def triage_order(state: PlanState) -> list[Ranked]:
    """What holds up the most open work first (the core's ranking), then decisions, then the oldest:
    the list the header counts (`stuck_work`)."""
    return stuck_work(state)


def asked(decision: dict) -> str:
    """'asked by claude-1 3h ago' / 'asked by claude-1 just now'."""
    return f"asked by {one_line(decision.get('asked_by') or 'someone', 40)} {ago(decision.get('asked'))}"


class BlockedScreen(Triage, ViewScreen):
    VIEW_TITLE = "Blocked"
    AUTO_FOCUS = "#blocked-list"
    VIEW_ID = "blocked"
    SIDE_PANEL = True
    BINDINGS = [
        *TRIAGE_BINDINGS,
        Binding("o,enter", "open", "Open", id="blocked.open", priority=True,
                tooltip="Show the task in the tree"),
        *[Binding(str(n), f"answer_option({n})", f"Answer {n}", show=False, id=f"blocked.answer_{n}")
          for n in range(1, 10)],
    ]

    _holds: dict[str, int] = {}

    def redraw(self, state: PlanState) -> None:
        listing = self.query_one("#blocked-list", OptionList)
        keep = listing.highlighted_option.id if listing.highlighted_option else None
        ranked = triage_order(state)
        self._holds = {r.node.id: r.holds_up for r in ranked}
        items = [r.node for r in ranked]
        decisions = sum(1 for n in items if n.open_decision is not None)
        summary = [Content.styled(f"{len(items)} blocked", "bold $status-blocked"),
                   Content.styled("   ranked by the open leaves each holds up", "$text-muted")]
        if decisions:
            summary.append(Content.styled(f"   {decisions} waiting for your decision", "bold $status-decision"))
        if not items:
            summary = [Content.styled("Nothing is blocked: the agents can go on.", "$status-done")]
        self.query_one("#blocked-summary", Static).update(Content.assemble(*summary))
        options: list[Option | None] = []
        for node in items:
            options += [self._option(node), None]  # None: a divider line between tasks
        listing.set_options(options[:-1])
        ids = [n.id for n in items]
        if ids:
            listing.highlighted = ids.index(keep) if keep in ids else 0
        self._show_side()
        self.refresh_bindings()

    def _option(self, node: Node) -> Option:
        symbol, style = mark(node)
        who = f" · @{one_line(node.assignee, 40)}" if node.assignee else ""
        holds = self._holds.get(node.id, 0)
        lead = Content.assemble((symbol, style), " ", (f"{holds:>4}", "bold $warning" if holds else "$text-muted"),
                                " ")
        head = Content.assemble((node.id, "bold"), "  ", plan_text(one_line(node.title, 200)),
                                (f"{who} · blocked {blocked_for(node)}", "$text-muted"))
        # Wrapped lines start under their text (a hanging indent), not at the list's left edge.
        lines: list = [(lead, head)]
        if node.open_decision is not None:
            decision = node.data["decision"]
            lines.append((Content.styled("        Decision: ", "bold $status-decision"),
                          plan_text(one_line(decision["question"], 240))))
            for number, option in enumerate(decision_options(decision) or [], 1):
                lines.append((Content.assemble("        ", (f" {number} ", "reverse $status-decision"), " "),
                              plan_text(one_line(option, 140))))
        else:
            lines.append(indented(Content.styled(one_line(node.blocked_reason or "no reason given", 240),
                                                 "$status-blocked"), 8))
        return Option(Hanging(lines), id=node.id)

    @on(OptionList.OptionHighlighted, "#blocked-list")
    def highlighted(self) -> None:
        self._show_side()
        self.refresh_bindings()


    def _show_side(self) -> None:
        node = self.triage_target()
        side = self.query_one("#blocked-detail", Static)
        state = self.app.state
        if node is None or state is None:
            side.update(Content.styled("Select a blocked task to see it here.", "$text-muted"))
            return
        since = blocked_since(node)[0]
        chain = path_line([one_line(a.title, 60) for a in reversed(state.plan.ancestors(node.id))])
        holds = self._holds.get(node.id, 0)
        lines = [Content.assemble((node.id, "bold $text-muted"), "  ", plan_text(node.title, "bold")),
                 Content.styled(chain or "top level", "$text-muted"),
                 Content.styled(f"Holds up {holds} open lea{'f' if holds == 1 else 'ves'}"
                                " (through dependencies and its parents)", "$warning" if holds else "$text-muted"),
                 Content(""),
                 Content.assemble(("Blocked ", "bold $status-blocked"),
                                  (f"{blocked_for(node)} (since {clock(since)})" if since else "",
                                   "$text-muted"))]
        decision = node.data.get("decision") or {}
        if node.open_decision is None or node.blocked_reason != f"Decision needed: {decision.get('question')}":
            lines.append(plan_text(headed(node.blocked_reason, node.id) if node.blocked_reason else "no reason given"))
        if node.assignee:
            lines += [Content(""), Content.assemble(("Assignee ", "$text-muted"), plan_text(node.assignee))]
        if node.open_decision is not None:
            decision = node.data["decision"]
            lines += [Content(""), Content.styled("Decision needed", "bold $status-decision"),
                      Content.styled(asked(decision), "$text-muted"),
                      plan_text(headed(decision["question"], node.id), "bold")]
            for number, option in enumerate(decision_options(decision) or [], 1):
                lines.append((Content.assemble((f" {number} ", "reverse $status-decision"), " "),
                              plan_text(headed(option, node.id))))
            lines += [Content(""), Content.styled("Press the option's number (or a) to answer: you confirm it "
                                                  "next, with an optional note.", "italic $text-muted")]
        else:
            lines += [Content(""), Content.styled("u unblock · e edit the reason · x cancel · w reassign · o open",
                                                  "italic $text-muted")]
        side.update(Hanging(lines))  # an option's wrapped lines start under its text

    def triage_target(self) -> Node | None:
        """The highlighted task; None before the list is mounted (the footer and a key press ask
        `check_action` as soon as the screen is current, while its side panel may still be composing)."""
        state = self.app.state
        try:
            option = self.query_one("#blocked-list", OptionList).highlighted_option
        except NoMatches:
            return None
        if state is None or option is None or option.id is None:
            return None
        return state.nodes.get(option.id)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open":
            return True if self.triage_target() is not None else None
        if action == "answer_option":
            return True
        return self.triage_allowed(action)

    def action_open(self) -> None:
        node = self.triage_target()
        if node is not None:
            self.app.open_node(node.id)

