"""`agent-guide`: the loop and the rules, short enough to paste into an agent's instructions."""

from __future__ import annotations

from leafwise.commands.contract import Result
from leafwise.commands.domain import guide
from leafwise.commands.registry import Ctx, command


@command("agent-guide", "The loop, the markers and the rules, to paste into an agent's instructions.",
         mutating=False, tool="get_agent_guide", idempotent=True, needs_plan=False, document=True)
def agent_guide(ctx: Ctx) -> Result:
    return guide.agent_guide(ctx)
