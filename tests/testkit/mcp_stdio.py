"""A real MCP client on a real `leafwise mcp` stdio server in a plan's folder (the SDK's own client)."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client


@asynccontextmanager
async def mcp_session(root: Path, seconds: float = 30) -> AsyncIterator[ClientSession]:
    """An initialised session on `python -m leafwise.commands.surfaces.cli mcp` at `root`; the calls
    made within have `seconds` in all."""
    params = StdioServerParameters(command=sys.executable, args=["-P", "-m", "leafwise.commands.surfaces.cli", "mcp"],
                                   cwd=str(root), env={**os.environ, "LEAFWISE_AGENT": ""})
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            with anyio.fail_after(seconds):
                yield session
