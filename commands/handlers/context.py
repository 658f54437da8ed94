"""`context`: everything an agent needs at the start of a session, in one bounded call."""

from __future__ import annotations

from leafwise.commands.contract import Result
from leafwise.commands.domain import context as session_context
from leafwise.commands.registry import ACTING, Ctx, Param, command


@command("context", "One call at the start of a session: meta, releases, hierarchy, backlog, stats.",
         mutating=False, tool="get_project_context", idempotent=True,
         params=(ACTING,
                 Param("limit", "at most this many hierarchy rows (default 300)", type=int, default=300)))
def context(ctx: Ctx, agent: str | None = None, limit: int = 300) -> Result:
    return session_context.context(ctx, agent, limit)
