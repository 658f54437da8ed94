"""`leafwise mcp` keeps stderr for real trouble: watchfiles' per-batch INFO lines showed as server noise in clients."""

from __future__ import annotations

import os
import sys

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from testkit import node, write_plan


def test_the_server_logs_nothing_for_plan_changes(tmp_path):
    write_plan(tmp_path, [node("T-1", "One"), node("T-2", "Two")])
    env = {k: v for k, v in os.environ.items() if k != "LEAFWISE_ROOT"}
    params = StdioServerParameters(command=sys.executable, args=["-P", "-m", "leafwise.commands.surfaces.cli", "mcp"],
                                   cwd=str(tmp_path), env=env)
    errlog = tmp_path / "stderr.txt"

    async def go():
        with errlog.open("w") as err:
            async with stdio_client(params, errlog=err) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    for step in range(3):  # each call follows a write the watcher must see
                        (tmp_path / ".leafwise/nodes/T-1.yaml").write_text(f"id: T-1\ntitle: One {step}\nstatus: draft\n")
                        result = await session.call_tool("get_node", {"node_id": "T-1"})
                        assert result.structured_content["result"]["title"] == f"One {step}"

    anyio.run(go)
    assert "changes detected" not in errlog.read_text()
