"""Reconcile: drafts the code suggests have shipped, with their evidence, to accept or reject.

The `reconcile` command runs in a worker (it reads the code); each accepted
suggestion is one `reconcile --apply --node ID`. A rejected one is only hidden
for this session: nothing is written. A suggestion is the dict
`commands.core.reconcile.engine` makes (id, title, verdict, confidence,
evidence [{kind, path, line, snippet, weight, name}], missing, …), read by
those keys only.
"""

from __future__ import annotations

from typing import Any

from leafwise.canvas import bridge
from leafwise.canvas.bridge import Request
from leafwise.canvas.look import one_line
from leafwise.canvas.model.state import PlanState
from leafwise.canvas.screens.view import ViewScreen
from textual import on, work
from textual.binding import Binding
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

COMMAND = "reconcile"
VERDICTS = {"shipped": ("✓ shipped", "bold $status-done"), "partial": ("◑ partial", "bold $warning"),
            "none": ("· none", "$text-muted")}
VERDICT_ORDER = {"shipped": 0, "partial": 1, "none": 2}


def where_of(evidence: dict[str, Any]) -> str:
    """`path:line`, or the path alone (a commit's evidence has no line)."""
    line = evidence["line"]
    return f"{evidence['path']}:{line}" if line is not None else str(evidence["path"])


class ReconcileScreen(ViewScreen):
    VIEW_TITLE = "Reconcile"
    AUTO_FOCUS = "#reconcile-list"
    VIEW_ID = "reconcile"
    SIDE_PANEL = True
    BINDINGS = [
        Binding("a", "accept", "Accept", id="reconcile.accept", tooltip="Apply: record the evidence on the node"),
        Binding("x", "reject", "Reject", id="reconcile.reject", tooltip="Hide it for this session; nothing is written"),
        Binding("o,enter", "open", "Open", id="reconcile.open", priority=True,
                tooltip="Show the node in the tree"),
        Binding("R", "run", "Run again", id="reconcile.run", tooltip="Look at the code again"),
    ]

    def on_mount(self) -> None:
        super().on_mount()
        self.suggestions: list[dict[str, Any]] = []
        self.settled: dict[str, str] = {}  # id -> "applied" | "rejected"
        self.ran = False

    def redraw(self, state: PlanState) -> None:
        if not self.ran:
            self.action_run()

    def action_run(self) -> None:
        self.ran = True
        self.settled.clear()
        self.query_one("#reconcile-list", OptionList).loading = True
        self.query_one("#reconcile-summary", Static).update(
            Content.styled("Reading the code for evidence of shipped drafts…", "$text-muted"))
        self._run()

    @work(thread=True, exclusive=True, group="reconcile")
    def _run(self) -> None:
        outcome = bridge.run(self.app.paths.repo, Request(COMMAND, {}, "Reconcile"))
        self.app.call_from_thread(self._ran, outcome)

    def _ran(self, outcome: bridge.Outcome) -> None:
        listing = self.query_one("#reconcile-list", OptionList)
        listing.loading = False
        summary = self.query_one("#reconcile-summary", Static)
        if outcome.exit_code:
            summary.update(Content.styled(bridge.error_text(outcome), "$error"))
            self.suggestions = []
        else:
            result = outcome.envelope["result"]
            found: list[dict[str, Any]] = result["suggestions"]
            self.suggestions = sorted(found, key=lambda s: (VERDICT_ORDER[s["verdict"]], -s["confidence"]))
            shipped = sum(1 for s in found if s["verdict"] == "shipped")
            partial = sum(1 for s in found if s["verdict"] == "partial")
            checked = f" (first {len(found)} of {result['total']} drafts)" if result["truncated"] else ""
            summary.update(Content.assemble((f"{len(found)} draft(s) checked{checked}", "bold"),
                                            (f"   {shipped} look shipped", "$status-done"),
                                            (f"   {partial} partly", "$warning"),
                                            ("   a accept · x reject · R run again", "$text-muted")))
        self._fill()

    def _fill(self) -> None:
        listing = self.query_one("#reconcile-list", OptionList)
        keep = listing.highlighted_option.id if listing.highlighted_option else None
        shown = [s for s in self.suggestions if self.settled.get(s["id"]) != "rejected"]
        listing.set_options(self._option(s) for s in shown)
        ids = [s["id"] for s in shown]
        if ids:
            listing.highlighted = ids.index(keep) if keep in ids else 0
        self._show_side()
        self.refresh_bindings()

    def _option(self, item: dict[str, Any]) -> Option:
        label, style = VERDICTS[item["verdict"]]
        conf = f"  {round(item['confidence'] * 100)}%"
        done = self.settled.get(item["id"]) == "applied"
        head = Content.assemble((f"{label:<10}", style), (conf, "$text-muted"), "  ", (item["id"], "bold"), "  ",
                                one_line(item["title"], 200), ("   applied" if done else "", "bold $status-done"))
        evidence = item["evidence"]
        where = Content.styled(f"   {where_of(evidence[0])}  {one_line(evidence[0]['snippet'], 90)}", "$text-muted") \
            if evidence else Content.styled("   no evidence found", "$text-muted")
        return Option(Content("\n").join([head, where]), id=item["id"])

    def _target(self) -> dict[str, Any] | None:
        option = self.query_one("#reconcile-list", OptionList).highlighted_option
        if option is None:
            return None
        return next((s for s in self.suggestions if s["id"] == option.id), None)

    @on(OptionList.OptionHighlighted, "#reconcile-list")
    def highlighted(self) -> None:
        self._show_side()
        self.refresh_bindings()


    def _show_side(self) -> None:
        item = self._target()
        side = self.query_one("#reconcile-detail", Static)
        if item is None:
            side.update(Content.styled("Select a suggestion to see its evidence.", "$text-muted"))
            return
        lines = [Content.assemble((item["id"], "bold $text-muted"), "  ", (one_line(item["title"], 300), "bold")),
                 Content("")]
        for ev in item["evidence"]:
            lines.append(Content.assemble((f"{ev['kind']:<10}", "$accent"), (where_of(ev), "$secondary"),
                                          (f"  weight {ev['weight']}", "$text-muted")))
            if ev["snippet"]:
                lines.append(Content.styled(f"    {one_line(ev['snippet'], 300)}", "$text-muted"))
        missing = item["missing"]
        if missing:
            lines += [Content(""), Content.styled("Missing", "bold $warning")]
            lines += [Content(f"  • {one_line(m, 200)}") for m in missing]
        side.update(Content("\n").join(lines))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        item = self._target()
        if action == "accept":
            return True if item and item["verdict"] == "shipped" and self.settled.get(item["id"]) is None else None
        if action in ("reject", "open"):
            return True if item else None
        return True

    def action_accept(self) -> None:
        item = self._target()
        if item is None:
            return
        node_id = item["id"]

        def applied(outcome: bridge.Outcome) -> None:
            if not outcome.exit_code:
                self.settled[node_id] = "applied"
                self._fill()

        self.app.run_request(Request(COMMAND, {"apply": True, "node": node_id}, f"Reconcile {node_id}", node_id),
                             on_done=applied)

    def action_reject(self) -> None:
        item = self._target()
        if item is not None:
            self.settled[item["id"]] = "rejected"
            self._fill()

    def action_open(self) -> None:
        item = self._target()
        if item is not None:
            self.app.open_node(item["id"])
