"""`leafwise serve`'s second secret and its limits, against the real server (its aiohttp site on
127.0.0.1, in this process) and the real canvas processes it starts.

- A browser sends a cookie to every port of 127.0.0.1, so another local service can get it: a raw
  websocket upgrade carrying the real cookie (and a correct Origin) but not the path prefix is 403.
- At most `max_tabs` tabs: one more gets a 503 page naming the cap and `--max-tabs`; a closed tab
  frees its place.
- A tab's input is metered: a 100,000-key message is dropped, so the canvas stays responsive.
"""

from __future__ import annotations

import asyncio
import base64
import os
import re
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from leafwise.canvas import serve, serve_input
from testkit import write_plan

pytestmark = pytest.mark.anyio

NODES = [{"id": "T-1", "title": "Alpha lighthouse task", "release": "R1", "status": "draft"},
         {"id": "T-2", "title": "Bravo harbour task", "release": "R1", "status": "draft"}]
CONTROL = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78NOc]")
PAINT = 90.0  # seconds: a first paint on a loaded machine


class Served:
    def __init__(self, port: int, guard: serve.Guard, root: Path) -> None:
        self.port, self.guard, self.root = port, guard, root
        self.base = f"http://127.0.0.1:{port}/"
        self.page = f"http://127.0.0.1:{port}{guard.prefix}"

    def canvases(self) -> list[int]:
        found = subprocess.run(["pgrep", "-f", f"canvas --root {self.root.resolve()}$"], capture_output=True,
                               text=True).stdout
        return [int(pid) for pid in found.split()]


async def serving(tmp_path: Path, max_tabs: int = serve.MAX_TABS) -> AsyncIterator[Served]:
    root = write_plan(tmp_path / "plan", NODES)
    guard = serve.Guard()
    runner, port = await serve.start(serve.CanvasServer(root.resolve(), max_tabs=max_tabs), guard, 0)
    try:
        yield Served(port, guard, root)
    finally:
        await runner.cleanup()


@pytest.fixture
async def served(tmp_path) -> AsyncIterator[Served]:
    async for found in serving(tmp_path):
        yield found


@pytest.fixture
async def one_tab(tmp_path) -> AsyncIterator[Served]:
    async for found in serving(tmp_path, max_tabs=1):
        yield found


async def cookie_of(client: aiohttp.ClientSession, served: Served) -> dict[str, str]:
    async with client.get(f"{served.base}?token={served.guard.token}", allow_redirects=False) as response:
        assert response.status == 200
        name, value = response.headers["Set-Cookie"].split(";", 1)[0].split("=", 1)
    return {"Cookie": f"{name}={value}"}


async def raw_upgrade(port: int, path: str, cookie: str) -> bytes:
    """A websocket upgrade written by hand on a TCP socket, as any local program can: its status line."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nOrigin: http://127.0.0.1:{port}\r\n"
                  f"Cookie: {cookie}\r\n\r\n").encode())
    await writer.drain()
    status = await asyncio.wait_for(reader.readline(), 30)
    writer.close()
    return status


async def test_the_cookie_without_the_path_secret_opens_nothing(served):
    async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as client:
        cookie = (await cookie_of(client, served))["Cookie"]
    for path in ("/ws", "/ws?width=80&height=24", "//ws", f"/{served.guard.prefix[1:-1]}ws",
                 served.guard.prefix[:-1] + "ws", "/static/../" + served.guard.prefix[1:] + "ws"):
        status = await raw_upgrade(served.port, path, cookie)
        assert status.split()[1] in (b"403", b"404"), (path, status)
    assert served.canvases() == []
    opened = await raw_upgrade(served.port, served.guard.prefix + "ws", cookie)  # the same client, both secrets
    assert opened.split()[1] == b"101", opened


@pytest.mark.slow
async def test_one_tab_more_than_the_cap_is_refused_by_name(one_tab):
    async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as client:
        cookie = await cookie_of(client, one_tab)
        headers = {**cookie, "Origin": f"http://127.0.0.1:{one_tab.port}"}
        first = await client.ws_connect(one_tab.page + "ws", headers=headers)
        await asyncio.wait_for(first.receive(), PAINT)
        async with client.get(one_tab.page, headers=cookie) as response:
            assert response.status == 503
            page = await response.text()
            assert "1 tabs already show this canvas" in page and "leafwise serve --max-tabs 2" in page
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await client.ws_connect(one_tab.page + "ws", headers=headers)
        assert refused.value.status == 503
        assert len(one_tab.canvases()) == 1
        await first.close()
        for _ in range(600):  # the closed tab frees its place once its canvas has quit
            async with client.get(one_tab.page, headers=cookie) as response:
                if response.status == 200:
                    break
            await asyncio.sleep(0.05)
        assert response.status == 200
        again = await client.ws_connect(one_tab.page + "ws", headers=headers)
        await asyncio.wait_for(again.receive(), PAINT)
        await again.close()


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def screen_until(socket: aiohttp.ClientWebSocketResponse, pattern: bytes, seen: bytearray) -> None:
    while not re.search(pattern, CONTROL.sub(b"", bytes(seen))):
        message = await asyncio.wait_for(socket.receive(), PAINT)
        assert message.type == aiohttp.WSMsgType.BINARY, message
        seen += message.data


async def test_a_flood_of_keys_is_dropped_and_the_canvas_answers_the_next_key(served):
    async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as client:
        cookie = await cookie_of(client, served)
        socket = await client.ws_connect(served.page + "ws?width=120&height=40",
                                         headers={**cookie, "Origin": f"http://127.0.0.1:{served.port}"})
        seen = bytearray()
        await screen_until(socket, rb"T-1\s+Alpha lighthouse task", seen)
        [canvas] = served.canvases()
        before = cpu_seconds(canvas)
        await socket.send_json(["stdin", "j" * 100_000])  # the red team's message: 121 s of a busy canvas
        await socket.send_json(["stdin", "\x1b[<35;10;5M" * 300])  # 300 mouse reports at once: over the cap too
        seen.clear()
        await socket.send_json(["stdin", "j"])  # one key, within every limit: the selection moves to T-2
        await screen_until(socket, rb"T-2\s+Bravo harbour task", seen)
        used = cpu_seconds(canvas) - before
        assert used < 10, f"the canvas spent {used:.1f} CPU s: the flood reached it"
        await socket.close()


def test_input_is_counted_in_events():
    assert serve_input.events("j") == 1
    assert serve_input.events("\x1b[A\x1b[B") == 2  # two arrow keys
    assert serve_input.events("\x1b[<35;10;5M") == 1  # one SGR mouse report
    assert serve_input.events("\x1bj") == 1  # Alt+j
    paste = serve_input.PASTE_START + "x" * 10_000 + serve_input.PASTE_END
    assert serve_input.events(paste) == 1 + len(paste) // serve_input.PASTE_CHARS  # one Paste event, by size
    assert serve_input.events("j" * 100_000) == serve_input.MAX_EVENTS + 1  # counted no further than the cap
    assert serve_input.events("\x1b[" + "1" * 10_000) > serve_input.MAX_EVENTS  # an unended sequence is no shield
    assert serve_input.events(serve_input.PASTE_START + "\x1b" * 5000) == 2  # an unended paste: by its size


def test_the_budget_lets_a_burst_through_then_the_rate():
    budget = serve_input.Budget(rate=100.0, burst=50.0)
    assert budget.take(50)
    assert not budget.take(5)  # spent: the next events wait for the rate
    budget.at -= 0.1  # a tenth of a second later: 10 events more
    assert budget.take(10) and not budget.take(1)
