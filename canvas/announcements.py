"""What the canvas says by itself as the plan changes: cascades, agents that block or ask (with a bell
and a desktop notification), files that stop loading and node files that disappear.

A burst (more than ANNOUNCE_LIMIT at once) becomes one summary toast, so a busy plan never
buries the screen.
"""

from __future__ import annotations

import functools
from typing import Any

from leafwise.commands.events import Event
from leafwise.store import Node, Problem
from textual.app import App
from textual.driver import Driver

ANNOUNCE_LIMIT = 3  # more announcements than this in one batch become one summary
NAMED_AT_MOST = 12  # node ids listed in the summary of many deleted files
ATTENTION_TITLE = "Leafwise: an agent needs you"


class Announcements:
    """The part of `CanvasApp` that turns a batch of changes into toasts (a mixin: `self` is the app)."""

    def _init_announcements(self) -> None:
        self.attention_sent = 0  # bells / desktop notifications sent (a test reads it)
        self.terminal: Driver | None = None  # the driver writing to the terminal, once running (get_driver_class)

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver for this platform, which tells the app it is the one in use (`terminal`, where
        `attention` writes its desktop notification)."""
        return announcing(super().get_driver_class())  # type: ignore[misc]

    def _announce(self, events: list[Event]) -> None:
        """Cascades, and blocks or questions from agents, as notifications (a burst becomes one)."""
        state = self.state

        def title_of(node_id: str | None, fallback: str | None = None) -> str:
            node = state.nodes.get(node_id) if state is not None and node_id else None
            return node.title if node is not None else str(fallback or node_id)

        notes: list[tuple[str, str, str]] = []
        for event in events:
            command, node_id = event.command, event.node
            if command == "complete" and event.cascade:
                chain = [f"{title_of(node_id)} → done"]
                chain += [f"{title_of(m.id, m.title)} → {m.new}" for m in event.cascade]
                notes.append((", ".join(chain), "Cascade", "information"))
            elif command in ("block", "ask") and event.actor != self.me:
                what = event.question or event.reason or ""
                notes.append((f"{node_id} {title_of(node_id)}: {what}",
                              "Decision needed" if command == "ask" else f"Blocked by {event.actor}",
                              "warning"))
        if any(n[2] == "warning" for n in notes):
            self.attention()
        if len(notes) > ANNOUNCE_LIMIT:
            cascades = sum(1 for n in notes if n[1] == "Cascade")
            blocks = len(notes) - cascades
            self.notify(f"{cascades} cascade(s) and {blocks} block(s) just now — see the activity feed",
                        title="Busy agents")
            return
        for message, title, severity in notes:
            self.notify(message, title=title, severity=severity, timeout=6)

    def attention(self) -> None:
        """An agent blocked or asked: ring the terminal bell and, where the terminal supports it, raise a
        desktop notification (OSC 9 and OSC 777). The `attention` setting turns it off."""
        if not self.settings.attention:
            return
        self.attention_sent += 1
        self.bell()
        driver = self.terminal
        if driver is not None and not self.is_headless:
            driver.write(f"\x1b]9;{ATTENTION_TITLE}\x07\x1b]777;notify;Leafwise;{ATTENTION_TITLE}\x07")

    def _announce_problems(self, fresh: list[Problem]) -> None:
        """A file that stopped loading is news: it has left the tree until it is fixed."""
        for problem in fresh[:ANNOUNCE_LIMIT]:
            self.notify(f"{problem.message}\nFix: {problem.fix}", title=f"{problem.file} does not load",
                        severity="warning", timeout=10)
        if len(fresh) > ANNOUNCE_LIMIT:
            self.notify(f"{len(fresh)} files do not load; press v to see them", severity="warning")

    def _announce_removed(self, gone: list[Node], events: list[Event]) -> None:
        """A node whose file disappeared (deleted by hand, or by git) leaves the tree: say so."""
        renumbered = {e.renumbered_from for e in events if e.renumbered_from}
        gone = [n for n in gone if n.id not in renumbered
                and not (self.paths.nodes / f"{n.id}.yaml").exists()]  # unreadable ones: _announce_problems
        for node in gone[:ANNOUNCE_LIMIT]:
            self.notify(f"{node.id} {node.title}\nIts file {self.paths.dir.name}/nodes/{node.id}.yaml was deleted "
                        f"(by hand or by git); git restore brings it back.",
                        title=f"{node.id} left the plan", severity="warning", timeout=10)
        if len(gone) > ANNOUNCE_LIMIT:
            named = gone[:NAMED_AT_MOST]
            self.notify(f"{len(gone)} node files were deleted (by hand or by git): "
                        + ", ".join(n.id for n in named) + (" …" if len(gone) > len(named) else ""),
                        title="Nodes left the plan", severity="warning", timeout=10)


@functools.cache
def announcing(base: type[Driver]) -> type[Driver]:
    """`base`, telling the app that has `Announcements` that it is its terminal when it starts."""

    class Announcing(base):  # type: ignore[misc, valid-type]
        def __init__(self, app: App[Any], *args: Any, **kwargs: Any) -> None:
            super().__init__(app, *args, **kwargs)
            if isinstance(app, Announcements):
                app.terminal = self

    Announcing.__name__ = Announcing.__qualname__ = f"Announcing{base.__name__}"
    return Announcing
