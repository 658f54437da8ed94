"""`leafwise serve` attacked again, through its real aiohttp site on 127.0.0.1 (in this process) and the
real canvas a tab starts:

- the websocket's Origin: exactly one header, exactly the page's own origin (`null`, another case, a
  trailing dot or slash, no port, another port, a second header: refused before any canvas starts);
- another server's secrets: one `leafwise serve`'s cookie and path prefix open nothing on another;
- a tab's JSON: a flood of quarter-megabyte messages of brackets (wide, or deep) used to hold the
  server's one loop (every tab's) 0.3 s a message; now each message is charged by its size before it
  is read, and a depth check runs at C speed, so the flood costs the server little and the tab's
  canvas still answers.
"""

from __future__ import annotations

import asyncio
import base64
import os
import resource
import time
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from leafwise.canvas import serve, serve_input
from leafwise.store import reader
from testkit import write_plan

pytestmark = pytest.mark.anyio

NODES = [{"id": "T-1", "title": "Alpha lighthouse task", "release": "R1", "status": "draft"}]
PAINT = 90.0  # seconds: a first paint on a loaded machine


class Site:
    def __init__(self, port: int, guard: serve.Guard, root: Path) -> None:
        self.port, self.guard, self.root = port, guard, root
        self.host = f"127.0.0.1:{port}"


async def site(root: Path) -> AsyncIterator[Site]:
    guard = serve.Guard()
    runner, port = await serve.start(serve.CanvasServer(root.resolve()), guard, 0)
    try:
        yield Site(port, guard, root)
    finally:
        await runner.cleanup()


@pytest.fixture
async def served(tmp_path) -> AsyncIterator[Site]:
    async for found in site(write_plan(tmp_path / "plan", NODES)):
        yield found


async def cookie_of(served: Site) -> str:
    async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as client:
        async with client.get(f"http://{served.host}/?token={served.guard.token}", allow_redirects=False) as answer:
            assert answer.status == 200
            return answer.headers["Set-Cookie"].split(";", 1)[0]


async def upgrade(port: int, path: str, headers: list[tuple[str, str]]) -> int:
    """The status of a websocket upgrade written by hand, as any local program can."""
    reader_, writer = await asyncio.open_connection("127.0.0.1", port)
    key = base64.b64encode(os.urandom(16)).decode()
    lines = [f"GET {path} HTTP/1.1", *(f"{k}: {v}" for k, v in headers), "Upgrade: websocket",
             "Connection: Upgrade", f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13"]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
    await writer.drain()
    status = await asyncio.wait_for(reader_.readline(), 30)
    writer.close()
    return int(status.split()[1])


async def test_the_websocket_takes_one_origin_exactly_the_pages(served):
    cookie = ("Cookie", await cookie_of(served))
    port, host = served.port, served.host
    origins = [["null"], [f"HTTP://{host}"], [f"http://LOCALHOST:{port}"], [f"http://127.0.0.1.:{port}"],
               ["http://127.0.0.1"], [f"http://{host}/"], [f"http://127.0.0.1:{port + 1}"], [f"https://{host}"],
               [], [f"http://{host}", "http://evil.example"], ["http://evil.example", f"http://{host}"],
               [f"http://{host}", f"http://{host}"]]
    for given in origins:
        headers = [("Host", host), *(("Origin", o) for o in given), cookie]
        assert await upgrade(port, served.guard.prefix + "ws", headers) == 403, given
    for host_header, origin in ((f"LOCALHOST:{port}", f"http://LOCALHOST:{port}"),
                                (f"localhost.:{port}", f"http://localhost.:{port}"),
                                (f"127.0.0.1.evil.example:{port}", f"http://127.0.0.1.evil.example:{port}")):
        headers = [("Host", host_header), ("Origin", origin), cookie]
        assert await upgrade(port, served.guard.prefix + "ws", headers) == 403, host_header
    assert served.guard.token is None  # (the link was used once, by cookie_of)


async def test_another_servers_cookie_and_prefix_open_nothing(served, tmp_path):
    async for other in site(write_plan(tmp_path / "other", NODES)):
        mine, theirs = await cookie_of(served), await cookie_of(other)
        async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as client:
            for prefix, cookie in ((served.guard.prefix, theirs), (other.guard.prefix, mine),
                                   (other.guard.prefix, theirs.split("=")[0] + "=" + mine.split("=", 1)[1])):
                async with client.get(f"http://{served.host}{prefix}", headers={"Cookie": cookie}) as answer:
                    assert answer.status == 403, (prefix, cookie)
            async with client.get(f"http://{served.host}{served.guard.prefix}", headers={"Cookie": mine}) as answer:
                assert answer.status == 200


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


WIDE = "[[[" + "[]," * 87_000 + "[]]]]"  # 261 KB, nested 4 deep: a valid envelope's depth
DEEP = "[" * 260_000


def test_reading_wide_or_deep_json_takes_no_python_step_per_bracket():
    """The depth check of every JSON read (store/reader.py) at C speed: a megabyte of brackets walked one
    Python step each took about a second."""
    line = ("[" + "[]," * 349_000 + "[" * 40 + "]" * 41).encode()  # a journal line: wide, then too deep
    start = cpu()
    for raw, kind in ((line, reader.EVENT), (DEEP, serve_input.TAB_MESSAGE), ("[" * 1_000_000, reader.EVENT)):
        with pytest.raises(reader.Refused, match="nests deeper"):
            reader.load_json(raw, kind)
    used = cpu() - start
    assert used < 0.5, f"{used:.2f} CPU s for three refusals (a walk per bracket took about 3 s)"


async def answers_ping(tab: aiohttp.ClientWebSocketResponse) -> bool:
    """Whether a ping gets its pong (sent again each second: the flood spent the tab's budget, which
    refills at `serve_input.RATE`)."""
    end = time.monotonic() + PAINT
    while time.monotonic() < end:
        await tab.send_json(["ping", "after"])
        second = time.monotonic() + 1
        while (left := second - time.monotonic()) > 0:
            try:
                message = await asyncio.wait_for(tab.receive(), left)
            except asyncio.TimeoutError:
                break
            if message.type == aiohttp.WSMsgType.TEXT and message.json() == ["pong", "after"]:
                return True
            assert message.type == aiohttp.WSMsgType.BINARY, message
    return False


async def painted_tab(client, served, cookie: str):
    """A tab's websocket, opened as the page opens it, once its canvas has sent its first frame."""
    tab = await client.ws_connect(f"ws://{served.host}{served.guard.prefix}ws?width=80&height=24",
                                  headers={"Cookie": cookie, "Origin": f"http://{served.host}"}, max_msg_size=0)
    first = await asyncio.wait_for(tab.receive(), PAINT)
    assert first.type == aiohttp.WSMsgType.BINARY, first
    return tab


@pytest.mark.slow  # a tab's canvas
async def test_a_tabs_json_flood_costs_the_server_little_and_the_tab_still_answers(served):
    cookie = await cookie_of(served)
    async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as client:
        tab = await painted_tab(client, served, cookie)
        start, began = cpu(), time.monotonic()
        for payload in (WIDE, DEEP) * 20:  # 10 MB of brackets: about 12 s of the server's loop, read one by one
            await tab.send_str(payload)
        assert await answers_ping(tab), "the tab's pings went unanswered after the flood"
        used = cpu() - start
        assert used < 4, f"the server spent {used:.1f} CPU s on the flood ({time.monotonic() - began:.1f} s)"
        await tab.close()


@pytest.mark.slow  # a tab's canvas
async def test_a_tab_open_past_the_deadline_keeps_its_canvas(tmp_path, monkeypatch):
    """The deadline is for connections with no request in hand: a tab's websocket is a request
    being answered, so a quiet tab is never cut by it (only by its own heartbeat when it is gone)."""
    monkeypatch.setattr(serve, "HEADER_SECONDS", 1.0)
    async for served in site(write_plan(tmp_path / "plan", NODES)):
        cookie = await cookie_of(served)
        async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as client:
            tab = await painted_tab(client, served, cookie)
            await asyncio.sleep(4)  # four deadlines, the tab sending nothing
            assert await answers_ping(tab), "a quiet tab was cut"
            await tab.close()
