"""The command palette (ctrl+p): "group: verb" entries, and any node by id or title."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Callable, cast

from leafwise.canvas.screens.triage import Triage
from leafwise.themes import THEME_LABELS
from textual.command import DiscoveryHit, Hit, Hits, Provider

if TYPE_CHECKING:
    from leafwise.canvas.app import CanvasApp

NODE_HITS = 20  # node entries offered for one query

Entry = tuple[str, Callable[[], object], str]

TASK_ENTRIES = (
    ("unblock", "Unblock", "restore the status it had before"),
    ("edit_reason", "Edit blocked reason…", "rewrite why it is blocked"),
    ("answer", "Answer decision…", "pick one of the options the agent offered"),
    ("block_task", "Block…", "block it with a reason"),
    ("cancel_task", "Cancel…", "cancel it (and its open children) with a reason"),
    ("reassign", "Reassign…", "give it to another agent or person"),
)


class CanvasCommands(Provider):
    @property
    def canvas(self) -> CanvasApp:
        return cast("CanvasApp", self.screen.app)

    def entries(self) -> list[Entry]:
        app = self.canvas
        screen = self.screen
        out: list[Entry] = []
        if isinstance(screen, Triage):
            node = screen.triage_target()
            for action, verb, help_text in TASK_ENTRIES:
                if node is not None and screen.triage_allowed(action):
                    out.append((f"task: {verb.replace('…', '')} {node.id}{'…' if verb.endswith('…') else ''}",
                                getattr(screen, f"action_{action}"), f"{node.title}: {help_text}"))
        views = (("plan", "Plan", "the tree, the details and the activity feed"),
                 ("blocked", "Blocked", "blocked tasks and open decisions, to triage"),
                 ("progress", "Progress", "done percentages by release and epic"),
                 ("reconcile", "Reconcile", "drafts the code suggests have shipped"),
                 ("problems", "Problems", "what the validator reports, with fixes"))
        for mode, label, help_text in views:
            out.append((f"view: {label}", partial(app.action_view, mode), help_text))
        out.append(("go: Next task", partial(app.open_node_next), "the task the picker hands out now"))
        for name, label in THEME_LABELS.items():
            marker = " (current)" if app.theme == name else ""
            out.append((f"theme: {label}{marker}", partial(app.set_theme, name),
                        f"switch to the {label.lower()} theme"))
        out.append(("plan: Reload from disk", app.action_reload, "re-read every file (the view is live anyway)"))
        out.append(("plan: Hide or show closed work", app.toggle_closed, "done and cancelled rows in the tree"))
        out.append(("help: Keys", app.action_help, "every key of this view"))
        out.append(("app: Quit", app.action_quit, "leave the canvas"))
        return out

    async def discover(self) -> Hits:
        for name, callback, help_text in self.entries():
            yield DiscoveryHit(name, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, callback, help_text in self.entries():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), callback, help=help_text)
        state = self.canvas.state
        needle = query.strip().casefold()
        if state is None or len(needle) < 2:
            return
        found = 0
        for node_id, text in state.search.items():
            if needle in text:
                node = state.nodes[node_id]
                name = f"open: {node.id} {node.title}"
                yield Hit(max(matcher.match(name), 0.5) * 0.9, matcher.highlight(name),
                          partial(self.canvas.open_node, node.id), help=f"{node.status} · show it in the tree")
                found += 1
                if found >= NODE_HITS:
                    break
