"""Shaping the plan: init, add (with tails and the duplicate check), edit (releases: releases.py)."""

from __future__ import annotations

import json
import re
from typing import Any

from leafwise.commands.contract import (
    EXIT_CONFLICT,
    EXIT_NOT_FOUND,
    EXIT_USAGE,
    CommandError,
    Mutation,
    Result,
    clean,
    fix,
    next_,
    quote,
)
from leafwise.commands.core import lifecycle
from leafwise.commands.handlers.shared import (
    cascade_changes,
    change_list,
    get_node,
    live_claims,
    move_status,
    record,
    require_project,
    set_fields,
    write,
)
from leafwise.commands.registry import Ctx, Param, command
from leafwise.store import CLOSED, PRIORITIES, STATUSES, Plan, Status
from leafwise.store.ids import prefix_problem, suggest_prefix
from leafwise.store.loader import parse_yaml
from leafwise.store.paths import PLAN_DIR, PlanPaths, UnsafePath, resolve_inside
from leafwise.store.schema import CASCADE_MODES, KNOWN_FIELDS, LIST_FIELDS, READ_ONLY_FIELDS
from leafwise.store.writer import Exists, create_numbered, iso, render_new_node, write_text

DUPLICATE_SCORE = 85  # similarity (0-100) from which a title counts as a near-duplicate


@command("init", "Create a plan (.leafwise/) in this folder.", mutating=True, tool="init_project",
         needs_plan=False, idempotent=True,
         params=(Param("name", "project name (default: the folder name)"),
                 Param("prefix", "id prefix, e.g. SHOP (default: from the name)")))
def init(ctx: Ctx, name: str | None = None, prefix: str | None = None) -> Result:
    from pathlib import Path

    repo = Path(ctx.root).absolute() if ctx.root else ctx.cwd.absolute()
    if repo.name == PLAN_DIR:
        repo = repo.parent
    paths = PlanPaths(repo)
    asked_name, asked_prefix = name, prefix
    name = name or repo.name
    if prefix and (problem := prefix_problem(prefix)):  # the loader's rule and words: it loads what init writes
        raise CommandError("invalid_prefix", problem,
                           fix(ctx.cmd('init --prefix "<prefix>"'), "letters and digits, starting with a letter"),
                           exit_code=EXIT_USAGE, category="usage")
    prefix = (prefix or suggest_prefix(name)).upper()
    tool = Mutation(tool="init_project", operation="init", applied=False, reason="")
    if paths.project_file.exists() and (asked_name is not None or asked_prefix is not None):
        flags = (f" --name {quote(asked_name)}" if asked_name is not None else "") + \
            (f" --prefix {quote(asked_prefix)}" if asked_prefix is not None else "")
        raise CommandError("plan_exists", f"a plan already exists in {paths.dir}; init does not change it",
                           fix(ctx.cmd(f"project set{flags}"), "rename the project or change its prefix"),
                           exit_code=EXIT_CONFLICT, category="conflict", source=("project", None),
                           mutation=Mutation("init_project", "init", False, "a plan already exists"))
    if paths.project_file.exists():
        tool.reason = "a plan already exists here; nothing changed"
        return Result({"root": str(repo), "created": False}, next_(ctx.cmd("context"), "read the plan"),
                      [f"A plan already exists in {paths.dir}"], tool)
    paths.nodes.mkdir(parents=True, exist_ok=True)
    for folder in ("docs", "diagrams", "cycles", "claims"):
        (paths.dir / folder).mkdir(exist_ok=True)
    pid = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "project"
    from leafwise.store.writer import dump_yaml  # any folder name: quotes, colons, $( ) written by the library

    write_text(paths.project_file, dump_yaml({"schema": 1, "pid": pid, "name": name, "id_prefix": prefix,
                                              "releases": []}).decode())
    # claims are leases on this machine: a merge must never plant one
    write_text(paths.dir / ".gitignore", ".cache/\n.locks/\nclaims/\n")
    # branches append to the journal independently: a merge keeps both sides' lines
    write_text(paths.dir / ".gitattributes", "journal.jsonl merge=union\n")
    paths.journal.touch()
    tool.applied, tool.reason = True, "plan created"
    tool.changes = [{"file": f"{PLAN_DIR}/project.yaml", "op": "create"}]
    ctx._paths = paths
    record(ctx, "init", None, {}, root=str(repo))
    return Result({"root": str(repo), "created": True, "pid": pid, "id_prefix": prefix},
                  next_(ctx.cmd('release add R1 --title "<title>"'), "a plan starts with a release"),
                  [f"Created {paths.dir} (prefix {prefix})"], tool)


def near_duplicate(plan: Plan, title: str) -> tuple[str, str, float] | None:
    """The open node whose title is closest to `title`, if it is near enough.

    The score is the better of plain and token-sorted similarity, so both
    "reset by email" ~ "reset via email" and reordered words count.
    """
    from rapidfuzz import fuzz, process, utils

    open_nodes = [n for n in plan.nodes.values() if n.status not in CLOSED]
    titles = [n.title for n in open_nodes]
    best: tuple[str, float, int] | None = None
    for scorer in (fuzz.ratio, fuzz.token_sort_ratio):
        found = process.extractOne(title, titles, scorer=scorer, processor=utils.default_process,
                                   score_cutoff=DUPLICATE_SCORE)
        if found is not None and (best is None or found[1] > best[1]):
            best = found
    if best is None:
        return None
    node = open_nodes[best[2]]
    return node.id, node.title, round(best[1], 1)


@command("add", "Add a node (task, epic, tech-debt or deferred improvement).", mutating=True,
         tool="add_node",
         params=(Param("title", "the node's title", positional=True, required=True),
                 Param("parent", "parent node id"),
                 Param("release", "release id (default: inherited from the parent)"),
                 Param("depends_on", "a node this one waits for", multiple=True),
                 Param("tag", "a tag", multiple=True),
                 Param("tech_debt", "a tech-debt tail: tagged tech-debt, beside --follows", type=bool),
                 Param("trigger", "a deferred improvement: when it applies (goes to a later release)"),
                 Param("follows", "the node this tail comes from (sets parent and release)"),
                 Param("force", "add even when a near-duplicate title exists", type=bool)))
def add(ctx: Ctx, title: str, parent: str | None = None, release: str | None = None,
        depends_on: tuple[str, ...] = (), tag: tuple[str, ...] = (), tech_debt: bool = False,
        trigger: str | None = None, follows: str | None = None, force: bool = False) -> Result:
    paths = ctx.paths()
    plan = ctx.plan()
    require_project(ctx, plan, "add")
    title = " ".join(str(title).split())
    if not title:
        raise CommandError("empty_title", "a node needs a title",
                           fix(ctx.cmd('add "<title>"'), "give it a title"),
                           exit_code=EXIT_USAGE, category="usage")
    tags = list(dict.fromkeys(tag))
    origin = get_node(ctx, follows, plan) if follows else None
    if origin is not None and parent is None:
        parent = origin.parent if tech_debt or trigger else origin.id
    if tech_debt and "tech-debt" not in tags:
        tags.append("tech-debt")
    if parent is not None:
        parent = get_node(ctx, parent, plan).id
        _refuse_cancelled(ctx, plan, parent, title)
    releases = [r.id for r in plan.project.releases]
    if release is None and trigger is not None:
        base = (origin.effective_release if origin else None) or (
            plan.nodes[parent].effective_release if parent else None)
        if base in releases and releases.index(base) + 1 < len(releases):
            release = releases[releases.index(base) + 1]
    elif release is None and origin is not None and origin.release and parent != origin.id:
        release = origin.effective_release
    if release is not None and release not in releases:
        raise CommandError("unknown_release", f"release {release!r} is not in project.yaml",
                           fix(ctx.cmd(f"release add {release} --title \"<title>\""), "add the release first"),
                           exit_code=EXIT_NOT_FOUND, category="not_found", source=("release", release))
    for dep in depends_on:
        get_node(ctx, dep, plan)
    if not force:
        dup = near_duplicate(plan, title)
        if dup:
            dup_id, dup_title, score = dup
            forced = _add_line(title, parent, release, depends_on, tags, trigger, follows, tech_debt, force=True)
            raise CommandError(
                "near_duplicate", f"{dup_id} {dup_title!r} is {score:g}% similar to {title!r}",
                fix(ctx.cmd(f"show {dup_id}"), "reuse the existing node if it is the same work",
                    or_=ctx.cmd(forced)),
                exit_code=EXIT_CONFLICT, category="conflict", source=("node", dup_id),
                details={"duplicate": dup_id, "title": dup_title, "score": score},
                mutation=Mutation("add_node", "add", False, "near-duplicate title"))
    now = ctx.clock()
    fields: dict[str, Any] = {"id": "", "title": title}
    if parent:
        fields["parent"] = parent
    if release:
        fields["release"] = release
    fields["status"] = Status.DRAFT
    if depends_on:
        fields["depends_on"] = list(dict.fromkeys(depends_on))
    if tags:
        fields["tags"] = tags
    if trigger:
        fields["trigger"] = trigger
    if follows:
        fields["follows"] = follows
    fields["created"] = now
    fields["updated"] = now
    try:  # the next free number, shared by every worktree of this clone (see docs/concurrency.md)
        node_id, _ = create_numbered(paths, plan.project.id_prefix,
                                     lambda nid: render_new_node({**fields, "id": nid}))
    except Exists as exc:  # pragma: no cover - a thousand concurrent creators
        raise CommandError("id_exhausted", "could not allocate a free id",
                           fix(ctx.cmd("doctor"), "check the nodes folder"), category="io") from exc
    fields["id"] = node_id
    shown = {k: (iso(v) if hasattr(v, "isoformat") else v) for k, v in fields.items()}
    cascade = reopen_ancestors(ctx, plan, parent) if parent else []
    record(ctx, "add", node_id, {"status": (None, Status.DRAFT)}, title=title, parent=parent, cascade=cascade)
    ctx.forget()
    kind = "tech-debt tail" if tech_debt else "deferred improvement" if trigger else "node"
    return Result(
        {"id": node_id, "node": shown, "file": f"{PLAN_DIR}/nodes/{node_id}.yaml", "cascade": cascade},
        next_(ctx.cmd("next"), "the picker decides what to work on next"),
        [f"Added {kind} {node_id}: {clean(title)}"
         + (f" under {parent}" if parent else "") + (f" in {release}" if release else "")]
        + [f"  reopened: {c['id']} “{clean(c['title'])}” {c['from']} → {c['to']}" for c in cascade],
        Mutation("add_node", "add", True, f"{kind} created" + (" (closed parents reopened)" if cascade else ""),
                 [{"id": node_id, "field": "status", "from": None, "to": Status.DRAFT}]
                 + cascade_changes(cascade)))


def _refuse_cancelled(ctx: Ctx, plan: Plan, parent: str, title: str) -> None:
    """Work is not added under cancelled work: the add would leave a cancelled parent with open children."""
    chain = [plan.nodes[parent], *plan.ancestors(parent)]
    dead = next((n for n in chain if n.status == Status.CANCELLED), None)
    if dead is None:
        return
    alive = next((n for n in chain if n.status != Status.CANCELLED and n is not dead
                  and chain.index(n) > chain.index(dead)), None)
    where = f" --parent {alive.id}" if alive else ""
    raise CommandError("parent_cancelled", f"{dead.id} is cancelled; work is not added under cancelled work",
                       fix(ctx.cmd(f"add {quote(title)}{where}"), "add it elsewhere",
                           or_=ctx.cmd(f"edit {dead.id} --set status=draft")),
                       exit_code=EXIT_CONFLICT, category="conflict", source=("node", dead.id),
                       mutation=Mutation("add_node", "add", False, "parent cancelled"))


def reopen_ancestors(ctx: Ctx, plan: Plan, parent: str) -> list[dict[str, Any]]:
    """A done parent (and its done ancestors) reopen when work is added under them: done → in-progress."""
    cascade: list[dict[str, Any]] = []
    for target in [plan.nodes[parent], *plan.ancestors(parent)]:
        row = lifecycle.transition("add: done ancestors", target.status)
        if row is None:
            break
        if moved := move_status(ctx, target, target.status, row.target):
            cascade.append(moved)
    return cascade


def _add_line(title, parent, release, depends_on, tags, trigger, follows, tech_debt, force=False) -> str:
    """The `add` line for these values; a title that reads as an option comes last, after `--`."""
    dashed = clean(title).startswith("-")
    parts = ["add"] if dashed else ["add", quote(title)]
    if parent:
        parts += ["--parent", parent]
    if release:
        parts += ["--release", release]
    for dep in depends_on:
        parts += ["--depends-on", dep]
    for t in tags:
        if not (tech_debt and t == "tech-debt"):
            parts += ["--tag", quote(t)]
    if tech_debt:
        parts.append("--tech-debt")
    if trigger:
        parts += ["--trigger", quote(trigger)]
    if follows:
        parts += ["--follows", follows]
    if force:
        parts.append("--force")
    if dashed:
        parts += ["--", quote(title)]
    return " ".join(parts)


# --- edit -------------------------------------------------------------------

LIFECYCLE = {Status.DONE: "complete {id} --summary \"<summary>\"",
             Status.BLOCKED: "block {id} --reason \"<reason>\"",
             Status.CANCELLED: "cancel {id} --reason \"<reason>\""}


def parse_assignment(text: str) -> tuple[str, Any]:
    if "=" not in text:
        raise ValueError(f"{text!r} is not FIELD=VALUE")
    key, raw = text.split("=", 1)
    key = key.strip()
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", key):
        raise ValueError(f"{key!r} is not a field name")
    raw = raw.strip()
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'" and raw[0] not in raw[1:-1]:
        inner = raw[1:-1]  # quoted: the text as it is ("[WIP] x", "null", "~", "")
        return key, ([inner] if inner else []) if key in LIST_FIELDS else inner
    if raw in ("", "null", "~"):
        return key, None
    if key in LIST_FIELDS:
        if raw.startswith("["):
            value = parse_yaml(raw)
            if not isinstance(value, list):
                raise ValueError(f"{key} takes a list like [a, b]")
            return key, [str(v) for v in value]
        return key, [part.strip() for part in raw.split(",") if part.strip()]
    if raw[:1] in "[{" or key in ("evidence",):
        try:
            return key, parse_yaml(raw)
        except Exception as exc:  # noqa: BLE001 - any YAML error is a usage error here
            raise ValueError(f"{key}: a value starting with [ or {{ is read as YAML, and this one is not valid "
                             f"({str(exc).splitlines()[0]}); to keep the text as written, put it in quotes: "
                             f"{key}=\"...\"") from exc
    return key, raw


def format_assignment(key: str, value: Any) -> str | None:
    """`key=value` that `parse_assignment` reads back to the same value; None when none does
    (a number or a boolean would come back as text; a text holding both kinds of quote that reads
    as something else unquoted)."""
    if value is None:
        return f"{key}=null"
    if isinstance(value, (list, dict)):
        return f"{key}=" + json.dumps(value, ensure_ascii=False)
    if not isinstance(value, str):
        return None
    for mark in "\"'":
        if mark not in value:
            return f"{key}={mark}{value}{mark}"
    if key in LIST_FIELDS or value[:1] in "[{":
        return None
    line = f"{key}={value}"  # both kinds of quote: as it is, when that reads back the same
    return line if parse_assignment(line) == (key, value) else None


@command("edit", "Set fields of a node (FIELD=VALUE; lists as a,b or [a, b]; null clears; a value in quotes "
         "is kept as written); "
         "--add/--remove one value of a list field.",
         mutating=True, tool="edit_node", idempotent=True,
         params=(Param("node_id", "node id", positional=True, required=True),
                 Param("set", "FIELD=VALUE", multiple=True),
                 Param("add", "LIST_FIELD=VALUE: append a value (tags, depends_on, docs, diagrams)", multiple=True),
                 Param("remove", "LIST_FIELD=VALUE: drop a value", multiple=True),
                 Param("agent", "the agent editing (a held task's status is its holder's)"),
                 Param("force", "a person changes a held task's status or assignee (journaled)", type=bool)))
def edit(ctx: Ctx, node_id: str, set: tuple[str, ...] = (), add: tuple[str, ...] = (),  # noqa: A002
         remove: tuple[str, ...] = (), agent: str | None = None, force: bool = False) -> Result:
    plan = ctx.plan()
    node = get_node(ctx, node_id, plan)
    node_id = node.id
    if not (set or add or remove):
        raise CommandError("missing_argument", "edit needs --set, --add or --remove",
                           fix(ctx.cmd(f'edit {node_id} --set title="<title>"'), "say what to change"),
                           exit_code=EXIT_USAGE, category="usage", source=("node", node_id))
    values: dict[str, Any] = {}
    for assignment in set:
        try:
            key, value = parse_assignment(assignment)
        except ValueError as exc:
            raise CommandError("invalid_assignment", str(exc),
                               fix(ctx.cmd(f"edit {node_id} --set title=\"<title>\""), "write FIELD=VALUE"),
                               exit_code=EXIT_USAGE, category="usage", source=("node", node_id)) from exc
        values[key] = value
    for op, items in (("add", add), ("remove", remove)):
        for item in items:
            key, _, raw = item.partition("=")
            key, raw = key.strip(), raw.strip()
            if key not in LIST_FIELDS or not raw:
                raise CommandError("invalid_assignment", f"--{op} takes LIST_FIELD=VALUE with a list field "
                                   f"({', '.join(LIST_FIELDS)}), not {clean(item, 80)!r}",
                                   fix(ctx.cmd(f"edit {node_id} --{op} tags=<tag>"), "name a list field"),
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
    bad = _check_values(ctx, plan, node, values)
    if bad:
        raise bad
    touches_hold = {"status", "assignee"} & values.keys()
    held = live_claims(ctx, plan).get(node_id) if touches_hold else None
    forced = bool(held and held.agent != agent)
    if forced and not force:
        from leafwise.commands.handlers.agent_loop import _held

        line = f"edit {node_id} " + " ".join(f"--set {quote(a)}" for a in set) + " --force"
        raise _held(ctx, node, held, agent, "edit_node", line)
    changes = write(ctx, node, lambda doc: set_fields(doc, values), base=node.data)
    if forced and "status" in values and values["status"] != Status.IN_PROGRESS:
        from leafwise.store import claims as leases

        leases.remove(ctx.paths(), node_id)
    if changes:
        record(ctx, "edit", node_id, changes, actor=agent or ctx.person(),
               forced_by=ctx.person() if forced else None, holder=held.agent if forced else None)
    listed = change_list(node_id, changes)
    return Result({"id": node_id, "changes": listed},
                  next_(ctx.cmd(f"show {node_id}"), "see the node as it is now"),
                  [f"{node_id}: " + (", ".join(f"{c['field']} {_shown(c['from'])} → {_shown(c['to'])}" for c in listed)
                                     or "nothing changed")],
                  Mutation("edit_node", "edit", bool(listed),
                           "fields updated" if listed else "values already as given", listed))


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


def _check_values(ctx: Ctx, plan: Plan, node, values: dict[str, Any]) -> CommandError | None:
    node_id = node.id

    def usage(message: str, hint: str) -> CommandError:
        return CommandError("invalid_value", message, fix(ctx.cmd(hint), "use a valid value"),
                            exit_code=EXIT_USAGE, category="usage", source=("node", node_id))

    for key, value in values.items():
        if key not in KNOWN_FIELDS and key not in node.data:
            import difflib

            close = difflib.get_close_matches(key, KNOWN_FIELDS, n=1)
            return CommandError("unknown_field", f"{key!r} is not a node field"
                                + (f"; did you mean {close[0]}?" if close else ""),
                                fix(ctx.cmd(f"edit {node_id} --set {quote(close[0] + '=<value>')}" if close
                                            else f"show {node_id}"), "use a field of the format"),
                                exit_code=EXIT_USAGE, category="usage", source=("node", node_id),
                                details={"known": list(KNOWN_FIELDS)})
        if key == "priority" and value is not None and value not in PRIORITIES:
            return usage(f"priority is one of {', '.join(PRIORITIES)} (or null)", f"edit {node_id} --set priority=high")
        if key in READ_ONLY_FIELDS:
            return usage(f"{key} cannot be edited", f"show {node_id}")
        if key == "title" and not value:
            return usage("title cannot be empty", f'edit {node_id} --set title="<title>"')
        if key == "status":
            if value in lifecycle.OWN_COMMAND:
                return CommandError(
                    "use_lifecycle", f"status {value} has its own command (it cascades and records why)",
                    fix(ctx.cmd(LIFECYCLE[value].format(id=node_id)), "use the lifecycle command"),
                    exit_code=EXIT_USAGE, category="usage", source=("node", node_id))
            if value not in STATUSES:
                return usage(f"status {value!r} is not one of {', '.join(STATUSES)}",
                             f"edit {node_id} --set status=draft")
            if value != node.status and lifecycle.transition(lifecycle.edit_command(value), node.status) is None:
                return CommandError(  # the table's only such source: blocked, whose way out is unblock
                    "use_lifecycle", f"{node_id} is {node.status}: unblock restores the status it had before "
                    "(and clears the reason)", fix(ctx.cmd(f"unblock {node_id}"), "unblock it"),
                    exit_code=EXIT_USAGE, category="usage", source=("node", node_id))
        if key == "cascade" and value not in CASCADE_MODES:
            return usage("cascade is auto or manual", f"edit {node_id} --set cascade=auto")
        if key == "parent" and value is not None:
            if value == node_id or value not in plan.nodes:
                return usage(f"parent {value!r} is not another node of the plan", "list")
            if any(a.id == node_id for a in plan.ancestors(value)):
                return usage(f"{value} is below {node_id}: that would make a cycle", f"tree {node_id}")
        if key == "release" and value is not None and value not in plan.project.release_rank():
            return usage(f"release {value!r} is not in project.yaml", "context")
        if key == "depends_on":
            missing = [d for d in value or [] if d not in plan.nodes]
            if missing:
                return usage(f"unknown dependency {clean(missing[0], 80)}", "list")
            if node_id in (value or []):
                return usage(f"{node_id} cannot depend on itself", f"show {node_id}")
            loop = next((d for d in value or [] if _reaches(plan, d, node_id, {node_id: list(value)})), None)
            if loop:
                return usage(f"{loop} already waits for {node_id}: depending on it would make a cycle",
                             f"show {loop}")
        if key in ("docs", "diagrams"):
            for rel in value or []:
                try:
                    resolve_inside(plan.paths.dir, rel)
                except UnsafePath as exc:
                    return usage(f"{key}: {exc}", f"edit {node_id} --set {key}=[docs/{node_id}.md]")
    return None

