"""Agents at a glance: a lane per agent with its task, since when, its last heartbeat, stale or idle.

An agent's heartbeat is its own newest journal event on the task (start, heartbeat, a comment…),
never the lease file's time alone: a person's answer or unblock writes the lease afresh for the
agent, and that is no sign of the agent (an agent silent for days must not look alive).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from functools import lru_cache

from leafwise.canvas import look
from leafwise.canvas.look import ago, plan_text
from leafwise.canvas.model.state import PlanState
from leafwise.canvas.screens.view import ViewScreen
from leafwise.canvas.widgets.team_mark import TeamClaim, holder
from leafwise.commands.text import one_line
from leafwise.store import CLOSED, PlanPaths, journal
from leafwise.store.timestamps import parse, to_text
from textual import on
from textual.binding import Binding
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

STALE_AFTER = 15 * 60  # seconds without a heartbeat before a lane is called stale
SEEN_EVENTS = 200  # a task's newest journal events searched for its agent's own
NOT_SEEN = ""  # a leased task on which its agent has no event of its own: no heartbeat to show


@dataclass
class Lane:
    agent: str
    # id, title, since, beat (None: no lease; NOT_SEEN: leased, no event of the agent's own)
    tasks: list[tuple[str, str, str | None, str | None]] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)
    team: bool = False  # an agent of another clone, seen through its claims on the remote (canvas --follow)
    silent: bool = False  # (team) a claim of its unchanged here for longer than its TTL

    @property
    def state(self) -> str:
        if not self.tasks:
            return "idle"
        if self.team:
            return "stale" if self.silent else "working"
        beats = [parse(t[3]) if t[3] else None for t in self.tasks if t[3] is not None]
        if beats and all(b is None or (look.display_now() - b).total_seconds() > STALE_AFTER for b in beats):
            return "stale"
        return "working"


def own_heartbeat(paths: PlanPaths, node_id: str, agent: str, lease_beat: str) -> str:
    """When `agent` last showed itself on `node_id`: the time of its own newest journal event there;
    the lease's time when the journal holds no event of the node at all (trimmed or gone); else NOT_SEEN."""
    try:
        stat = paths.journal.stat()
    except OSError:
        return lease_beat
    found = _own_heartbeat((stat.st_size, stat.st_mtime_ns), paths, node_id, agent)
    return lease_beat if found is None else found


@lru_cache(maxsize=256)
def _own_heartbeat(_mark: tuple[int, int], paths: PlanPaths, node_id: str, agent: str) -> str | None:
    """The search (None: the node has no event), kept while the journal is unchanged (its size and
    time: `_mark`), so a redraw reads nothing."""
    events = journal.read(paths, node=node_id, limit=SEEN_EVENTS)
    times = [e["time"] for e in events if e.get("actor") == agent and isinstance(e.get("time"), str)]
    return times[-1] if times else NOT_SEEN if events else None


def lanes(state: PlanState, team: Mapping[str, TeamClaim] | None = None) -> list[Lane]:
    """One lane per agent holding or assigned open work (held first, then by name); with `team` (canvas
    --follow) also one per agent of another clone holding or blocking a task there (`agent@clone`)."""
    claims = state.refresh_claims(look.display_now())
    out: dict[str, Lane] = {}
    _team_lanes(state, team or {}, set(claims), out)
    for node_id, claim in claims.items():
        node = state.nodes.get(node_id)
        if node is None or node.status in CLOSED:
            continue
        lane = out.setdefault(claim.agent, Lane(claim.agent))
        beat = own_heartbeat(state.paths, node.id, claim.agent, claim.heartbeat) if claim.heartbeat else None
        lane.tasks.append((node.id, node.title, claim.since, beat))
    for node in state.nodes.values():
        if node.assignee and not node.children and node.status == "blocked":
            out.setdefault(node.assignee, Lane(node.assignee)).blocked.append(node.id)
        elif node.assignee and not node.children and node.status == "in-progress" and node.id not in claims:
            out.setdefault(node.assignee, Lane(node.assignee)).tasks.append(
                (node.id, node.title, str(node.data.get("updated") or ""), None))
    return sorted(out.values(), key=lambda lane: (not lane.tasks, lane.agent))


def _team_lanes(state: PlanState, team: Mapping[str, TeamClaim], leased: set[str], out: dict[str, Lane]) -> None:
    """Lanes of the team's claims; a task this clone leases is left to its own lane (its lease speaks)."""
    now = look.display_now()
    for node_id in sorted(team):
        claim = team[node_id]
        node = state.nodes.get(node_id)
        if node is None or node_id in leased or node.status in CLOSED or claim.state not in ("held", "blocked"):
            continue
        who = holder(claim)
        lane = out.setdefault(who, Lane(who, team=True))
        if claim.state == "blocked":
            lane.blocked.append(node_id)
            continue
        seen = to_text(now - timedelta(seconds=max(0.0, claim.age_seconds)))
        lane.tasks.append((node_id, node.title, None, seen))
        lane.silent = lane.silent or claim.stale


def _task_words(lane: Lane, since: str | None, beat: str | None) -> str:
    if lane.team:  # the holder's clock is never read: only how long this machine has seen the claim as it is
        return f" · claim last moved {ago(beat)} (as seen here)" + (" · silent past its TTL" if lane.silent else "")
    beat_text = f" · heartbeat {ago(beat)}" if beat else " · no heartbeat of its own" if beat == NOT_SEEN \
        else " · no lease"
    return f" · started {ago(since)}{beat_text}"


class AgentsScreen(ViewScreen):
    VIEW_TITLE = "Agents"
    AUTO_FOCUS = "#agents-list"
    VIEW_ID = "agents"
    BINDINGS = [Binding("o,enter", "open", "Open", id="agents.open", priority=True,
                        tooltip="Show the agent's task in the tree")]

    def redraw(self, state: PlanState) -> None:
        found = lanes(state, getattr(self.app, "team_claims", None))
        listing = self.query_one("#agents-list", OptionList)
        working = sum(1 for lane in found if lane.state == "working")
        stale = sum(1 for lane in found if lane.state == "stale")
        self.query_one("#agents-summary", Static).update(Content.assemble(
            (f"{len(found)} agents", "bold"), (f"   {working} working", "$status-active"),
            (f"   {stale} stale", "$status-blocked" if stale else "$text-muted"),
            ("   (stale: no heartbeat for 15 minutes)", "$text-muted")))
        options: list[Option | None] = []
        for lane in found:
            colour = {"working": "$status-active", "stale": "$status-blocked", "idle": "$text-muted"}[lane.state]
            lines = [Content.assemble((f"● {lane.state:<8}", colour), " ", plan_text(one_line(lane.agent, 40), "bold"))]
            for node_id, title, since, beat in lane.tasks:
                lines.append(Content.assemble("   ", (node_id, "bold"), "  ", plan_text(one_line(title, 100)),
                                              (_task_words(lane, since, beat), "$text-muted")))
            if lane.blocked:
                lines.append(Content.styled(f"   blocked: {', '.join(lane.blocked[:8])}", "$status-blocked"))
            first = lane.tasks[0][0] if lane.tasks else (lane.blocked[0] if lane.blocked else None)
            options += [Option(Content("\n").join(lines), id=first and f"{lane.agent}\0{first}"), None]
        listing.set_options(options[:-1])
        if found:
            listing.highlighted = 0

    def action_open(self) -> None:
        option = self.query_one("#agents-list", OptionList).highlighted_option
        if option is not None and option.id and "\0" in option.id:
            self.app.open_node(option.id.split("\0", 1)[1])

    @on(OptionList.OptionSelected, "#agents-list")
    def selected(self) -> None:
        self.action_open()
