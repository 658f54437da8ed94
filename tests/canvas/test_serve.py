"""`leafwise serve`: the real server, asked over HTTP as a browser (or a hostile page) would.

Nothing gets in without both secrets the printed one-time link hands out (a path prefix and a cookie
scoped to it); the websocket also needs this page's own Origin; the page names no host or port, so a forwarded port
(`ssh -L`) serves it too — checked through a real TCP forwarder on another local port.

The request checks run the server's own parts in this process (`serve.start`: the aiohttp site on
127.0.0.1, a fresh token each); the CLI's start, its errors and its stop on SIGTERM run
`leafwise serve` in a subprocess.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from leafwise.canvas import serve
from testkit import write_plan

pytestmark = pytest.mark.anyio

NODES = [{"id": "T-1", "title": "Alpha lighthouse task", "release": "R1", "status": "draft"}]
LINK = re.compile(r"Open: (http://127\.0\.0\.1:(\d+)/)\?token=([A-Za-z0-9_-]+)")


class Served:
    def __init__(self, process: subprocess.Popen | None, base: str, port: int, token: str, root: Path,
                 prefix: str = "") -> None:
        self.process, self.base, self.port, self.token, self.root = process, base, port, token, root
        self.prefix = prefix  # known to the test's own server only; a CLI server's comes from its link

    @property
    def page(self) -> str:
        """The canvas page's URL (under the secret prefix)."""
        return f"http://127.0.0.1:{self.port}{self.prefix}"

    def canvases(self) -> list[int]:
        """The canvas processes running on this server's plan (`leafwise canvas --root ROOT`)."""
        found = subprocess.run(["pgrep", "-f", f"canvas --root {self.root.resolve()}$"], capture_output=True,
                               text=True).stdout
        return [int(pid) for pid in found.split()]


def start_server(root: Path, *args: str) -> Served:
    """`leafwise serve --port 0` in `root`, once it has printed its link (its stderr kept in a file)."""
    log = root.parent / f"serve-{os.urandom(3).hex()}.log"
    with log.open("w") as errors:
        process = subprocess.Popen([sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli", "serve", "--port", "0",
                                    *args], cwd=root, stdout=subprocess.PIPE, stderr=errors, text=True,
                                   env={**os.environ, "LEAFWISE_AGENT": ""})
    assert process.stdout is not None
    line = process.stdout.readline()  # the one line on stdout: the link
    found = LINK.search(line)
    if found is None:
        process.kill()
        process.wait()
        raise AssertionError(f"no link in {line!r}: {log.read_text()}")
    return Served(process, found[1], int(found[2]), found[3], root)


def stop_server(served: Served) -> None:
    """SIGTERM, as Ctrl+C or a service manager stops it; it must be gone within seconds."""
    assert served.process is not None
    if served.process.poll() is None:
        served.process.send_signal(signal.SIGTERM)
        try:
            served.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            served.process.kill()
            served.process.wait()
            raise AssertionError("leafwise serve did not stop on SIGTERM") from None
    if served.process.stdout is not None:
        served.process.stdout.close()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
async def served(tmp_path) -> AsyncIterator[Served]:
    """The server of `leafwise serve` on the test's plan, in this process, on a free port of 127.0.0.1."""
    root = write_plan(tmp_path / "plan", NODES)
    guard = serve.Guard()
    assert guard.token is not None
    server = serve.CanvasServer(root.resolve())
    runner, port = await serve.start(server, guard, 0)
    try:
        yield Served(None, f"http://127.0.0.1:{port}/", port, guard.token, root, guard.prefix)
    finally:
        await runner.cleanup()


def session_cookie(response: aiohttp.ClientResponse) -> tuple[str, str]:
    header = response.headers["Set-Cookie"]
    name, value = header.split(";", 1)[0].split("=", 1)
    return name, value


PREFIX = re.compile(r'url=(/[A-Za-z0-9_-]+/)"')


async def enter(client: aiohttp.ClientSession, served: Served, base: str | None = None) -> tuple[dict[str, str], str]:
    """Use the link: the Cookie header a browser would send from now on, and the page's URL."""
    base = base or served.base
    async with client.get(f"{base}?token={served.token}", allow_redirects=False) as response:
        assert response.status == 200
        name, value = session_cookie(response)
        prefix = PREFIX.search(await response.text())
    assert prefix, "the page after the link names the prefix"
    return {"Cookie": f"{name}={value}"}, base.rstrip("/") + prefix[1]


async def forward(listen_port: int, to_port: int) -> asyncio.Server:
    """What `ssh -L listen_port:127.0.0.1:to_port` does, on this machine: bytes both ways, untouched."""
    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except ConnectionError:
            pass
        finally:
            writer.close()

    async def connected(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", to_port)
        await asyncio.gather(pipe(reader, upstream_writer), pipe(upstream_reader, writer))

    return await asyncio.start_server(connected, "127.0.0.1", listen_port)


async def test_nothing_without_the_cookie(served):
    async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as client:
        for base in (served.base, served.page):  # outside the prefix, and inside it without the cookie
            for path in ("", "static/js/textual.js", "static/css/xterm.css", "ws", "checkout", "download/x"):
                async with client.get(base + path) as response:
                    assert response.status == 403, base + path
                    assert "open the link `leafwise serve` printed" in await response.text()
        for guess in ("not-the-token", "t\u00f6ken", ""):
            async with client.get(served.base, params={"token": guess}) as response:
                assert response.status == 403, guess
        for cookie in ("leafwise_0000=guessed", "leafwise_0000=g%C3%BCessed"):
            async with client.get(served.page, headers={"Cookie": cookie}) as response:
                assert response.status == 403, cookie


async def test_the_link_gives_an_httponly_strict_cookie_for_the_prefix_once(served):
    async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as client:
        async with client.get(f"{served.base}?token={served.token}", allow_redirects=False) as response:
            assert response.status == 200
            header = response.headers["Set-Cookie"]
            parts = {p.strip().lower() for p in header.split(";")}
            assert {"httponly", "samesite=strict", f"path={served.prefix.lower()}"} <= parts
            assert served.token not in header  # the cookie is a session secret of its own
            page = await response.text()
            assert f'url={served.prefix}"' in page and "token" not in page  # on to the prefix, token-free
            assert response.headers["Referrer-Policy"] == "no-referrer"
            name, value = session_cookie(response)
        async with client.get(f"{served.base}?token={served.token}", allow_redirects=False) as response:
            assert response.status == 403  # good once
        for wrong in (value[:-1], value + "x", "w\u00f6rong"):
            async with client.get(served.page, headers={"Cookie": f"{name}={wrong}"}) as response:
                assert response.status == 403, wrong
        cookie = {"Cookie": f"{name}={value}"}
        async with client.get(served.base, headers=cookie) as response:
            assert response.status == 403  # the cookie without the prefix: what another local port could replay
        for near in (served.prefix[:-2] + "/", served.prefix[:-1], served.prefix.upper()):
            async with client.get(f"http://127.0.0.1:{served.port}{near}", headers=cookie) as response:
                assert response.status in (403, 404) and response.status != 200, near
        async with client.get(served.page, headers=cookie) as response:
            assert response.status == 200
            assert response.headers["X-Frame-Options"] == "DENY"
        async with client.get(served.page + "static/js/textual.js", headers=cookie) as response:
            assert response.status == 200


async def test_the_page_names_no_host_and_port(served):
    async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as client:
        cookie, page_url = await enter(client, served)
        async with client.get(page_url, headers=cookie) as response:
            page = await response.text()
    assert "127.0.0.1" not in page and str(served.port) not in page and "ws://" not in page
    assert 'href="static/css/xterm.css"' in page and 'src="static/js/textual.js"' in page
    assert 'data-session-websocket-url="ws"' in page
    assert "googleapis" not in page and served.prefix not in page  # no request elsewhere; relative URLs only


async def test_a_foreign_host_or_origin_is_refused(served):
    async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as client:
        cookie, page_url = await enter(client, served)
        # A page that rebinds its own name to 127.0.0.1 sends its own Host (and has no cookie of ours).
        async with client.get(page_url, headers={**cookie, "Host": f"evil.example:{served.port}"}) as response:
            assert response.status == 403
        for origin in ("http://evil.example", f"http://localhost:{served.port + 1}", f"https://127.0.0.1:{served.port}",
                       "null"):
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await client.ws_connect(page_url + "ws", headers={**cookie, "Origin": origin})
            assert refused.value.status == 403, origin
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:  # no Origin at all
            await client.ws_connect(page_url + "ws", headers=cookie)
        assert refused.value.status == 403
        assert served.canvases() == []  # no canvas was started for any of them


async def test_through_a_forwarded_port_the_canvas_runs_and_ends_with_its_tab(served):
    unused_tcp_port = free_port()
    forwarder = await forward(unused_tcp_port, served.port)
    local = f"http://localhost:{unused_tcp_port}/"  # what the person's browser sees at the other end of ssh -L
    try:
        async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as client:
            cookie, page_url = await enter(client, served, local)
            async with client.get(page_url, headers=cookie) as response:
                assert response.status == 200
            socket = await client.ws_connect(f"{page_url}ws?width=100&height=30",
                                             headers={**cookie, "Origin": f"http://localhost:{unused_tcp_port}"})
            received = b""
            while len(received) < 2000:  # the canvas paints: its first frames arrive
                message = await asyncio.wait_for(socket.receive(), timeout=60)
                assert message.type == aiohttp.WSMsgType.BINARY, message
                received += message.data
            assert len(served.canvases()) == 1
            await socket.close()
        for _ in range(300):  # the tab closed: its canvas quits
            if not served.canvases():
                break
            await asyncio.sleep(0.05)
        assert served.canvases() == []
    finally:
        forwarder.close()
        await forwarder.wait_closed()


@pytest.mark.slow
def test_stopping_the_server_ends_its_canvases(tmp_path):
    served = start_server(write_plan(tmp_path / "plan", NODES))
    try:
        async def open_tab() -> None:
            async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as client:
                cookie, page_url = await enter(client, served)
                socket = await client.ws_connect(page_url + "ws", headers={
                    **cookie, "Origin": f"http://127.0.0.1:{served.port}"})
                await asyncio.wait_for(socket.receive(), timeout=60)
                canvases = served.canvases()
                assert len(canvases) == 1
                stop_server(served)  # SIGTERM with the tab open
                for pid in canvases:
                    assert not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text()

        asyncio.run(open_tab())
        assert served.process.returncode == 0
    finally:
        stop_server(served)


@pytest.mark.slow
def test_no_plan_and_a_taken_port_are_said_with_their_fix(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    result = subprocess.run([sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli", "serve", "--port", "0"],
                            cwd=empty, capture_output=True, text=True, timeout=60)
    assert result.returncode == 5 and "Fix: leafwise init" in result.stderr
    root = write_plan(tmp_path / "plan", NODES)
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        taken = subprocess.run([sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli", "serve", "--port", str(port)],
                               cwd=root, capture_output=True, text=True, timeout=60)
    assert taken.returncode == 2, taken
    assert f"cannot listen on 127.0.0.1:{port}" in taken.stderr and "Fix: leafwise serve --port 0" in taken.stderr
