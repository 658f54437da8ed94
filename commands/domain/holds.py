"""Who holds a task: leases and assignments, read under the node's lock, the refusals they give, and
`heartbeat` (extend a lease) and `unclaim` (give it up).

A lease (store/claims.py) is an agent's time-limited hold; an in-progress task assigned to an agent
without a lease is held too (by hand, no expiry). The rule of who holds what is
`readiness.hold_from` (one node, under its lock) and `picker.effective_holds` (the whole plan).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from functools import cache
from typing import Any

from leafwise.commands.contract import (
    EXIT_CONFLICT,
    EXIT_USAGE,
    CommandError,
    Mutation,
    Result,
    clean,
    fix,
    next_,
    placeholder,
    wait,
)
from leafwise.commands.core import lifecycle, readiness
from leafwise.commands.core.picker import Pick, effective_holds, pick, until
from leafwise.commands.domain.messages import carry_into
from leafwise.commands.domain.nodes import change_list, get_node, record, set_fields, write
from leafwise.commands.registry import Ctx
from leafwise.commands.text import plan_words
from leafwise.store import CLOSED, Node, Plan, Status
from leafwise.store import claims as leases
from leafwise.store import linear, reader
from leafwise.store.ids import ID_ANY_CASE_TEXT
from leafwise.store.loader import read_node_file
from leafwise.store.timestamps import to_text
from leafwise.store.writer import LockBusy, locked

MAX_TTL_MINUTES = leases.MAX_TTL_MINUTES
TTL_SETTING = leases.TTL_SETTING


def ttl_minutes(plan: Plan, ttl: float | None) -> float:
    """A lease's length: the one asked for, else the plan's claim_ttl_minutes, else 60."""
    if ttl and ttl > 0:
        return ttl
    return float(plan.project.settings.get(TTL_SETTING) or leases.DEFAULT_TTL_MINUTES)  # checked by the loader


def kept_length(claim: leases.Claim, plan: Plan) -> float:
    """The length of an agent's own lease, renewed without a --ttl: the one it took (a 1-minute lease
    stays 1 minute, so a dead agent's task comes free as soon as it promised), else the plan's."""
    try:
        minutes = (leases.parse_time(claim.expires) - leases.parse_time(claim.heartbeat)).total_seconds() / 60
    except (TypeError, ValueError, OverflowError):
        return ttl_minutes(plan, None)
    return minutes if 0 < minutes <= leases.MAX_TTL_MINUTES else ttl_minutes(plan, None)


def check_ttl(ctx: Ctx, ttl: float | None, name: str, *positional: Any, **args: Any) -> float | None:
    """A lease length in minutes: a positive finite number up to a week, or a usage error whose fix
    is command `name` with these arguments and an hour's lease."""
    if ttl is None:
        return None
    if not isinstance(ttl, (int, float)) or not math.isfinite(ttl) or not 0 < ttl <= MAX_TTL_MINUTES:
        raise CommandError("invalid_ttl", f"--ttl {ttl!s} is not a number of minutes between 0 and "
                           f"{MAX_TTL_MINUTES} (a week)",
                           fix(ctx.cmd(name, *positional, ttl=60, **args), "a lease of an hour"),
                           exit_code=EXIT_USAGE, category="usage")
    return float(ttl)


def live_claims(ctx: Ctx, plan: Plan | None = None) -> dict[str, leases.Claim]:
    """Who holds what now: live leases and lease-less assignments (see effective_holds), and in team
    mode the other clones' live claims on the remote (as this clone last fetched them)."""
    return team_holds(ctx, plan or ctx.plan())[0]


def team_holds(ctx: Ctx, plan: Plan, seen: dict | None = None) -> tuple[dict[str, leases.Claim], set[str]]:
    """The holds (this clone's leases, and in team mode the remote's claims), and the tasks a claim
    ref closes (done on a branch not merged yet, or blocked in another clone): never handed out."""
    now = ctx.clock()
    local = effective_holds(plan, leases.read_all(ctx.paths()), now)
    if not plan.project.settings.get("team"):
        return local, set()
    from leafwise.commands.team import session

    team = session.team_mode(ctx, plan)
    if team is None:
        return local, set()
    remote, closed = session.holds(team, now, seen)
    return {**remote, **local}, closed  # this clone's own lease file speaks for its own agents


def team_take(ctx: Ctx, node: Node, agent: str, ttl: float, team: tuple[Any, Any], why: str | None
              ) -> tuple[leases.Claim, str | None, str | None]:
    """Team mode's `start`: under the node's lock, the claim ref taken on the remote (create-only, or a
    steal of a claim silent here for longer than its TTL), then this clone's lease file; the YAML is
    not touched. `team`: (Team, the claims just fetched; None: offline, claimed here and pushed later).
    Returns the lease, the reason to say, and the holder it was taken from (a steal), if any."""
    from leafwise.commands.team import offline, protocol, session

    now = ctx.clock()
    paths = ctx.paths()
    try:
        with locked(paths, node.id):
            claim = leases.read(paths, node.id)
            if claim and not claim.expired(now) and claim.agent != agent:
                raise held(ctx, node, claim, agent, "start_task")
            since = claim.since if claim and claim.agent == agent else to_text(now)
            stolen = None
            if team[1] is None:
                offline.remember(team[0], node.id, agent, ttl * 60, since)
                why = (why + "; " if why else "") + "claimed offline: `team sync` pushes the claim"
            else:
                try:
                    outcome = protocol.claim(team[0], node.id, agent, ttl * 60, team[1].get(node.id), since)
                except session.TeamError as exc:
                    raise session.failed(ctx, team[0], exc, session.offline_line(ctx, node.id, agent, ttl)) from exc
                if not outcome.won:
                    raise session.lost(ctx, outcome, agent, "start_task", "start")
                if outcome.stolen_from:
                    stolen = outcome.stolen_from
                    why = (why + "; " if why else "") + f"taken from {stolen}, silent past its lease"
            return leases.write(paths, node.id, agent, now, ttl, since=since), why, stolen
    except LockBusy as exc:
        raise CommandError("lock_busy", str(exc), wait(f"the lock on {node.id} is free (a few seconds)",
                                                       "another writer is changing it"),
                           exit_code=EXIT_CONFLICT, category="conflict", source=("node", node.id)) from exc


def team_released(ctx: Ctx, plan: Plan, node: Node, agent: str | None, force: bool) -> str | None:
    """Team mode's `unclaim`: the claim ref goes to `released` (free for any clone) when this agent
    (or, forced, a person) holds it, after a fetch (the claim may be another clone's, newer than this
    clone's copy); the holder it was taken from (the caller when it was theirs), None when no claim
    was held or team mode is off."""
    if not plan.project.settings.get("team"):
        return None
    from leafwise.commands.team import protocol, session

    team = session.team_mode(ctx, plan)
    if team is None:
        return None
    session.fetched(ctx, team, None)
    who = agent or ctx.person()
    try:
        outcome = protocol.move(team, node.id, who, "released", force=force)
    except session.TeamError as exc:
        raise session.failed(ctx, team, exc) from exc
    if outcome.won:
        return outcome.stolen_from or who
    if outcome.why == "none" or (outcome.state and outcome.state.state != "held"):
        return None
    raise session.lost(ctx, outcome, agent, "unclaim_task", "unclaim")


def team_move(ctx: Ctx, plan: Plan, node: Node, agent: str | None, to: str, tool: str, verb: str,
              ttl_minutes_: float | None = None, force: bool = False) -> Any:
    """Team mode: move the task's claim ref to `to` ("held" for a heartbeat, "done", "released",
    "blocked") before the step touches the YAML; refused (exit 3) when another clone holds it now.
    None when team mode is off. A person (no agent) acts as themselves; `force` is a person's override."""
    if not plan.project.settings.get("team"):
        return None
    from leafwise.commands.team import protocol, session

    team = session.team_mode(ctx, plan)
    if team is None:
        return None
    who = agent or ctx.person()
    try:
        outcome = protocol.move(team, node.id, who, to, ttl_minutes_ * 60 if ttl_minutes_ else None, force,
                                since=to_text(ctx.clock()))
    except session.TeamError as exc:
        raise session.failed(ctx, team, exc, _again(ctx, verb, node.id, agent)) from exc
    if not outcome.won:
        raise session.lost(ctx, outcome, agent, tool, verb)
    return outcome


def _again(ctx: Ctx, verb: str, node_id: str, agent: str | None) -> str:
    """The step's own line, to run once the remote answers: the agent kept, its required texts as
    placeholders (the agent wrote them; a hint never carries a value it did not give)."""
    from leafwise.commands.contract import placeholder
    from leafwise.commands.registry import load_word

    spec = load_word(verb)[verb]
    required = [p for p in spec.params if p.required and not p.positional]
    texts = {p.name: placeholder(p.name) for p in required if p.name != "agent"}
    named = any(p.name == "agent" for p in required)
    return ctx.cmd(verb, node_id, agent=agent or (placeholder("agent") if named else None), **texts)


def pick_for(ctx: Ctx, agent: str | None, plan: Plan | None = None, **kw: Any) -> Pick:
    """The picker's answer for `agent`, never handing out a parent whose child file does not load, nor
    (team mode) a task its claim ref closes."""
    plan = plan or ctx.plan()
    holds, closed = team_holds(ctx, plan)
    if plan.problems or closed:
        kw["exclude"] = set(kw.get("exclude") or ()) | (unreadable_parents(plan) - {None}) | closed
    return pick(plan, holds, agent, **kw)


_HEAD = 100_000


@cache
def _parent_lines() -> tuple[Any, Any]:
    """The parent line of a node file that does not load, and a top-level one's: on RE2 (linear), built
    only when such a file is there. On Python's `re`, `^parent:\\s*(null|~)?\\s*$` tried every split of
    a run of blanks: `parent:` + 99,000 spaces + `x` in one cloned file made `next` take 21 s of CPU."""
    return (linear.compile(rf"^parent:\s*['\"]?({ID_ANY_CASE_TEXT})['\"]?\s*(#.*)?$", re.M),
            linear.compile(r"^parent:\s*(null|~)?\s*$", re.M))


def unreadable_parents(plan: Plan) -> set[str | None]:
    """The parents named by node files that do not load (None: a file whose parent cannot be told)."""
    out: set[str | None] = set()
    for problem in plan.problems:
        if not problem.file or not problem.file.endswith(".yaml") or "/nodes/" not in f"/{problem.file}":
            continue
        try:  # the head of the file is enough to find its parent line
            text = reader.decode(reader.read_bytes(plan.paths.repo / problem.file, reader.NODE,
                                                   under=plan.paths.repo, cap=_HEAD))[:_HEAD]
        except reader.Refused:
            out.add(None)  # a link, a device, a FIFO: never read, so its parent cannot be told
            continue
        except (OSError, ValueError):
            continue
        parent_line, top_level = _parent_lines()
        found = parent_line.findall(text)
        if top_level.search(text) and not found:
            continue  # a top-level node: no parent to hold open
        out.update(m[0].upper() for m in found) if found else out.add(None)
    return out


def other_work(ctx: Ctx, agent: str | None) -> str:
    """The line that hands an agent another task (`next` when no agent is named)."""
    return ctx.cmd("start", agent=agent, next=True) if agent else ctx.cmd("next")


def conflict(ctx: Ctx, code: str, message: str, node: Node, agent: str | None, tool: str,
             action=None) -> CommandError:
    """Exit 3: this task cannot take the step now; the fix is other work."""
    return CommandError(code, message, action or fix(other_work(ctx, agent), "take another task"),
                        exit_code=EXIT_CONFLICT, category="conflict", source=("node", node.id),
                        mutation=Mutation(tool, code, False, message))


def held(ctx: Ctx, node: Node, claim: leases.Claim, agent: str | None, tool: str,
         forced: str | None = None) -> CommandError:
    """Exit 3 with `Wait:` for the lease; `Or:` other work for an agent, `forced` (the command line
    with --force) for a person."""
    alt = other_work(ctx, agent) if ctx.for_agent else forced
    message = f"{node.id} is held by {plan_words(claim.agent, 80)} {until(claim)}"
    return CommandError("claim_held", message,
                        wait(f"{plan_words(claim.agent, 80)} holds {node.id} {until(claim)}", "held by another agent",
                             or_=alt),
                        exit_code=EXIT_CONFLICT, category="held_by_other_agent", source=("node", node.id),
                        details={"holder": claim.agent, "expires": claim.expires},
                        mutation=Mutation(tool, "claim_held", False, message))


def holding(ctx: Ctx, node: Node, now) -> leases.Claim | None:
    """Who holds the node now, its lease and file read under its lock (the rule of `readiness.hold_from`)."""
    paths = ctx.paths()
    lease = leases.read(paths, node.id)
    data = {} if lease is not None else read_node_file(paths.node_file(node.id)).data or {}
    return readiness.hold_from(node.id, lease, now, data.get("status"), data.get("assignee"), not node.children)


def guard_hold(ctx: Ctx, node: Node, agent: str | None, force: bool, tool: str, forced_line: str) -> str | None:
    """Refuse to touch a task another agent holds unless a person (a call with no agent) forces it
    (`forced_line`: the command line with --force).

    Call under the node's lock. Returns the holder overridden by --force (to journal), else None.
    """
    claim = holding(ctx, node, ctx.clock())
    if claim is None or claim.agent == agent:
        return None
    if not force:
        raise held(ctx, node, claim, agent, tool, forced_line)
    return claim.agent


def give_back(ctx: Ctx, node: Node, names: set[str] | None) -> dict[str, tuple[Any, Any]]:
    """Return a task to the picker: in progress → draft, and its assignee cleared when it
    is one of `names` (None: whoever it is). The caller holds the node's lock.

    The node is written before the lease file goes: a crash in between leaves
    a lease that expires, never an in-progress task assigned to nobody's lease.
    """
    def reset(doc: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
        values: dict[str, Any] = {}
        if row := lifecycle.transition("unclaim", doc.get("status")):
            values["status"] = row.target
        if doc.get("assignee") is not None and (names is None or doc.get("assignee") in names):
            values["assignee"] = None
        return set_fields(doc, values) if values else {}

    changes = write(ctx, node, reset, lock=False)
    leases.remove(ctx.paths(), node.id)
    return changes


@contextmanager
def pick_lock(ctx: Ctx) -> Iterator[None]:
    """The plan's pick lock. `start --next` chooses under it, a parent is claimed under it and a
    completion closes its ancestors under it: so no agent is handed a parent in the moment between
    its last child's completion and the cascade that closes it."""
    stack = ExitStack()
    try:
        stack.enter_context(locked(ctx.paths(), "pick"))
    except LockBusy as exc:
        raise CommandError("lock_busy", str(exc), wait("the pick lock is free (a few seconds)",
                                                       "other agents are taking or finishing work"),
                           exit_code=EXIT_CONFLICT, category="conflict") from exc
    with stack:
        yield


def _agent_named(ctx: Ctx, agent: str | None, name: str, node_id: str) -> str:
    agent = clean(agent, 80) if agent else ""
    if not agent:
        raise CommandError("missing_agent", "--agent must name the agent",
                           fix(ctx.cmd(name, node_id, agent=placeholder("agent")), "say who holds the lease"),
                           exit_code=EXIT_USAGE, category="usage")
    return agent


def lease_held(ctx: Ctx, node_id: str, holder: str, expires: str, agent: str | None, tool: str,
               note: str = "") -> CommandError:
    """Exit 3: another agent's live lease (or hand assignment); wait for it, or take other work."""
    until_text = f"until {expires}" if expires else "(assigned, no lease)"
    message = f"{node_id} is held by {plan_words(holder, 80)} {until_text}{note}"
    return CommandError("claim_held", message, wait(f"{plan_words(holder, 80)} holds {node_id} {until_text}",
                                                    "held by another agent",
                                                    or_=ctx.cmd("next", agent=agent)),
                        exit_code=EXIT_CONFLICT, category="held_by_other_agent", source=("node", node_id),
                        details={"holder": holder, "expires": expires or None},
                        mutation=Mutation(tool, "claim_held", False, message))


def heartbeat(ctx: Ctx, node_id: str, agent: str, ttl: float | None = None) -> Result:
    """Extend `agent`'s lease on the task it works on (a lapsed lease of its own is taken again)."""
    plan = ctx.plan()
    node = get_node(ctx, node_id, plan)
    agent = _agent_named(ctx, agent, "heartbeat", node_id)
    paths, now = ctx.paths(), ctx.clock()
    with locked(paths, node_id):
        claim = leases.read(paths, node_id)
        minutes = ttl_minutes(plan, ttl) if ttl or claim is None or claim.agent != agent else kept_length(claim, plan)
        if claim and not claim.expired(now) and claim.agent != agent:
            raise lease_held(ctx, node_id, claim.agent, claim.expires, agent, "heartbeat_task")
        fresh = read_node_file(paths.node_file(node_id)).data or {}
        status, assignee = fresh.get("status"), fresh.get("assignee")
        if status not in CLOSED and team_move(ctx, plan, node, agent, "held", "heartbeat_task", "heartbeat",
                                              minutes) is not None:
            status, assignee = Status.IN_PROGRESS, agent  # the claim ref is the status in team mode
        if status in CLOSED:
            raise CommandError("closed", f"{node_id} is {status}; there is no lease to extend",
                               fix(ctx.cmd("next", agent=agent), "take the next task"),
                               exit_code=EXIT_CONFLICT, category="conflict", source=("node", node_id),
                               mutation=Mutation("heartbeat_task", "heartbeat", False, f"node {status}"))
        ours = claim is not None and claim.agent == agent
        if not ours and not (status == Status.IN_PROGRESS and assignee == agent):
            hold = readiness.hold_from(node_id, claim, now, status, assignee, not node.children)
            if claim is None and hold is not None:
                raise lease_held(ctx, node_id, hold.agent, "", agent, "heartbeat_task")
            raise CommandError("not_claimed", f"{agent} holds no lease on {node_id}; start it first",
                               fix(ctx.cmd("start", node_id, agent=agent), "take the lease"),
                               exit_code=EXIT_CONFLICT, category="conflict", source=("node", node_id),
                               mutation=Mutation("heartbeat_task", "heartbeat", False, "no lease to extend"))
        renewed = leases.write(paths, node_id, agent, now, minutes, since=claim.since if ours else None)
    record(ctx, "heartbeat", node_id, {}, actor=agent, claim_expires=renewed.expires)
    lapsed = " (the lapsed lease is taken again)" if claim is None or claim.expired(now) else ""
    return carry_into(ctx, Result({"id": node_id, "claim": renewed.as_dict()},
                  next_(ctx.cmd("complete", node_id, summary=placeholder("summary"), agent=agent),
                        f"lease until {renewed.expires}: heartbeat again before then",
                        or_=ctx.cmd("heartbeat", node_id, agent=agent)),
                  [f"{agent} holds {node_id} {node.title!r} until {renewed.expires}{lapsed}"],
                  Mutation("heartbeat_task", "heartbeat", True, "lease extended",
                           [{"id": node_id, "field": "claim.expires", "from": claim.expires if claim else None,
                             "to": renewed.expires}])), node, agent)  # the person's words on the task it keeps


def unclaim(ctx: Ctx, node_id: str, agent: str | None = None, force: bool = False) -> Result:
    """Give up the lease on a task (another's live lease only with `force`); it goes back to draft."""
    plan = ctx.plan()
    node = get_node(ctx, node_id, plan)
    agent = clean(agent, 80) if agent else None
    force = ctx.overrides(force)
    paths, now = ctx.paths(), ctx.clock()
    with locked(paths, node_id):
        claim = leases.read(paths, node_id)
        fresh = read_node_file(paths.node_file(node_id)).data or {}
        hold = readiness.hold_from(node_id, claim, now, fresh.get("status"), fresh.get("assignee"), not node.children)
        if claim is not None:
            holder, expires, live = claim.agent, claim.expires, hold is not None
        elif hold is not None:
            holder, expires, live = hold.agent, "", True  # assigned by hand: held, no expiry
        else:
            holder, expires, live = None, "", False
        if live and holder != agent and not force:  # the override is a person's: never told to an agent
            raise lease_held(ctx, node_id, str(holder), expires, agent, "unclaim_task", "" if ctx.for_agent else
                             f" (a person can take it back: {ctx.cmd('unclaim', node_id, force=True)})")
        released_from = team_released(ctx, plan, node, agent, force)
        holder = holder or released_from
        changes = give_back(ctx, node, None if force else {n for n in (holder, agent) if n})
    applied = claim is not None or bool(changes) or released_from is not None
    if applied:
        record(ctx, "unclaim", node_id, changes, actor=agent, holder=holder,
               forced=bool(force and live and holder != agent) or None)
    listed = change_list(node_id, changes)
    if claim is not None or released_from is not None:
        listed.append({"id": node_id, "field": "claim", "from": holder, "to": None})
    what = (f"{plan_words(holder, 80)}'s lease on {node_id} given up" if holder else f"{node_id} had no lease") + \
        ("; back to draft" if "status" in changes else "")
    return Result({"id": node_id, "holder": holder, "status": changes.get("status", (None, fresh.get("status")))[1],
                   "changes": listed},
                  next_(ctx.cmd("next", agent=agent), "the task is free for the picker"),
                  [what], Mutation("unclaim_task", "unclaim", applied, what if applied else "nothing held it",
                                   listed))
