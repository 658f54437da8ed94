"""`bulk`: many updates in one call (commands/domain/bulk.py)."""

from __future__ import annotations

from typing import Any

from leafwise.commands.contract import Result
from leafwise.commands.domain import bulk as bulk_updates
from leafwise.commands.domain.bulk import EXAMPLE
from leafwise.commands.registry import ACTING, Ctx, Param, command


@command("bulk", "Apply a JSON list of updates; answers the successful and failed ones.", mutating=True,
         tool="bulk_update",
         params=(Param("source", "a JSON file of updates, or - for stdin", positional=True, cli_only=True),
                 Param("updates", f"the updates as a JSON list, e.g. {EXAMPLE}", mcp_only=True),
                 Param("agent", "who acts, in each update naming none")))
def bulk(ctx: Ctx, source: str | None = None, updates: Any = None, agent: str | None = None) -> Result:
    return bulk_updates.apply(ctx, source, updates)
