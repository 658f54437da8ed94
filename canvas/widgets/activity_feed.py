"""The journal as it grows: who did what, when. Enter on a line opens its node."""

from __future__ import annotations

from typing import Iterable

from leafwise.canvas.look import STATUS_VAR, clock, inert_content
from leafwise.canvas.model.state import PlanState
from leafwise.canvas.widgets.listing import Listing
from leafwise.canvas.widgets.messages import NodeRequest
from leafwise.commands.events import Event
from leafwise.commands.text import one_line
from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option

KEEP = 300  # lines kept; trimmed in one go when the feed reaches KEEP + TRIM_SLACK
TRIM_SLACK = 200
VERBS = {
    "start": ("▶", STATUS_VAR["in-progress"]), "complete": ("✓", STATUS_VAR["done"]),
    "block": ("⊘", STATUS_VAR["blocked"]), "ask": ("?", "$status-decision"),
    "decide": ("✔", "$status-decision"), "unblock": ("↺", STATUS_VAR["draft"]),
    "cancel": ("✕", STATUS_VAR["cancelled"]), "add": ("+", "$accent"), "edit": ("✎", "$text-muted"),
    "doc": ("≡", "$text-muted"), "cascade": ("⇡", STATUS_VAR["done"]),
}


def event_line(event: Event, state: PlanState | None) -> Content:
    command = event.command or "?"
    symbol, style = VERBS.get(command, ("·", "$text-muted"))
    node_id = event.node
    node = state.nodes.get(node_id) if state is not None and node_id else None
    title = node.title if node is not None else event.title or ""
    parts = [Content.styled(f"{clock(event.time):>12}", "$text-muted"),
             Content.styled(f" {one_line(event.actor or '?', 14):<14} ", "bold"),
             Content.styled(f"{symbol} {command:<8} ", style)]
    if node_id:
        parts.append(Content.styled(f"{node_id} ", "$text-muted"))
    if title:
        parts.append(Content(one_line(title, 80)))
    if event.detail:
        parts.append(Content.styled(f" — {one_line(event.detail, 160)}", "$text-muted"))
    if event.cascade:
        parts.append(Content.styled("  ⇡ " + ", ".join(f"{m.id} {m.new}" for m in event.cascade), STATUS_VAR["done"]))
    return inert_content(Content.assemble(*parts))  # the command, ids and cascade come from the journal too


class ActivityFeed(Listing):
    """The newest events at the bottom; it follows the end unless you scrolled up."""

    class OpenNode(NodeRequest):
        """Open this node in the plan."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._events: list[Event] = []

    def add_events(self, events: Iterable[Event], state: PlanState | None) -> None:
        fresh = list(events)
        if not fresh:
            return
        following = self.highlighted is None or self.highlighted >= self.option_count - 1 \
            or self.scroll_y >= self.max_scroll_y - 1
        self._events.extend(fresh)
        if len(self._events) > KEEP + TRIM_SLACK:
            self._events = self._events[-KEEP:]
            self.set_options(self._option(e, state) for e in self._events)
        else:
            self.add_options(self._option(e, state) for e in fresh)
        if following:
            self.highlighted = None
            self.scroll_end(animate=False, immediate=False)

    @staticmethod
    def _option(event: Event, state: PlanState | None) -> Option:
        return Option(event_line(event, state))

    @property
    def events(self) -> list[Event]:
        return list(self._events)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        node_id = self._events[event.option_index].node if event.option_index < len(self._events) else None
        if node_id:
            self.post_message(self.OpenNode(node_id))
