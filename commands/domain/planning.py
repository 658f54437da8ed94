"""Shaping the plan: init, and add (tails, the duplicate check, reopening done parents).

`edit` is in editing.py, the releases in releases.py.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from leafwise.commands.contract import (
    EXIT_CONFLICT,
    EXIT_NOT_FOUND,
    EXIT_USAGE,
    CommandError,
    CommandLine,
    Mutation,
    Result,
    clean,
    fix,
    next_,
    placeholder,
)
from leafwise.commands.core import duplicates, lifecycle
from leafwise.commands.domain.nodes import cascade_changes, get_node, move_status, record, require_project
from leafwise.commands.registry import Ctx
from leafwise.store import CLOSED, Node, Plan, Status
from leafwise.store.ids import prefix_problem, suggest_prefix
from leafwise.commands.unsafe_plan import unsafe_plan_error
from leafwise.store.paths import PLAN_DIR, PlanPaths, confinement_problem
from leafwise.store.writer import Exists, create_numbered, iso, render_new_node, write_text


def init(ctx: Ctx, name: str | None = None, prefix: str | None = None) -> Result:
    """Create `.leafwise/` in the root (or here); a plan already there is left as it is."""
    repo = Path(ctx.root).absolute() if ctx.root else ctx.cwd.absolute()
    if repo.name == PLAN_DIR:
        repo = repo.parent
    paths = PlanPaths(repo)
    if (unsafe := confinement_problem(repo)) is not None:  # before anything is written, or even looked at
        raise unsafe_plan_error(unsafe, ctx.cmd)
    asked_name, asked_prefix = name, prefix
    name = name or repo.name
    if prefix and (problem := prefix_problem(prefix)):  # the loader's rule and words: it loads what init writes
        raise CommandError("invalid_prefix", problem,
                           fix(ctx.cmd("init", prefix=placeholder("prefix")),
                               "letters and digits, starting with a letter"),
                           exit_code=EXIT_USAGE, category="usage")
    prefix = (prefix or suggest_prefix(name)).upper()
    tool = Mutation(tool="init_project", operation="init", applied=False, reason="")
    if paths.project_file.exists() and (asked_name is not None or asked_prefix is not None):
        raise CommandError("plan_exists", f"a plan already exists in {paths.dir}; init does not change it",
                           fix(ctx.cmd("project set", name=asked_name, prefix=asked_prefix),
                               "rename the project or change its prefix"),
                           exit_code=EXIT_CONFLICT, category="conflict", source=("project", None),
                           mutation=Mutation("init_project", "init", False, "a plan already exists"))
    if paths.project_file.exists():
        tool.reason = "a plan already exists here; nothing changed"
        return Result({"root": str(repo), "created": False}, next_(ctx.cmd("context"), "read the plan"),
                      [f"A plan already exists in {paths.dir}"], tool)
    pid = _create(paths, name, prefix)
    from leafwise.commands.domain.merging import init_note  # only init needs it: add and edit never load it

    driver, driver_lines = init_note(ctx, repo)  # node files merge key by key (docs/merging.md)
    tool.applied, tool.reason = True, "plan created"
    tool.changes = [{"file": f"{PLAN_DIR}/project.yaml", "op": "create"}]
    ctx.use_paths(paths)
    record(ctx, "init", None, {}, root=str(repo))
    return Result({"root": str(repo), "created": True, "pid": pid, "id_prefix": prefix, "merge_driver": driver},
                  next_(ctx.cmd("release add", "R1", title=placeholder("title")), "a plan starts with a release"),
                  [f"Created {paths.dir} (prefix {prefix})", *driver_lines], tool)


def _create(paths: PlanPaths, name: str, prefix: str) -> str:
    """Write a new plan's folders and files; its project id."""
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
    return pid


def near_duplicate(plan: Plan, title: str) -> duplicates.Match | None:
    """The open node whose work `title` repeats (the rule: commands/core/duplicates.py)."""
    return duplicates.find(title, ((n.id, n.title) for n in plan.nodes.values() if n.status not in CLOSED))


def add(ctx: Ctx, title: str, parent: str | None = None, release: str | None = None,
        depends_on: tuple[str, ...] = (), tag: tuple[str, ...] = (), tech_debt: bool = False,
        trigger: str | None = None, follows: str | None = None, force: bool = False,
        agent: str | None = None) -> Result:
    """Add a node (a task, an epic, a tech-debt tail with `tech_debt`, a deferred improvement with `trigger`),
    journaled as `agent` when an agent adds it."""
    plan = ctx.plan()
    require_project(ctx, plan, "add")
    title = " ".join(str(title).split())
    if not title:
        raise CommandError("empty_title", "a node needs a title",
                           fix(ctx.cmd("add", placeholder("title")), "give it a title"),
                           exit_code=EXIT_USAGE, category="usage")
    tags = list(dict.fromkeys(tag))
    if tech_debt and "tech-debt" not in tags:
        tags.append("tech-debt")
    parent, release = _placement(ctx, plan, title, parent, release, follows, tech_debt, trigger)
    for dep in depends_on:
        get_node(ctx, dep, plan)
    above = {parent, *(a.id for a in plan.ancestors(parent))} if parent else set()
    if waits := next((d for d in depends_on if d in above), None):  # validate's dependency_on_ancestor
        raise CommandError("dependency_on_ancestor", f"{waits} would contain the new node: depending on it, "
                           "neither could ever close", fix(ctx.cmd("show", waits), "depend on a node outside it"),
                           exit_code=EXIT_USAGE, category="usage", source=("node", waits))
    if not ctx.overrides(force):
        _refuse_near_duplicate(ctx, plan, title, add_line(
            ctx.cmd, title, parent=parent, release=release, depends_on=depends_on, tags=tags, trigger=trigger,
            follows=follows, tech_debt=tech_debt, force=True) if not ctx.for_agent else None)
    node_id, fields = _create_node(ctx, plan, title, parent, release, depends_on, tags, trigger, follows)
    shown = {k: (iso(v) if hasattr(v, "isoformat") else v) for k, v in fields.items()}
    cascade = reopen_ancestors(ctx, plan, parent) if parent else []
    record(ctx, "add", node_id, {"status": (None, Status.DRAFT)}, actor=agent, title=title, parent=parent,
           cascade=cascade)
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


def _placement(ctx: Ctx, plan: Plan, title: str, parent: str | None, release: str | None, follows: str | None,
               tech_debt: bool, trigger: str | None) -> tuple[str | None, str | None]:
    """The new node's parent and release: a tail goes beside the node it follows (a tech-debt tail in
    the same release, a deferred improvement in the next one), a child takes its parent's release."""
    origin = get_node(ctx, follows, plan) if follows else None
    if origin is not None and parent is None:
        parent = origin.parent if tech_debt or trigger else origin.id
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
                           fix(ctx.cmd("release add", release, title=placeholder("title")), "add the release first"),
                           exit_code=EXIT_NOT_FOUND, category="not_found", source=("release", release))
    return parent, release


def _refuse_near_duplicate(ctx: Ctx, plan: Plan, title: str, forced: str | None) -> None:
    """Refuse a title near an open node's; `forced` is the same add with --force (a person's only)."""
    dup = near_duplicate(plan, title)
    if dup is None:
        return
    raise CommandError(
        "near_duplicate", f"{dup.id} {dup.title!r} names the same work as {title!r} ({dup.why})",
        fix(ctx.cmd("show", dup.id), "reuse the existing node if it is the same work, or name what sets yours apart",
            or_=forced),
        exit_code=EXIT_CONFLICT, category="conflict", source=("node", dup.id),
        details={"duplicate": dup.id, "title": dup.title, "why": dup.why},
        mutation=Mutation("add_node", "add", False, "near-duplicate title"))


def _create_node(ctx: Ctx, plan: Plan, title: str, parent: str | None, release: str | None,
                 depends_on: tuple[str, ...], tags: list[str], trigger: str | None,
                 follows: str | None) -> tuple[str, dict[str, Any]]:
    """Write the new node's file under the next free id: (its id, its fields in file order)."""
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
        node_id, _ = create_numbered(ctx.paths(), plan.project.id_prefix,
                                     lambda nid: render_new_node({**fields, "id": nid}))
    except Exists as exc:  # pragma: no cover - a thousand concurrent creators
        raise CommandError("id_exhausted", "could not allocate a free id",
                           fix(ctx.cmd("doctor"), "check the nodes folder"), category="io") from exc
    fields["id"] = node_id
    return node_id, fields


def _refuse_cancelled(ctx: Ctx, plan: Plan, parent: str, title: str) -> None:
    """Work is not added under cancelled work: the add would leave a cancelled parent with open children."""
    chain = [plan.nodes[parent], *plan.ancestors(parent)]
    dead = next((n for n in chain if n.status == Status.CANCELLED), None)
    if dead is None:
        return
    alive = next((n for n in chain if n.status != Status.CANCELLED and n is not dead
                  and chain.index(n) > chain.index(dead)), None)
    raise CommandError("parent_cancelled", f"{dead.id} is cancelled; work is not added under cancelled work",
                       fix(ctx.cmd("add", title, parent=alive.id if alive else None), "add it elsewhere",
                           or_=ctx.cmd("edit", dead.id, set=["status=draft"])),
                       exit_code=EXIT_CONFLICT, category="conflict", source=("node", dead.id),
                       mutation=Mutation("add_node", "add", False, "parent cancelled"))


def reopen_ancestors(ctx: Ctx, plan: Plan, parent: str) -> list[dict[str, Any]]:
    """A done parent (and its done ancestors) reopen when work is added under them: done → in-progress."""
    cascade: list[dict[str, Any]] = []
    chain: list[Node] = [plan.nodes[parent], *plan.ancestors(parent)]
    for target in chain:
        row = lifecycle.transition("add: done ancestors", target.status)
        if row is None:
            break
        if moved := move_status(ctx, target, target.status, row.target):
            cascade.append(moved)
    return cascade


def add_line(cmd: CommandLine, title: str, *, parent: str | None = None, release: str | None = None,
             depends_on: tuple[str, ...] = (), tags: list[str] | tuple[str, ...] = (), trigger: str | None = None,
             follows: str | None = None, tech_debt: bool = False, force: bool = False) -> str:
    """The `add` line for these values (`--tech-debt` stands for its tag)."""
    return cmd("add", title, parent=parent, release=release, depends_on=list(depends_on),
               tag=[t for t in tags if not (tech_debt and t == "tech-debt")], tech_debt=tech_debt,
               trigger=trigger, follows=follows, force=force)
