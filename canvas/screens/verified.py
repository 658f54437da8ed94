"""The reconcile view's upper list: verdicts agents recorded with `leafwise verify`, apart from the
lexical suggestions below it (an agent read the code and every quote was checked against the last
commit; a suggestion only matched words).

A shipped verdict waiting for a person (`settings: {reconcile: {confirm: person}}`) is decided here
with one key, through the command `verify --decide` runs (`commands/domain/verify_verdicts.py`
`decide`): `a` confirms it (the leaf is completed, the cascade shown), `A` confirms it with a note,
`x` rejects it with an optional note, which the agent reads in `leafwise verify ID`.

The list follows the files: every verdict and every decision appends a `verify` journal line, which
reaches the canvas through its watcher (`journal_grew`); the verdict files are then read again in a
worker.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from leafwise.canvas import bridge
from leafwise.canvas.bridge import Request
from leafwise.canvas.screens.dialogs import TextPrompt
from leafwise.canvas.widgets.verdict_text import label, order_key, verdict_content
from leafwise.commands.text import one_line
from leafwise.store import verdicts as verdict_files
from textual import work
from textual.content import Content
from textual.css.query import NoMatches
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

if TYPE_CHECKING:
    from leafwise.canvas.app import CanvasApp
    from leafwise.commands.events import Event
    from leafwise.store.verdicts import Verdict

COMMAND = "verify"
LIST_ID = "verified-list"


def cascade_words(cascade: list[dict[str, Any]]) -> str:
    return ", ".join(f"{one_line(c.get('id'), 40)} {one_line(c.get('from'), 20)} → {one_line(c.get('to'), 20)}"
                     for c in cascade if isinstance(c, dict))


class VerifiedSection:
    """The agents' verdicts in the reconcile view (a part of `ReconcileScreen`: `self` is the screen)."""

    app: CanvasApp

    def _init_verified(self) -> None:
        self.verdicts: list[Verdict] = []
        self.cascades: dict[str, str] = {}  # node id -> what its confirmation closed above it (this session)
        self._read_once = False  # the first read lands the focus on a verdict waiting; later ones only say so
        self.app.journal_grew.subscribe(self, self._journal_grew)
        self._read_verdicts()

    def _journal_grew(self, events: list[Event]) -> None:
        if any(e.command == COMMAND for e in events):
            self._read_verdicts()

    @work(thread=True, exclusive=True, group="verdicts")
    def _read_verdicts(self) -> None:
        found = verdict_files.read_all(self.app.paths)
        if self.app.is_running:
            self.app.call_from_thread(self._verdicts_read, found)

    def _verdicts_read(self, found: dict[str, Verdict]) -> None:
        if not self.is_attached:
            return
        state = self.app.state
        # a verdict on a node no longer in the plan is left out (its file stays for git to show)
        known = [v for v in found.values() if state is None or v.node in state.nodes]
        waited = {v.node for v in self.verdicts if v.state == "pending"}
        self.verdicts = sorted(known, key=order_key)
        self._fill_verified()
        arrived = [v for v in self.verdicts if v.state == "pending" and v.node not in waited]
        if arrived and self._read_once:  # the focus is never taken from a key the person is pressing
            self.app.notify(f"{one_line(arrived[0].agent, 60)} verified {arrived[0].node} shipped; it waits for you"
                            + (f" (and {len(arrived) - 1} more)" if len(arrived) > 1 else "")
                            + ": the verdicts are above the suggestions (tab), a confirms, x rejects",
                            title="A verdict to confirm", timeout=8)
        self._read_once = True

    def _fill_verified(self) -> None:
        listing = self.query_one(f"#{LIST_ID}", OptionList)
        keep = listing.highlighted_option.id if listing.highlighted_option else None
        listing.set_options(self._verdict_option(v) for v in self.verdicts)
        ids = [v.node for v in self.verdicts]
        if ids:  # the person's row while they are on the list; else the first, which waits for them if any does
            listing.highlighted = ids.index(keep) if keep in ids and listing.has_focus else 0
        waiting = sum(1 for v in self.verdicts if v.state == "pending")
        heading = self.query_one("#verified-heading", Static)
        heading.update(Content.assemble(
            ("Verified by agents", "bold"), (f"   {len(ids)} verdict(s)", "$text-muted"),
            (f"   {waiting} waiting for you: a confirm · A with a note · x reject" if waiting else "",
             "bold $warning"), ("   tab: suggestions", "$text-muted")))
        for widget in (heading, listing, self.query_one("#lexical-heading", Static)):
            widget.display = bool(ids)
        if waiting and not self._read_once:  # the person's turn: the first look lands on it
            listing.focus()
        elif not ids and listing.has_focus:
            self.query_one("#reconcile-list", OptionList).focus()
        self._show_side()
        self.refresh_bindings()

    def _verdict_option(self, v: Verdict) -> Option:
        node = self.app.state.nodes.get(v.node) if self.app.state is not None else None
        title = one_line(node.title, 200) if node is not None else ""
        head = Content.assemble(label(v), "  ", (one_line(v.node, 40), "bold"), "  ", title,
                                (f"   by {one_line(v.agent, 60)}", "$text-muted"))
        lines = [head]
        if v.quotes:
            q = v.quotes[0]
            lines.append(Content.styled(f"   {one_line(q.place, 120)}  “{one_line(q.text, 160)}”", "$text-muted"))
        if v.missing:
            lines.append(Content.styled(f"   missing: {one_line(v.missing, 300)}", "$warning"))
        if v.decided_by:
            word = "confirmed" if v.state == "closed" else "rejected"
            lines.append(Content.styled(f"   {word} by {one_line(v.decided_by, 60)}"
                                        + (f": {one_line(v.note, 200)}" if v.note else ""), "$text-muted"))
        return Option(Content("\n").join(lines), id=v.node)

    # --- which row the keys act on ------------------------------------------------------

    def verdict_target(self) -> Verdict | None:
        """The highlighted verdict while the verified list has the focus; None otherwise."""
        try:
            listing = self.query_one(f"#{LIST_ID}", OptionList)
        except NoMatches:
            return None
        option = listing.highlighted_option
        if not listing.has_focus or option is None:
            return None
        return next((v for v in self.verdicts if v.node == option.id), None)

    def verdict_side(self, v: Verdict) -> Content:
        node = self.app.state.nodes.get(v.node) if self.app.state is not None else None
        lines = [Content.assemble((f"{one_line(v.node, 40)}  ", "bold $text-muted"),
                                  (one_line(node.title, 300) if node is not None else "", "bold")), Content(""),
                 verdict_content(v)]
        if v.node in self.cascades:
            lines += [Content(""), Content.styled(f"Closed with it: {self.cascades[v.node]}", "$status-done")]
        if v.state == "pending":
            lines += [Content(""), Content.styled("a: confirm (completes it) · A: confirm with a note · "
                                                  "x: reject, with a note for the agent", "$text-muted")]
        return Content("\n").join(lines)

    # --- a person's decision ---------------------------------------------------------------

    def decide(self, v: Verdict, decision: str, note: str | None) -> None:
        # The person decides what they read: a verdict file a pull replaced since it was shown (no journal
        # line tells the view) is shown again first, never confirmed unseen.
        if verdict_files.read(self.app.paths, v.node) != v:
            self.app.notify(f"{v.node}'s verdict changed since it was shown (a pull, another clone): read it "
                            "again, then decide", title="Not decided", severity="warning", timeout=8)
            self._read_verdicts()
            return
        args: dict[str, Any] = {"node_id": v.node, "decide": decision}
        if note:
            args["note"] = note
        word = "Confirm" if decision == "confirm" else "Reject"
        self.app.run_request(Request(COMMAND, args, f"{word} {v.node}'s verdict", v.node), on_done=self._decided)

    def _decided(self, outcome: bridge.Outcome) -> None:
        result = outcome.envelope.get("result") if not outcome.exit_code else None
        if isinstance(result, dict) and result.get("cascade"):
            self.cascades[str(result.get("id"))] = cascade_words(result["cascade"])
            self.app.notify(f"Closed with it: {self.cascades[str(result.get('id'))]}", title="Cascade", timeout=8)
        self._read_verdicts()  # at once: the watcher would bring the same journal line a moment later

    def ask_note(self, v: Verdict, decision: str) -> None:
        """The note dialog the lexical reject uses; the note is optional, Esc decides nothing."""
        confirm = decision == "confirm"
        first = v.quotes[0].place if v.quotes else "no quote"
        why = [f"{v.node}: shipped, verified by {v.agent} ({first})",
               "Confirming completes the leaf with the agent's evidence and your name." if confirm else
               "It stays draft. Why is the verdict wrong? The agent reads your note in `leafwise verify "
               f"{v.node}`."]

        def noted(note: str | None) -> None:
            if note is not None:
                self.decide(v, decision, note)

        title = f"Confirm {v.node}'s verdict?" if confirm else f"Reject {v.node}'s verdict?"
        self.app.push_screen(TextPrompt(title, "\n".join(one_line(w, 200) for w in why), required=False,
                                        placeholder="optional note, e.g. the route is still a stub"), noted)
