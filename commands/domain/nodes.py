"""One node's look-up, guarded write and journal entry: what every mutating command is built from."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

from leafwise.commands.contract import (
    EXIT_CONFLICT,
    EXIT_INVALID,
    EXIT_NOT_FOUND,
    EXIT_USAGE,
    CommandError,
    Result,
    fix,
    wait,
)
from leafwise.commands.registry import Ctx
from leafwise.store import Node, Plan, Status, UnsafePath, journal
from leafwise.store.loader import SchemaError
from leafwise.store.paths import check_id
from leafwise.store.writer import Conflict, LockBusy, edit_node, iso


def require_project(ctx: Ctx, plan: Plan, doing: str) -> None:
    """Refuse a step that takes the id prefix or releases from project.yaml while that file does not load."""
    from leafwise.commands.core.readiness import project_unreadable

    broken = project_unreadable(plan)
    if broken is not None:
        where = f"{broken.file}:{broken.line or 1}"
        raise CommandError("project_unreadable", f"{doing} refused: {where} does not load ({broken.message}); "
                           "its releases, id prefix and settings are unknown until a person fixes it",
                           fix(ctx.cmd("diagnose"), "diagnose names the line"),
                           exit_code=EXIT_INVALID, category="invalid_plan", source=("project", None))


def get_node(ctx: Ctx, node_id: str, plan: Plan | None = None) -> Node:
    """The node, or an error that names the id and how to find a real one."""
    try:
        check_id(node_id)
    except UnsafePath as exc:
        raise CommandError("invalid_id", str(exc), fix(ctx.cmd("list"), "list the real ids"),
                           exit_code=EXIT_USAGE, category="usage", source=("node", None)) from exc
    plan = plan or ctx.plan()
    node = plan.get(node_id)
    if node is None:
        broken = next((p for p in plan.problems if p.node == node_id), None)
        if broken:
            raise CommandError(
                "node_unreadable", f"{node_id} exists but cannot be read: {broken.message}",
                fix(broken.fix if broken.fix.startswith("leafwise") else ctx.cmd("diagnose", node_id),
                    f"{broken.file} line {broken.line}"),
                exit_code=EXIT_NOT_FOUND, category="invalid_plan", source=("node", node_id),
                details={"file": broken.file, "line": broken.line})
        import difflib  # only on a miss: not on the path of every command

        close = difflib.get_close_matches(node_id, list(plan.nodes), n=1, cutoff=0.75)
        raise CommandError("node_not_found", f"no node {node_id} in this plan"
                           + (f"; did you mean {close[0]}?" if close else ""),
                           fix(ctx.cmd("show", close[0]) if close else ctx.cmd("list"),
                               "the nearest id" if close else "list the real ids"),
                           exit_code=EXIT_NOT_FOUND, category="not_found", source=("node", node_id))
    return node


Mutator = Callable[[dict[str, Any]], dict[str, tuple[Any, Any]]]


def write(ctx: Ctx, node: Node, mutate: Mutator, *, lock: bool = True,
          base: dict[str, Any] | None = None) -> dict[str, tuple[Any, Any]]:
    """Apply `mutate` to the node's file under its lock; returns {field: (from, to)}.

    `mutate` receives the mapping freshly read under the lock (round-trip) and
    sets fields on it; it re-checks its own preconditions there and raises
    CommandError when they no longer hold, so a lost race re-applies the change
    when it still makes sense and refuses it when not — never a silent loss.
    `base` (the fields as the caller read them, for blind writes like `edit`):
    a field the change sets that another writer changed since is a conflict.
    """
    changes: dict[str, tuple[Any, Any]] = {}

    def edit(doc: dict[str, Any]) -> None:
        changes.update(mutate(doc))
        if changes:
            doc["updated"] = ctx.clock()

    try:
        edit_node(ctx.paths(), node.id, None, edit, lock=lock, base=base)
    except CommandError:
        raise
    except FileNotFoundError as exc:
        raise CommandError("node_gone", f"{node.file} was removed while being changed",
                           fix(ctx.cmd("list"), "the node no longer exists"),
                           exit_code=EXIT_NOT_FOUND, category="not_found",
                           source=("node", node.id)) from exc
    except LockBusy as exc:
        raise CommandError("lock_busy", str(exc),
                           wait(f"the lock on {node.id} is released (retry in a few seconds)",
                                "another writer holds the node"),
                           exit_code=EXIT_CONFLICT, category="conflict", source=("node", node.id)) from exc
    except Conflict as exc:  # another writer changed a field this change sets
        raise CommandError("conflict", str(exc), fix(ctx.cmd("show", node.id), "re-read the node"),
                           exit_code=EXIT_CONFLICT, category="conflict", source=("node", node.id)) from exc
    except SchemaError as exc:
        raise would_break(ctx, node.id, node.file, exc) from exc
    except Exception as exc:
        if not yaml_error(exc):
            raise
        raise would_break(ctx, node.id, node.file, exc) from exc
    ctx.forget()
    return changes


def yaml_error(exc: BaseException) -> bool:
    """Whether the writer's own parse of the new bytes refused them (a file of 9,999 values and one more
    comment is more than the loader reads): the change would break the file, it is no internal error."""
    import yaml  # the write path has imported it already

    return isinstance(exc, yaml.YAMLError)


def would_break(ctx: Ctx, node_id: str, file: Any, exc: BaseException) -> CommandError:
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    return CommandError("invalid_value", f"the change would break {file}: {problem}",
                        fix(ctx.cmd("show", node_id), "check the value"),
                        exit_code=EXIT_USAGE, category="usage", source=("node", node_id))


def set_fields(doc: dict[str, Any], values: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """Set keys on a mapping; returns what actually changed."""
    changed: dict[str, tuple[Any, Any]] = {}
    for key, value in values.items():
        old = doc.get(key)
        if old != value or key not in doc:
            if old is None and value is None and key not in doc:
                continue
            doc[key] = _styled(value, old)
            changed[key] = (plain(old), plain(value))
    return changed


def _styled(value: Any, old: Any) -> Any:
    """A list of strings keeps the file's style: flow `[a, b]` unless it was a block list."""
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        from ruamel.yaml.comments import CommentedSeq

        seq = CommentedSeq(value)
        was_block = isinstance(old, CommentedSeq) and not old.fa.flow_style()
        if not was_block:
            seq.fa.set_flow_style()
        return seq
    return value


def plain(value: Any) -> Any:
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if hasattr(value, "isoformat"):
        return iso(value)
    return value


def record(ctx: Ctx, command: str, node_id: str | None, changes: dict[str, tuple[Any, Any]],
           **extra: Any) -> None:
    event = {"actor": ctx.who(extra.pop("actor", None)), "command": command, "node": node_id,
             "changes": {k: list(v) for k, v in changes.items()}}
    event.update({k: v for k, v in extra.items() if v not in (None, [], {})})
    journal.append(ctx.paths(), event)


def change_list(node_id: str, changes: dict[str, tuple[Any, Any]]) -> list[dict[str, Any]]:
    return [{"id": node_id, "field": k, "from": a, "to": b} for k, (a, b) in changes.items()
            if k != "updated"]


def cascade_changes(cascade: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A cascade's status moves as a mutation's change list (what the canvas's undo restores)."""
    return [{"id": c["id"], "field": "status", "from": c["from"], "to": c["to"]} for c in cascade]


def move_status(ctx: Ctx, node: Node, from_status: Status, to_status: Status) -> dict[str, Any] | None:
    """Move one node between statuses under its lock (nothing if it moved meanwhile): the cascade entry, or None."""

    def step(doc: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
        return set_fields(doc, {"status": to_status}) if doc.get("status") == from_status else {}

    if write(ctx, node, step):
        return {"id": node.id, "title": node.title, "from": from_status, "to": to_status}
    return None


def patch(plan: Plan, node_id: str, values: dict[str, Any]) -> None:
    """Keep the in-memory plan in step with what was written (for the follow-up pick): the node is
    replaced by a patched copy, never changed in place, so a warm plan a long-lived surface shares
    between calls (store/live_plan.py) stays what the files said."""
    from leafwise.commands.core.readiness import changed

    node = plan.nodes[node_id]
    data = {**node.data, **values}
    plan.nodes[node_id] = replace(node, data=data, status=Status(data["status"]))
    changed(plan)


def set_after_add(ctx: Ctx, node_id: str, values: dict[str, Any], actor: str | None = None) -> list[dict[str, Any]]:
    """Set fields `add` does not write itself (its priority) on the node it just created, journaled as
    an edit by the same actor: the mutation's changes."""
    node = get_node(ctx, node_id, ctx.plan(fresh=True))
    changes = write(ctx, node, lambda doc: set_fields(doc, values))
    if changes:
        record(ctx, "edit", node_id, {k: v for k, v in changes.items() if k != "updated"}, actor=actor)
    return change_list(node_id, changes)


def with_priority(ctx: Ctx, added: Result, priority: str, actor: str | None = None) -> Result:
    """`add`'s answer once the new node has its priority (`set_after_add`)."""
    node_id = added.result["id"]
    changes = set_after_add(ctx, node_id, {"priority": priority}, actor)
    added.result["node"]["priority"] = priority
    if added.mutation is not None:
        added.mutation.changes += changes
    added.text[0] += f" ({priority} priority)"
    return added
