"""`leafwise verify`: an agent reads the code and says which draft leaves shipped; Leafwise checks its quotes.

Three forms (docs/reconcile.md, "Verification by an agent"):

- `verify ID`: the evidence packet of a draft leaf (`verify_packet.py`): the places to read;
- `verify --next --agent A`: the next draft leaf no one has verified, nearest release first (the
  picker's order), with its packet, under a lease (`store/verify_leases.py`) so agents verifying in
  parallel never take the same draft;
- `verify ID --verdict … --evidence PATH:START-END --quote TEXT … --agent A`: the verdict, every
  quote checked against the file as committed (`verify_quotes.py`); recorded in
  `.leafwise/verdicts/` (`store/verdicts.py`); `shipped` closes the leaf through `complete`
  (`verify_verdicts.py`).
"""

from __future__ import annotations

from leafwise.commands.contract import EXIT_USAGE, CommandError, Result, clean, fix, next_, placeholder
from leafwise.commands.domain.nodes import get_node
from leafwise.commands.domain import verify_loop, verify_verdicts
from leafwise.commands.domain.verify_loop import TOOL, draft_leaf, packet_for, packet_lines, packet_view
from leafwise.commands.domain.verify_loop import verdict_hint, verdict_lines, verdict_view
from leafwise.commands.registry import Ctx
from leafwise.store import Status
from leafwise.store import verdicts as verdict_files

__all__ = ["TOOL", "verify"]


def verify(ctx: Ctx, node_id: str | None = None, next: bool = False, verdict: str | None = None,
           evidence: tuple[str, ...] = (), quote: tuple[str, ...] = (), missing: str | None = None,
           agent: str | None = None, decide: str | None = None, note: str | None = None) -> Result:
    """The packet of one draft, the next draft to verify, an agent's verdict or a person's decision."""
    agent = clean(agent, 80) if agent else None
    if decide:
        return verify_verdicts.decide(ctx, node_id, decide, note, agent)
    if verdict:
        return verify_verdicts.record(ctx, node_id, verdict, tuple(evidence), tuple(quote), missing, agent)
    if next:
        if node_id:
            raise CommandError("conflicting_flags", "verify --next picks the draft itself; give no ID with it",
                               fix(ctx.cmd("verify", next=True, agent=agent or placeholder("agent")),
                                   "ask for the next draft"), exit_code=EXIT_USAGE, category="usage")
        return verify_loop.next_draft(ctx, agent)
    if not node_id:
        raise CommandError("missing_node", "verify needs a draft leaf's ID, or --next",
                           fix(ctx.cmd("verify", next=True, agent=agent or placeholder("agent")),
                               "take the next draft to verify"), exit_code=EXIT_USAGE, category="usage")
    recorded = _closed_with_verdict(ctx, node_id, agent)
    if recorded is not None:
        return recorded
    node = draft_leaf(ctx, node_id)
    packet = packet_for(ctx, node)
    current = verdict_files.read(ctx.paths(), node.id)
    lines = packet_lines(ctx.plan(), node, packet) + verdict_lines(current)
    return Result({"id": node.id, "title": node.title, "release": node.effective_release,
                   **packet_view(packet), "verdict": verdict_view(current)},
                  verdict_hint(ctx, node, packet, agent), lines)


def _closed_with_verdict(ctx: Ctx, node_id: str, agent: str | None) -> Result | None:
    """A leaf a verdict closed: that verdict with its quotes, to re-read (None: not closed, or no verdict)."""
    node = get_node(ctx, node_id)
    said = verdict_files.read(ctx.paths(), node.id)
    if said is None or node.status == Status.DRAFT:
        return None
    lines = [f"{node.id} “{clean(node.title)}” is {node.status}; its verdict:"] + verdict_lines(said)
    who = agent or ctx.caller
    hint = next_(ctx.cmd("verify", next=True, agent=who), "the next draft to verify") if who else \
        next_(ctx.cmd("show", node.id), "the node, with its summary")
    return Result({"id": node.id, "title": node.title, "status": node.status, "verdict": verdict_view(said)},
                  hint, lines)
