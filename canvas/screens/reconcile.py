"""Reconcile: drafts the code suggests have shipped, with their evidence, to accept or reject.

The `reconcile` command runs in a worker (it reads the code). Every decision is
one registry command, journaled with the person as its actor:

- `a` on a shipped suggestion: `reconcile --apply --node ID --min-confidence 0`
  (the evidence is recorded and the node completed: the person is the check
  the threshold stands in for);
- `a` on a partial one: a dialog says why it cannot be applied (what is
  missing) and asks for a note; confirmed, `reconcile --close ID --note TEXT`
  closes it anyway as the person's decision;
- `x`: asks why (optional), then `reconcile --reject ID [--note TEXT]` records
  the rejection on the node, with the note, tied to a hash of the evidence;
  the command hides it from then on (after `R`, in a new canvas, for agents)
  until the evidence changes.

A suggestion is the dict `commands.reconcile.engine` makes (id, title,
verdict, confidence, evidence [{kind, path, line, snippet, weight, name}],
missing, reason), read by those keys only; every string in it is shown inertly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from leafwise.canvas import bridge
from leafwise.canvas.bridge import Request
from leafwise.canvas.model.state import PlanState
from leafwise.canvas.screens.dialogs import TextPrompt
from leafwise.canvas.screens.verified import LIST_ID, VerifiedSection
from leafwise.canvas.screens.view import ViewScreen
from leafwise.canvas.widgets.footer import KeysFooter
from leafwise.canvas.widgets.hanging import Hanging, indented
from leafwise.canvas.widgets.listing import Listing
from leafwise.canvas.widgets.plan_header import PlanHeader
from leafwise.commands.text import one_line
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.css.query import NoMatches
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

if TYPE_CHECKING:  # types only: the engine loads when the view runs reconcile
    from leafwise.commands.reconcile.engine import Evidence, Suggestion

COMMAND = "reconcile"
# `likely`: the words match but nothing proves it shipped; --apply never closes it, so `a` closes it with a note.
VERDICTS = {"shipped": ("✓ shipped", "bold $status-done"), "likely": ("≈ likely", "bold $accent"),
            "partial": ("◑ partial", "bold $warning"),
            "none": ("· none", "$text-muted")}
VERDICT_ORDER = {"shipped": 0, "likely": 1, "partial": 2, "none": 3}
REASON_STYLE = {"shipped": "$text-muted", "likely": "$text-muted", "partial": "$warning", "none": "$text-muted"}
CANNOT_APPLY = {"partial": "the evidence is partial", "likely": "the words match, but nothing proves it shipped"}
SETTLED_WORD = {"applied": "applied", "closed": "closed with a note"}


def where_of(evidence: Evidence) -> str:
    """`path:line`, or the path alone (a commit's evidence has no line)."""
    line = evidence["line"]
    return f"{evidence['path']}:{line}" if line is not None else str(evidence["path"])


def reason_of(item: Suggestion) -> str:
    """Why the command says what it says (its `reason`), or what is missing."""
    reason = item.get("reason")
    if reason:
        return str(reason)
    missing = item.get("missing") or []
    return ("missing: " if item["verdict"] == "partial" else "") + "; ".join(str(m) for m in missing[:3]) \
        if missing else "no evidence names it"


class ReconcileScreen(VerifiedSection, ViewScreen):
    VIEW_TITLE = "Reconcile"
    AUTO_FOCUS = "#reconcile-list"
    VIEW_ID = "reconcile"
    SIDE_PANEL = True
    # One terminal line per line of a row (id, evidence, reason): cut with an ellipsis, never wrapped.
    DEFAULT_CSS = """
    ReconcileScreen #reconcile-list, ReconcileScreen #verified-list { text-wrap: nowrap; text-overflow: ellipsis; }
    ReconcileScreen #reconcile-column { width: 3fr; }
    ReconcileScreen #reconcile-column > .view-list { width: 1fr; }
    ReconcileScreen #verified-list { height: auto; max-height: 45%; border: none; padding: 0 1; background: $surface; }
    ReconcileScreen .reconcile-heading { padding: 0 2; background: $surface; }
    """
    BINDINGS = [
        Binding("a", "accept", "Accept", id="reconcile.accept",
                tooltip="Shipped: record the evidence and close the node. Partial: close it anyway with a note. "
                        "An agent's verdict waiting for you: confirm it"),
        Binding("A", "confirm_noted", "Confirm with a note", id="reconcile.confirm_noted",
                tooltip="An agent's shipped verdict waiting for you: confirm it with a note"),
        Binding("x", "reject", "Reject", id="reconcile.reject",
                tooltip="Record on the node that this evidence is wrong: hidden until the evidence changes"),
        Binding("o,enter", "open", "Open", id="reconcile.open", priority=True,
                tooltip="Show the node in the tree"),
        Binding("R", "run", "Run again", id="reconcile.run", tooltip="Look at the code again"),
    ]

    def compose(self) -> ComposeResult:
        """The view's header and summary; agents' verdicts above the lexical suggestions; the side panel."""
        yield PlanHeader(self.VIEW_TITLE, id="header")
        yield Static(id="reconcile-summary", classes="view-summary")
        with Horizontal(classes="view-body"):
            with Vertical(id="reconcile-column"):
                yield Static(id="verified-heading", classes="reconcile-heading")
                yield Listing(id=LIST_ID)  # sized by its rows (a view-list takes the height left)
                yield Static(Content.styled("Suggestions from the code's words (no agent read them)", "bold"),
                             id="lexical-heading", classes="reconcile-heading")
                yield Listing(id="reconcile-list", classes="view-list")
            with VerticalScroll(id="reconcile-side", classes="view-side"):
                yield Static(id="reconcile-detail")
        yield KeysFooter()

    def on_mount(self) -> None:
        super().on_mount()
        self.suggestions: list[Suggestion] = []
        self.settled: dict[str, str] = {}  # id -> "applied" | "closed" | "rejected" (this run)
        self.hidden = 0  # rejected earlier, for the same evidence: the command leaves them out
        self.ran = False
        for wid in ("#verified-heading", f"#{LIST_ID}", "#lexical-heading"):
            self.query_one(wid).display = False
        self.app.undone.subscribe(self, self._undone)
        self._init_verified()

    def _undone(self, node_ids: list[str]) -> None:
        """An undo took back an accept or a reject made here: the row is open again."""
        if any(self.settled.pop(nid, None) for nid in node_ids) and self.is_mounted:
            self._fill()

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
        # The scan is a child process (commands/reconcile/worker.py): this thread only waits on it, so
        # the person's keys go on working, and its deadline or `on_unmount` ends the wait.
        outcome = bridge.run(self.app.paths.repo, Request(COMMAND, {}, "Reconcile"))
        if self.app.is_running:
            self.app.call_from_thread(self._ran, outcome)

    def on_unmount(self) -> None:
        """The canvas closes: a scan still reading code must not keep the process alive to its deadline."""
        from leafwise.commands.reconcile.worker import stop_all

        stop_all()

    def _ran(self, outcome: bridge.Outcome) -> None:
        listing = self.query_one("#reconcile-list", OptionList)
        listing.loading = False
        summary = self.query_one("#reconcile-summary", Static)
        if outcome.exit_code:
            summary.update(Content.styled(bridge.error_text(outcome, self.app.paths.repo), "$error"))
            self.suggestions = []
        else:
            result = outcome.envelope["result"]
            found: list[Suggestion] = result["suggestions"]
            self.suggestions = sorted(found, key=lambda s: (VERDICT_ORDER[s["verdict"]], -s["confidence"]))
            self.hidden = len(result.get("rejected") or [])
            shipped = sum(1 for s in found if s["verdict"] == "shipped")
            likely = sum(1 for s in found if s["verdict"] == "likely")
            partial = sum(1 for s in found if s["verdict"] == "partial")
            checked = f" (first {len(found)} of {result['total']} drafts)" if result["truncated"] else ""
            drafts = f"{len(found)} draft{'' if len(found) == 1 else 's'} checked"
            summary.update(Content.assemble((f"{drafts}{checked}", "bold"),
                                            (f"   {shipped} look shipped", "$status-done"),
                                            (f"   {likely} likely" if likely else "", "$accent"),
                                            (f"   {partial} partly", "$warning"),
                                            (f"   {self.hidden} rejected, hidden" if self.hidden else "",
                                             "$text-muted"),
                                            ("   a accept · x reject · R run again", "$text-muted")))
        self._fill()

    def _fill(self) -> None:
        listing = self.query_one("#reconcile-list", OptionList)
        keep = listing.highlighted_option.id if listing.highlighted_option else None
        was = listing.highlighted or 0
        shown = [s for s in self.suggestions if self.settled.get(s["id"]) != "rejected"]
        listing.set_options(self._option(s) for s in shown)
        ids = [s["id"] for s in shown]
        if ids:  # the same row, or the one that took the place of a row just rejected
            listing.highlighted = ids.index(keep) if keep in ids else min(was, len(ids) - 1)
        self._show_side()
        self.refresh_bindings()

    def _option(self, item: dict[str, Any]) -> Option:
        label, style = VERDICTS[item["verdict"]]
        conf = f"  {round(item['confidence'] * 100)}%"
        settled = SETTLED_WORD.get(self.settled.get(item["id"], ""), "")
        head = Content.assemble((f"{label:<10}", style), (conf, "$text-muted"), "  ",
                                (one_line(item["id"], 40), "bold"), "  ", one_line(item["title"], 200),
                                (f"   {settled}" if settled else "", "bold $status-done"))
        lines = [head]
        evidence = item["evidence"]
        if evidence:
            lines.append(Content.styled(f"   {one_line(where_of(evidence[0]), 120)}  "
                                        f"{one_line(evidence[0]['snippet'], 160)}", "$text-muted"))
        # the row is cut to the terminal's width by its style: the text keeps the whole reason
        lines.append(Content.styled(f"   {one_line(reason_of(item), 1000)}", REASON_STYLE[item["verdict"]]))
        return Option(Content("\n").join(lines), id=item["id"])

    def _target(self) -> dict[str, Any] | None:
        """The highlighted suggestion; None before the list is mounted (the footer and a key press ask
        `check_action` as soon as the screen is current, while its side panel may still be composing)."""
        try:
            option = self.query_one("#reconcile-list", OptionList).highlighted_option
        except NoMatches:
            return None
        if option is None:
            return None
        return next((s for s in self.suggestions if s["id"] == option.id), None)

    @on(OptionList.OptionHighlighted, "#reconcile-list")
    @on(OptionList.OptionHighlighted, f"#{LIST_ID}")
    def highlighted(self) -> None:
        self._show_side()
        self.refresh_bindings()

    def on_descendant_focus(self) -> None:
        """Tab between the verdicts and the suggestions: the side panel and the keys follow the focus."""
        self._show_side()
        self.refresh_bindings()

    def _show_side(self) -> None:
        side = self.query_one("#reconcile-detail", Static)
        said = self.verdict_target()
        if said is not None:
            side.update(self.verdict_side(said))
            return
        item = self._target()
        if item is None:
            side.update(Content.styled("Select a suggestion to see its evidence.", "$text-muted"))
            return
        # Rows wrap under their own text (`Hanging`); a path that does not fit after its kind goes on the
        # next line, so it is folded only when it is wider than the panel.
        lines: list = [(Content.styled(f"{one_line(item['id'], 40)}  ", "bold $text-muted"),
                        Content.styled(one_line(item["title"], 300), "bold")),
                       Content.styled(one_line(reason_of(item), 300), REASON_STYLE[item["verdict"]]), Content("")]
        for ev in item["evidence"]:
            lines.append((Content.styled(f"{one_line(ev['kind'], 12):<10} ", "$accent"),  # "definition" fills 10
                          Content.assemble((one_line(where_of(ev), 200), "$secondary"),
                                           (f"  weight {ev['weight']}", "$text-muted")), 2))
            if ev["snippet"]:
                lines.append(indented(Content.styled(one_line(ev["snippet"], 300), "$text-muted"), 4))
        missing = item["missing"]
        if missing:
            lines += [Content(""), Content.styled("Missing", "bold $warning")]
            lines += [(Content("  • "), Content(one_line(m, 200))) for m in missing]
        if item["verdict"] in ("partial", "likely") and item["id"] not in self.settled:
            lines += [Content(""), Content.styled("a: close it anyway with a note · x: reject", "$text-muted")]
        side.update(Hanging(lines))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        said = self.verdict_target()
        if said is not None:  # an agent's verdict: only one waiting for a person is decided here
            return (True if said.state == "pending" else None) if action in ("accept", "reject", "confirm_noted") \
                else True
        if action == "confirm_noted":
            return None
        item = self._target()
        if action == "accept":
            return True if item and item["verdict"] != "none" and self.settled.get(item["id"]) is None else None
        if action == "reject":
            return True if item and item["verdict"] != "none" and self.settled.get(item["id"]) is None else None
        if action == "open":
            return True if item else None
        return True

    def _settle(self, node_id: str, how: str):
        """An `on_done` for a request: mark the row settled when the command succeeded."""

        def done(outcome: bridge.Outcome) -> None:
            if not outcome.exit_code and self.is_attached:
                self.settled[node_id] = how
                self._fill()

        return done

    def action_accept(self) -> None:
        said = self.verdict_target()
        if said is not None:
            if said.state == "pending":  # one key: the person's confirmation, as `verify --decide confirm`
                self.decide(said, "confirm", None)
            return
        item = self._target()
        if item is None or item["verdict"] == "none":
            return
        node_id = item["id"]
        if item["verdict"] == "shipped":
            # the person's `a` is the confirmation that --min-confidence stands in for when nobody looks
            self.app.run_request(Request(COMMAND, {"apply": True, "node": node_id, "min_confidence": 0.0},
                                         f"Reconcile {node_id}", node_id),
                                 on_done=self._settle(node_id, "applied"))
            return
        self._close_anyway(item)

    def _close_anyway(self, item: dict[str, Any]) -> None:
        """A partial (or a likely) cannot be applied: say why, and let the person close it with a note."""
        node_id = item["id"]
        missing = item.get("missing") or []
        why = [f"{item['id']}  {item['title']}",
               f"It can't be applied: {CANNOT_APPLY.get(item['verdict'], 'the evidence is partial')} "
               f"({round(item['confidence'] * 100)}%).",
               *[f"  missing: {m}" for m in missing[:4]],
               *([f"  found: {where_of(item['evidence'][0])}"] if item["evidence"] else []),
               "Close it anyway? Your note is recorded as your decision, with the evidence found."]

        def noted(note: str | None) -> None:
            if note:
                self.app.run_request(Request(COMMAND, {"close": node_id, "note": note},
                                             f"Close {node_id} anyway", node_id),
                                     on_done=self._settle(node_id, "closed"))

        self.app.push_screen(TextPrompt(f"Close {node_id} anyway?", "\n".join(one_line(w, 200) for w in why),
                                        placeholder="why it is done, e.g. tested by hand on staging"), noted)

    def action_reject(self) -> None:
        """Ask why (optional), then `reconcile --reject ID [--note TEXT]`: the note is kept with the rejection."""
        said = self.verdict_target()
        if said is not None:
            if said.state == "pending":
                self.ask_note(said, "reject")
            return
        item = self._target()
        if item is None or item["verdict"] == "none":
            return
        node_id = item["id"]
        found = f"found: {where_of(item['evidence'][0])}" if item["evidence"] else "no evidence listed"

        def noted(note: str | None) -> None:
            if note is None:
                return
            args: dict[str, object] = {"reject": node_id}
            if note:
                args["note"] = note
            self.app.run_request(Request(COMMAND, args, f"Reject {node_id}'s suggestion", node_id),
                                 on_done=self._settle(node_id, "rejected"))

        self.app.push_screen(TextPrompt(
            f"Reject {node_id}'s suggestion?",
            "\n".join(one_line(w, 200) for w in (f"{item['id']}  {item['title']}", found,
                                                  "It is hidden until its evidence changes. Why is it wrong? "
                                                  "(optional: kept with the rejection)")),
            placeholder="e.g. that file is the old prototype, not this feature", required=False), noted)

    def action_confirm_noted(self) -> None:
        said = self.verdict_target()
        if said is not None and said.state == "pending":
            self.ask_note(said, "confirm")

    def action_open(self) -> None:
        said = self.verdict_target()
        if said is not None:
            self.app.open_node(said.node)
            return
        item = self._target()
        if item is not None:
            self.app.open_node(item["id"])
