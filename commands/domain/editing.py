"""`edit`: set a node's fields (FIELD=VALUE, or one value added to or removed from a list field),
each value checked against the plan before the node's file is written."""

from __future__ import annotations

from typing import Any

from leafwise.commands.contract import EXIT_USAGE, CommandError, Mutation, Result, clean, fix, next_, placeholder
from leafwise.commands.core import lifecycle
from leafwise.commands.domain.assignments import parse_assignment
from leafwise.commands.domain.holds import held, live_claims
from leafwise.commands.domain.nodes import change_list, get_node, record, set_fields, write
from leafwise.commands.registry import Ctx
from leafwise.store import PRIORITIES, STATUSES, Node, Plan, Status
from leafwise.store.paths import UnsafePath, resolve_inside
from leafwise.store.schema import CASCADE_MODES, KNOWN_FIELDS, LIST_FIELDS, READ_ONLY_FIELDS

# The argument each lifecycle command takes besides the id (`lifecycle.OWN_COMMAND` names the command).
WHY = {"complete": "summary", "block": "reason", "cancel": "reason"}


def edit(ctx: Ctx, node_id: str, set: tuple[str, ...] = (), add: tuple[str, ...] = (),  # noqa: A002
         remove: tuple[str, ...] = (), agent: str | None = None, force: bool = False) -> Result:
    """Set fields of a node; a held task's status or assignee is its holder's unless a person forces it."""
    plan = ctx.plan()
    node = get_node(ctx, node_id, plan)
    node_id = node.id
    force = ctx.overrides(force)
    if not (set or add or remove):
        raise CommandError("missing_argument", "edit needs --set, --add or --remove",
                           fix(ctx.cmd("edit", node_id, set=[ANY_FIELD]), "say what to change"),
                           exit_code=EXIT_USAGE, category="usage", source=("node", node_id))
    values = _values(ctx, node, set, add, remove)
    bad = _check_values(ctx, plan, node, values)
    if bad:
        raise bad
    touches_hold = {"status", "assignee"} & values.keys()
    claim = live_claims(ctx, plan).get(node_id) if touches_hold else None
    forced = bool(claim and claim.agent != agent)
    if forced and not force:
        raise held(ctx, node, claim, agent, "edit_node", ctx.cmd("edit", node_id, set=list(set), force=True))
    changes = write(ctx, node, lambda doc: set_fields(doc, values), base=node.data)
    if forced and "status" in values and values["status"] != Status.IN_PROGRESS:
        from leafwise.store import claims as leases

        leases.remove(ctx.paths(), node_id)
    if changes:
        record(ctx, "edit", node_id, changes, actor=agent or ctx.person(),
               forced_by=ctx.person() if forced else None, holder=claim.agent if forced else None)
    listed = change_list(node_id, changes)
    said = ", ".join(f"{c['field']} {_shown(c['from'])} → {_shown(c['to'])}" for c in listed)
    return Result({"id": node_id, "changes": listed},
                  next_(ctx.cmd("show", node_id), "see the node as it is now"),
                  [f"{node_id}: " + (said or "nothing changed")],
                  Mutation("edit_node", "edit", bool(listed),
                           "fields updated" if listed else "values already as given", listed))


def _values(ctx: Ctx, node: Node, set: tuple[str, ...], add: tuple[str, ...],  # noqa: A002
            remove: tuple[str, ...]) -> dict[str, Any]:
    """The new values the arguments ask for: `--set`s read, then `--add`/`--remove` applied to the lists."""
    node_id = node.id
    values: dict[str, Any] = {}
    for assignment in set:
        try:
            key, value = parse_assignment(assignment)
        except ValueError as exc:
            raise CommandError("invalid_assignment", str(exc),
                               fix(ctx.cmd("edit", node_id, set=[ANY_FIELD]), "write FIELD=VALUE"),
                               exit_code=EXIT_USAGE, category="usage", source=("node", node_id)) from exc
        values[key] = value
    for op, items in (("add", add), ("remove", remove)):
        for item in items:
            key, _, raw = item.partition("=")
            key, raw = key.strip(), raw.strip()
            if key not in LIST_FIELDS or not raw:
                raise CommandError("invalid_assignment", f"--{op} takes LIST_FIELD=VALUE with a list field "
                                   f"({', '.join(LIST_FIELDS)}), not {clean(item, 80)!r}",
                                   fix(ctx.cmd("edit", node_id, **{op: [f"{one_of(LIST_FIELDS)}=<value>"]}), "name a list field"),
                                   exit_code=EXIT_USAGE, category="usage", source=("node", node_id))
            current = list(values.get(key, node.data.get(key) or []))
            if key == "depends_on":
                raw = raw.upper()
            if op == "add" and raw not in current:
                current.append(raw)
            elif op == "remove":
                current = [v for v in current if v != raw]
            values[key] = current
    if "depends_on" in values and values["depends_on"]:
        values["depends_on"] = [str(d).upper() for d in values["depends_on"]]
    return values

ANY_FIELD = "<field>=<value>"  # a Fix names no field or value the caller did not give (the message lists them)
EDITABLE_STATUSES = tuple(s for s in STATUSES if s not in lifecycle.OWN_COMMAND)


def one_of(choices: Any) -> str:
    """A placeholder listing the allowed values: `<high|normal|low>`."""
    return placeholder("|".join(str(c) for c in choices))


def _shown(value: Any) -> str:
    if value is None:
        return "(none)"
    if isinstance(value, list):
        return "[" + ", ".join(clean(v, 80) for v in value) + "]"
    return clean(value, 200)


def _reaches(plan: Plan, start: str, target: str, override: dict[str, list[str]]) -> bool:
    """Whether following depends_on from `start` reaches `target` (with `override` for edited nodes)."""
    seen: set[str] = set()
    stack = [start]
    while stack:
        current = stack.pop()
        if current == target:
            return True
        if current in seen or current not in plan.nodes:
            continue
        seen.add(current)
        stack.extend(override.get(current, plan.nodes[current].depends_on))
    return False


def _usage(ctx: Ctx, node_id: str, message: str, hint: str) -> CommandError:
    """An invalid value; `hint` is a command line built with ctx.cmd."""
    return CommandError("invalid_value", message, fix(hint, "use a valid value"),
                        exit_code=EXIT_USAGE, category="usage", source=("node", node_id))


def _check_values(ctx: Ctx, plan: Plan, node: Node, values: dict[str, Any]) -> CommandError | None:
    """The first value the plan refuses, as the error to raise; None when all are valid."""
    for key, value in values.items():
        if key not in KNOWN_FIELDS and key not in node.data:
            return _unknown_field(ctx, node.id, key)
        check = _CHECKS.get(key)
        error = check(ctx, plan, node, value) if check else None
        if error is not None:
            return error
    return None


def _unknown_field(ctx: Ctx, node_id: str, key: str) -> CommandError:
    import difflib

    close = difflib.get_close_matches(key, KNOWN_FIELDS, n=1)
    return CommandError("unknown_field", f"{key!r} is not a node field"
                        + (f"; did you mean {close[0]}?" if close else ""),
                        fix(ctx.cmd("edit", node_id, set=[ANY_FIELD]), "use a field of the format"),
                        exit_code=EXIT_USAGE, category="usage", source=("node", node_id),
                        details={"known": list(KNOWN_FIELDS)})


def _check_priority(ctx: Ctx, plan: Plan, node: Node, value: Any) -> CommandError | None:
    if value is not None and value not in PRIORITIES:
        return _usage(ctx, node.id, f"priority is one of {', '.join(PRIORITIES)} (or null)",
                      ctx.cmd("edit", node.id, set=[f"priority={one_of(PRIORITIES)}"]))
    return None


def _check_title(ctx: Ctx, plan: Plan, node: Node, value: Any) -> CommandError | None:
    if not value:
        return _usage(ctx, node.id, "title cannot be empty", ctx.cmd("edit", node.id, set=["title=<title>"]))
    return None


def _check_status(ctx: Ctx, plan: Plan, node: Node, value: Any) -> CommandError | None:
    node_id = node.id
    if value in lifecycle.OWN_COMMAND:
        command = lifecycle.OWN_COMMAND[value]
        return CommandError(
            "use_lifecycle", f"status {value} has its own command (it cascades and records why)",
            fix(ctx.cmd(command, node_id, **{WHY[command]: placeholder(WHY[command])}), "use the lifecycle command"),
            exit_code=EXIT_USAGE, category="usage", source=("node", node_id))
    if value not in STATUSES:
        return _usage(ctx, node_id, f"status {value!r} is not one of {', '.join(STATUSES)}",
                      ctx.cmd("edit", node_id, set=[f"status={one_of(EDITABLE_STATUSES)}"]))
    if value != node.status and lifecycle.transition(lifecycle.edit_command(value), node.status) is None:
        return CommandError(  # the table's only such source: blocked, whose way out is unblock
            "use_lifecycle", f"{node_id} is {node.status}: unblock restores the status it had before "
            "(and clears the reason)", fix(ctx.cmd("unblock", node_id), "unblock it"),
            exit_code=EXIT_USAGE, category="usage", source=("node", node_id))
    return None


def _check_cascade(ctx: Ctx, plan: Plan, node: Node, value: Any) -> CommandError | None:
    if value not in CASCADE_MODES:
        return _usage(ctx, node.id, "cascade is auto or manual", ctx.cmd("edit", node.id, set=[f"cascade={one_of(CASCADE_MODES)}"]))
    return None


def _check_parent(ctx: Ctx, plan: Plan, node: Node, value: Any) -> CommandError | None:
    if value is None:
        return None
    if value == node.id or value not in plan.nodes:
        return _usage(ctx, node.id, f"parent {value!r} is not another node of the plan", ctx.cmd("list"))
    if any(a.id == node.id for a in plan.ancestors(value)):
        return _usage(ctx, node.id, f"{value} is below {node.id}: that would make a cycle", ctx.cmd("tree", node.id))
    above = {value, *(a.id for a in plan.ancestors(value))}  # the node's ancestors after the move
    for below in (node, *plan.descendants(node.id)):
        waits = next((d for d in below.depends_on if d in above), None)
        if waits is not None:  # validate's dependency_on_ancestor: neither could ever close
            return _usage(ctx, node.id, f"{below.id} depends on {waits}, which would then contain it: neither "
                          "could ever close", ctx.cmd("show", below.id))
    return None


def _check_release(ctx: Ctx, plan: Plan, node: Node, value: Any) -> CommandError | None:
    if value is not None and value not in plan.project.release_rank():
        return _usage(ctx, node.id, f"release {value!r} is not in project.yaml", ctx.cmd("context"))
    return None


def _check_depends_on(ctx: Ctx, plan: Plan, node: Node, value: Any) -> CommandError | None:
    node_id = node.id
    missing = [d for d in value or [] if d not in plan.nodes]
    if missing:
        return _usage(ctx, node_id, f"unknown dependency {clean(missing[0], 80)}", ctx.cmd("list"))
    if node_id in (value or []):
        return _usage(ctx, node_id, f"{node_id} cannot depend on itself", ctx.cmd("show", node_id))
    above = next((d for d in value or [] if d in {a.id for a in plan.ancestors(node_id)}), None)
    if above is not None:  # validate's dependency_on_ancestor
        return _usage(ctx, node_id, f"{above} contains {node_id}: depending on it, neither could ever close",
                      ctx.cmd("show", node_id))
    loop = next((d for d in value or [] if _reaches(plan, d, node_id, {node_id: list(value)})), None)
    if loop:
        return _usage(ctx, node_id, f"{loop} already waits for {node_id}: depending on it would make a cycle",
                      ctx.cmd("show", loop))
    return None


def _check_files(key: str) -> Any:
    def check(ctx: Ctx, plan: Plan, node: Node, value: Any) -> CommandError | None:
        for rel in value or []:
            try:
                resolve_inside(plan.paths.dir, rel)
            except UnsafePath as exc:
                return _usage(ctx, node.id, f"{key}: {exc}",
                              ctx.cmd("edit", node.id, set=[f"{key}=[<path inside .leafwise/>]"]))
        return None

    return check


def _check_read_only(key: str) -> Any:
    def check(ctx: Ctx, plan: Plan, node: Node, value: Any) -> CommandError | None:
        return _usage(ctx, node.id, f"{key} cannot be edited", ctx.cmd("show", node.id))

    return check


# Each field's own check: a field without one takes any value the schema allows.
_CHECKS = {"priority": _check_priority, "title": _check_title, "status": _check_status,
           "cascade": _check_cascade, "parent": _check_parent, "release": _check_release,
           "depends_on": _check_depends_on, "docs": _check_files("docs"), "diagrams": _check_files("diagrams")}
_CHECKS.update({key: _check_read_only(key) for key in READ_ONLY_FIELDS})
