"""The validator: every problem with a code, severity, node, file, line, message and fix."""

from __future__ import annotations

from leafwise.commands.contract import Result
from leafwise.commands.domain import validation
from leafwise.commands.registry import Ctx, Param, command


@command("validate", "Check the plan: every problem with its file, line and fix.", mutating=False,
         tool="validate_project", idempotent=True,
         params=(Param("limit", "at most this many problems (default 100)", type=int, default=100),))
def validate(ctx: Ctx, limit: int = 100) -> Result:
    return validation.validate(ctx, limit)
