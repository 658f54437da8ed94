"""`leafwise trust`: which commands from this plan's files may run, approved by the person.

Plan files are untrusted (docs/security.md): a `done_when` command check or a
cycle's verify command runs only once approved here, like `direnv allow`. The
approvals live in the person's own config folder (store/trust.py), never in
the repository. Approving is a person's act on the CLI (docs/security.md, "Approvals"): the
approving arguments are CLI-only, so the MCP tool only lists; a call naming an agent never approves;
the CLI asks the person on a terminal and refuses without one unless `--yes` is given.
"""

from __future__ import annotations

from leafwise.commands.contract import Result
from leafwise.commands.domain import trust as trusting
from leafwise.commands.registry import Ctx, Param, command


@command(
    "trust", "List the commands this plan's files would run and whether you approved them; "
             "--allow HASH / --all approves (a person: confirmed on a terminal), --revoke HASH withdraws "
             "(stored outside the repository).",
    mutating=True, tool="trust_commands", idempotent=True,
    params=(Param("allow", "approve the command with this hash (repeatable; from the listing)", multiple=True,
                  cli_only=True, person_only=True),
            Param("everything", "approve every command listed (read them first)", type=bool, flag="--all",
                  cli_only=True, person_only=True),
            Param("revoke", "withdraw the approval with this hash (repeatable)", multiple=True, cli_only=True),
            Param("yes", "approve without the question on the terminal (a person's script; read the commands first)",
                  type=bool, cli_only=True, person_only=True),
            Param("agent", "an agent may list, never approve")),
    example="leafwise trust",
)
def trust(ctx: Ctx, allow: tuple[str, ...] = (), everything: bool = False, revoke: tuple[str, ...] = (),
          yes: bool = False, agent: str | None = None) -> Result:
    return trusting.review(ctx, allow, everything, revoke, yes, agent)
