"""`leafwise serve --follow --every S`: each tab's canvas polls the team's remote every S seconds, as
`canvas --follow --every S` (the real server in a subprocess, a real tab through its websocket, the
canvas process it starts read from /proc); a bad --every is refused with its fix before anything listens."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import aiohttp
import pytest

from testkit import wait_until, write_plan

NODES = [{"id": "T-1", "title": "Alpha lighthouse task", "release": "R1", "status": "draft"}]
LINK = re.compile(r"Open: (http://127\.0\.0\.1:(\d+)/)\?token=([A-Za-z0-9_-]+)")
CLI = [sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli"]


def canvases(root: Path) -> list[list[str]]:
    """The command lines of the canvas processes running on `root`'s plan."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            words = (proc / "cmdline").read_bytes().decode().split("\0")
        except OSError:
            continue
        if "canvas" in words and str(root.resolve()) in words:
            found.append([w for w in words if w])
    return found


@pytest.mark.slow
def test_served_canvases_poll_every_the_seconds_asked(tmp_path):
    root = write_plan(tmp_path / "plan", NODES)
    server = subprocess.Popen([*CLI, "serve", "--port", "0", "--follow", "--every", "0.5"], cwd=root,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                              env={**os.environ, "LEAFWISE_AGENT": ""})
    try:
        assert server.stdout is not None
        found = LINK.search(server.stdout.readline())
        assert found, "serve printed its link"
        base, port, token = found[1], found[2], found[3]

        async def open_tab() -> None:
            async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as client:
                async with client.get(f"{base}?token={token}", allow_redirects=False) as response:
                    assert response.status == 200
                    name, value = response.headers["Set-Cookie"].split(";", 1)[0].split("=", 1)
                    prefix = re.search(r'url=/([A-Za-z0-9_-]+/)"', await response.text())[1]
                socket = await client.ws_connect(base + prefix + "ws", headers={"Cookie": f"{name}={value}",
                                                                       "Origin": f"http://127.0.0.1:{port}"})
                await asyncio.wait_for(socket.receive(), timeout=60)
                started = await asyncio.to_thread(wait_until, lambda: canvases(root), 30, what="the tab's canvas")
                assert started[0][-3:] == ["--follow", "--every", "0.5"], started
                await socket.close()

        asyncio.run(open_tab())
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=15)


@pytest.mark.parametrize("every", ["0", "-1", "nan"])
def test_a_bad_every_is_refused_with_its_fix(tmp_path, every):
    root = write_plan(tmp_path / "plan", NODES)
    res = subprocess.run([*CLI, "serve", "--port", "0", "--follow", "--every", every], cwd=root,
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 2, res
    assert "is not a number of seconds above 0" in res.stderr
    assert res.stderr.splitlines()[-1] == "Fix: leafwise serve --follow --every 10"
