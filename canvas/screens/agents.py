"""Agents at a glance: a lane per agent with its task, since when, its last heartbeat, stale or idle."""

from __future__ import annotations

from dataclasses import dataclass, field

from leafwise.canvas import look
from leafwise.canvas.look import ago, plan_text
from leafwise.canvas.model.state import PlanState
from leafwise.canvas.screens.view import ViewScreen
from leafwise.commands.text import one_line
from leafwise.store import CLOSED
from leafwise.store.timestamps import parse
from textual import on
from textual.binding import Binding
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

STALE_AFTER = 15 * 60  # seconds without a heartbeat before a lane is called stale


@dataclass
class Lane:
    agent: str
    tasks: list[tuple[str, str, str | None, str | None]] = field(default_factory=list)  # id, title, since, beat
    blocked: list[str] = field(default_factory=list)

    @property
    def state(self) -> str:
        if not self.tasks:
            return "idle"
        beats = [parse(t[3]) for t in self.tasks if t[3]]
        if beats and all((look.display_now() - b).total_seconds() > STALE_AFTER for b in beats if b):
            return "stale"
        return "working"


def lanes(state: PlanState) -> list[Lane]:
    """One lane per agent holding or assigned open work (held first, then by name)."""
    claims = state.refresh_claims(look.display_now())
    out: dict[str, Lane] = {}
    for node_id, claim in claims.items():
        node = state.nodes.get(node_id)
        if node is None or node.status in CLOSED:
            continue
        lane = out.setdefault(claim.agent, Lane(claim.agent))
        lane.tasks.append((node.id, node.title, claim.since, claim.heartbeat))
    for node in state.nodes.values():
        if node.assignee and not node.children and node.status == "blocked":
            out.setdefault(node.assignee, Lane(node.assignee)).blocked.append(node.id)
        elif node.assignee and not node.children and node.status == "in-progress" and node.id not in claims:
            out.setdefault(node.assignee, Lane(node.assignee)).tasks.append(
                (node.id, node.title, str(node.data.get("updated") or ""), None))
    return sorted(out.values(), key=lambda lane: (not lane.tasks, lane.agent))


class AgentsScreen(ViewScreen):
    VIEW_TITLE = "Agents"
    AUTO_FOCUS = "#agents-list"
    VIEW_ID = "agents"
    BINDINGS = [Binding("o,enter", "open", "Open", id="agents.open", priority=True,
                        tooltip="Show the agent's task in the tree")]

    def redraw(self, state: PlanState) -> None:
        found = lanes(state)
        listing = self.query_one("#agents-list", OptionList)
        working = sum(1 for lane in found if lane.state == "working")
        stale = sum(1 for lane in found if lane.state == "stale")
        self.query_one("#agents-summary", Static).update(Content.assemble(
            (f"{len(found)} agents", "bold"), (f"   {working} working", "$status-active"),
            (f"   {stale} stale", "$status-blocked" if stale else "$text-muted"),
            ("   (stale: no heartbeat for 15 minutes)", "$text-muted")))
        options: list[Option | None] = []
        for lane in found:
            colour = {"working": "$status-active", "stale": "$status-blocked", "idle": "$text-muted"}[lane.state]
            lines = [Content.assemble((f"● {lane.state:<8}", colour), " ", plan_text(one_line(lane.agent, 40), "bold"))]
            for node_id, title, since, beat in lane.tasks:
                beat_text = f" · heartbeat {ago(beat)}" if beat else " · no lease"
                lines.append(Content.assemble("   ", (node_id, "bold"), "  ", plan_text(one_line(title, 100)),
                                              (f" · started {ago(since)}{beat_text}", "$text-muted")))
            if lane.blocked:
                lines.append(Content.styled(f"   blocked: {', '.join(lane.blocked[:8])}", "$status-blocked"))
            first = lane.tasks[0][0] if lane.tasks else (lane.blocked[0] if lane.blocked else None)
            options += [Option(Content("\n").join(lines), id=first and f"{lane.agent}\0{first}"), None]
        listing.set_options(options[:-1])
        if found:
            listing.highlighted = 0

    def action_open(self) -> None:
        option = self.query_one("#agents-list", OptionList).highlighted_option
        if option is not None and option.id and "\0" in option.id:
            self.app.open_node(option.id.split("\0", 1)[1])

    @on(OptionList.OptionSelected, "#agents-list")
    def selected(self) -> None:
        self.action_open()
