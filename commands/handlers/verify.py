"""The verification loop: evidence packets and verdicts with checked quotes (commands/domain/verifying.py)."""

from __future__ import annotations

from leafwise.commands.contract import Result
from leafwise.commands.domain import verify_sampling, verifying
from leafwise.commands.registry import ACTING, Ctx, Param, command
from leafwise.store.verdicts import VERDICTS


@command(
    "verify", "Verify a draft leaf by reading code: its evidence packet; --next; or a --verdict with quotes.",
    mutating=True, tool=verifying.TOOL,
    params=(Param("node_id", "draft leaf", positional=True),
            Param("next", "lease the next unverified draft", type=bool),
            Param("verdict", "what the code shows", choices=VERDICTS),
            Param("evidence", "PATH:START-END", multiple=True),
            Param("quote", "its lines' text", multiple=True),
            Param("missing", "what is not there"),
            ACTING,
            Param("decide", "a person confirms or rejects a pending shipped verdict", choices=("confirm", "reject"),
                  cli_only=True, person_only=True),
            Param("note", "the person's note with --decide", cli_only=True),
            Param("sample", "MCP: ask the client's model for the verdict (quotes checked as any agent's)", type=bool)),
    example="leafwise verify --next --agent claude-1",
)
def verify(ctx: Ctx, node_id: str | None = None, next: bool = False, verdict: str | None = None,
           evidence: tuple[str, ...] = (), quote: tuple[str, ...] = (), missing: str | None = None,
           agent: str | None = None, decide: str | None = None, note: str | None = None,
           sample: bool = False) -> Result:
    if sample:  # reached only where no model can be asked: `leafwise mcp` answers it before (mcp_sampling.py)
        return verify_sampling.without_sampling(ctx, node_id, {"verdict": verdict, "evidence": evidence,
                                                               "quote": quote, "missing": missing, "decide": decide,
                                                               "note": note}, agent)
    return verifying.verify(ctx, node_id, next, verdict, evidence, quote, missing, agent, decide, note)
