"""`leafwise commands` is the agents' discovery call: it lists the whole registry, like the MCP server."""

from __future__ import annotations

import anyio
from leafwise.commands.surfaces.mcp_server import build_server
from mcp import Client
from testkit import run_cli, write_plan


def mcp_tools(root) -> set[str]:
    async def go():
        async with Client(build_server(cwd=root)) as client:
            return {tool.name for tool in (await client.list_tools()).tools}

    return anyio.run(go)


def test_commands_lists_every_registry_command_and_every_mcp_tool(tmp_path):
    write_plan(tmp_path, {})
    # a fresh process: nothing imported yet but what `commands` itself loads
    listed = run_cli("commands", "--json", cwd=tmp_path).json["result"]
    items = listed["items"]
    assert listed["total"] == len(items) and not listed["truncated"]
    tools = {item["mcp_tool"] for item in items if item["kind"] != "launcher" and item["mcp_tool"]}
    assert tools == mcp_tools(tmp_path)
    assert {item["name"] for item in items if item["kind"] == "launcher"} == {"canvas", "demo", "mcp", "serve"}
    text = run_cli("commands", cwd=tmp_path).stdout
    for item in items:
        assert f"  {item['name']} " in text


def test_commands_over_mcp_lists_the_same(tmp_path):
    write_plan(tmp_path, {})

    async def go():
        async with Client(build_server(cwd=tmp_path)) as client:
            result = await client.call_tool("list_commands", {})
            return result.structured_content["result"]["items"]

    over_mcp = {item["name"] for item in anyio.run(go)}
    over_cli = {item["name"] for item in run_cli("commands", "--json", cwd=tmp_path).json["result"]["items"]}
    assert over_mcp == over_cli
