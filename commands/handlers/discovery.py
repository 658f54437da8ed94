"""Discovery: show, list, tree and the command registry (commands/domain/discovery.py). None of these write."""

from __future__ import annotations

from leafwise.commands.contract import Result
from leafwise.commands.domain import discovery
from leafwise.commands.registry import ACTING, Ctx, Param, command
from leafwise.commands.domain.listing import SORTS
from leafwise.store import PRIORITIES, STATUSES

LIMIT = Param("limit", "max items", type=int, default=200)


@command("show", "One node in full.", mutating=False,
         tool="get_node", idempotent=True,
         params=(Param("node_id", "node id", positional=True, required=True),
                 ACTING))
def show(ctx: Ctx, node_id: str, agent: str | None = None) -> Result:
    return discovery.show(ctx, node_id, agent)


@command("list", "Nodes by field, words, readiness.", mutating=False,
         tool="list_nodes", idempotent=True, listing=True,
         params=(Param("status", "only this status", choices=STATUSES), Param("release", "only this release"),
                 Param("tag", "only this tag"), Param("parent", "only its children"),
                 Param("assignee", "only this assignee"), Param("priority", "only this priority", choices=PRIORITIES),
                 Param("search", "words, any order"),
                 Param("blocked", "blocked or waiting", type=bool),
                 Param("ready", "ready to start", type=bool),
                 Param("sort", "order", choices=SORTS), LIMIT))
def list_nodes(ctx: Ctx, status: str | None = None, release: str | None = None, tag: str | None = None,
               parent: str | None = None, assignee: str | None = None, priority: str | None = None,
               search: str | None = None, blocked: bool = False, ready: bool = False, sort: str | None = None,
               limit: int = 200) -> Result:
    return discovery.list_nodes(ctx, status, release, tag, parent, assignee, priority, search, blocked, ready,
                                sort, limit)


@command("tree", "The hierarchy, with progress.",
         mutating=False, tool="get_tree", idempotent=True,
         params=(Param("node_id", "only this subtree", positional=True),
                 Param("depth", "max levels", type=int), LIMIT))
def tree(ctx: Ctx, node_id: str | None = None, depth: int | None = None, limit: int = 200) -> Result:
    return discovery.tree(ctx, node_id, depth, limit)


@command("commands", "The registry's commands.", mutating=False,
         tool="list_commands", idempotent=True, needs_plan=False)
def commands(ctx: Ctx) -> Result:
    return discovery.commands(ctx)
