"""Decisions for a person: `ask` blocks a node with a question; `decide` answers and unblocks."""

from __future__ import annotations

from leafwise.commands.contract import Result
from leafwise.commands.domain import decisions
from leafwise.commands.registry import ACTING, Ctx, Param, command


@command("ask", "Ask a person a strategic question: blocks the node with options to choose from.",
         mutating=True, tool="ask_decision",
         params=(Param("node_id", "node id", positional=True, required=True),
                 Param("question", "the question", positional=True, required=True),
                 Param("option", 'an option with its trade-off, e.g. "A: …"', multiple=True, required=True),
                 ACTING))
def ask(ctx: Ctx, node_id: str, question: str, option: tuple[str, ...] = (), agent: str | None = None) -> Result:
    return decisions.ask(ctx, node_id, question, option, agent)


@command("decide", "Answer a node's open decision by option number; records it and unblocks.",
         mutating=True, tool=None,  # a person answers (CLI, canvas); no MCP client is a person
         params=(Param("node_id", "node id", positional=True, required=True),
                 Param("option", "the chosen option's number (1, 2, …)", type=int, required=True),
                 Param("note", "why, in a sentence"),
                 Param("expect", "the option's text as you read it: nothing is recorded if the file now says "
                                 "otherwise")))
def decide(ctx: Ctx, node_id: str, option: int, note: str | None = None, expect: str | None = None) -> Result:
    return decisions.decide(ctx, node_id, option, note, expect)
