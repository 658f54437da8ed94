"""`renumber`: give a node a fresh id, update its references, split merge-conflicted files
(commands/domain/renumbering.py)."""

from __future__ import annotations

from leafwise.commands.contract import Result
from leafwise.commands.domain import renumbering
from leafwise.commands.registry import ACTING, Ctx, Param, command


@command("renumber", "Give a node a fresh id; update its references (parent, depends_on, follows) and claim.",
         mutating=True, tool="renumber_node",
         params=(Param("node_id", "node id", positional=True, required=True), ACTING))
def renumber(ctx: Ctx, node_id: str, agent: str | None = None) -> Result:
    return renumbering.renumber(ctx, node_id)
