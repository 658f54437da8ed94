"""While a reconcile call scans (in its worker process), the MCP server answers other calls: a real
server process, the SDK's client, two calls in flight at once."""

from __future__ import annotations

import pytest
import os
import sys
import time

import anyio
from leafwise.commands.reconcile import worker
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from testkit import node, write_plan
from testkit.repos import commit_all, write_files


@pytest.mark.slow
def test_get_next_task_answers_while_reconcile_runs(tmp_path):
    write_files(tmp_path, {"pkg/export.py": "def export_orders_as_csv(orders):\n    return orders\n"})
    write_plan(tmp_path, [node("T-1", "Export orders as CSV", release="R1"), node("T-2", "Refund an order",
                                                                                  release="R1")])
    commit_all(tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "LEAFWISE_ROOT"}
    env.update({worker.DELAY_ENV: "4", worker.DEADLINE_ENV: "60", "LEAFWISE_AGENT": ""})
    params = StdioServerParameters(command=sys.executable, args=["-P", "-m", "leafwise.commands.surfaces.cli", "mcp"],
                                   cwd=str(tmp_path), env=env)
    seen: dict[str, float] = {}

    async def go():
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await session.call_tool("get_next_task", {})  # warm: imports and the plan load
                started = time.monotonic()

                async def reconcile():
                    result = await session.call_tool("reconcile", {})
                    seen["reconcile"] = time.monotonic() - started
                    seen["verdict"] = result.structured_content["result"]["suggestions"][0]["verdict"]

                async def next_task():
                    await anyio.sleep(0.5)  # the reconcile call is in flight (its child sleeps 4 s)
                    result = await session.call_tool("get_next_task", {})
                    seen["next"] = time.monotonic() - started
                    seen["task"] = result.structured_content["result"]["task"]["id"]

                async with anyio.create_task_group() as group:
                    group.start_soon(reconcile)
                    group.start_soon(next_task)

    anyio.run(go)
    assert seen["reconcile"] >= 4, seen
    assert seen["next"] < seen["reconcile"] - 1, f"get_next_task waited for reconcile: {seen}"
    assert seen["task"] in {"T-1", "T-2"} and seen["verdict"] == "likely"
