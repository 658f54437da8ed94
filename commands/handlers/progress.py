"""Progress: done percentages by release and epic, work in flight, and what comes next."""

from __future__ import annotations

from leafwise.commands.contract import Result
from leafwise.commands.domain import progress as progress_report
from leafwise.commands.registry import ACTING, Ctx, Param, command


@command("progress", "Done percentages by release and epic, work in flight, the next task.",
         mutating=False, tool="get_progress", idempotent=True, params=(ACTING,))
def progress(ctx: Ctx, agent: str | None = None) -> Result:
    return progress_report.progress(ctx, agent)
