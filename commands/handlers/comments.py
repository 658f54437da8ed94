"""Comments: a person's (or an agent's) word on a node, carried to whoever works on it next."""

from __future__ import annotations

from leafwise.commands.contract import Result
from leafwise.commands.domain import comments
from leafwise.commands.registry import ACTING, Ctx, Param, command


@command("comment", "Leave a comment on a node: shown in show and carried to the agent until it is done.",
         mutating=True, tool="comment_node",
         params=(Param("node_id", "node id", positional=True, required=True),
                 Param("text", "the comment", required=True),
                 ACTING))
def comment(ctx: Ctx, node_id: str, text: str, agent: str | None = None) -> Result:
    return comments.comment(ctx, node_id, text, agent)
