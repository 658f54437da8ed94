"""`get_next_task` / `start_task` with `wait` through the SDK's real client against `leafwise mcp` over
stdio: the wait blocks only its own call, wakes on another client's write, and ends when cancelled."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from testkit import node, run_cli, write_plan

WAKE_LIMIT_S = 2.0


def server(root: Path) -> StdioServerParameters:
    env = {k: v for k, v in os.environ.items() if k not in ("LEAFWISE_ROOT", "LEAFWISE_AGENT")}
    return StdioServerParameters(command=sys.executable, args=["-P", "-m", "leafwise.commands.surfaces.cli", "mcp"],
                                 cwd=str(root), env=env)


def our_servers() -> list[int]:
    """The pids of this test's own `leafwise mcp` children."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:  # process counters, not plan content
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                words = cmdline.read().split(b"\0")
        except OSError:
            continue
        if parent == os.getpid() and b"leafwise.commands.surfaces.cli" in words and b"mcp" in words:
            found.append(int(entry))
    return found


def inotify_watches(pid: int) -> int:
    count = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            count += os.readlink(f"/proc/{pid}/fd/{fd}") == "anon_inode:inotify"
        except OSError:
            continue
    return count


async def until(predicate: Callable[[], Any], what: str, timeout: float = 30.0) -> Any:
    """`testkit.wait_until` for async code: look every 20 ms, fail after `timeout` naming `what`."""
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        await anyio.sleep(0.02)
    return value


@pytest.fixture
def blocked_plan(tmp_path: Path) -> Path:
    write_plan(tmp_path, [node("T-1", "Alpha", status="blocked", blocked_reason="needs creds", release="R1")])
    return tmp_path


@pytest.mark.slow
def test_get_next_task_waits_wakes_on_another_clients_write_and_blocks_no_other_call(blocked_plan: Path) -> None:
    async def go() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        async with Client(server(blocked_plan)) as a:
            (pid,) = our_servers()

            async def waiting() -> None:
                seen["answer"] = await a.call_tool("get_next_task", {"agent": "a1", "wait": 20})
                seen["ended"] = time.time()

            async with anyio.create_task_group() as group:
                group.start_soon(waiting)
                # the session's own plan watch, then the wait's
                await until(lambda: inotify_watches(pid) >= 2, "the server's wait to start watching")
                began = time.monotonic()
                seen["progress"] = await a.call_tool("get_progress", {})
                seen["other_call"] = time.monotonic() - began
                seen["answered_meanwhile"] = "answer" not in seen
                async with Client(server(blocked_plan)) as b:  # another client frees the task
                    seen["freed"] = await b.call_tool("unblock_task", {"node_id": "T-1"})
                seen["written"] = (blocked_plan / ".leafwise/nodes/T-1.yaml").stat().st_mtime
        return seen

    seen = anyio.run(go)
    assert not seen["progress"].is_error and seen["answered_meanwhile"], "the waiting call held up another"
    assert seen["other_call"] < WAKE_LIMIT_S
    assert not seen["freed"].is_error
    env = seen["answer"].structured_content
    delay = seen["ended"] - seen["written"]
    print(f"MCP get_next_task(wait): answered {delay * 1000:.0f} ms after another client's unblock wrote T-1; "
          f"get_progress meanwhile took {seen['other_call'] * 1000:.0f} ms")
    assert env["result"]["task"]["id"] == "T-1" and env["result"]["waited"] > 0.1
    assert seen["answer"].meta["leafwise/next_tool"] == {"name": "start_task",
                                                          "arguments": {"next": True, "agent": "a1"}}
    assert delay < WAKE_LIMIT_S


@pytest.mark.slow
def test_the_tools_take_wait_and_a_wait_answer_offers_the_waiting_call(blocked_plan: Path) -> None:
    async def go():
        async with Client(server(blocked_plan)) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            answer = await client.call_tool("start_task", {"next": True, "agent": "a1", "wait": 0})
            return tools, answer

    tools, answer = anyio.run(go)
    for name in ("get_next_task", "start_task"):
        assert tools[name].input_schema["properties"]["wait"]["type"] == "number"
    action = answer.structured_content["_next_action"]
    assert action["marker"] == "wait" and action["or"] == "leafwise start --next --agent a1 --wait 300"


def test_a_cancelled_wait_ends_and_claims_nothing(blocked_plan: Path) -> None:
    async def go() -> Any:
        async with Client(server(blocked_plan)) as a:
            (pid,) = our_servers()
            async with anyio.create_task_group() as group:
                group.start_soon(a.call_tool, "start_task", {"next": True, "agent": "a1", "wait": 60})
                await until(lambda: inotify_watches(pid) >= 2, "the server's wait to start watching")
                group.cancel_scope.cancel()
            await until(lambda: inotify_watches(pid) == 1, "the cancelled wait to end", timeout=5)
            assert run_cli("unblock", "T-1", cwd=blocked_plan).code == 0
            return await a.call_tool("get_next_task", {"agent": "a2"})

    offered = anyio.run(go)
    assert offered.structured_content["result"]["task"]["id"] == "T-1"  # a1's cancelled call took nothing
    assert not (blocked_plan / ".leafwise/claims/T-1.json").exists()
