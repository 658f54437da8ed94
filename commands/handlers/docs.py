"""`doc` and `write-doc`: read a node's docs, or replace its own doc (commands/domain/docs.py)."""

from __future__ import annotations

from leafwise.commands.contract import Result
from leafwise.commands.domain import docs
from leafwise.commands.registry import ACTING, Ctx, Param, command


@command("doc", "Read a node's docs and diagrams, then its ancestors' docs (or replace its doc with --write FILE|-).",
         mutating=False, tool="get_doc", idempotent=True,
         params=(Param("node_id", "node id", positional=True, required=True),
                 ACTING,
                 Param("write", "replace the node's doc with this file's text (- for stdin)", cli_only=True)))
def doc(ctx: Ctx, node_id: str, write: str | None = None, agent: str | None = None) -> Result:
    return docs.doc(ctx, node_id, write, agent)


@command("write-doc", "Replace a node's own doc (docs/ID.md unless it links one), linking it if needed.",
         mutating=True, tool="update_doc", idempotent=True,
         params=(Param("node_id", "node id", positional=True, required=True),
                 Param("content", "the markdown text", required=True), ACTING))
def write_doc(ctx: Ctx, node_id: str, content: str, agent: str | None = None) -> Result:
    return docs.write_doc(ctx, node_id, content)
