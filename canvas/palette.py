"""The command palette (ctrl+p): "group: verb" entries, and any node by id or title.

App-wide entries (views, themes, help, quit…) are system commands: `system_commands()`
yields them for `CanvasApp.get_system_commands`, beside the Textual defaults the app
keeps. `CanvasCommands` adds what depends on the view: the selected task's triage
verbs and any node found by id or title.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any, Callable, Iterator, cast

from leafwise.canvas.look import safe
from leafwise.canvas.screens.editing import Editing
from leafwise.canvas.screens.triage import Triage
from leafwise.commands.text import one_line
from leafwise.themes import THEME_LABELS
from textual.app import SystemCommand
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.markup import escape

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


EDIT_ENTRIES = (
    ("add_child", "Add child…", "add a task under it"),
    ("add_sibling", "Add sibling…", "add a task beside it"),
    ("rename", "Rename…", "change its title"),
    ("describe", "Describe…", "write its description"),
    ("priority", "Set priority…", "high, normal or low"),
    ("move_parent", "Move to another parent…", "pick its new parent"),
    ("move_release", "Move to another release…", "pick its release"),
    ("add_dependency", "Add dependency…", "it waits on another node"),
    ("remove_dependency", "Remove dependency…", "it no longer waits on a node"),
    ("open_doc", "Edit doc in $EDITOR", "open its doc in your editor"),
)

VIEWS = (("plan", "Plan", "the tree, the details and the activity feed"),
         ("board", "Board", "a column per status; move cards to change their status"),
         ("agents", "Agents", "a lane per agent: its task, since when, heartbeat, stale or idle"),
         ("blocked", "Blocked", "blocked tasks and open decisions, to triage"),
         ("progress", "Progress and forecast", "done by release and epic, burn-up, velocity, finish date"),
         ("reconcile", "Reconcile", "drafts the code suggests have shipped"),
         ("problems", "Problems", "what the validator reports, with fixes"))


def system_commands(app: CanvasApp) -> Iterator[SystemCommand]:
    """The canvas's app-wide palette entries, titled "group: verb"."""
    for mode, label, help_text in VIEWS:
        yield SystemCommand(f"view: {label}", help_text, partial(app.action_view, mode))
    yield SystemCommand("view: Dependencies", "what the selected node waits on, what waits on it, what it holds up",
                        app.action_dependencies)
    yield SystemCommand("view: Board of this epic", "the board of the selected epic's tasks (a task's own epic)",
                        app.action_epic_board)
    yield SystemCommand("view: Forecast", "burn-up, velocity and projected finish by release",
                        partial(app.action_view, "progress"))
    yield SystemCommand("edit: Undo last change", "take back your last change in this canvas session",
                        app.action_undo)
    yield SystemCommand("go: Next task", "the task the picker hands out now", app.open_node_next)
    for name, label in THEME_LABELS.items():
        marker = " (current)" if app.theme == name else ""
        yield SystemCommand(f"theme: {label}{marker}", f"switch to the {label.lower()} theme",
                            partial(app.set_theme, name))
    yield SystemCommand("plan: Reload from disk", "re-read every file (the view is live anyway)", app.action_reload)
    yield SystemCommand("plan: Hide or show closed work", "done and cancelled rows in the tree", app.toggle_closed)
    yield SystemCommand("help: Keys", "every key of this view", app.action_help)
    yield SystemCommand("app: Quit", "leave the canvas", app.action_quit)


def highlight(matcher, text: str) -> Content:
    """The matcher's highlight without its markup parsing: plan text stays text."""
    content = Content(text)
    score, offsets = matcher.fuzzy_search.match(matcher.query, text)
    if score:
        for offset in offsets:
            if not text[offset].isspace():
                content = content.stylize(matcher.match_style, offset, offset + 1)
    return content


def found_in(name: str, needle: str, style: Any) -> tuple[float, Content]:
    """(score, prompt) of a node's entry, in time linear in its text: the query's words where they stand
    in the name. Never Textual's fuzzy search on plan text: it tries every way the query's letters can
    be picked out of the text, and a cloned plan's 24 titles of 's s s s s e e e e e t t t …' cost the
    canvas 17.7 CPU s, frozen, while a person typed 'settings'."""
    content = Content(name)
    folded = name.casefold()
    at = folded.find(needle) if len(folded) == len(name) else -1  # casefold keeps the offsets (no ß → ss)
    if at < 0:
        return 0.45, content
    return 0.9 if folded[at - 1:at] in ("", " ") else 0.7, content.stylize(style, at, at + len(needle))


class CanvasCommands(Provider):
    """The view's own entries: the selected task's triage verbs, and nodes by id or title."""

    @property
    def canvas(self) -> CanvasApp:
        return cast("CanvasApp", self.screen.app)

    def entries(self) -> list[Entry]:
        screen = self.screen
        out: list[Entry] = []
        if isinstance(screen, Triage):
            node = screen.triage_target()
            for action, verb, help_text in TASK_ENTRIES:
                if node is not None and screen.triage_allowed(action):
                    out.append((f"task: {verb.replace('…', '')} {node.id}{'…' if verb.endswith('…') else ''}",
                                getattr(screen, f"action_{action}"), f"{one_line(node.title, 80)}: {help_text}"))
        if isinstance(screen, Editing):
            node = screen.edit_target()
            for action, verb, help_text in EDIT_ENTRIES:
                if node is not None:
                    out.append((f"edit: {verb.replace('…', '')} {node.id}{'…' if verb.endswith('…') else ''}",
                                getattr(screen, f"action_{action}"), f"{one_line(node.title, 80)}: {help_text}"))
        return out

    async def discover(self) -> Hits:
        for name, callback, help_text in self.entries():
            yield DiscoveryHit(Content(safe(name)), callback, help=escape(safe(help_text)))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, callback, help_text in self.entries():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, highlight(matcher, safe(name)), callback, help=escape(safe(help_text)))
        state = self.canvas.state
        needle = query.strip().casefold()
        if state is None or len(needle) < 2:
            return
        found = 0
        for node_id, text in state.search.items():
            if needle in text:
                node = state.nodes[node_id]
                name = f"open: {node.id} {one_line(node.title, 100)}"
                score, prompt = found_in(name, needle, matcher.match_style)
                yield Hit(score, prompt, partial(self.canvas.open_node, node.id),
                          help=f"{node.status} · show it in the tree")
                found += 1
                if found >= NODE_HITS:
                    break
