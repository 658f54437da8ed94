"""The detail pane: everything about the row under the cursor, the blocked reason first.

Fields, the path, the blocked reason (and an open decision's options) in
plain sight, the summary, evidence, links to jump along (parent, dependencies,
dependants), recent journal events, the markdown docs rendered and diagram
sources as text. Journal and docs are read in a worker so the cursor never
waits on the disk.

A cursor move rewrites the pane, so each part is written only when it differs and asks for a layout
of the screen only when its height does (`quiet`); the rendered doc (a widget per block, mounted
anew on each update) is parsed again only when its text changes, and stays up while the cursor moves
between nodes that link the same doc files.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Callable

from leafwise.canvas.look import (
    STATUS_VAR,
    ago,
    bar,
    blocked_for,
    clock,
    inert_content,
    mark,
    percent,
    safe,
    sentence,
)
from leafwise.canvas.model.state import Group, PlanState
from leafwise.canvas.model.tree_layout import GROUP
from leafwise.canvas.widgets.messages import NodeRequest
from leafwise.canvas.widgets.plan_markdown import PlanMarkdown
from leafwise.canvas.widgets.quiet import set_content, show
from leafwise.canvas.widgets.team_mark import team_line
from leafwise.canvas.widgets.verdict_text import verdict_content
from leafwise.commands.core.readiness import unmet_dependencies
from leafwise.commands.core.views import message_lines, messages
from leafwise.commands.events import Event, phrase, read_all
from leafwise.commands.domain.docs import read_docs
from leafwise.commands.registry import Ctx
from leafwise.commands.text import elided, one_line, readable
from leafwise.store import Node, journal
from leafwise.store import verdicts as verdict_files
from leafwise.store.schema import decision_options
from textual import work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.css.query import NoMatches
from textual.timer import Timer
from textual.widgets import Markdown, OptionList, Static
from textual.widgets.option_list import Option

HISTORY_LIMIT = 8
AGAIN = "|"  # in a link's option id, before the count of a node shown in a second section ("go:T-1|2")
EXTRAS_DELAY = 0.12  # seconds the cursor rests before the journal and docs are read
SHOWN_KEYS = {"id", "title", "parent", "release", "status", "assignee", "blocked_reason", "summary",
              "depends_on", "tags", "trigger", "cascade", "docs", "diagrams", "evidence", "created",
              "updated", "decision", "blocked_since", "blocked_from", "description", "follows", "decisions",
              "comments"}



# A doc is shown whole by `leafwise doc`; the pane shows its head: every Markdown block is a widget, and a
# planted 165 KB doc of headings would be tens of thousands of them (gigabytes, seconds per key).
PREVIEW_LINES = 200
PREVIEW_CHARS = 12_000


def head(text: str) -> tuple[str, int]:
    """(the head of a doc or diagram the pane shows: at most PREVIEW_LINES lines and PREVIEW_CHARS
    characters, how many lines are left out)."""
    lines = text[:PREVIEW_CHARS].split("\n")[:PREVIEW_LINES]
    shown = "\n".join(lines)
    if len(shown) >= len(text):
        return text, 0
    return shown, text.rstrip("\n").count("\n") + 1 - len(lines)


def headed(text: Any, node_id: str) -> str:
    """A long text field (summary, description, blocked reason, a decision's question or option) as the
    pane shows it: its `head`, then a line saying how much `leafwise show` has beyond it. Three fields
    of 16,000 short lines each took the canvas 4.8 s and 190 MB for one node."""
    shown, left = head(str(text))
    return f"{shown}\n… {left:,} more line(s): leafwise show {node_id}" if left else shown


def preview(text: str, node_id: str) -> str:
    """The head of a doc for the pane (`head`), with a last line saying how much is left and where to
    read it."""
    shown, left = head(text)
    return f"{shown}\n\n*… {left:,} more line(s): `leafwise doc {node_id}`*" if left else text

class NodeDetail(VerticalScroll):
    """Everything about one node (or one release group)."""

    class OpenNode(NodeRequest):
        """Move the tree's cursor to this node."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.key: str | None = None
        self.state: PlanState | None = None
        self._docs_for: tuple[str, tuple[str, ...], tuple[str, ...]] | None = None
        self._docs_shown: tuple[tuple[str, ...], tuple[str, ...]] | None = None  # (docs, diagrams) on display
        self._markdown_text: str | None = None  # what the Markdown widget holds
        self._links_shown: tuple[object, ...] = ()
        self._extras_timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="detail-head")
        yield Static(id="detail-path")
        yield Static(id="detail-blocked")
        yield Static(id="detail-fields")
        yield Static(id="detail-summary", classes="detail-section")
        yield OptionList(id="detail-links")
        yield Static(id="detail-evidence", classes="detail-section")
        yield Static(id="detail-verdict", classes="detail-section")
        yield Static(id="detail-history", classes="detail-section")
        yield PlanMarkdown(id="detail-docs", open_links=False)  # a doc is plan text: its links are shown, never followed
        yield Static(id="detail-diagrams", classes="detail-section")

    def on_mount(self) -> None:
        # a verdict changes no node file: its journal line (through the watcher) says to read it again
        self.app.journal_grew.subscribe(self, self._journal_grew)

    def _journal_grew(self, events: list[Event]) -> None:
        if self.state is not None and self.key and any(e.command == "verify" and e.node == self.key for e in events):
            self._later(partial(self._load_history, self.state, self.key))

    # --- showing ------------------------------------------------------------------

    def show(self, state: PlanState, key: str | None, *, refresh_docs: bool = False) -> None:
        """Show a row; cheap parts now, journal and docs from a worker."""
        moved = key != self.key
        self.state = state
        self.key = key
        if moved:
            self.scroll_home(animate=False)
        if key is None:
            self._blank("Nothing selected")
            return
        if key.startswith(GROUP):
            group = state.group(key[1:])
            if group is None:
                self._blank("This release is gone")
            else:
                self._show_group(state, group)
            return
        node = state.nodes.get(key)
        if node is None:
            broken = next((p for p in state.plan.problems if p.node == key), None)
            self._blank(f"{key} cannot be read: {broken.message}" if broken else f"{key} is gone")
            return
        self._show_node(state, node)
        docs_key = (key, tuple(node.docs), tuple(node.diagrams))
        if moved:  # never show the last node's history or docs under this one, even briefly
            self._section("detail-history", None)
            self._section("detail-verdict", None)
            if self._docs_shown != docs_key[1:]:  # docs this node links too may stay
                self._hide_docs()
        if moved or refresh_docs or docs_key != self._docs_for:
            self._docs_for = docs_key
            self._later(partial(self._load_extras, state, node.id))
        else:
            self._later(partial(self._load_history, state, node.id))

    def _later(self, load: Callable[[], object]) -> None:
        """Read the disk once the cursor rests: holding j must not start a read per row."""
        if self._extras_timer is not None:
            self._extras_timer.stop()
        self._extras_timer = self.set_timer(EXTRAS_DELAY, load)

    def on_markdown_link_clicked(self, event: Markdown.LinkClicked) -> None:
        """A click on a link in a doc says where it points; nothing is opened (the doc is untrusted)."""
        event.stop()
        self.app.notify(f"{one_line(event.href, 300)}\nLinks in plan docs are not opened from the canvas; "
                        "copy the address if you trust it.", title="Link not opened")

    def _section(self, widget_id: str, content: Content | None) -> None:
        try:
            widget = self.query_one(f"#{widget_id}", Static)
        except NoMatches:  # the app is closing and took the pane's children first (a late worker result)
            return
        show(widget, content is not None)
        if content is not None:
            set_content(widget, inert_content(content))

    def _hide_docs(self) -> None:
        self._docs_shown = None
        show(self.query_one("#detail-docs", Markdown), False)
        self._section("detail-diagrams", None)

    def _blank(self, message: str) -> None:
        set_content(self.query_one("#detail-head", Static), Content.styled(message, "$text-muted"))
        for wid in ("detail-path", "detail-blocked", "detail-fields", "detail-summary", "detail-evidence",
                    "detail-verdict", "detail-history"):
            self._section(wid, None)
        self._links([])
        self._hide_docs()

    def _show_group(self, state: PlanState, group: Group) -> None:
        tally = group.tally
        head = Content.assemble((group.key or "—", "bold $accent"), "  ", (one_line(group.title), "bold"))
        set_content(self.query_one("#detail-head", Static), inert_content(head))
        self._section("detail-path", Content.styled(f"target {group.target}", "$text-muted")
                      if group.target else None)
        self._section("detail-blocked", None)
        rows = [
            Content.assemble(bar(tally.done, tally.total, 24), f"  {percent(tally.done, tally.total)}  ",
                             (f"{tally.done}/{tally.total} leaves done", "$text-muted")),
            Content.assemble((f"{tally.in_progress} in progress", STATUS_VAR["in-progress"]), "   ",
                             (f"{tally.blocked} blocked", STATUS_VAR["blocked"]), "   ",
                             (f"{tally.draft} draft", STATUS_VAR["draft"]), "   ",
                             (f"{tally.cancelled} cancelled", STATUS_VAR["cancelled"])),
        ]
        self._section("detail-fields", Content("\n").join(rows))
        tops = []
        for nid in group.tops[:40]:
            node = state.nodes[nid]
            done, total = state.counts.get(nid, (0, 0))
            symbol, style = mark(node)
            tops.append(Content.assemble((symbol, style), " ", bar(done, total), f" {percent(done, total):>4}  ",
                                         (node.id, "$text-muted"), " ", one_line(node.title)))
        self._section("detail-summary", Content("\n").join(tops) if tops else None)
        self._links([])
        for wid in ("detail-evidence", "detail-verdict", "detail-history"):
            self._section(wid, None)
        self._hide_docs()
        self._docs_for = None

    def _show_node(self, state: PlanState, node: Node) -> None:
        symbol, style = mark(node)
        head = Content.assemble((symbol, style), " ", (node.id, "$text-muted"), "  ", (one_line(node.title), "bold"))
        set_content(self.query_one("#detail-head", Static), inert_content(head))
        chain = list(reversed(state.plan.ancestors(node.id)))
        release = node.effective_release
        crumbs = [Content.styled(one_line(release or "no release"), "$accent")]
        shown = elided(chain)
        crumbs += [Content.styled(f"… {len(chain) - len(shown) + 1} more", "$text-muted") if a is None
                   else Content.assemble((a.id, "$text-muted"), " ", one_line(a.title)) for a in shown]
        self._section("detail-path", Content(" › ").join(crumbs))
        self._section("detail-blocked", self._blocked_box(node))
        self._section("detail-fields", self._fields(state, node))
        summary = node.summary or node.data.get("description")
        self._section("detail-summary", Content.assemble(("Summary\n" if node.summary else "Description\n",
                                                          "bold $text-muted"), safe(headed(summary, node.id)))
                      if summary else None)
        self._section("detail-evidence", self._evidence(node))
        self._links(self._link_options(state, node))

    def _blocked_box(self, node: Node) -> Content | None:
        if node.status != "blocked":
            return None
        lines = [Content.assemble(("⊘ Blocked", "bold $status-blocked"),
                                  (f"  {blocked_for(node)}", "$text-muted"))]
        decision = node.data.get("decision")
        if node.open_decision is None or node.blocked_reason != f"Decision needed: {decision.get('question')}":
            lines.append(Content(safe(headed(node.blocked_reason, node.id) if node.blocked_reason
                                      else "No reason given (the validator flags this)")))
        if node.open_decision is not None:
            lines.append(Content.assemble(("Decision needed", "bold $status-decision"),
                                          (f" — asked by {decision.get('asked_by') or '?'}", "$text-muted")))
            lines.append(Content.styled(safe(headed(decision.get("question"), node.id)), "bold"))
            for number, option in enumerate(decision_options(decision) or [], 1):
                lines.append(Content.assemble((f" {number} ", "reverse $status-decision"), " ",
                                              safe(headed(option, node.id))))
            lines.append(Content.styled("Answer in the blocked view (b) or with the palette (ctrl+p).",
                                        "italic $text-muted"))
        return Content("\n").join(lines)

    def _fields(self, state: PlanState, node: Node) -> Content:
        rows: list[tuple[str, Content]] = []
        rows.append(("status", Content.assemble((f"{mark(node)[0]} {node.status}", STATUS_VAR.get(node.status, "")))))
        release = node.effective_release
        inherited = "  (inherited)" if release and not node.release else ""
        rows.append(("release", Content(f"{one_line(release or '—')}{inherited}")))
        if node.assignee:
            rows.append(("assignee", Content(one_line(node.assignee))))
        claim = state.claims.get(node.id)
        if claim:
            lease = (f" until {clock(claim.expires)} · heartbeat {ago(claim.heartbeat)}" if claim.expires
                     else " (assigned in progress, no lease)")
            rows.append(("held by", Content.assemble((one_line(claim.agent), "bold"), (lease, "$text-muted"))))
        team = team_line(getattr(self.app, "team_claims", {}).get(node.id),
                         getattr(self.app, "team_since", {}).get(node.id))  # canvas --follow
        if team:
            rows.append(("team", Content(team)))
        if node.children:
            done, total = state.counts.get(node.id, (0, 0))
            rows.append(("progress", Content.assemble(bar(done, total, 16), f"  {percent(done, total)}  ",
                                                      (f"{done}/{total} leaves", "$text-muted"))))
        if node.tags:
            rows.append(("tags", Content.assemble(*[(f"#{one_line(t)} ", "$secondary") for t in node.tags])))
        for key in ("trigger", "follows"):
            if node.data.get(key):
                rows.append((key, Content(one_line(node.data[key]))))
        if node.cascade != "auto":
            rows.append(("cascade", Content(node.cascade)))
        for key, value in node.data.items():
            if key not in SHOWN_KEYS and value not in (None, "", [], {}):
                rows.append((key, Content(one_line(readable(value), 300))))
        said = message_lines(messages(node))  # a person's words as the agent reads them (one home: views)
        rows += [("said" if i == 0 else "", Content(one_line(line.strip(), 300))) for i, line in enumerate(said)]
        stamps = []
        for key in ("created", "updated"):
            if node.data.get(key):
                stamps.append(f"{key} {clock(node.data[key])}")
        if stamps:
            rows.append(("", Content.styled(" · ".join(stamps), "$text-muted")))
        return Content("\n").join(Content.assemble((f"{label:>9}  ", "$text-muted"), value) for label, value in rows)

    def _evidence(self, node: Node) -> Content | None:
        items = node.data.get("evidence") or []
        if not isinstance(items, list) or not items:
            return None
        lines = [Content.styled("Evidence", "bold $text-muted")]
        for item in items[:20]:
            if isinstance(item, dict):
                where = f"{item.get('path', '?')}" + (f":{item['line']}" if item.get("line") else "")
                lines.append(Content.assemble(("• ", "$status-done"), (where, "$secondary"),
                                              f"  {one_line(item.get('note') or item.get('kind') or '', 200)}"))
            else:
                lines.append(Content(f"• {one_line(item, 200)}"))
        return Content("\n").join(lines)

    def _link_options(self, state: PlanState, node: Node) -> list[Option]:
        """Parent, dependencies, dependants: one row per link to jump along.

        A plan may list a dependency twice, or its own parent as a dependency (the validator reports
        both): a section shows each node once, in the order written, and a node shown in two sections
        (the parent that is also a dependency) gets a row in each, with an option id of its own
        (`go:ID`, then `go:ID|2`…): OptionList refuses two options with one id.
        """
        options: list[Option] = []
        nodes = state.nodes
        shown: dict[str, int] = {}  # node id -> rows linking to it so far

        def add_header(text: str) -> None:
            options.append(Option(Content.styled(text, "bold $text-muted"), disabled=True))

        def add_node(nid: str, prefix: str) -> None:
            target = nodes.get(nid)
            if target is None:
                options.append(Option(Content.assemble((f"{prefix}{nid}", "$status-blocked"),
                                                       ("  missing (see problems: v)", "$text-muted")),
                                      disabled=True))
                return
            symbol, style = mark(target)
            shown[nid] = shown.get(nid, 0) + 1
            option_id = f"go:{nid}" if shown[nid] == 1 else f"go:{nid}{AGAIN}{shown[nid]}"
            options.append(Option(Content.assemble(prefix, (symbol, style), " ", (nid, "$text-muted"), " ",
                                                   one_line(target.title, 200)), id=option_id))

        if node.parent:
            add_header("Parent")
            add_node(node.parent, "")
        depends_on = list(dict.fromkeys(node.depends_on))  # each once, in the order written
        if depends_on:
            waiting = list(dict.fromkeys(unmet_dependencies(state.plan, node)))  # a missing one is unmet
            add_header(f"Depends on ({len(waiting)} open)" if waiting else "Depends on (all closed)")
            for dep in depends_on:
                add_node(dep, "")
        needed_by = list(dict.fromkeys(state.needed_by(node.id)))
        if needed_by:
            add_header("Needed by")
            for nid in needed_by[:30]:
                add_node(nid, "")
        return options

    def _links(self, options: list[Option]) -> None:
        """Replace the link rows, unless they are the ones shown (a new list resets its highlight)."""
        links = self.query_one("#detail-links", OptionList)
        said = tuple((o.id, o.disabled, o.prompt.plain if isinstance(o.prompt, Content) else str(o.prompt),
                      tuple(o.prompt.spans) if isinstance(o.prompt, Content) else ()) for o in options)
        if said != self._links_shown:
            self._links_shown = said
            links.clear_options()
            links.add_options(options)
        show(links, bool(options))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        option_id = event.option.id or ""
        if option_id.startswith("go:"):
            self.post_message(self.OpenNode(option_id[3:].partition(AGAIN)[0]))

    # --- journal and docs, off the main thread -------------------------------------

    @work(thread=True, exclusive=True, group="detail-extras")
    def _load_extras(self, state: PlanState, node_id: str) -> None:
        history = read_all(journal.read(state.paths, node=node_id, limit=HISTORY_LIMIT))
        said = verdict_files.read(state.paths, node_id)
        ctx = Ctx(root=str(state.paths.repo), _paths=state.paths, _plan=state.plan)
        try:
            docs = read_docs(ctx, node_id)
        except Exception:  # noqa: BLE001 - the node vanished meanwhile: the next show() says so
            docs = []
        self.app.call_from_thread(self._show_extras, node_id, history, docs, said)

    @work(thread=True, exclusive=True, group="detail-history")
    def _load_history(self, state: PlanState, node_id: str) -> None:
        history = read_all(journal.read(state.paths, node=node_id, limit=HISTORY_LIMIT))
        said = verdict_files.read(state.paths, node_id)
        self.app.call_from_thread(self._show_history, node_id, history, said)

    def _show_history(self, node_id: str, history: list[Event], said: verdict_files.Verdict | None = None) -> None:
        if node_id != self.key or not self.is_attached:  # moved on, or the app is closing
            return
        # an agent's verdict: its quotes, who verified it, and for a partial one what is missing
        self._section("detail-verdict", verdict_content(said, quotes=4) if said is not None else None)
        lines = [Content.styled("History", "bold $text-muted")]
        for event in reversed(history):
            lines.append(Content.assemble((f"{clock(event.time)}  ", "$text-muted"),
                                          (one_line(event.actor or "?", 80), "bold"), " ",
                                          describe_event(event, node_id)))
        self._section("detail-history", Content("\n").join(lines) if history else None)

    async def _show_extras(self, node_id: str, history: list[Event], docs: list[dict[str, Any]],
                           said: verdict_files.Verdict | None = None) -> None:
        if node_id != self.key or not self.is_attached:
            return
        self._show_history(node_id, history, said)
        node = self.state.nodes.get(node_id) if self.state is not None else None
        self._docs_shown = (tuple(node.docs), tuple(node.diagrams)) if node is not None else None
        markdown = self.query_one("#detail-docs", Markdown)
        texts = [d for d in docs if d["kind"] == "doc"]
        if texts:
            parts = []
            for item in texts:
                body = preview(item["text"], node_id) if not item["note"] else f"*{item['note']}*"
                parts.append(f"`{item['path']}`\n\n{body}")
            text = safe("\n\n---\n\n".join(parts))
            if text != self._markdown_text:  # an update removes every block and mounts new ones
                self._markdown_text = text
                await markdown.update(text)
            if node_id != self.key or not self.is_attached:  # moved on while the blocks were mounted
                return
            show(markdown, True)
        else:
            show(markdown, False)
        diagrams = [d for d in docs if d["kind"] == "diagram"]
        if diagrams:
            lines = []
            for item in diagrams:
                lines.append(Content.styled(item["path"] + (f"  ({item['note']})" if item["note"] else ""),
                                            "bold $text-muted"))
                # its head, as a doc's: four diagrams of 99,000 short lines (792 KB, within the docs'
                # cap) took the canvas 42 s and 1.7 GB, a key answered after 23 s
                shown, left = head(item["text"].rstrip("\n"))
                lines.append(Content(shown))
                if left:
                    lines.append(Content.styled(f"… {left:,} more line(s): leafwise doc {node_id}", "$text-muted"))
            self._section("detail-diagrams", Content("\n").join(lines))
        else:
            self._section("detail-diagrams", None)


def describe_event(event: Event, node_id: str | None = None) -> Content:
    """One journal event as a short line in the history of `node_id`: the words of `commands.events`."""
    return sentence(phrase(event, node_id))
