"""Renumbering: give a node a fresh id and update its references; split a merge-conflicted node file."""

from __future__ import annotations

from typing import Any

from leafwise.commands.contract import EXIT_CONFLICT, CommandError, Mutation, NextAction, Result, fix, next_
from leafwise.commands.domain.nodes import (
    change_list,
    get_node,
    record,
    require_project,
    set_fields,
    would_break,
    write,
    yaml_error,
)
from leafwise.commands.merge_conflicts import MergeConflict, merge_conflict
from leafwise.commands.registry import Ctx
from leafwise.store import Plan
from leafwise.store import claims as leases
from leafwise.store import cycles as ledger
from leafwise.store.loader import MAX_NODE_BYTES, SchemaError, read_bounded
from leafwise.store.writer import Exists, atomic_write, create_numbered, locked, rewrite

CONFLICT_BYTES = 2 * MAX_NODE_BYTES + 4096  # a file with merge markers holds both sides (never through a link)

REFERENCE_FIELDS = ("parent", "depends_on", "follows")


def renumber(ctx: Ctx, node_id: str) -> Result:
    """A fresh id for the node, its references and claim moved along; a merge-conflicted file is split."""
    paths = ctx.paths()
    plan = ctx.plan()
    try:
        raw = read_bounded(paths.node_file(node_id), CONFLICT_BYTES)
    except FileNotFoundError:
        raw = b""
    split = merge_conflict(raw, node_id, paths.node_file(node_id)) if raw else None
    if split is not None:
        return _split(ctx, plan, node_id, split)
    node = get_node(ctx, node_id, plan)
    require_project(ctx, plan, f"renumber {node_id}")
    prefix = plan.project.id_prefix
    now = ctx.clock()
    with locked(paths, node_id):
        raw = read_bounded(paths.node_file(node_id), CONFLICT_BYTES)
        # A crashed renumber left its copy (renumbered_from: this id): finish that one.
        resumed = next((n.id for n in plan.nodes.values() if n.data.get("renumbered_from") == node_id
                        and n.id != node_id), None)
        if resumed is None:
            try:
                new_id, _ = create_numbered(paths, prefix, lambda nid: rewrite(
                    raw, nid, lambda doc: _stamp(doc, nid, node_id, now)))
            except Exception as exc:
                if not isinstance(exc, SchemaError) and not yaml_error(exc):
                    raise
                raise would_break(ctx, node_id, node.file, exc) from exc
        else:
            new_id = resumed
        references = _retarget_references(ctx, plan, node_id, new_id) + _retarget_cycles(ctx, node_id, new_id)
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
                  next_(ctx.cmd("show", new_id), "see the node under its new id", or_=ctx.cmd("validate")),
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


def _retarget_cycles(ctx: Ctx, old_id: str, new_id: str) -> list[dict[str, Any]]:
    """Point every cycle that names the node (its task, current item, items done, last verify) at the
    new id, each under its cycle's lock: a running cycle's verify gate goes with the node, so
    `complete` of the renumbered node still needs the cycle's green verify."""
    listed: list[dict[str, Any]] = []
    paths = ctx.paths()
    for name in ledger.names(paths):
        with locked(paths, ledger.lock_name(name)):
            try:
                cycle = ledger.read(paths, name)
            except ledger.LedgerError:
                continue  # an unreadable cycle gates nothing; cycle status shows it
            if cycle is None:
                continue
            changed = []
            for field in ("node", "current"):
                if getattr(cycle, field) == old_id:
                    setattr(cycle, field, new_id)
                    changed.append(field)
            if old_id in cycle.items_done:
                cycle.items_done = [new_id if i == old_id else i for i in cycle.items_done]
                changed.append("items_done")
            if isinstance(cycle.last_verify, dict) and cycle.last_verify.get("node") == old_id:
                cycle.last_verify = {**cycle.last_verify, "node": new_id}
                changed.append("last_verify")
            if changed:
                ledger.save(paths, cycle)
                listed += [{"id": f"cycle {name}", "field": field, "from": old_id, "to": new_id} for field in changed]
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
        current = read_bounded(paths.node_file(node_id), CONFLICT_BYTES)
        if merge_conflict(current, node_id, paths.node_file(node_id)) != split:
            raise CommandError("conflict", f"{rel} changed while being split",
                               fix(ctx.cmd("renumber", node_id), "run it again"), exit_code=EXIT_CONFLICT,
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
        hint: NextAction = next_(ctx.cmd("show", first.id), f"check whether {first.id} meant {node_id} or {new_id}",
                                 or_=ctx.cmd("edit", first.id, set=[f"{field}={value}"]))
    else:
        hint = next_(ctx.cmd("validate"), "both nodes now have their own id")
    return Result({"id": new_id, "from": node_id, "split": True, "check": referrers}, hint, lines,
                  Mutation("renumber_node", "renumber", True, f"split {node_id}: the incoming node is {new_id}",
                           [{"id": new_id, "field": "id", "from": node_id, "to": new_id}]))
