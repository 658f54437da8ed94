"""The line that always says what the picker would hand out now, and who holds what."""

from __future__ import annotations

from datetime import datetime

from leafwise.canvas.look import STATUS_VAR, clock, inert_content
from leafwise.canvas.model.state import PlanState
from leafwise.canvas.widgets.messages import NodeRequest
from leafwise.canvas.widgets import team_mark
from leafwise.canvas.widgets.plan_header import stuck_work
from leafwise.canvas.widgets.team_mark import with_team
from leafwise.commands.core.hints import pick_hint
from leafwise.commands.core.picker import pick
from leafwise.commands.domain.team_reads import added_there_wait, merge_wait_for
from leafwise.commands.registry import command_line
from leafwise.commands.team.status import merge_waiting
from leafwise.commands.text import one_line, path_line
from leafwise.store import Status
from leafwise.store.timestamps import utc_now
from textual.content import Content
from textual.widgets import Static

SHOWN_HOLDS = 4


class NextTaskBar(Static):
    """`Next ▸ SHOP-18 Delete my account (GDPR) · Accounts › Customer profile` and the held tasks.

    Two terminal lines, each cut with an ellipsis: a long title never wraps onto the held line.
    """

    DEFAULT_CSS = """
    NextTaskBar { text-wrap: nowrap; text-overflow: ellipsis; }
    """

    class OpenNode(NodeRequest):
        """Open this node in the plan."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.next_id: str | None = None

    def show(self, state: PlanState, now: datetime | None = None) -> None:
        now = now or utc_now()
        team = getattr(self.app, "team_claims", {})  # canvas --follow: other clones' claims count as `next` counts them
        claims, closed = with_team(state.refresh_claims(now), team, now)
        chosen = pick(state.plan, claims, None, exclude=closed)
        self.next_id = chosen.node.id if chosen.node else None
        if chosen.node is not None:
            node = chosen.node
            path = path_line([one_line(a.title, 80) for a in reversed(state.plan.ancestors(node.id))])
            first = Content.assemble(("Next ▸ ", "bold $primary"), (node.id, "bold"), " ", one_line(node.title),
                                     (f"   {path}" if path else "", "$text-muted"))
        else:  # nothing left but tasks done on other clones' branches, none held: the Wait `next` gives
            action = merge_wait_for(merge_waiting(team.values(), state.plan))[1] \
                or pick_hint(command_line, chosen, None)  # type: ignore[arg-type]
            upstream = getattr(self.app, "team_upstream", None)  # canvas --follow: the default branch
            if action.marker == "done" and upstream is not None and (added := upstream.open_there(state.plan)):
                action = added_there_wait(upstream.name, added)
            if action.marker == "done":
                first = Content.assemble(("Done. ", "bold $status-done"), (one_line(chosen.reason), "$text-muted"))
            elif action.marker == "wait":
                first = Content.assemble(("Wait: ", "bold $warning"), one_line(action.condition))
            else:
                first = Content.assemble(("Next: ", "bold $primary"), one_line(action.command),
                                         (f"   {one_line(chosen.reason)}", "$text-muted"))
        held = sorted(claims.values(), key=lambda c: (not c.expires, c.expires, c.node))
        second: list[Content] = []
        if held:
            items = []
            for claim in held[:SHOWN_HOLDS]:
                node = state.nodes.get(claim.node)
                title = f" {one_line(node.title)}" if node is not None and len(held) == 1 else ""
                until = f" until {clock(claim.expires)}" if claim.expires and len(held) <= 2 else ""
                who = f"⚑ {team_mark.holder(team[claim.node])}" if claim.node in team and "@" in claim.agent \
                    else f"@{one_line(claim.agent, 80)}"  # another clone's claim reads as the tree marks it
                items.append(Content.assemble((claim.node, STATUS_VAR[Status.IN_PROGRESS]), title, " ",
                                              (who, "bold"), (until, "$text-muted")))
            more = Content.styled(f" +{len(held) - SHOWN_HOLDS} more", "$text-muted") \
                if len(held) > SHOWN_HOLDS else Content("")
            second.append(Content.assemble(("Held ", "$text-muted"), Content(" · ").join(items), more))
        else:
            second.append(Content.styled("No task is held by an agent right now", "$text-muted"))
        blocked = stuck_work(state)  # the header's count and the blocked view's list
        decisions = sum(1 for r in blocked if r.decision)
        if blocked:
            second.append(Content.styled(f"   ⊘ {len(blocked)} blocked", "$status-blocked"))
        if decisions:
            second.append(Content.styled(f"   ? {decisions} decision{'s' if decisions > 1 else ''} for you",
                                         "bold $status-decision"))
        self.update(inert_content(Content("\n").join([first, Content.assemble(*second)])), layout=False)  # always two lines

    def on_click(self) -> None:
        if self.next_id:
            self.post_message(self.OpenNode(self.next_id))
