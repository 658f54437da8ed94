"""A warm plan (the MCP server's, the loop server's, the canvas's) must see every file the loader and the
validator read (h22d, issue 22). The watcher (store/watch.py) drops some of them: a doc named like a
scratch file (`docs/spec.tmp`, `docs/.spec.md`) and a `nodes/*.yaml` whose stem is no id. A pull or a
checkout that removes such a doc, or brings such a node file, leaves the MCP server's validate_project
saying `valid: true` over a plan whose own `leafwise validate` names two errors.

Closed in store/watch.py: `relevant` keeps a docs/ or diagrams/ file of any name but atomic.TEMP_PREFIX's,
and `classify` makes a `nodes/*.yaml` whose stem is no id a whole load."""

from __future__ import annotations

import os
import re
import sys

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from testkit import node, write_plan

def test_the_mcp_servers_validate_sees_a_doc_gone_and_a_node_file_named_like_no_id(tmp_path):
    root = write_plan(tmp_path, [node("T-1", "Alpha", release="R1"), node("T-2", "Bravo", release="R1")])
    node_file = root / ".leafwise" / "nodes" / "T-1.yaml"
    node_file.write_text(node_file.read_text() + 'docs: ["docs/spec.tmp"]\n')
    (root / ".leafwise" / "docs").mkdir(exist_ok=True)
    (root / ".leafwise" / "docs" / "spec.tmp").write_text("# spec\n")
    env = {k: v for k, v in os.environ.items() if k != "LEAFWISE_ROOT"}
    params = StdioServerParameters(command=sys.executable, args=["-P", "-m", "leafwise.commands.surfaces.cli", "mcp"],
                                   cwd=str(root), env={**env, "LEAFWISE_AGENT": "", "LEAFWISE_SERVER": "0"})
    seen: list[int] = []

    async def errors(session: ClientSession) -> int:
        result = await session.call_tool("validate_project", {})
        text = " ".join(getattr(c, "text", "") for c in result.content)
        found = re.search(r"(\d+) error\(s\)", text)  # "2 nodes, 1 error(s), 0 warning(s)", valid or not
        assert found, text
        return int(found.group(1))

    async def go() -> None:
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                seen.append(await errors(session))  # the plan is warm now
                (root / ".leafwise" / "nodes" / "t-9.yaml").write_text("{\n")
                seen.append(await errors(session))
                (root / ".leafwise" / "docs" / "spec.tmp").unlink()
                seen.append(await errors(session))

    anyio.run(go)
    assert seen == [0, 1, 2]
