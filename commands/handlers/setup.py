"""Agent setup: an MCP entry and an instruction block for each common agent client
(commands/domain/agent_setup.py; the clients: agent_clients.py). A person's own act: CLI only."""

from __future__ import annotations

from leafwise.commands.contract import Result
from leafwise.commands.domain import agent_setup
from leafwise.commands.domain.agent_clients import NAMES
from leafwise.commands.registry import ACTING, Ctx, Param, command


@command("setup", "Register this plan's MCP server, instructions and session hook with an agent client.",
         mutating=True, tool=None, idempotent=True,
         params=(Param("client", "the agent client", positional=True, required=True, choices=NAMES),
                 Param("dry_run", "show the changes as a diff, write nothing", type=bool),
                 Param("remove", "take out what setup wrote (the rest of each file stays)", type=bool),
                 Param("config", "write the MCP entry to this file instead (e.g. a user-level config)",
                       cli_only=True),
                 ACTING),
         example="leafwise setup claude-code --dry-run")
def setup(ctx: Ctx, client: str, dry_run: bool = False, remove: bool = False, config: str | None = None,
          agent: str | None = None) -> Result:
    return agent_setup.setup(ctx, client, dry_run, remove, config, agent)
