"""Discovery: show, list, tree and the command registry (commands/domain/discovery.py). None of these write."""

from __future__ import annotations

from leafwise.commands.contract import Result
from leafwise.commands.domain import discovery
from leafwise.commands.registry import ACTING, Ctx, Param, command
from leafwise.store import STATUSES

LIMIT = Param("limit", "at most this many items (default 200)", type=int, default=200)


@command("show", "One node: fields, path, children, claim, docs and recent history.", mutating=False,
         tool="get_node", idempotent=True,
         params=(Param("node_id", "node id", positional=True, required=True),
                 ACTING))
def show(ctx: Ctx, node_id: str, agent: str | None = None) -> Result:
    return discovery.show(ctx, node_id, agent)


@command("list", "Nodes filtered by status, release, tag, parent or assignee.", mutating=False,
         tool="list_nodes", idempotent=True, listing=True,
         params=(Param("status", "only this status", choices=STATUSES), Param("release", "only this release"),
                 Param("tag", "only nodes with this tag"), Param("parent", "only children of this node"),
                 Param("assignee", "only this assignee"), LIMIT))
def list_nodes(ctx: Ctx, status: str | None = None, release: str | None = None, tag: str | None = None,
               parent: str | None = None, assignee: str | None = None, limit: int = 200) -> Result:
    return discovery.list_nodes(ctx, status, release, tag, parent, assignee, limit)


@command("tree", "The hierarchy (releases, then parents and children) with status and progress.",
         mutating=False, tool="get_tree", idempotent=True,
         params=(Param("node_id", "only this subtree", positional=True),
                 Param("depth", "at most this many levels", type=int), LIMIT))
def tree(ctx: Ctx, node_id: str | None = None, depth: int | None = None, limit: int = 200) -> Result:
    return discovery.tree(ctx, node_id, depth, limit)


@command("commands", "The registry: every command, its arguments, nature and MCP tool.", mutating=False,
         tool="list_commands", idempotent=True, needs_plan=False)
def commands(ctx: Ctx) -> Result:
    return discovery.commands(ctx)
