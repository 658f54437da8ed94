"""`leafwise trust`: which commands from this plan's files may run, approved by the person.

Plan files are untrusted (docs/security.md): a `done_when` command check or a
cycle's verify command runs only once approved here, like `direnv allow`. The
approvals live in the person's own config folder (store/trust.py), never in
the repository. Approving is a CLI-only act: the MCP tool only lists.
"""

from __future__ import annotations

from leafwise.commands.contract import Result
from leafwise.commands.domain import trust as trusting
from leafwise.commands.registry import Ctx, Param, command


@command(
    "trust", "List the commands this plan's files would run and whether you approved them; "
             "--allow HASH / --all approves, --revoke HASH withdraws (stored outside the repository).",
    mutating=True, tool="trust_commands", idempotent=True,
    params=(Param("allow", "approve the command with this hash (repeatable; from the listing)", multiple=True,
                  cli_only=True),
            Param("everything", "approve every command listed (read them first)", type=bool, flag="--all",
                  cli_only=True),
            Param("revoke", "withdraw the approval with this hash (repeatable)", multiple=True, cli_only=True)),
    example="leafwise trust",
)
def trust(ctx: Ctx, allow: tuple[str, ...] = (), everything: bool = False, revoke: tuple[str, ...] = ()) -> Result:
    return trusting.review(ctx, allow, everything, revoke)
