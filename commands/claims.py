"""Many agents on one plan: heartbeat and unclaim a lease, renumber a node.

`start` (loop.py) takes a lease; `heartbeat` extends it; `unclaim` gives it up
and hands the task back to the picker. Every step re-reads the claim and the
node file under the node's lock, so racing agents see one order of events.

Ids across worktrees: `add` numbers new nodes from a counter that every
worktree of a clone shares (store/writer.py `create_numbered`), so parallel
branches of one clone never reuse an id. Clones on different machines still
can: git then reports an add/add conflict in `nodes/<ID>.yaml`; `validate`
reports it (`with_merge_conflicts`) and `renumber ID` splits the file, the
incoming node taking a fresh id. See docs/concurrency.md.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..store import CLOSED, Node, Plan, Problem
from ..store import claims as leases
from ..store.loader import check_node, parse_yaml, read_node_file
from ..store.writer import Exists, atomic_write, create_numbered, locked, rewrite
from .contract import (
    EXIT_CONFLICT, EXIT_USAGE, CommandError, Mutation, NextAction, Result, clean, fix, next_, wait,
)
from .hints import agent_arg
from .ops import change_list, get_node, record, set_fields, write
from .registry import Ctx, Param, command

ID = Param("node_id", "node id", positional=True, required=True)
TTL = Param("ttl", "lease length in minutes (default: the plan's claim_ttl_minutes, else 60)", type=float)
REFERENCE_FIELDS = ("parent", "depends_on", "follows")
CONFLICT_MARKERS = ("<<<<<<<", "=======", ">>>>>>>")


def ttl_minutes(plan: Plan, ttl: float | None) -> float:
    if ttl and ttl > 0:
        return ttl
    return float(plan.project.settings.get("claim_ttl_minutes") or leases.DEFAULT_TTL_MINUTES)


def _agent(ctx: Ctx, agent: str | None, line: str) -> str:
    name = clean(agent, 80) if agent else ""
    if not name:
        raise CommandError("missing_agent", "--agent must name the agent",
                           fix(ctx.cmd(line + " --agent <agent>"), "say who holds the lease"),
                           exit_code=EXIT_USAGE, category="usage")
    return name


def _held(ctx: Ctx, node_id: str, holder: str, expires: str, agent: str | None, tool: str,
          note: str = "") -> CommandError:
    """Exit 3: another agent's live lease; wait for it, or take other work."""
    until = f"until {expires}" if expires else "(assigned, no lease)"
    message = f"{node_id} is held by {holder} {until}{note}"
    other = ctx.cmd("next" + (f" --agent {agent_arg(agent)}" if agent else ""))
    return CommandError("claim_held", message, wait(f"{holder} holds {node_id} {until}", "held by another agent",
                                                    or_=other),
                        exit_code=EXIT_CONFLICT, category="held_by_other_agent", source=("node", node_id),
                        details={"holder": holder, "expires": expires or None},
                        mutation=Mutation(tool, "claim_held", False, message))


@command("heartbeat", "Extend an agent's lease on the task it works on (it is still alive).",
         mutating=True, tool="heartbeat_task", idempotent=True,
         params=(ID, Param("agent", "the agent's name (e.g. claude-1)", required=True), TTL))
def heartbeat(ctx: Ctx, node_id: str, agent: str, ttl: float | None = None) -> Result:
    plan = ctx.plan()
    node = get_node(ctx, node_id, plan)
    agent = _agent(ctx, agent, f"heartbeat {node_id}")
    minutes = ttl_minutes(plan, ttl)
    paths, now = ctx.paths(), ctx.clock()
    with locked(paths, node_id):
        claim = leases.read(paths, node_id)
        if claim and not claim.expired(now) and claim.agent != agent:
            raise _held(ctx, node_id, claim.agent, claim.expires, agent, "heartbeat_task")
        fresh = read_node_file(paths.node_file(node_id)).data or {}
        status, assignee = fresh.get("status"), fresh.get("assignee")
        if status in CLOSED:
            raise CommandError("closed", f"{node_id} is {status}; there is no lease to extend",
                               fix(ctx.cmd(f"next --agent {agent_arg(agent)}"), "take the next task"),
                               exit_code=EXIT_CONFLICT, category="conflict", source=("node", node_id),
                               mutation=Mutation("heartbeat_task", "heartbeat", False, f"node {status}"))
        ours = claim is not None and claim.agent == agent
        if not ours and not (status == "in-progress" and assignee == agent):
            if status == "in-progress" and assignee and claim is None:
                raise _held(ctx, node_id, str(assignee), "", agent, "heartbeat_task")
            raise CommandError("not_claimed", f"{agent} holds no lease on {node_id}; start it first",
                               fix(ctx.cmd(f"start {node_id} --agent {agent_arg(agent)}"), "take the lease"),
                               exit_code=EXIT_CONFLICT, category="conflict", source=("node", node_id),
                               mutation=Mutation("heartbeat_task", "heartbeat", False, "no lease to extend"))
        renewed = leases.write(paths, node_id, agent, now, minutes, since=claim.since if ours else None)
    record(ctx, "heartbeat", node_id, {}, actor=agent, claim_expires=renewed.expires)
    lapsed = " (the lapsed lease is taken again)" if claim is None or claim.expired(now) else ""
    return Result({"id": node_id, "claim": renewed.as_dict()},
                  next_(ctx.cmd(f'complete {node_id} --summary "<summary>"'),
                        f"lease until {renewed.expires}: heartbeat again before then",
                        or_=ctx.cmd(f"heartbeat {node_id} --agent {agent_arg(agent)}")),
                  [f"{agent} holds {node_id} {node.title!r} until {renewed.expires}{lapsed}"],
                  Mutation("heartbeat_task", "heartbeat", True, "lease extended",
                           [{"id": node_id, "field": "claim.expires", "from": claim.expires if claim else None,
                             "to": renewed.expires}]))


def give_back(ctx: Ctx, node: Node, names: set[str] | None) -> dict[str, tuple[Any, Any]]:
    """Return a task to the picker: in progress → draft, and its assignee cleared when it
    is one of `names` (None: whoever it is). The caller holds the node's lock.

    The node is written before the lease file goes: a crash in between leaves
    a lease that expires, never an in-progress task assigned to nobody's lease.
    """
    def reset(doc: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
        values: dict[str, Any] = {}
        if doc.get("status") == "in-progress":
            values["status"] = "draft"
        if doc.get("assignee") is not None and (names is None or doc.get("assignee") in names):
            values["assignee"] = None
        return set_fields(doc, values) if values else {}

    changes = write(ctx, node, reset, lock=False)
    leases.remove(ctx.paths(), node.id)
    return changes


@command("unclaim", "Give up the lease on a task; it goes back to draft for the picker.",
         mutating=True, tool="unclaim_task", idempotent=True,
         params=(ID, Param("agent", "the agent giving it up (another's live lease is refused)"),
                 Param("force", "take away another agent's live lease (a person's decision)", type=bool)))
def unclaim(ctx: Ctx, node_id: str, agent: str | None = None, force: bool = False) -> Result:
    plan = ctx.plan()
    node = get_node(ctx, node_id, plan)
    agent = clean(agent, 80) if agent else None
    paths, now = ctx.paths(), ctx.clock()
    with locked(paths, node_id):
        claim = leases.read(paths, node_id)
        fresh = read_node_file(paths.node_file(node_id)).data or {}
        if claim is not None:
            holder, expires, live = claim.agent, claim.expires, not claim.expired(now)
        elif fresh.get("status") == "in-progress" and fresh.get("assignee"):
            holder, expires, live = str(fresh["assignee"]), "", True  # assigned by hand: held, no expiry
        else:
            holder, expires, live = None, "", False
        if live and holder != agent and not force:
            raise _held(ctx, node_id, str(holder), expires, agent, "unclaim_task",
                        f" (a person can take it back: {ctx.cmd(f'unclaim {node_id} --force')})")
        changes = give_back(ctx, node, None if force else {n for n in (holder, agent) if n})
    applied = claim is not None or bool(changes)
    if applied:
        record(ctx, "unclaim", node_id, changes, actor=agent, holder=holder,
               forced=bool(force and live and holder != agent) or None)
    listed = change_list(node_id, changes)
    if claim is not None:
        listed.append({"id": node_id, "field": "claim", "from": holder, "to": None})
    what = (f"{holder}'s lease on {node_id} given up" if holder else f"{node_id} had no lease") + \
        ("; back to draft" if "status" in changes else "")
    return Result({"id": node_id, "holder": holder, "status": changes.get("status", (None, fresh.get("status")))[1],
                   "changes": listed},
                  next_(ctx.cmd("next" + (f" --agent {agent_arg(agent)}" if agent else "")),
                        "the task is free for the picker"),
                  [what], Mutation("unclaim_task", "unclaim", applied, what if applied else "nothing held it",
                                   listed))


# --- renumber -----------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class MergeConflict:
    """A node file git left with conflict markers, split into its two sides."""

    ours: str
    theirs: str
    line: int  # of the first marker
    same_node: bool  # both sides are edits of one node (not two nodes sharing an id)


def conflict_sides(text: str) -> tuple[str, str, int] | None:
    """(ours, theirs, first marker line) of a text with git conflict markers, else None.

    Lines outside the hunks belong to both sides; a diff3 base section is dropped.
    """
    ours: list[str] = []
    theirs: list[str] = []
    state, first = "both", 0
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        if line.startswith("<<<<<<<") and state == "both":
            state, first = "ours", first or number
        elif line.startswith("|||||||") and state == "ours":
            state = "base"
        elif line.startswith("=======") and state in ("ours", "base"):
            state = "theirs"
        elif line.startswith(">>>>>>>") and state == "theirs":
            state = "both"
        elif state in ("both", "ours"):
            ours.append(line)
            if state == "both":
                theirs.append(line)
        elif state == "theirs":
            theirs.append(line)
    if not first or state != "both":
        return None
    return "".join(ours), "".join(theirs), first


def merge_conflict(raw: bytes, node_id: str, file: Path | None = None) -> MergeConflict | None:
    """The two sides of a conflicted node file, when each is a valid node.

    Two edits of one node share a merge base; two nodes that took one id
    (add/add) do not. git knows which while the merge is unresolved (`file`);
    otherwise only an equal `created` and title make it one node: a wrong
    split keeps both versions, a wrong "resolve by hand" could lose one.
    """
    try:
        text = raw.decode()
    except UnicodeDecodeError:
        return None
    if not any(marker in text for marker in CONFLICT_MARKERS):
        return None
    sides = conflict_sides(text)
    if sides is None:
        return None
    ours, theirs, line = sides
    try:
        a = check_node(parse_yaml(ours), node_id)
        b = check_node(parse_yaml(theirs), node_id)
    except Exception:  # noqa: BLE001 - a side that does not parse: not splittable
        return None
    same = _has_merge_base(file) if file is not None else None
    if same is None:
        same = a.get("created") == b.get("created") and a.get("title") == b.get("title")
    return MergeConflict(ours, theirs, line, same)


def _has_merge_base(file: Path) -> bool | None:
    """Whether git's unresolved entry for `file` has a base version (None: git does not know)."""
    try:
        out = subprocess.run(["git", "ls-files", "-u", "--", file.name], cwd=file.parent, capture_output=True,
                             text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    stages = {line.split()[2] for line in out.splitlines() if len(line.split()) >= 4}
    return ("1" in stages) if stages else None


def with_merge_conflicts(plan: Plan, cmd: Callable[[str], str]) -> list[Problem]:
    """The plan's load problems, with git conflicts in node files named as such.

    Two nodes given one id on different clones (an add/add conflict) become
    `duplicate_id`, fixed by `renumber`; two edits of one node become
    `merge_conflict`, resolved by hand.
    """
    out: list[Problem] = []
    for problem in plan.problems:
        found = None
        if problem.code == "yaml_error" and problem.node and problem.file:
            try:
                path = plan.paths.repo / problem.file
                found = merge_conflict(path.read_bytes(), problem.node, path)
            except OSError:
                found = None
        if found is None:
            out.append(problem)
        elif found.same_node:
            out.append(Problem("merge_conflict", "error", "git left conflict markers: two edits of this node",
                               f"git mergetool {problem.file}", node=problem.node, file=problem.file,
                               line=found.line))
        else:
            out.append(Problem("duplicate_id", "error",
                               f"two different nodes got the id {problem.node} on different branches",
                               cmd(f"renumber {problem.node}"), node=problem.node, file=problem.file,
                               line=found.line))
    return out


@command("renumber", "Give a node a fresh id; update its references (parent, depends_on, follows) and claim.",
         mutating=True, tool="renumber_node",
         params=(ID,))
def renumber(ctx: Ctx, node_id: str) -> Result:
    paths = ctx.paths()
    plan = ctx.plan()
    try:
        raw = paths.node_file(node_id).read_bytes()
    except FileNotFoundError:
        raw = b""
    split = merge_conflict(raw, node_id, paths.node_file(node_id)) if raw else None
    if split is not None:
        return _split(ctx, plan, node_id, split)
    node = get_node(ctx, node_id, plan)
    prefix = plan.project.id_prefix
    now = ctx.clock()
    with locked(paths, node_id):
        raw = paths.node_file(node_id).read_bytes()
        # A crashed renumber left its copy (renumbered_from: this id): finish that one.
        resumed = next((n.id for n in plan.nodes.values() if n.data.get("renumbered_from") == node_id
                        and n.id != node_id), None)
        if resumed is None:
            new_id, _ = create_numbered(paths, prefix, lambda nid: rewrite(
                raw, nid, lambda doc: _stamp(doc, nid, node_id, now)))
        else:
            new_id = resumed
        references = _retarget_references(ctx, plan, node_id, new_id)
        moved = leases.move(paths, node_id, new_id)
        paths.node_file(node_id).unlink()
    ctx.forget()
    record(ctx, "renumber", new_id, {"id": (node_id, new_id)}, renumbered_from=node_id,
           references=references, claim=moved.agent if moved else None)
    listed = [{"id": new_id, "field": "id", "from": node_id, "to": new_id}] + references
    lines = [f"Renumbered {node_id} → {new_id} {node.title!r}"]
    lines += [f"  {r['id']}.{r['field']}: {r['from']} → {r['to']}" for r in references]
    if moved:
        lines.append(f"  claim: {moved.agent} until {moved.expires}")
    return Result({"id": new_id, "from": node_id, "references": references,
                   "claim": moved.as_dict() if moved else None},
                  next_(ctx.cmd(f"show {new_id}"), "see the node under its new id", or_=ctx.cmd("validate")),
                  lines, Mutation("renumber_node", "renumber", True, f"{node_id} is now {new_id}", listed))


def _stamp(doc: dict[str, Any], new_id: str, old_id: str, now: Any) -> None:
    doc["id"] = new_id
    doc["renumbered_from"] = old_id  # history, and how a crashed renumber is resumed
    if "updated" in doc:
        doc["updated"] = now


def _retarget_references(ctx: Ctx, plan: Plan, old_id: str, new_id: str) -> list[dict[str, Any]]:
    """Point every parent / depends_on / follows at the new id, each under its node's lock."""
    listed: list[dict[str, Any]] = []
    for other in plan.nodes.values():
        if other.id in (old_id, new_id) or not any(_mentions(other.data.get(f), old_id) for f in REFERENCE_FIELDS):
            continue

        def swap(doc: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
            values: dict[str, Any] = {}
            for key in REFERENCE_FIELDS:
                value = doc.get(key)
                if isinstance(value, list) and old_id in value:
                    values[key] = [new_id if v == old_id else str(v) for v in value]
                elif value == old_id:
                    values[key] = new_id
            return set_fields(doc, values) if values else {}

        listed += change_list(other.id, write(ctx, other, swap))
    return listed


def _mentions(value: Any, node_id: str) -> bool:
    return value == node_id or (isinstance(value, list) and node_id in value)


def _split(ctx: Ctx, plan: Plan, node_id: str, split: MergeConflict) -> Result:
    """An add/add merge conflict: ours keeps the id, theirs takes a fresh one."""
    paths = ctx.paths()
    rel = f"{paths.dir.name}/nodes/{node_id}.yaml"
    if split.same_node:
        raise CommandError("merge_conflict", f"{rel} holds two edits of the same node, not two nodes; "
                           "keep what is right by hand", fix(f"git mergetool {rel}", "resolve the conflict"),
                           exit_code=EXIT_CONFLICT, category="conflict", source=("node", node_id),
                           mutation=Mutation("renumber_node", "renumber", False, "a conflict of one node"))
    now = ctx.clock()
    with locked(paths, node_id):
        current = paths.node_file(node_id).read_bytes()
        if merge_conflict(current, node_id, paths.node_file(node_id)) != split:
            raise CommandError("conflict", f"{rel} changed while being split",
                               fix(ctx.cmd(f"renumber {node_id}"), "run it again"), exit_code=EXIT_CONFLICT,
                               category="conflict", source=("node", node_id))
        try:
            new_id, _ = create_numbered(paths, plan.project.id_prefix, lambda nid: rewrite(
                split.theirs.encode(), nid, lambda doc: _stamp(doc, nid, node_id, now)))
        except Exists as exc:  # pragma: no cover - a thousand ids taken meanwhile
            raise CommandError("id_exhausted", "no free id", fix(ctx.cmd("doctor"), "check the nodes folder"),
                               category="io") from exc
        atomic_write(paths.node_file(node_id), split.ours.encode())
    ctx.forget()
    fresh = ctx.plan()
    title = (fresh.nodes[new_id].title if new_id in fresh.nodes else new_id)
    referrers = sorted(n.id for n in fresh.nodes.values() if n.id != new_id
                       and any(_mentions(n.data.get(f), node_id) for f in REFERENCE_FIELDS))
    record(ctx, "renumber", new_id, {"id": (node_id, new_id)}, renumbered_from=node_id, split=True,
           check=referrers)
    lines = [f"Split {rel}: {node_id} keeps this branch's node, the incoming {title!r} is now {new_id}"]
    if referrers:
        lines.append(f"  these reference {node_id}; point those meant for {title!r} at {new_id}: "
                     + ", ".join(referrers))
        first = fresh.nodes[referrers[0]]
        field = next(f for f in REFERENCE_FIELDS if _mentions(first.data.get(f), node_id))
        value = new_id if field != "depends_on" else \
            "[" + ", ".join(new_id if d == node_id else d for d in first.depends_on) + "]"
        hint: NextAction = next_(ctx.cmd(f"show {first.id}"), f"check whether {first.id} meant {node_id} or {new_id}",
                                 or_=ctx.cmd(f"edit {first.id} --set {field}={value}"))
    else:
        hint = next_(ctx.cmd("validate"), "both nodes now have their own id")
    return Result({"id": new_id, "from": node_id, "split": True, "check": referrers}, hint, lines,
                  Mutation("renumber_node", "renumber", True, f"split {node_id}: the incoming node is {new_id}",
                           [{"id": new_id, "field": "id", "from": node_id, "to": new_id}]))


__all__ = ["conflict_sides", "give_back", "heartbeat", "merge_conflict", "renumber", "ttl_minutes",
           "unclaim", "with_merge_conflicts"]
