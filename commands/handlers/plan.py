"""Shaping the plan: init, add and edit (commands/domain/planning.py, editing.py; releases: releases.py)."""

from __future__ import annotations

from leafwise.commands.contract import Result
from leafwise.commands.domain import editing, nodes, planning
from leafwise.commands.registry import ACTING, Ctx, Param, command
from leafwise.store import PRIORITIES


@command("init", "Create a plan (.leafwise/) in this folder.", mutating=True, tool="init_project",
         needs_plan=False, idempotent=True,
         params=(Param("name", "project name (default: the folder name)"),
                 Param("prefix", "id prefix, e.g. SHOP (default: from the name)"), ACTING))
def init(ctx: Ctx, name: str | None = None, prefix: str | None = None, agent: str | None = None) -> Result:
    return planning.init(ctx, name, prefix)


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
                 Param("priority", "priority", choices=PRIORITIES),
                 ACTING,
                 Param("force", "a person adds even when a near-duplicate title exists", type=bool)))
def add(ctx: Ctx, title: str, parent: str | None = None, release: str | None = None,
        depends_on: tuple[str, ...] = (), tag: tuple[str, ...] = (), tech_debt: bool = False,
        trigger: str | None = None, follows: str | None = None, priority: str | None = None,
        agent: str | None = None, force: bool = False) -> Result:
    added = planning.add(ctx, title, parent, release, depends_on, tag, tech_debt, trigger, follows, force, agent)
    return nodes.with_priority(ctx, added, priority, agent) if priority else added


@command("edit", "Set fields of a node (FIELD=VALUE; lists as a,b or [a, b]; null clears; a value in quotes "
         "is kept as written); "
         "--add/--remove one value of a list field.",
         mutating=True, tool="edit_node", idempotent=True,
         params=(Param("node_id", "node id", positional=True, required=True),
                 Param("set", "FIELD=VALUE", multiple=True, pairs=True),
                 Param("add", "LIST_FIELD=VALUE: append a value (tags, depends_on, docs, diagrams)", multiple=True),
                 Param("remove", "LIST_FIELD=VALUE: drop a value", multiple=True),
                 ACTING,
                 Param("force", "a person changes a held task's status or assignee (journaled)", type=bool)))
def edit(ctx: Ctx, node_id: str, set: tuple[str, ...] = (), add: tuple[str, ...] = (),  # noqa: A002
         remove: tuple[str, ...] = (), agent: str | None = None, force: bool = False) -> Result:
    return editing.edit(ctx, node_id, set, add, remove, agent, force)
