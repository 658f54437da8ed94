"""Dependencies and impact of one node: what it waits on, what waits on it (a tree you walk), and
how many open leaves it holds up; for a release, its critical path. All from `commands.core.impact`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from leafwise.canvas.look import mark, safe
from leafwise.canvas.widgets.footer import KeysFooter
from leafwise.canvas.widgets.plan_header import PlanHeader
from leafwise.commands.core.impact import Impact, Link, critical_path, waited_on_by, waits_on
from leafwise.commands.text import one_line
from leafwise.store import CLOSED, Node
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static, Tree

if TYPE_CHECKING:
    from leafwise.canvas.app import CanvasApp

STATUS_COLOUR = {"draft": "grey62", "in-progress": "dodger_blue2", "blocked": "red3", "done": "green4",
                 "cancelled": "grey42"}
WAITS, WAITED = "waits", "waited"


class DependenciesScreen(Screen):
    """Two walkable trees for `node_id`; Enter (or o) opens a node in the plan, space expands.

    The app's "dependencies" mode, like the board: `i` switches to it and `show_node()` says which
    node, so Esc, `o` and every other way back reach the plan (a screen pushed on top of the plan's
    mode stayed on top of it).
    """

    app: CanvasApp
    AUTO_FOCUS = "#deps-tree"
    BINDINGS = [
        Binding("escape", "app.view('plan')", "Back to plan", id="view.back"),
        Binding("o,enter", "open", "Open", id="deps.open", priority=True,
                tooltip="Show the node in the tree (on a heading: fold or unfold it)"),
        Binding("j", "tree_down", "Down", show=False, id="deps.down"),
        Binding("k", "tree_up", "Up", show=False, id="deps.up"),
    ]

    def __init__(self, node_id: str | None = None) -> None:
        super().__init__()
        self.node_id = node_id

    def compose(self) -> ComposeResult:
        yield PlanHeader("Dependencies", id="header")
        yield Static(id="deps-summary", classes="view-summary")
        yield Tree(Text("dependencies"), id="deps-tree")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.redraw()

    def show_node(self, node_id: str) -> None:
        """Centre the view on `node_id`, the cursor on it."""
        self.node_id = node_id
        self.redraw()
        tree = self.query_one("#deps-tree", Tree)
        tree.move_cursor(tree.root, animate=False)
        tree.scroll_home(animate=False)

    def _label(self, node: Node | None, link: Link | None) -> Text:
        out = Text()
        if node is None:
            out.append(f"{safe(link.id if link else '?', newlines=False)}  (no such node)", "red")
            return out
        symbol, _ = mark(node)
        out.append(f"{symbol} ", STATUS_COLOUR.get(node.status, ""))
        out.append(node.id, "bold")
        out.append("  ")
        out.append(one_line(node.title, 90))
        out.append(f"  {node.status}", STATUS_COLOUR.get(node.status, ""))
        if link is not None:
            out.append(f"  ({link.via})", "dim")
        return out

    def redraw(self) -> None:
        state = self.app.state
        self.query_one(PlanHeader).show(state, self.app.live if state else None)
        tree = self.query_one("#deps-tree", Tree)
        tree.clear()
        if state is None or self.node_id is None:
            tree.root.set_label(Text("Select a node in the plan, then press i"))
            return
        if self.node_id not in state.nodes:
            tree.root.set_label(Text(f"{safe(self.node_id, newlines=False)} is not in the plan"))
            return
        plan = state.plan
        node = state.nodes[self.node_id]
        self._impact = Impact(plan)
        held = self._impact.count(node.id)
        leaves = f"{held} open lea{'f' if held == 1 else 'ves'}"
        if node.status in CLOSED:
            impact = Content.styled(f"It is {node.status}: nothing waits on it any more", "$text-muted")
        elif node.status == "blocked":
            impact = Content.styled(f"Holds up {leaves} while it cannot go on (through depends_on and its parents)",
                                    "$warning" if held else "$text-muted")
        else:
            impact = Content.styled(f"{leaves.capitalize()} wait{'s' if held == 1 else ''} for it to be done "
                                    "(through depends_on and its parents)", "$text-muted")
        summary = [Content.assemble((node.id, "bold"), "  ", Content(one_line(node.title, 120))), impact]
        release = node.effective_release
        path = critical_path(plan, release)
        if path.cycle:
            summary.append(Content.styled(f"Release {release or '(none)'}: the dependencies loop", "$error"))
        elif path.path:
            summary.append(Content.assemble((f"Critical path of release {release or '(none)'}: ", "$text-muted"),
                                            Content(" → ".join(path.path[:12]) + (" …" if len(path.path) > 12 else "")),
                                            (f"  ({len(path.path)} leaves)", "$text-muted")))
        self.query_one("#deps-summary", Static).update(Content("\n").join(summary))
        tree.root.set_label(self._label(node, None))
        tree.root.data = None
        for direction, title in ((WAITS, "Waits on"), (WAITED, "Waited on by")):
            branch = tree.root.add(Text(title, "bold"), data=(direction, node.id, None), expand=True)
            self._fill(branch, direction, node.id, {node.id})
        tree.root.expand()

    def _links(self, direction: str, node_id: str) -> list[Link]:
        plan = self.app.state.plan
        return waits_on(plan, node_id) if direction == WAITS else waited_on_by(plan, node_id, self._impact.dependents)

    def _fill(self, branch, direction: str, node_id: str, seen: set[str]) -> None:
        state = self.app.state
        links = self._links(direction, node_id)
        if not links:
            branch.add_leaf(Text("nothing", "dim"))
        for link in links:
            target = state.nodes.get(link.id)
            again = link.id in seen
            label = self._label(target, link)
            if again:
                label.append("  (already shown above)", "dim")
            has_more = target is not None and not again and bool(self._links(direction, link.id))
            if has_more:
                branch.add(label, data=(direction, link.id, seen | {link.id}), allow_expand=True)
            else:
                branch.add_leaf(label, data=(direction, link.id, None))

    @on(Tree.NodeExpanded)
    def expanded(self, event: Tree.NodeExpanded) -> None:
        data = event.node.data
        if data and data[2] is not None and not event.node.children:
            self._fill(event.node, data[0], data[1], data[2])

    def selected_id(self) -> str | None:
        """The node under the cursor: the root is the node itself; a heading or "nothing" is none."""
        tree = self.query_one("#deps-tree", Tree)
        node = tree.cursor_node
        if node is None:
            return None
        if node is tree.root:
            return self.node_id
        if node.data is None or node.parent is tree.root:
            return None
        return node.data[1]

    def selected(self) -> Node | None:
        """For the app's `i` and ctrl+k: `i` here walks on to the node under the cursor."""
        state = self.app.state
        node_id = self.selected_id()
        return state.nodes.get(node_id) if state is not None and node_id else None

    def action_open(self) -> None:
        tree = self.query_one("#deps-tree", Tree)
        node = tree.cursor_node
        if node is not None and node.parent is tree.root:  # "Waits on" / "Waited on by"
            node.toggle()
            return
        node_id = self.selected_id()
        if node_id and self.app.state is not None and node_id in self.app.state.nodes:
            self.app.open_node(node_id)

    def action_tree_down(self) -> None:
        self.query_one("#deps-tree", Tree).action_cursor_down()

    def action_tree_up(self) -> None:
        self.query_one("#deps-tree", Tree).action_cursor_up()
