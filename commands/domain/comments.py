"""Comments: a person's (or an agent's) word on a node, carried to whoever works on it next."""

from __future__ import annotations

from typing import Any

from leafwise.commands.contract import EXIT_USAGE, CommandError, Mutation, Result, clean, fix, next_, placeholder
from leafwise.commands.domain.nodes import change_list, get_node, plain, record, write
from leafwise.commands.registry import Ctx
from leafwise.store import CLOSED

MAX_COMMENTS = 200  # a node keeps its last 200 comments at most


def add_comment(doc: dict[str, Any], item: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """Append a comment to a node mapping (round-trip: a block list of flow mappings)."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    current = doc.get("comments")
    before = plain(current) if current is not None else None
    if not isinstance(current, list):
        current = CommentedSeq()
        doc["comments"] = current
    entry = CommentedMap((k, v) for k, v in item.items() if v is not None)
    entry.fa.set_flow_style()
    current.append(entry)
    return {"comments": (before, plain(current))}


def comment(ctx: Ctx, node_id: str, text: str, agent: str | None = None) -> Result:
    """Leave a comment on a node; it rides along with the task until the task is closed."""
    plan = ctx.plan()
    node = get_node(ctx, node_id, plan)
    node_id = node.id
    text = clean(text, 1000) if text else ""
    if not text:
        raise CommandError("empty_comment", "a comment needs text",
                           fix(ctx.cmd("comment", node_id, text=placeholder("text")), "say something"),
                           exit_code=EXIT_USAGE, category="usage", source=("node", node_id))
    existing = node.data.get("comments")
    if isinstance(existing, list) and len(existing) >= MAX_COMMENTS:
        raise CommandError("too_many_comments", f"{node_id} already has {MAX_COMMENTS} comments",
                           fix(ctx.cmd("show", node_id), "read them; edit the node to trim old ones"),
                           exit_code=EXIT_USAGE, category="usage", source=("node", node_id))
    who = clean(agent, 80) if agent else ctx.person()
    changes = write(ctx, node, lambda doc: add_comment(doc, {"by": who, "at": ctx.clock(), "text": text}))
    record(ctx, "comment", node_id, {}, actor=who, text=text)
    carried = node.status not in CLOSED
    return Result({"id": node_id, "by": who, "text": text, "carried": carried},
                  next_(ctx.cmd("show", node_id), "the comment rides along with the task until it is done"
                        if carried else f"{node_id} is {node.status}: the comment is kept for the record"),
                  [f"Commented on {node_id} as {who}: {text}"],
                  Mutation("comment_node", "comment", True, "comment added",
                           [c for c in change_list(node_id, changes) if c["field"] == "comments"][:1]))
