"""The MCP server on the SDK's public low-level `Server`: what it answers beyond the registry's tools."""

from __future__ import annotations

import anyio
import pytest
from leafwise.commands.surfaces.mcp_server import build_server
from mcp import Client
from mcp.shared.exceptions import MCPError


def run(root, steps):
    async def go():
        async with Client(build_server(cwd=root)) as client:
            return await steps(client)

    return anyio.run(go)


def test_an_unknown_tool_is_an_error_result(demo_plan):
    result = run(demo_plan, lambda client: client.call_tool("no_such_tool", {}))
    assert result.is_error and "no_such_tool" in result.content[0].text


@pytest.mark.parametrize("uri", ["leafwise://nothing", "leafwise://nodes/SHOP-999/docs"])
def test_an_unknown_resource_is_a_protocol_error_and_the_session_goes_on(demo_plan, uri):
    async def steps(client):
        try:
            await client.read_resource(uri)
        except MCPError as exc:
            refused = exc.error.message
        else:
            refused = None
        return refused, (await client.call_tool("get_next_task", {})).is_error

    refused, failed_after = run(demo_plan, steps)
    expected = "no node SHOP-999" if "SHOP-999" in uri else f"no resource {uri!r}"
    assert refused is not None and refused.startswith(expected)
    assert failed_after is False


def test_the_sdk_lets_a_wrong_call_through_to_the_one_check(demo_plan):
    """No validation in front of ours: a schema violation is answered with the usage envelope."""
    result = run(demo_plan, lambda client: client.call_tool("list_nodes", {"limit": "many"}))
    env = result.structured_content
    assert result.is_error and env["error"]["code"] == "bad_argument"
    assert env["error"]["message"] == "list: 'limit' (--limit) must be an integer, not \"many\""
