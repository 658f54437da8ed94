"""Taking work: `next` (which task now), `start ID` and `start --next` (claim it, under its lock)."""

from __future__ import annotations

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
from leafwise.commands.core.hints import blocker_hint, owed_hint, pick_hint
from leafwise.commands.core.picker import Pick, pick
from leafwise.commands.core.views import task_view
from leafwise.commands.domain import team_reads
from leafwise.commands.domain.holds import (
    check_ttl,
    conflict,
    held,
    holding,
    other_work,
    pick_for,
    pick_lock,
    team_holds,
    team_take,
    ttl_minutes,
    unreadable_parents,
)
from leafwise.commands.domain.messages import carry, carry_pick
from leafwise.commands.domain.nodes import (
    cascade_changes,
    change_list,
    get_node,
    move_status,
    record,
    require_project,
    set_fields,
    write,
)
from leafwise.commands.registry import Ctx
from leafwise.commands.text import path_line
from leafwise.store import CLOSED, Node, Plan, Status
from leafwise.store import claims as leases
from leafwise.store.loader import read_node_file
from leafwise.store.writer import LockBusy, locked, scalar_edits


def task_lines(view: dict[str, Any]) -> list[str]:
    """A task view's inherited docs, as text lines (its words: `messages.carry`)."""
    if view.get("inherited_docs"):
        return ["  docs from above: " + ", ".join(f"{d['path']} ({d['from']})" for d in view["inherited_docs"])]
    return []


def next_view(plan: Plan, chosen: Pick) -> dict[str, Any] | None:
    """The picked task's view, for the `next` field of a mutation's answer."""
    return task_view(plan, chosen.node) if chosen.node else None


def next_task(ctx: Ctx, agent: str | None = None, explain: bool = False, wait: float | None = None) -> Result:
    """The task to work on now, with why, and (explain) why the nearest others were passed over;
    `wait`: seconds to block until there is one (`domain/waiting.py`)."""
    if wait is None:  # the hot path: no waiting module, no watch
        return _next_once(ctx, agent, explain)[0]
    from leafwise.commands.domain import waiting

    seconds = waiting.check_wait(ctx, wait, "next", agent=agent, explain=explain or None)
    return waiting.until_work(ctx, seconds, lambda: _next_once(ctx, agent, explain))


def _next_once(ctx: Ctx, agent: str | None, explain: bool) -> tuple[Result, Pick]:
    plan = ctx.plan()
    team = bool(plan.project.settings.get("team"))
    stale = team_reads.refresh(ctx, plan) if team else None  # other clones' claims, fetched once
    chosen = pick_for(ctx, agent, plan, explain=explain)
    hint = pick_hint(ctx.cmd, chosen, agent)
    result: dict[str, Any] = {"task": task_view(plan, chosen.node) if chosen.node else None,
                              "reason": chosen.reason, "resumed": chosen.resumed,
                              "open": chosen.open_count,
                              "blocked": [n.id for n in chosen.blocked[:20]],
                              "held": [{"id": n.id, "agent": c.agent, "expires": c.expires}
                                       for n, c in chosen.held[:20]]}
    if explain:
        result["passed_over"] = chosen.passed
    lines: list[str] = []
    if chosen.node:
        path = path_line([clean(a["title"], 80) for a in result["task"]["ancestors"]])
        lines.append(f"{chosen.node.id}  {clean(chosen.node.title)}" + (f"   ({clean(path, 300)})" if path else ""))
        lines.append(f"  why: {chosen.reason}")
        lines += carry_pick(ctx, plan, chosen, result["task"], agent)
        lines += task_lines(result["task"])
    else:
        lines.append(f"No task to hand out: {chosen.reason}")
    for item in chosen.passed:
        lines.append(f"  passed over {item['id']} “{clean(item['title'])}”: {clean(item['why'])}")
    if team:
        result["claims"] = team_reads.claims_read(ctx, plan, stale)
        lines += [f"  {stale}"] if stale else []
        notes, own, ids = team_reads.unfinished_notes(ctx, plan, agent)
        lines += notes
        if ids:
            result["unfinished"] = ids
        if chosen.node is None and not own:
            merged, waiting_on = team_reads.merge_wait(ctx, plan)
            lines = team_reads.cause_first(lines, merged) if waiting_on else lines + merged
            result["reason"] = team_reads.lead_reason(chosen.reason, merged if waiting_on else [])
            hint = waiting_on or hint
        hint = own or hint  # an outcome the claim already promises comes before new work
    return Result(result, hint, lines), chosen


def start(ctx: Ctx, node_id: str | None = None, agent: str = "", ttl: float | None = None,
          next: bool = False, wait: float | None = None, offline: bool = False) -> Result:  # noqa: A002
    """Claim `node_id` (or, with `next`, the picker's task) for `agent` and mark it in progress;
    `wait` (with `next`): seconds to block until there is a task to claim; `offline` (team mode): claim
    in this clone only, pushed create-only by `team sync` later."""
    agent = clean(agent, 80) if agent else ""
    again = (node_id,) if node_id and not next else ()
    if not agent:
        raise CommandError("missing_agent", "--agent must name the agent",
                           fix(ctx.cmd("start", *again, agent=placeholder("agent"), next=not again),
                               "say who works on it"),
                           exit_code=EXIT_USAGE, category="usage")
    ttl = check_ttl(ctx, ttl, "start", *again, agent=agent, next=not again)
    if next and node_id:
        raise CommandError("usage", "give a node id or --next, not both",
                           fix(other_work(ctx, agent), "let the picker choose"),
                           exit_code=EXIT_USAGE, category="usage")
    if not next and not node_id:
        raise CommandError("missing_argument", "start needs a node id or --next",
                           fix(other_work(ctx, agent), "let the picker choose"),
                           exit_code=EXIT_USAGE, category="usage")
    if wait is not None:
        from leafwise.commands.domain import waiting

        seconds = waiting.check_wait(ctx, wait, "start", agent=agent, ttl=ttl, next=True)
        if not next:
            raise CommandError("usage", "--wait waits for the picker's next task: it goes with --next",
                               fix(ctx.cmd("start", agent=agent, ttl=ttl, next=True, wait=wait),
                                   "wait for any task"),
                               exit_code=EXIT_USAGE, category="usage")
        return waiting.until_work(ctx, seconds, lambda: _start_next(ctx, agent, ttl, offline))
    if next:
        return _start_next(ctx, agent, ttl, offline)[0]
    plan = ctx.plan()
    node = get_node(ctx, node_id, plan)
    team = _team(ctx, plan, offline, node.id, agent, ttl)
    if not node.children:
        return _claim(ctx, plan, node, agent, ttl, team=team)
    with pick_lock(ctx):  # a parent: judge its children as they are once no cascade is half done
        plan = ctx.plan(fresh=True)
        return _claim(ctx, plan, get_node(ctx, node.id, plan), agent, ttl, team=team)


def _team(ctx: Ctx, plan: Plan, offline: bool, node_id: str | None, agent: str, ttl: float | None) -> Any:
    """Team mode's state for a claim: (Team, the claims just fetched), "offline" (claim in this clone,
    pushed later), or None: team mode is off."""
    if not plan.project.settings.get("team"):
        return None
    from leafwise.commands.team import session

    team = session.team_mode(ctx, plan)
    if team is None:
        return None
    if offline:
        return (team, None)
    return (team, session.fetched(ctx, team, session.offline_line(ctx, node_id, agent, ttl)))


LOST_RACE = {"claim_held", "status_changed", "lock_busy", "closed", "blocked", "has_open_children", "cascade_owed",
             "dependency_open"}


def _start_next(ctx: Ctx, agent: str, ttl: float | None, offline: bool = False) -> tuple[Result, Pick | None]:
    """Pick and claim under the plan's pick lock; a task lost to a writer outside it (in team mode: to
    another clone on the remote) is skipped. With the answer, the pick when there was nothing to claim
    (what a wait waits on)."""
    skipped: set[str] = set()
    with pick_lock(ctx):
        plan = ctx.plan(fresh=True)  # the one load: the picks below judge the plan as it is under the lock
        require_project(ctx, plan, "start --next")  # before a fetch or a cascade writes anything
        team = _team(ctx, plan, offline, None, agent, ttl)
        notes = team_reads.unfinished_notes(ctx, ctx.plan(), agent)[0] if team else []  # after the fetch
        owed = _close_owed(ctx, agent)
        notes = [f"  cascade: {c['id']} “{clean(c['title'])}” {c['from']} → {c['to']} (every child is closed)"
                 for c in owed] + notes
        for attempt in range(50):
            # the plan loaded under the lock is the first pick's; a fetch (team mode) or a lost race
            # may have changed the files since, so those read them again
            plan = ctx.plan(fresh=bool(attempt or team))
            if team and team[1] is not None and skipped:  # a lost race fetched again: see what it saw
                from leafwise.commands.team import protocol

                team = (team[0], protocol.snapshot(team[0]))
            claims, closed = team_holds(ctx, plan, team[1] if team else None)
            chosen = pick(plan, claims, agent, exclude=(unreadable_parents(plan) - {None}) | skipped | closed)
            if team and (own := _own_task(plan, claims, agent, skipped | closed)) is not None:
                chosen = Pick(own, f"your task in progress: resume {own.id}", resumed=True)  # the YAML says draft
            if chosen.node is None:
                merged, waiting_on = team_reads.merge_wait(ctx, plan) if team else ([], None)
                reason = team_reads.lead_reason(chosen.reason, merged)
                return Result({"task": None, "reason": reason, "open": chosen.open_count,
                               "claim": None, "cascade": [], "closed": owed},
                              waiting_on or pick_hint(ctx.cmd, chosen, agent),
                              team_reads.cause_first([f"No task to hand out: {chosen.reason}", *notes], merged),
                              Mutation("start_task", "start", bool(owed), reason, cascade_changes(owed))), chosen
            try:
                claimed = _claim(ctx, plan, chosen.node, agent, ttl, why=chosen.reason, team=team)
                claimed.text.extend(notes)
                if owed:
                    claimed.result["closed"] = owed
                    if claimed.mutation is not None:
                        claimed.mutation.changes.extend(cascade_changes(owed))
                return claimed, None
            except CommandError as exc:
                if exc.code not in LOST_RACE:
                    raise
                skipped.add(chosen.node.id)
                ctx.forget()
    raise CommandError("lock_busy", "every candidate changed while being claimed",
                       wait("the plan settles (a few seconds)", "many writers at once"),
                       exit_code=EXIT_CONFLICT, category="conflict")


def _close_owed(ctx: Ctx, agent: str) -> list[dict[str, Any]]:
    """Under the pick lock, before the pick: close the parents whose children were all finished apart
    (other clones' branches merged here), as their last child's `complete` would have."""
    from leafwise.commands.domain.owed_cascades import close_owed

    with scalar_edits():  # the plan just loaded under the pick lock; statuses only
        closed = close_owed(ctx, ctx.plan(), "cascade", actor=agent, why="every child is closed")
    if closed:
        ctx.forget()
    return closed


def _own_task(plan: Plan, claims: dict[str, leases.Claim], agent: str, skip: set[str]) -> Node | None:
    """Team mode's resume: the open leaf this agent holds (its YAML stays draft, so the picker's own
    resume, which looks for in-progress, cannot see it)."""
    own = [plan.nodes[n] for n, c in claims.items() if c.agent == agent and n in plan.nodes and n not in skip
           and not plan.nodes[n].children and plan.nodes[n].status not in CLOSED]
    return min(own, key=lambda n: n.id) if own else None


START_REFUSALS = {readiness.CLOSED_KIND: ("closed", "{id} is {status}; closed work is not restarted"),
                  readiness.BLOCKED_KIND: ("blocked", "{id} is blocked: {reason}"),
                  readiness.OPEN_CHILDREN_KIND: ("has_open_children", "{id} has {count} open child node(s); a parent "
                                                 "is work only once its children are closed"),
                  readiness.UNMET_KIND: ("dependency_open", "{id} depends on {first}, which is not closed"),
                  readiness.MISSING_KIND: ("dependency_open", "{id} depends on {first}, which does not exist"),
                  readiness.LOOPED_KIND: ("parent_cycle", "{id} is in or under a parent cycle; validate names the fix"),
                  readiness.CASCADE_KIND: ("cascade_owed", "{id}'s children are all closed: the cascade closes it, "
                                           "no one works it")}


def _not_ready(ctx: Ctx, plan: Plan, node: Node, found: readiness.Blocker, agent: str) -> CommandError:
    """`start` refused for what `readiness.blocker` found; a missing dependency gets its own fix."""
    code, text = START_REFUSALS[found.kind]
    message = text.format(id=node.id, status=node.status, reason=clean(node.blocked_reason), count=len(found.ids),
                          first=clean(found.ids[0]) if found.ids else "")
    action = None
    if found.kind == readiness.MISSING_KIND:  # no other task makes this one startable: repair the plan
        repair = blocker_hint(ctx.cmd, plan, node, found, {})
        action = fix(repair.command, repair.reason, or_=other_work(ctx, agent))
    if found.kind == readiness.CASCADE_KIND:
        owed = owed_hint(ctx.cmd, node.id, agent, found.reason)
        action = fix(owed.command, owed.reason)
    return conflict(ctx, code, message, node, agent, "start_task", action)


def _claim(ctx: Ctx, plan: Plan, node: Node, agent: str, ttl: float | None, why: str | None = None,
           team: Any = None) -> Result:
    node_id = node.id
    require_project(ctx, plan, f"start {node_id}")  # complete would refuse the work later
    ttl = ttl_minutes(plan, ttl)
    found = readiness.blocker(plan, node, {}, agent)  # the holds are judged under the node's lock below
    if found is not None:
        raise _not_ready(ctx, plan, node, found, agent)
    stolen = None
    if team is None:
        with scalar_edits():  # a status and an assignee: the writer's text path, no round trip
            new_claim, changes = _take(ctx, node, agent, ttl)
            cascade = _open_ancestors(ctx, plan, node)
    else:  # the claim ref is the status: the YAML keeps only the outcome (complete writes it)
        new_claim, why, stolen = team_take(ctx, node, agent, ttl, team, why)
        changes, cascade = {}, []
    record(ctx, "start", node_id, changes, actor=agent, cascade=cascade, claim_expires=new_claim.expires)
    listed = change_list(node_id, changes)
    view = task_view(plan, node)
    view["status"] = Status.IN_PROGRESS
    finish = ctx.cmd("complete", node_id, summary=placeholder("summary"), agent=agent)
    if node.docs or view["inherited_docs"]:
        hint = next_(ctx.cmd("doc", node_id, agent=agent),
                     "read the task's docs (and its parents') before the code",
                     or_=finish)
    else:
        hint = next_(finish, "no docs: do the work, then complete",
                     or_=ctx.cmd("block", node_id, reason=placeholder("reason"), agent=agent))
    lines = [f"Started {node_id} “{clean(node.title)}” for {agent} (lease until {new_claim.expires})"]
    if why:
        lines.append(f"  why: {why}")
    lines += [f"  {c['id']}: {c['from']} → {c['to']}" for c in cascade]
    lines += carry(ctx, plan, node, view, agent, resumed=True)  # the agent holds it now
    lines += task_lines(view)
    data = {"task": view, "claim": new_claim.as_dict(), "cascade": cascade}
    if stolen:
        data["stolen_from"] = stolen  # team mode: taken from a holder silent past its lease
    return Result(data, hint, lines,
                  Mutation("start_task", "start", True, "claimed and started",
                           listed + cascade_changes(cascade)))


def _take(ctx: Ctx, node: Node, agent: str, ttl: float) -> tuple[leases.Claim, dict[str, tuple[Any, Any]]]:
    """Under the node's lock: re-check its status and holder, write the lease, mark it in progress."""
    node_id = node.id
    now = ctx.clock()
    paths = ctx.paths()
    try:
        with locked(paths, node_id):
            claim = leases.read(paths, node_id)
            fresh = read_node_file(paths.node_file(node_id))
            if fresh.data is None or lifecycle.transition("start", fresh.data.get("status")) is None:
                status = fresh.data.get("status") if fresh.data else "unreadable"
                raise conflict(ctx, "status_changed", f"{node_id} is now {clean(status)}", node, agent,
                               "start_task")
            hold = holding(ctx, node, now)
            if hold and hold.agent != agent:
                raise held(ctx, node, hold, agent, "start_task")
            ours = claim is not None and claim.agent == agent and not claim.expired(now)
            new_claim = leases.write(paths, node_id, agent, now, ttl, since=claim.since if ours else None)
            try:
                changes = write(ctx, node, lambda doc: set_fields(doc, {"status": Status.IN_PROGRESS,
                                                                        "assignee": agent}), lock=False)
            except BaseException:
                if not ours:  # no claim left behind for a task that was never marked started
                    leases.remove(paths, node_id)
                raise
    except LockBusy as exc:
        raise CommandError("lock_busy", str(exc), wait(f"the lock on {node_id} is free (a few seconds)",
                                                       "another writer is changing it"),
                           exit_code=EXIT_CONFLICT, category="conflict", source=("node", node_id)) from exc
    return new_claim, changes


def _open_ancestors(ctx: Ctx, plan: Plan, node: Node) -> list[dict[str, Any]]:
    """Mark draft ancestors in progress (each re-checked under its own lock)."""
    cascade: list[dict[str, Any]] = []
    for ancestor in plan.ancestors(node.id):
        row = lifecycle.transition("start: draft ancestors", ancestor.status)
        if row is not None and (moved := move_status(ctx, ancestor, ancestor.status, row.target)):
            cascade.append(moved)
    return cascade
