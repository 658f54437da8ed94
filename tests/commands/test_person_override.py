"""`--force` is a person's override (`Ctx.overrides`): every command that takes it, called with it by an agent, does
what it would without it (the registry's own list of such commands; a new one fails here until named). Over MCP
every call is an agent's, with or without `agent`: no force, no person's act (`decide`)."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from leafwise.commands.surfaces.mcp_server import build_server
from mcp import Client
from leafwise.commands.command_params import PARAMS
from testkit import node, run_cli, write_plan

FORCED = sorted(name for name, params in PARAMS.items() if any(p[0] == "force" for p in params))

# What bob, an agent, asks with --force on T-1 (ann's task) or against T-1's title: each is refused
# without it, so with it too.
AS_AGENT = {
    "add": ["add", "Export orders to CSV", "--release", "R1"],
    "block": ["block", "T-1", "--reason", "the API key is missing"],
    "complete": ["complete", "T-1", "--summary", "done"],
    "edit": ["edit", "T-1", "--set", "status=draft"],
    "unclaim": ["unclaim", "T-1"],
}


def plan_bytes(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in (root / ".leafwise").rglob("*") if p.is_file() and ".cache" not in p.parts}


def anns_task(root: Path) -> dict[Path, bytes]:
    """T-1 held by ann, T-2 free, both in R1 (T-1's title a near-duplicate's target); the plan's bytes."""
    write_plan(root, [node("T-1", "Export orders as CSV", release="R1"), node("T-2", "Write the docs", release="R1")])
    assert run_cli("start", "T-1", "--agent", "ann", cwd=root).code == 0
    return plan_bytes(root)


def test_every_forcing_command_is_tried() -> None:
    assert FORCED == sorted(AS_AGENT)


@pytest.mark.parametrize("name", FORCED)
def test_an_agents_force_takes_nothing(tmp_path: Path, name: str) -> None:
    files = anns_task(tmp_path)
    plain = run_cli(*AS_AGENT[name], "--agent", "bob", cwd=tmp_path)
    forced = run_cli(*AS_AGENT[name], "--agent", "bob", "--force", cwd=tmp_path)
    assert plain.code == forced.code == 3, (plain.stderr, forced.stderr)
    assert forced.last_lines == plain.last_lines and "--force" not in forced.stderr
    after = plan_bytes(tmp_path)
    assert after == files, "an agent's forced call changed the plan"
    person = run_cli(*AS_AGENT[name], "--force", cwd=tmp_path)
    assert person.code == 0, person.stderr  # the same call from a person goes through
    events = [json.loads(line) for line in (tmp_path / ".leafwise/journal.jsonl").read_text().splitlines()]
    assert events[-1]["actor"] != "bob"


# The same asks as MCP tool calls that name no agent.
OVER_MCP = {
    "add": ("add_node", {"title": "Export orders to CSV", "release": "R1"}),
    "block": ("block_task", {"node_id": "T-1", "reason": "the API key is missing"}),
    "complete": ("complete_task", {"node_id": "T-1", "summary": "done"}),
    "edit": ("edit_node", {"node_id": "T-1", "set": ["status=draft"]}),
    "unclaim": ("unclaim_task", {"node_id": "T-1"}),
}


def test_every_forcing_command_is_tried_over_mcp() -> None:
    assert FORCED == sorted(OVER_MCP)


@pytest.mark.parametrize("name", FORCED)
def test_an_mcp_call_without_an_agent_is_no_person(tmp_path: Path, name: str) -> None:
    files = anns_task(tmp_path)
    tool, arguments = OVER_MCP[name]

    async def go():
        async with Client(build_server(cwd=tmp_path)) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            plain = await client.call_tool(tool, arguments)
            forced = await client.call_tool(tool, {**arguments, "force": True})
            return names, plain, forced

    names, plain, forced = anyio.run(go)
    assert "decide" not in names  # answering a decision is a person's act: CLI and canvas only
    assert plain.is_error and forced.is_error, forced.structured_content
    assert forced.structured_content["_next_action"] == plain.structured_content["_next_action"]
    assert "force" not in json.dumps(forced.structured_content["_next_action"])
    after = plan_bytes(tmp_path)
    assert after == files, "a forced MCP call changed the plan"


def test_no_mcp_call_answers_a_decision(tmp_path: Path) -> None:
    """decide is no tool, and bulk (a tool) refuses it: an MCP client is an agent, whatever it names."""
    write_plan(tmp_path, [node("T-1", "Pick the export format", release="R1")])
    assert run_cli("ask", "T-1", "CSV or JSON?", "--option", "A: CSV", "--option", "B: JSON", "--agent", "ann",
                   cwd=tmp_path).code == 0
    before = (tmp_path / ".leafwise/nodes/T-1.yaml").read_bytes()

    async def go():
        async with Client(build_server(cwd=tmp_path)) as client:
            return await client.call_tool("bulk_update", {"updates": json.dumps(
                [{"id": "T-1", "command": "decide", "option": 2}])})

    answer = anyio.run(go).structured_content
    failed = (answer["result"] or answer["error"]["details"])["failed"]
    assert [f["code"] for f in failed] == ["person_only"], answer
    assert (tmp_path / ".leafwise/nodes/T-1.yaml").read_bytes() == before
    assert run_cli("decide", "T-1", "--option", "2", cwd=tmp_path).code == 0  # a person's call does
