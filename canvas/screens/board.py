"""The board: a column per status (draft, in progress, blocked, done) for the plan, a release or an epic.

Cards are the leaves in scope: id, priority, assignee and title. Moving a card
runs the command the CLI would (unblock, block, complete, edit), as the person;
a refused move shows the core's error and its fix. A person's move is a
person's edit: to in progress is `edit --set status=in-progress`, never
`start` (an agent's claim, with a lease under the name it is given). Each column lists
CARDS_SHOWN cards and says how many more there are; moving onto the last one
shows the next CARDS_SHOWN. So an 11,100-node plan draws as fast as a small one
(a list lays out every option it holds, visible or not).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from leafwise.canvas.bridge import Request
from leafwise.canvas.look import STATUS_VAR, plan_text
from leafwise.canvas.model.state import PlanState
from leafwise.canvas.screens.dialogs import TextPrompt
from leafwise.canvas.screens.triage import held_by_other, unblock_prompt, unblock_request
from leafwise.canvas.widgets.footer import KeysFooter
from leafwise.canvas.widgets.listing import Listing
from leafwise.canvas.widgets.plan_header import PlanHeader
from leafwise.canvas.widgets.team_mark import TeamClaim, team_mark
from leafwise.commands.core.lifecycle import board_command, edit_command, transition
from leafwise.commands.core.readiness import unmet_dependencies
from leafwise.commands.core.views import MARKS
from leafwise.commands.core.views import status_word
from leafwise.commands.text import one_line
from leafwise.store import Node, Status
from leafwise.store.ids import id_order
from leafwise.store.schema import priority_rank
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.css.styles import RulesMap
from textual.screen import Screen
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual
from textual.widgets import Static
from textual.widgets.option_list import Option

if TYPE_CHECKING:
    from leafwise.canvas.app import CanvasApp
    from leafwise.canvas.live import PlanUpdate

COLUMNS = tuple(s for s in Status if s is not Status.CANCELLED)  # a column per status; cancelled cards are left out
CARDS_SHOWN = 40  # per column at first; reaching the last one shows CARDS_SHOWN more ("+N more" counts the rest)
REFRESH_DELAY = 0.3
TITLE_LINES = 2  # a longer title is cut, ending with "…"
_NO_TEAM: Mapping[str, TeamClaim] = {}
PRIORITY_MARK = {"high": ("▲ high", "bold $status-blocked"), "low": ("▽ low", "$text-muted")}


def board_cards(state: PlanState, scope: str | None, team: Mapping[str, TeamClaim] | None = None
                ) -> dict[str, list[Node]]:
    """The leaves in scope by status column (cancelled ones left out), in plan order.

    `scope`: None for the whole plan, "@R1" for a release, a node id for an epic. `team` (canvas
    --follow): a draft task another clone holds is in progress there, so its card is in that column
    (the YAML keeps no in-progress in team mode: the claim is the status).
    """
    team = team or {}
    plan = state.plan
    if scope and not scope.startswith("@"):
        pool = [n for n in plan.descendants(scope) if not n.children] if scope in plan.nodes else []
    else:
        release = scope[1:] if scope else None
        pool = [n for n in plan.nodes.values() if not n.children
                and (release is None or (n.effective_release or "") == release)]
    columns: dict[str, list[Node]] = {c: [] for c in COLUMNS}
    for node in pool:
        status = node.status
        claim = team.get(node.id)
        if status == Status.DRAFT and claim is not None and claim.state == "held":
            status = Status.IN_PROGRESS
        if status in columns:
            columns[status].append(node)
    for status, cards in columns.items():
        cards.sort(key=lambda n: (priority_rank(n.data.get("priority")), id_order(n.id)) if status != "done"
                   else (str(n.data.get("updated") or ""), id_order(n.id)))
        if status == "done":
            cards.reverse()  # the latest done first
    return columns


def person_command(source: Status | str, target: Status | str) -> str | None:
    """The command a person's board move stands for: the lifecycle table's (`board_command`), except
    that a row only an agent may run (`start`: a claim with a lease, under the agent's name) becomes
    the person's own edit of the status, when the table lets `edit` make that move."""
    command = board_command(source, target)
    row = transition(command, source) if command is not None else None
    if row is not None and row.who == "agent":
        edit = edit_command(target)
        return edit if transition(edit, source) is not None else None
    return command


class Card(Visual):
    """A card as its column is wide: the head on one line, the title in at most TITLE_LINES lines.

    A head or a title cut short ends with "…", so a cut never passes for the whole title. Built at
    the width the list renders it, so a narrow terminal cuts more and a wide one less.
    """

    def __init__(self, head: Content, title: Content) -> None:
        self.head = head
        self.title = title
        self._fitted: tuple[int, Content] | None = None

    def fitted(self, width: int) -> Content:
        if self._fitted is not None and self._fitted[0] == width:
            return self._fitted[1]
        width = max(2, width)
        lines = self.title.wrap(width)
        if len(lines) > TITLE_LINES:
            lines = lines[:TITLE_LINES]
            last = lines[-1].rstrip()
            if last.cell_length > width - 1:
                last = last.truncate(width - 1)
            lines[-1] = last + "…"
        content = Content("\n").join([self.head.truncate(width, ellipsis=True), *lines])
        self._fitted = (width, content)
        return content

    def render_strips(self, width: int, height: int | None, style: Style, options: RenderOptions) -> list[Strip]:
        return self.fitted(width).render_strips(width, height, style, options)

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return max(self.head.cell_length, self.title.cell_length)

    def get_height(self, rules: RulesMap, width: int) -> int:
        return self.fitted(width).get_height(rules, width)


def card(node: Node, claim: TeamClaim | None = None) -> Card:
    """A card: id, priority, assignee, and (canvas --follow) its claim on the team's remote."""
    priority = PRIORITY_MARK.get(str(node.data.get("priority") or ""))
    head = [Content.styled(node.id, "bold")]
    if priority:
        head.append(Content.styled(f"  {priority[0]}", priority[1]))
    if node.assignee:
        head.append(Content.styled(f"  @{one_line(node.assignee, 24)}", "$text-muted"))
    if mark := team_mark(claim):
        head.append(Content.styled(f"  {mark}", "$accent"))
    return Card(Content.assemble(*head), plan_text(one_line(node.title, 200)))


class BoardScreen(Screen):
    """Four status columns of cards; h/l move between columns, < and > move a card."""

    app: CanvasApp
    AUTO_FOCUS = "#board-draft"
    BINDINGS = [
        Binding("escape", "app.view('plan')", "Back to plan", id="view.back"),
        Binding("left,h", "column(-1)", "Column ←", show=False, id="board.left"),
        Binding("right,l", "column(1)", "Column →", show=False, id="board.right"),
        Binding("less_than_sign,shift+left", "move(-1)", "Move ←", id="board.move_left",
                tooltip="Move the card one column left (its status changes through the core)"),
        Binding("greater_than_sign,shift+right", "move(1)", "Move →", id="board.move_right",
                tooltip="Move the card one column right (its status changes through the core)"),
        Binding("s", "scope", "Scope", id="board.scope", tooltip="Whole plan, then each release"),
        Binding("e", "epic", "Epic", id="board.epic", tooltip="Only the epic of the highlighted card; again: whole plan"),
        Binding("o,enter", "open", "Open", id="board.open", priority=True, tooltip="Show the card in the tree"),
        Binding("g", "end(False)", "First card", show=False, id="board.first", tooltip="The column's first card"),
        Binding("G", "end(True)", "Last card", show=False, id="board.last", tooltip="The column's last listed card"),
    ]

    def __init__(self, scope: str | None = None) -> None:
        super().__init__()
        self.scope = scope
        self._cards: dict[str, list[Node]] = {}
        self._shown: dict[str, int] = {}  # cards listed per column (grows as the cursor reaches the end)

    def compose(self) -> ComposeResult:
        yield PlanHeader("Board", id="header")
        yield Static(id="board-summary", classes="view-summary")
        with Horizontal(id="board"):
            for status in COLUMNS:
                with Vertical(classes="board-column"):
                    yield Static(id=f"board-head-{status}", classes="board-head")
                    yield Listing(id=f"board-{status}", classes="board-list")
        yield KeysFooter()

    def _team(self) -> Mapping[str, TeamClaim]:
        return getattr(self.app, "team_claims", _NO_TEAM)  # canvas --follow (the same dict until a poll answers)

    def cards(self, status: str) -> tuple[Node, ...]:
        """The cards of a column as last drawn, listed or not yet (empty before the first draw)."""
        return tuple(self._cards.get(status, ()))

    def on_mount(self) -> None:
        self._pending = None
        self._drawn_version: object = None  # the plan version last drawn (a resume redraws only after a change)
        self._drawn_team: object = None  # the team's claims last drawn (canvas --follow replaces them each poll)
        self.app.plan_loaded.subscribe(self, lambda _state: self._changed())
        self.app.plan_updated.subscribe(self, self.plan_updated)
        self.call_after_refresh(self._redraw_if_changed)  # also when built in the background before a visit

    def on_screen_resume(self) -> None:
        self._redraw_if_changed()

    def _redraw_if_changed(self) -> None:
        state = self.app.state
        if state is None or state.version is not self._drawn_version or self._team() is not self._drawn_team:
            self.redraw()

    def plan_updated(self, update: PlanUpdate) -> None:
        if update.claims:  # a claim moved while the board is away: its next visit draws it
            self._drawn_team = None
        self._changed()

    def _changed(self) -> None:
        if self.is_current and self._pending is None:
            self._pending = self.set_timer(REFRESH_DELAY, self.redraw)

    def scope_label(self) -> str:
        state = self.app.state
        if not self.scope:
            return "the whole plan"
        if self.scope.startswith("@"):
            return f"release {self.scope[1:] or '(none)'}"
        node = state.nodes.get(self.scope) if state else None
        return f"{self.scope} {one_line(node.title, 60)}" if node else self.scope

    def redraw(self) -> None:
        self._pending = None
        state = self.app.state
        self.query_one(PlanHeader).show(state, self.app.live if state else None)
        if state is None:
            return
        self._drawn_version = state.version
        self._drawn_team = self._team()
        self._cards = board_cards(state, self.scope, self._team())
        total = sum(len(c) for c in self._cards.values())
        self.query_one("#board-summary", Static).update(Content.assemble(
            (f"{total} tasks", "bold"), ("  in ", "$text-muted"), plan_text(self.scope_label(), "bold $accent"),
            ("   s: release · e: epic · h/l: column · < >: move the card", "$text-muted")))
        for status in COLUMNS:
            cards = self._cards[status]
            symbol = MARKS.get(status, "·")
            self.query_one(f"#board-head-{status}", Static).update(Content.assemble(
                (f"{symbol} {status_word(status)}", f"bold {STATUS_VAR[status]}"), (f"  {len(cards)}", "$text-muted")))
            self._fill(status)

    def _fill(self, status: str) -> None:
        """List a column's first cards (as many as the cursor has reached, at least CARDS_SHOWN)."""
        cards = self._cards.get(status, [])
        listing = self.query_one(f"#board-{status}", Listing)
        keep = listing.highlighted_option.id if listing.highlighted_option else None
        shown = max(CARDS_SHOWN, self._shown.get(status, 0))
        if keep in {n.id for n in cards[shown:]}:
            shown = next(i for i, n in enumerate(cards) if n.id == keep) + CARDS_SHOWN
        self._shown[status] = shown
        team = self._team()
        options: list[Option | None] = [Option(card(n, team.get(n.id)), id=n.id) for n in cards[:shown]]
        if len(cards) > shown:
            options.append(Option(Content.styled(f"+{len(cards) - shown} more (move down to list them)",
                                                 "$text-muted"), id=f"+{status}", disabled=True))
        listing.set_options(options)
        ids = [n.id for n in cards[:shown]]
        if ids:
            listing.highlighted = ids.index(keep) if keep in ids else 0

    def on_option_list_option_highlighted(self, event: Listing.OptionHighlighted) -> None:
        """The cursor on a column's last listed card: list the next CARDS_SHOWN."""
        listing = event.option_list
        status = (listing.id or "").removeprefix("board-")
        cards = self._cards.get(status)
        shown = self._shown.get(status, 0)
        if cards is None or len(cards) <= shown or event.option_index < shown - 1:
            return
        more = cards[shown:shown + CARDS_SHOWN]
        self._shown[status] = shown + len(more)
        rest = len(cards) - self._shown[status]
        listing.remove_option(f"+{status}")
        listing.add_options([Option(card(n), id=n.id) for n in more])
        if rest > 0:
            listing.add_option(Option(Content.styled(f"+{rest} more (move down to list them)", "$text-muted"),
                                      id=f"+{status}", disabled=True))

    # --- the focused card --------------------------------------------------------

    def _focused_column(self) -> int:
        focused = self.focused
        for i, status in enumerate(COLUMNS):
            if focused is not None and focused.id == f"board-{status}":
                return i
        return 0

    def selected(self) -> Node | None:
        state = self.app.state
        listing = self.query_one(f"#board-{COLUMNS[self._focused_column()]}", Listing)
        option = listing.highlighted_option
        if state is None or option is None or option.id is None:
            return None
        return state.nodes.get(option.id)

    def action_end(self, last: bool) -> None:
        """g / G: the focused column's first or last card, as Home / End."""
        listing = self.query_one(f"#board-{COLUMNS[self._focused_column()]}", Listing)
        listing.action_last() if last else listing.action_first()

    def follow(self, node_id: str) -> None:
        """Put the cursor on a card wherever it is now (after a move: in its new column)."""
        state = self.app.state
        if state is None or not self.is_mounted:
            return
        if state.version is not self._drawn_version:
            self.redraw()
        for status in COLUMNS:
            ids = [n.id for n in self._cards.get(status, ())]
            if node_id not in ids:
                continue
            index = ids.index(node_id)
            if index >= self._shown.get(status, 0):
                self._shown[status] = index + CARDS_SHOWN
                self._fill(status)
            listing = self.query_one(f"#board-{status}", Listing)
            listing.focus()
            listing.highlighted = index
            return

    def action_column(self, step: int) -> None:
        index = max(0, min(len(COLUMNS) - 1, self._focused_column() + step))
        self.query_one(f"#board-{COLUMNS[index]}", Listing).focus()

    def action_scope(self) -> None:
        state = self.app.state
        if state is None:
            return
        scopes: list[str | None] = [None, *[f"@{r.id}" for r in state.plan.project.releases]]
        current = scopes.index(self.scope) if self.scope in scopes else -1
        self.scope = scopes[(current + 1) % len(scopes)]
        self._shown.clear()
        self.redraw()

    def set_scope(self, scope: str | None) -> None:
        self.scope = scope
        self._shown.clear()
        if self.is_mounted:
            self.redraw()

    def action_epic(self) -> None:
        state = self.app.state
        if state is None:
            return
        if self.scope and not self.scope.startswith("@"):
            self.set_scope(None)  # from an epic back to the whole plan
            return
        node = self.selected()
        if node is None:
            self.app.notify("No card to take the epic from", timeout=3)
            return
        ancestors = state.plan.ancestors(node.id)
        self.set_scope(ancestors[-1].id if ancestors else node.id)

    def action_open(self) -> None:
        node = self.selected()
        if node is not None:
            self.app.open_node(node.id)

    def action_move(self, step: int) -> None:
        node = self.selected()
        if node is None or node.status not in COLUMNS:
            return
        index = COLUMNS.index(node.status) + step
        if not 0 <= index < len(COLUMNS):
            return
        self.move(node, COLUMNS[index])

    def move(self, node: Node, to: str) -> None:
        """Change a card's status by the command the lifecycle table says the move stands for
        (`core.lifecycle.board_command`), as a person makes it (`person_command`); the cursor follows the card.

        Back from blocked (`<`) is `unblock`, with an optional note for the agent (as `u`): the card goes
        back to the status it had before it was blocked (draft or in progress), and the notice says so,
        once, from the core's answer.
        """
        command = person_command(node.status, to)
        label = f"{node.id} → {status_word(to)}"
        if command is None:
            self.app.notify(f"No command moves {node.id} from {status_word(node.status)} to {status_word(to)}.",
                            title="Not moved", severity="warning", timeout=6)
        elif command == "unblock":
            if node.open_decision is not None:
                self.app.notify(f"{node.id} waits for a decision: answer it (a, in the plan or blocked view); "
                                "answering unblocks it.", title="Not unblocked", severity="warning", timeout=8)
                return
            self.app.push_screen(unblock_prompt(node), lambda note: None if note is None
                                 else self._run(unblock_request(node, note)))
        elif command == "block":
            holder = held_by_other(self.app, node)
            taking = f"\nHeld by {holder}: blocking it ends {holder}'s hold (journaled as you)." if holder else ""
            self._ask(node, "block", "reason", label,
                      TextPrompt(f"Block {node.id}", f"{node.title}{taking}\nWhat is it waiting for?"),
                      force=bool(holder))
        elif command == "complete":
            self._ask(node, "complete", "summary", label,
                      TextPrompt(f"Complete {node.id}", f"{node.title}\nWhat was done?"))
        elif command == edit_command(to):
            if to == Status.IN_PROGRESS and self._waits(node, label):
                return
            self._run(Request("edit", {"node_id": node.id, "set": (f"status={to}",)}, label, node.id))
        else:  # unclaim, cancel: the command alone, on the card
            self._run(Request(command, {"node_id": node.id}, label, node.id))

    def _waits(self, node: Node, label: str) -> bool:
        """A card whose dependencies are not done is not put under way: say so, with the person's next step."""
        state = self.app.state
        unmet = unmet_dependencies(state.plan, node) if state is not None else []
        if not unmet:
            return False
        first = state.nodes.get(unmet[0]) if state is not None else None
        what = (f"{unmet[0]} “{one_line(first.title, 60)}” ({status_word(first.status)})" if first
                else f"{unmet[0]} (not in the plan)")
        more = f" and {len(unmet) - 1} more" if len(unmet) > 1 else ""
        self.app.notify(f"{node.id} waits on {what}{more}.\nNext: finish {unmet[0]} first, or drop the "
                        f"dependency (- on {node.id} in the plan) to start it now.", title=f"{label}: not moved",
                        severity="warning", timeout=10)
        return True

    def _ask(self, node: Node, command: str, field: str, label: str, prompt: TextPrompt, force: bool = False) -> None:
        def done(text: str | None) -> None:
            if text:
                args: dict[str, object] = {"node_id": node.id, field: text}
                if force:
                    args["force"] = True
                self._run(Request(command, args, label, node.id))

        self.app.push_screen(prompt, done)

    def _run(self, request: Request) -> None:
        """Run a card's move; once the plan shows it, the cursor is on the card in its new column."""
        node_id = request.node

        def moved(outcome) -> None:
            if not outcome.exit_code and node_id and self.is_current:
                self.follow(node_id)

        self.app.run_request(request, moved)
