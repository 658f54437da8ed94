"""Taking back a person's change: what an action did, and the registry commands that restore it.

Plain Python (no Textual). `record_of()` turns a finished command's envelope into an `Action`:
the fields it changed, node by node, with their old and new values, as the core reported them
(the mutation's changes, a cascade's status moves included). `plan_undo()`
first checks that the plan still shows what the action left (an agent may have moved on since;
then nothing is touched), and answers the commands that restore the old values, each one the
command the CLI runs, with its checks and journal entry:

- other fields, and a status back to draft or in progress: `edit --set field=old…`;
- a task the person blocked: `unblock` (it restores the status it had, and clears the reason);
- a task that was blocked (unblocked, answered, completed or cancelled since): `block` with its
  old reason, then `edit` for when it was blocked and, for an answered decision, the open
  question as it was (so the agent waits for the person again);
- a task the person started: `unclaim` (lease, status and assignee), `edit` for an old assignee;
- closed ancestors a complete or cancel cascaded: reopened to their old status, farthest first;
  draft ancestors a start moved to in progress go back to draft only while nothing else under
  them is under way;
- a node the person added: `cancel` (the core deletes no node: its file stays, cancelled), moved out
  from under its parent first when the cancel's cascade would otherwise close the parent;
- a doc the person rewrote: `write-doc` with the old text.

What cannot be taken back is said when the person acts (`record_of` answers the reason instead
of an `Action`), never pushed as an undo that would fail: a doc created from nothing (the core
removes no file), and an old value the core's `edit --set` cannot write back as it was.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from leafwise.commands.core.cascade import would_close
from leafwise.commands.core.lifecycle import RESTORED, edit_command, inverse, transition
from leafwise.commands.core.views import status_word
from leafwise.commands.events import changes, moves
from leafwise.store.model import CLOSED, OPEN, Status
from leafwise.commands.domain.assignments import format_assignment
from leafwise.commands.text import one_line

# Fields whose current value must still be the one the action wrote for the undo to go ahead
# (timestamps and bookkeeping are left out: the core rewrites them in its own format).
CHECKED = ("status", "title", "assignee", "priority", "parent", "release", "depends_on", "description",
           "blocked_reason", "summary", "tags")
SKIPPED = ("updated", "created", "id")  # never restored: the core keeps them
BLOCK_FIELDS = ("status", "blocked_reason", "blocked_from", "blocked_since", "decision")
NO_REASON = "(blocked with no reason given)"
# What blocks a task again, with its old reason: the lifecycle's inverse of unblock (and of decide).
REBLOCK = str(inverse("unblock", Status.BLOCKED))
# Bookkeeping fields a person never types, said in words when an undo puts them back (old value None or not).
FIELD_SAYS = {"reconcile_rejected": ("the rejected suggestion shows again", "the suggestion is rejected again")}
FIELD_NAMES = {"reconcile_rejected": "the rejection of its suggestion"}


@dataclass(frozen=True, slots=True)
class Step:
    """One registry command to run, and what it takes back, in words."""

    command: str
    args: dict[str, Any]
    says: str


@dataclass(slots=True)
class Action:
    """One change the person made in this canvas session, as the core reported it."""

    label: str  # the request's label, e.g. "Complete SHOP-7"
    command: str  # the registry command that ran
    node: str | None  # the node it was run on
    changes: dict[str, dict[str, tuple[Any, Any]]] = field(default_factory=dict)  # id -> field -> (old, new)
    cascade: list[str] = field(default_factory=list)  # ancestors the core moved with it
    new_node: str | None = None  # `add`: the node it created
    doc_before: str | None = None  # `write-doc`: the text it replaced
    caveats: list[str] = field(default_factory=list)  # what undoing it will not restore
    before: dict[str, Any] = field(default_factory=dict)  # the target node's fields as the canvas held them before


@dataclass(slots=True)
class UndoPlan:
    steps: list[Step] = field(default_factory=list)
    refused: str | None = None  # why nothing will be done
    caveats: list[str] = field(default_factory=list)
    touched: list[str] = field(default_factory=list)  # node ids the steps restore, in order


# --- what an action did ---------------------------------------------------------------------------


def record_of(command: str, args: Mapping[str, Any], envelope: Mapping[str, Any], label: str, *,
              doc_before: str | None = None, before: Mapping[str, Any] | None = None) -> Action | str | None:
    """The `Action` to undo a finished command later; a reason when it cannot be undone; None when it
    changed nothing (a refused or idempotent call)."""
    if envelope.get("status") != "ok":
        return None
    mutation = envelope.get("mutation") or {}
    if not mutation.get("applied"):
        return None
    result = envelope.get("result") if isinstance(envelope.get("result"), dict) else {}
    node = args.get("node_id") or args.get("node") or args.get("close") or args.get("reject") or result.get("id")
    action = Action(label, command, str(node) if node else None, before=dict(before or {}))
    if command == "add":
        action.new_node = str(result.get("id")) if result.get("id") else None
        for moved in moves(result.get("cascade")):  # done ancestors the add reopened
            action.cascade.append(moved.id)
            action.changes.setdefault(moved.id, {})["status"] = (moved.old, moved.new)
        return action if action.new_node else "the core did not say which node it added"
    if command == "write-doc":
        if not doc_before:
            path = result.get("path") or "the doc"
            return (f"{path} is a new file and the core removes no file: delete .leafwise/{path} by hand "
                    "(and its link with edit) to take it back")
        action.doc_before = doc_before
        return action
    reported = mutation.get("changes") if isinstance(mutation.get("changes"), list) else []
    readable = changes(reported)
    if len(readable) < len(reported):
        return "the core reported a change the canvas cannot read back"
    for change in readable:
        action.changes.setdefault(str(change.node), {})[change.field] = (change.old, change.new)
    moved_by = [result] + [a for a in result.get("applied") or [] if isinstance(a, dict)]  # reconcile --apply
    action.cascade = [m.id for r in moved_by for m in moves(r.get("cascade"))]
    if not action.changes:
        return None
    for nid, fields in action.changes.items():
        for name, (old, _new) in fields.items():
            if name in SKIPPED or name in BLOCK_FIELDS:
                continue
            if format_assignment(name, old) is None:
                return (f"the old {name} of {nid} ({_short(old)}) is a value the core's edit cannot write back "
                        "as it was")
    if command == "decide":
        action.caveats.append(f"the question on {action.node} is open again; an agent that already read "
                              "the answer has read it")
    forced = result.get("forced_from") or (args.get("force") and command in ("block", "complete"))
    if forced:
        holder = result.get("forced_from") or "the agent that held it"
        action.caveats.append(f"{holder}'s lease on {action.node} ended with your change and is not renewed: "
                              "the task goes back to them as its assignee, without an expiry")
    return action


# --- what to run now ------------------------------------------------------------------------------


def involved(nodes: Mapping[str, Any], action: Action) -> set[str]:
    """The node ids whose current files the undo must see: the changed ones, and the children of the
    ancestors a cascade moved (a sibling started since keeps its parent in progress)."""
    ids = set(action.changes) | ({action.new_node} if action.new_node else set()) | ({action.node} - {None})
    for nid in action.cascade:
        node = nodes.get(nid)
        ids.update(node.children if node is not None else ())
    if action.new_node:  # undoing an add weighs what cancelling it would close above it
        for ancestor in _ancestors(nodes, action.new_node):
            ids.add(ancestor.id)
            ids.update(ancestor.children)
    return {str(i) for i in ids}


def plan_undo(nodes: Mapping[str, Any], action: Action, me: str) -> UndoPlan:
    """The steps that take `action` back on the plan as it is now (`nodes`: id -> Node), or why not."""
    if action.command == "add":
        return _undo_add(nodes, action)
    if action.command == "write-doc":
        node = nodes.get(action.node or "")
        if node is None:
            return UndoPlan(refused=f"{action.node} is no longer in the plan")
        return UndoPlan([Step("write-doc", {"node_id": node.id, "content": action.doc_before},
                              f"{node.id}'s doc back to its old text")], touched=[node.id])
    stale = _stale(nodes, action)
    if stale:
        return UndoPlan(refused=stale)
    plan = UndoPlan(caveats=list(action.caveats))
    after_undo = {nid: f["status"][0] for nid, f in action.changes.items() if "status" in f}
    order = _order(action)
    for nid in order:
        fields = action.changes[nid]
        node = nodes[nid]
        if nid in action.cascade and _opened_by_start(fields):
            busy = _under_way(nodes, node, after_undo)
            if busy:
                plan.caveats.append(f"{nid} stays in progress: {busy} is under way under it")
                break  # its ancestors stay in progress too
        steps = _restore(node, fields, action, me)
        if isinstance(steps, str):
            return UndoPlan(refused=steps)
        plan.steps += steps
        plan.touched.append(nid)
    return plan


def _order(action: Action) -> list[str]:
    """The node first for a start (then its ancestors, nearest first); else the cascade farthest first, then
    the nodes themselves (reopening from the top never leaves a closed parent over an open child)."""
    ids = list(action.changes)
    cascade = [nid for nid in action.cascade if nid in action.changes]
    own = [nid for nid in ids if nid not in cascade]
    if action.command == "start":
        return own + cascade
    return list(reversed(cascade)) + own


def _opened_by_start(fields: dict[str, tuple[Any, Any]]) -> bool:
    """Whether the status change is the one a start makes on a draft ancestor."""
    old, new = fields.get("status", (None, None))
    row = transition("start: draft ancestors", old)
    return row is not None and row.target == new


def _no_way_back(nid: str, command: str, source: Any) -> str:
    return f"the lifecycle has no command that takes back {command} on {nid} (from {status_word(source)})"


def _under_way(nodes: Mapping[str, Any], node: Any, after_undo: dict[str, Any]) -> str | None:
    """A child of `node` that is not draft or cancelled once the undo is done (its id), if any."""
    for child in node.children:
        status = after_undo.get(child, nodes[child].status if child in nodes else Status.DRAFT)
        if status not in (Status.DRAFT, Status.CANCELLED):
            return child
    return None


def _stale(nodes: Mapping[str, Any], action: Action) -> str | None:
    """Why the plan no longer shows what the action left (someone changed it since), if it does not."""
    for nid, fields in action.changes.items():
        node = nodes.get(nid)
        if node is None:
            return f"{nid} is no longer in the plan"
        for name, (_old, new) in fields.items():
            if name in CHECKED and _norm(node.data.get(name)) != _norm(new):
                now = node.data.get(name)
                return (f"{nid} changed since: its {name} is now {_short(now)}, not {_short(new)} as you left it "
                        "(undoing would overwrite that change)")
    return None


def _norm(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value] or None
    if value == "":
        return None
    return value if value is None else str(value)


def _short(value: Any) -> str:
    if value is None:
        return "(none)"
    return f"“{one_line(value, 61)}”"


def _restore(node: Any, fields: dict[str, tuple[Any, Any]], action: Action, me: str) -> list[Step] | str:
    """The steps that put one node's changed fields back."""
    nid = node.id
    old_status, new_status = fields.get("status", (node.status, node.status))
    other = {k: v[0] for k, v in fields.items() if k not in SKIPPED and k not in BLOCK_FIELDS}
    if action.command == "start" and nid == action.node:
        back = inverse("start", old_status)
        if back is None:
            return _no_way_back(nid, "start", old_status)
        steps = [Step(back, {"node_id": nid}, f"{nid} back to draft, your lease on it given up")]
        old_assignee = fields.get("assignee", (None, None))[0]
        if old_assignee not in (None, me):
            steps.append(_edit(nid, {"assignee": old_assignee}, f"{nid} assigned to {old_assignee} again"))
        return steps
    if new_status == Status.BLOCKED and old_status == Status.BLOCKED:  # a new reason for a blocked task
        reason = fields.get("blocked_reason", (node.blocked_reason, None))[0] or NO_REASON
        steps = [Step(REBLOCK, {"node_id": nid, "reason": reason, "force": True},
                      f"{nid}'s blocked reason back to {_short(reason)}")]
        if other:
            steps.append(_edit(nid, other, f"{nid} {_named(other)} restored"))
        return steps
    if new_status == Status.BLOCKED and old_status in OPEN and "decision" not in fields:  # a first block
        back = inverse("block", old_status)
        if back is None:
            return _no_way_back(nid, "block", old_status)
        steps = [Step(back, {"node_id": nid}, f"{nid} unblocked, back to {status_word(old_status)}")]
        if other:
            steps.append(_edit(nid, other, f"{nid} {_named(other)} restored"))
        return steps
    if old_status == Status.BLOCKED:
        return _reblock(node, fields, other, action.before if nid == action.node else {})
    if old_status in CLOSED and old_status != new_status:
        return f"{nid} would have to go back to {old_status}, which only its own command does"
    values = dict(other)
    if "status" in fields:
        if old_status is None or transition(edit_command(old_status), new_status) is None:
            return f"{nid} cannot be edited from {status_word(new_status)} back to {status_word(old_status)}"
        values["status"] = old_status
    if not values:
        return []
    said = [f"{status_word(new_status)} → {status_word(old_status)}"
            ] if "status" in fields else []
    said += [FIELD_SAYS[name][value is not None] if name in FIELD_SAYS else f"{name} back to {_short(value)}"
             for name, value in other.items()]
    return [_edit(nid, values, f"{nid}{':' if set(other) & set(FIELD_SAYS) else ''} " + ", ".join(said))]


def _reblock(node: Any, fields: dict[str, tuple[Any, Any]], other: dict[str, Any],
             before: Mapping[str, Any]) -> list[Step]:
    """Blocked again with the old reason (then when it was blocked, and an answered decision reopened).

    A task blocked without a `blocked_since` (by hand, by an older leafwise) was shown as blocked since
    its last update: that moment becomes its `blocked_since`, so it does not read "blocked just now".
    """
    nid = node.id
    data = node.data
    reason = fields.get("blocked_reason", (data.get("blocked_reason"), None))[0] or NO_REASON
    since = fields.get("blocked_since", (data.get("blocked_since"), None))[0] \
        or before.get("blocked_since") or before.get("updated")
    steps: list[Step] = []
    first = dict(other)
    if node.status in CLOSED:  # a closed task cannot be blocked: reopen it first, as it was before
        was = fields.get("blocked_from", (data.get("blocked_from"), None))[0]
        first["status"] = was if was in RESTORED else Status.DRAFT
    if first:
        steps.append(_edit(nid, first, f"{nid} reopened" + (f" ({_named(other)} restored)" if other else "")
                           if "status" in first else f"{nid} {_named(other)} restored"))
    steps.append(Step(REBLOCK, {"node_id": nid, "reason": reason, "force": True},
                      f"{nid} blocked again: {_short(reason)}"))
    after: dict[str, Any] = {}
    if since:
        after["blocked_since"] = since
    if "decision" in fields and isinstance(fields["decision"][0], dict):
        after["decision"] = fields["decision"][0]
    if after:
        steps.append(_edit(nid, after, f"{nid}'s decision open again" if "decision" in after
                           else f"{nid} blocked since {since} again"))
    return steps


def _edit(nid: str, values: dict[str, Any], says: str) -> Step:
    sets = tuple(a for k, v in values.items() if (a := format_assignment(k, v)) is not None)
    return Step("edit", {"node_id": nid, "set": sets}, says)


def _named(values: Mapping[str, Any]) -> str:
    return ", ".join(FIELD_NAMES.get(name, name) for name in values)


def _ancestors(nodes: Mapping[str, Any], nid: str) -> list[Any]:
    """The ancestors of `nid` in `nodes`, nearest first (a loop or a missing parent ends the walk)."""
    out: list[Any] = []
    seen = {nid}
    node = nodes.get(nid)
    while node is not None and node.parent and node.parent not in seen and node.parent in nodes:
        seen.add(node.parent)
        node = nodes[node.parent]
        out.append(node)
    return out


def _undo_add(nodes: Mapping[str, Any], action: Action) -> UndoPlan:
    """Cancel the node the person added, leaving everything above it as it was before the add.

    The core deletes no node, and cancelling the new node under its parent would let the cascade close
    the parent (a blocked leaf that got its first child would be cancelled with it). So the cascade is
    weighed first: when it would close an ancestor to anything but the status it had before the add
    (a done epic the add reopened closes to done again: that is the add taken back), the new node is
    first moved out from under its parent (`edit --set parent=null`, which writes only its own file),
    then cancelled where no parent can close with it.
    """
    nid = action.new_node or ""
    node = nodes.get(nid)
    if node is None:
        return UndoPlan(refused=f"{nid} is no longer in the plan")
    if node.status != Status.DRAFT:
        return UndoPlan(refused=f"{nid} is {status_word(node.status)} now, not the draft you added "
                                "(someone took it up since)")
    if any(nodes[c].status != Status.CANCELLED for c in node.children if c in nodes):
        return UndoPlan(refused=f"{nid} has work under it now (added since)")
    reopened = {aid: f["status"][0] for aid, f in action.changes.items() if "status" in f}  # by the add: done
    closes = would_close(nodes, nid, Status.CANCELLED)
    harmless = all(reopened.get(a.id) == target and a.status == Status.IN_PROGRESS for a, target in closes)
    cancel = Step("cancel", {"node_id": nid, "reason": "added by mistake (undone in the canvas)"},
                  f"{nid} cancelled (the core deletes no node: its file stays, cancelled)")
    plan = UndoPlan(touched=[nid])
    if harmless:
        plan.steps = [cancel]
        plan.touched += [a.id for a, _ in closes]
        left = [aid for aid in reopened if aid not in {a.id for a, _ in closes}]
    else:
        parent = node.parent
        plan.steps = [_edit(nid, {"parent": None}, f"{nid} taken out from under {parent}, which stays as it was"),
                      cancel]
        left = list(reopened)
    for aid in left:
        plan.caveats.append(f"{aid} stays in progress: adding under it reopened it, and only its own "
                            "command closes it")
    return plan
