#!/usr/bin/env python3
"""Drive `leafwise verify` through the real MCP client (the python SDK over stdio, `leafwise mcp`), one call
per run, so a person can play the model between calls: read a packet, pick a true quote, record it.

    python bench/reconcile_eval/mcp_loop.py REPO prompt                       # the verify-drafts prompt
    python bench/reconcile_eval/mcp_loop.py REPO next AGENT                   # lease a draft, print its packet
    python bench/reconcile_eval/mcp_loop.py REPO verdict AGENT ID VERDICT PATH:START-END QUOTE [MISSING]

Each run opens its own MCP session (a real client process talking to a real server process); the lease
lives in the plan, so an agent's `next` and its `verdict` may be separate sessions.
"""

from __future__ import annotations

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def session(repo: str, action):
    server = StdioServerParameters(command=sys.executable, args=["-P", "-m", "leafwise.commands.surfaces.cli", "mcp"],
                                   cwd=repo)
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as client:
            await client.initialize()
            return await action(client)


def text_of(result) -> str:
    return "\n".join(getattr(c, "text", "") for c in result.content)


async def main(argv: list[str]) -> None:
    repo, verb, *rest = argv
    if verb == "prompt":
        async def go(client):
            prompts = await client.list_prompts()
            names = [p.name for p in prompts.prompts]
            got = await client.get_prompt("verify-drafts", {"agent": "A"})
            return {"prompts": names, "text": [m.content.text for m in got.messages]}
    elif verb == "next":
        agent, = rest

        async def go(client):
            return text_of(await client.call_tool("verify_leaf", {"next": True, "agent": agent}))
    elif verb == "verdict":
        agent, node, verdict, where, quote, *missing = rest
        args = {"node_id": node, "verdict": verdict, "evidence": [where], "quote": [quote], "agent": agent}
        if missing:
            args["missing"] = missing[0]

        async def go(client):
            return text_of(await client.call_tool("verify_leaf", args))
    else:
        raise SystemExit(__doc__)
    out = await session(repo, go)
    print(out if isinstance(out, str) else json.dumps(out, indent=1))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
