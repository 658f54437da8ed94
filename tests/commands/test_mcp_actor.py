"""Who acts in an MCP call that names no agent: the MCP client, never the person whose git name the
server's machine has (the journal, and so the canvas's feed, credit it)."""

from __future__ import annotations

import anyio
import pytest
from leafwise.commands.surfaces.mcp_server import build_server
from mcp import Client
from mcp.types import Implementation
from testkit import journal, node, run_cli, write_plan


def plan(tmp_path):
    return write_plan(tmp_path / "repo", [node("T-1", "Epic", release="R1"), node("T-2", "Leaf", parent="T-1")])


def add_over_mcp(root, title: str, client_name: str | None, **extra):
    async def go():
        info = Implementation(name=client_name, version="1") if client_name is not None else None
        async with Client(build_server(cwd=root), client_info=info) as client:
            return await client.call_tool("add_node", {"title": title, "parent": "T-1", **extra})

    result = anyio.run(go)
    assert not result.is_error, result.content
    return next(e for e in reversed(journal(root)) if e.get("title") == title)["actor"]


@pytest.mark.parametrize(("client_name", "actor"), [
    ("claude-code", "mcp:claude-code"),
    ("Claude Desktop $(id)\u202e", "mcp:Claude-Desktop---id"),  # a plain name whatever the client sends
    ("", "mcp"),
])
def test_an_unnamed_call_is_the_clients(tmp_path, monkeypatch, client_name, actor):
    monkeypatch.setenv("LEAFWISE_USER", "Pat Person")
    assert add_over_mcp(plan(tmp_path), "Tail", client_name) == actor


def test_a_named_agent_and_a_persons_cli_call_keep_their_own_names(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAFWISE_USER", "Pat Person")
    root = plan(tmp_path)
    assert add_over_mcp(root, "By the agent", "claude-code", agent="mcp-1") == "mcp-1"
    assert run_cli("add", "By the person", "--parent", "T-1", cwd=root).code == 0
    assert journal(root)[-1]["actor"] == "Pat Person"
