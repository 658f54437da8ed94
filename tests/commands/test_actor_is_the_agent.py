"""The actor is always right: what an agent does is journaled as that agent, on the CLI and over MCP;
what a person does (no --agent) is journaled as the person."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from leafwise.commands.surfaces.mcp_server import build_server
from leafwise.store import PlanPaths
from mcp import Client
from testkit import DEMO_PLAN, run_cli

DEMO_EVENTS = len(PlanPaths(DEMO_PLAN).journal.read_text().splitlines())

# (CLI words, MCP tool and arguments): an agent's tail, word, question and edit on SHOP-18
STEPS = (
    (("add", "Tail: drop the export cache", "--follows", "SHOP-18", "--tech-debt"),
     ("add_node", {"title": "Tail: drop the export cache", "follows": "SHOP-18", "tech_debt": True})),
    (("comment", "SHOP-18", "--text", "the export stays CSV"), ("comment_node", {"node_id": "SHOP-18",
                                                                                "text": "the export stays CSV"})),
    (("edit", "SHOP-18", "--set", "title=Delete my account and my data"),
     ("edit_node", {"node_id": "SHOP-18", "set": ["title=Delete my account and my data"]})),
    (("ask", "SHOP-18", "Card or invoice?", "--option", "A: card", "--option", "B: invoice"),
     ("ask_decision", {"node_id": "SHOP-18", "question": "Card or invoice?", "option": ["A: card", "B: invoice"]})),
)


def actors(root: Path) -> list[tuple[str, str]]:
    lines = PlanPaths(root).journal.read_text().splitlines()
    return [(e["command"], e["actor"]) for e in map(json.loads, lines)][DEMO_EVENTS:]  # after the demo's own


def test_an_agents_add_comment_edit_and_ask_are_journaled_as_it_on_the_cli(demo_plan):
    for words, _mcp in STEPS:
        res = run_cli(*words, "--agent", "a1", cwd=demo_plan)
        assert res.code == 0, res.stderr
    assert actors(demo_plan) == [("add", "a1"), ("comment", "a1"), ("edit", "a1"), ("ask", "a1")]


def test_an_agents_add_comment_edit_and_ask_are_journaled_as_it_over_mcp(demo_plan):
    async def go() -> list[Any]:
        async with Client(build_server(cwd=demo_plan)) as client:
            return [await client.call_tool(tool, {**arguments, "agent": "mcp-1"}) for _words, (tool, arguments)
                    in STEPS]

    results = anyio.run(go)
    assert [r.is_error for r in results] == [False] * len(STEPS), [r.structured_content for r in results]
    assert actors(demo_plan) == [("add", "mcp-1"), ("comment", "mcp-1"), ("edit", "mcp-1"), ("ask", "mcp-1")]
    assert results[0].meta["leafwise/next_tool"]["arguments"].get("agent") == "mcp-1"


@pytest.mark.parametrize("words", [("add", "Gift wrapping at checkout"), ("release", "add", "R4", "--title", "Later"),
                                   ("cancel", "SHOP-42", "--reason", "out of scope")])
def test_a_mutating_command_journals_the_agent_or_else_the_person(demo_plan, words):
    assert run_cli(*words, "--agent", "a1", cwd=demo_plan).code == 0
    assert actors(demo_plan)[0] == (words[0] if words[0] != "release" else "release add", "a1")


def test_without_agent_the_person_acts(demo_plan):
    res = run_cli("add", "Gift wrapping at checkout", cwd=demo_plan, env={"LEAFWISE_USER": "pat"})
    assert res.code == 0, res.stderr
    assert actors(demo_plan) == [("add", "pat")]
    assert "--agent" not in res.stdout
