"""`verify_leaf` with `sample=true`: an opt-in way to ask the MCP client's own model for a draft's verdict.

Where the client declared the sampling capability, the server takes the draft's evidence packet (the
`verify` command: `verify ID`, or `verify --next`, which leases it), sends it with the committed lines
of each place to the client's model (`session.create_message`, the request's words in
`commands/domain/verify_sampling.py`), reads its answer as one JSON object and records it through the
`verify` command, as an agent's verdict: every quote is checked against HEAD, a false one refuses the
whole verdict and nothing is written. The model is never trusted: what it says is only a proposal the
quote check either accepts or refuses.

A client without sampling gets the handler's answer (`verify_sampling.without_sampling`, the CLI's too):
it says so, with `Next:` the plain loop (`verify --next`), where the agent reads the packet itself. The sampling capability is deprecated by the 2026-07-28
protocol revision (SEP-2577): the plain loop is the one that stays.
"""

from __future__ import annotations

import warnings
from typing import Any

import anyio.to_thread
from leafwise.commands.contract import CommandError, envelope, fix, placeholder
from leafwise.commands.domain.verify_sampling import MAX_TOKENS, SYSTEM, read_answer, request_text
from leafwise.commands.registry import Command, command_line
from leafwise.commands.text import inert, inert_line
from leafwise.store.ids import agent_problem
from mcp.server import ServerRequestContext
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp_types import CallToolResult, SamplingMessage, TextContent

ASKED_WITH = frozenset({"sample", "node_id", "next", "agent"})  # the packet's arguments, and who verifies


def offers_sampling(ctx: ServerRequestContext) -> bool:
    caps = ctx.session.client_capabilities
    return caps is not None and caps.sampling is not None and ctx.session.can_send_request


def wants(spec: Command, arguments: dict[str, Any] | None, ctx: ServerRequestContext) -> bool:
    """Is this `verify_leaf` call one the client's model answers? `sample=true` from a client that offers
    sampling, with an agent's name and nothing but the packet's arguments; every other call (a mistake
    included, which the handler words with its Fix) runs as on the CLI."""
    args = arguments or {}
    agent = args.get("agent")
    return (spec.name == "verify" and args.get("sample") is True and set(args) <= ASKED_WITH
            and not (args.get("node_id") and args.get("next"))
            and isinstance(agent, str) and agent_problem(agent) is None and offers_sampling(ctx))


async def call(ctx: ServerRequestContext, session: Any, verify: Command, arguments: dict[str, Any]) -> CallToolResult:
    """The tool call: the packet, the client's model's answer, that answer recorded (or why not)."""
    agent, node_id = arguments["agent"], arguments.get("node_id")
    asked = await anyio.to_thread.run_sync(
        session.call, verify, {"node_id": node_id, "agent": agent} if node_id else {"next": True, "agent": agent})
    packet = (asked.structured_content or {}).get("result")
    if asked.is_error or not isinstance(packet, dict) or not packet.get("id") or "places" not in packet:
        return asked  # a refusal, Wait: or Done.: verify's own answer
    text = await anyio.to_thread.run_sync(request_text, session.ctx(verify).paths().repo, packet)
    # The request quotes committed code and plan text: every hidden character shown (tag characters
    # spell instructions a model reads and a person never sees; ESC, bidi), as on every other surface.
    text = "\n".join(inert(line) for line in text.split("\n"))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            answer = await ctx.session.create_message(
                [SamplingMessage(role="user", content=TextContent(type="text", text=text))],
                max_tokens=MAX_TOKENS, system_prompt=SYSTEM, related_request_id=ctx.request_id)
    except MCPError as exc:
        return _answer(_unusable(agent, packet["id"], f"the client's model did not answer: {exc}"))
    said = answer.content.text if isinstance(answer.content, TextContent) else None
    try:
        if said is None:
            raise ValueError("the answer is not text")
        sampled = read_answer(said)
    except ValueError as exc:
        return _answer(_unusable(agent, packet["id"], f"the answer of the client's model is unusable: {exc}"))
    recorded = await anyio.to_thread.run_sync(session.call, verify, {
        "node_id": packet["id"], "verdict": sampled.verdict, "evidence": list(sampled.evidence),
        "quote": list(sampled.quote), "missing": sampled.missing, "agent": agent})
    model = str(answer.model or "?")[:80]
    note = (f"Asked the client's model ({model}) for a verdict on {packet['id']}: it answered {sampled.verdict} "
            f"with {len(sampled.quote)} quote(s); Leafwise checked them against the last commit "
            + ("and refused the verdict:" if recorded.is_error else "and recorded it:"))
    recorded.content.insert(0, TextContent(type="text", text=inert_line(note)))
    recorded.meta = {**(recorded.meta or {}), "leafwise/sampled": {"model": model, "verdict": sampled.verdict,
                                                                    "quotes": len(sampled.quote)}}
    return recorded


def _unusable(agent: str, node_id: str, why: str) -> CommandError:
    """The model's answer could not be used: nothing was recorded; the draft (leased to `agent` when
    it came from --next) waits for the agent's own reading."""
    return CommandError("sampling_unusable", f"{why}; nothing was recorded",
                        fix(command_line("verify", node_id, agent=agent or placeholder("agent")),
                            "read the packet yourself and record the verdict"),
                        category="refused", source=("node", node_id))


def _answer(outcome: CommandError) -> CallToolResult:
    """The refusal answered as every other tool answers (`tool_answers.tool_result`)."""
    from leafwise.commands.surfaces.tool_answers import tool_result

    return tool_result(envelope("verify", outcome), [])