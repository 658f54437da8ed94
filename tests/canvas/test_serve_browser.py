"""`leafwise serve --follow` in a real browser: Debian's chromium, driven by Playwright's sync API.

The person opens the printed link and the canvas paints in xterm.js under its secret path; a key moves
the selection; a second browser without the link, a reused link, and a page of another local port are
all refused, and that other port never receives the canvas's cookie (it is scoped to the secret path);
a task another clone claims on the shared remote appears in the open tab within a poll.

What the tab shows is read from the bytes the canvas sends it (an init script keeps a copy of each
websocket frame the page receives): xterm.js draws on a <canvas>, which holds no text to read.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from leafwise.commands.team import remote
from testkit import run_cli, wait_until
from testkit import gitserver

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium "
                                 "(apt-get install chromium; .ci/run installs it); Playwright's own browsers are "
                                 "never downloaded")]
BROWSER_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync"]
NODES = [{"id": "T-1", "title": "Alpha lighthouse task", "release": "R1", "status": "draft"},
         {"id": "T-2", "title": "Bravo harbour task", "release": "R1", "status": "draft"}]
TEAM_PROJECT = "settings:\n  team: {remote: origin}\n"
LINK = re.compile(r"Open: (http://127\.0\.0\.1:(\d+)/)\?token=([A-Za-z0-9_-]+)")
# The terminal's control sequences (CSI, OSC, charset and keypad selections), stripped to leave the text.
CONTROL = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78NOc]")
PAINT = 90.0  # seconds: the first paint takes about 5 s on an idle machine, far longer on a loaded one
# Keeps a copy of what every websocket of the page receives, as text, in window.__screen.
RECORDER = """
window.__screen = [];
const Native = window.WebSocket;
window.WebSocket = class extends Native {
  constructor(...args) {
    super(...args);
    const decoder = new TextDecoder();
    this.addEventListener("message", (event) => {
      if (event.data instanceof ArrayBuffer) window.__screen.push(decoder.decode(event.data, {stream: true}));
    });
  }
};
"""



def team_clones(tmp_path: Path) -> tuple[Path, Path]:
    return gitserver.joined_pair(tmp_path, NODES, TEAM_PROJECT)


class Served:
    def __init__(self, process: subprocess.Popen, base: str, port: int, token: str) -> None:
        self.process, self.base, self.port, self.token = process, base, port, token

    @property
    def link(self) -> str:
        return f"{self.base}?token={self.token}"

    def canvases(self) -> list[int]:
        found = subprocess.run(["pgrep", "-P", str(self.process.pid)], capture_output=True, text=True).stdout
        return [int(pid) for pid in found.split()]


@pytest.fixture
def served(tmp_path) -> Iterator[tuple[Served, Path]]:
    """`leafwise serve --follow` in the first clone; the second clone beside it."""
    first, second = team_clones(tmp_path)
    with (tmp_path / "serve.log").open("w") as log:
        process = subprocess.Popen([sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli", "serve", "--port", "0",
                                    "--follow"], cwd=first, stdout=subprocess.PIPE, stderr=log, text=True,
                                   env={**os.environ, "LEAFWISE_AGENT": ""})
    assert process.stdout is not None
    try:
        found = LINK.search(process.stdout.readline())
        assert found, (tmp_path / "serve.log").read_text()
        yield Served(process, found[1], int(found[2]), found[3]), second
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        process.stdout.close()


@pytest.fixture
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=BROWSER_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def other_port_page() -> Iterator[tuple[str, list[str]]]:
    """A page on another local port (same site as the canvas to a cookie, not the same origin) that
    tries to open the canvas's websocket: what a hostile local dev server could serve. It keeps the
    Cookie header of every request the browser sends it."""
    cookies: list[str] = []

    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            cookies.append(self.headers.get("Cookie") or "")
            body = b"<!doctype html><title>other</title>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", cookies
    finally:
        server.shutdown()
        server.server_close()


def stranger_status(browser, url: str, headers: dict[str, str]) -> int:
    """The status of a request from a context that holds no cookie, with `headers` given by hand."""
    context = browser.new_context()
    try:
        return context.request.get(url, headers=headers).status
    finally:
        context.close()


def screen_text(page, start: int = 0) -> str:
    """The text the canvas sent the tab since frame `start`, its control sequences stripped."""
    return CONTROL.sub("", page.evaluate("(start) => window.__screen.slice(start).join('')", start))


def frames(page) -> int:
    return page.evaluate("window.__screen.length")


def wait_for_text(page, pattern: str, start: int = 0, timeout: float = PAINT) -> None:
    wait_until(lambda: re.search(pattern, screen_text(page, start)), timeout, what=f"{pattern!r} in the tab",
               interval=0.2)


def test_the_canvas_in_a_browser(served, browser, other_port_page, tmp_path):
    server, second = served
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.add_init_script(RECORDER)
    page.goto(server.link)
    page.wait_for_url(re.compile(re.escape(server.base) + r"[A-Za-z0-9_-]{20,}/$"), timeout=30_000)  # the prefix
    assert "token" not in page.url
    canvas_url = page.url
    page.wait_for_selector(".xterm-screen canvas", state="attached", timeout=PAINT * 1000)
    page.wait_for_function("document.body.classList.contains('-first-byte')", timeout=PAINT * 1000)
    # The detail pane names the selected task: id, then title (a tree row has the title first).
    wait_for_text(page, r"T-1\s+Alpha lighthouse task")
    wait_until(lambda: len(server.canvases()) == 1, 30, what="one canvas for the one tab")
    before = page.screenshot(path=str(tmp_path / "before.png"))

    page.focus(".xterm-helper-textarea")  # the keyboard goes to the terminal, as after a click on it
    sent = frames(page)
    page.keyboard.press("j")
    wait_for_text(page, r"T-2\s+Bravo harbour task", start=sent, timeout=30)
    assert page.screenshot(path=str(tmp_path / "after.png")) != before

    # Nobody else gets in: another browser without the link, the link a second time.
    stranger = browser.new_context()
    assert stranger.new_page().goto(server.base).status == 403
    assert stranger.new_page().goto(server.link).status == 403
    stranger.close()
    # The person's own cookie with a foreign Origin: refused (a page of another local port is the same
    # "site" to a SameSite cookie, so the browser sends the cookie along; the Origin check refuses it).
    assert context.request.get(canvas_url + "ws", headers={"Origin": "http://evil.example"}).status == 403
    # The cookie as another local service could replay it, with a right Origin but not the path: refused.
    [cookie] = [c for c in context.cookies() if c["name"].startswith("leafwise_")]
    assert cookie["path"] != "/" and cookie["path"] in canvas_url and cookie["httpOnly"]
    stolen = {"Cookie": f"{cookie['name']}={cookie['value']}", "Origin": server.base.rstrip("/")}
    assert stranger_status(browser, server.base + "ws", stolen) == 403
    hostile = context.new_page()
    hostile_url, received = other_port_page
    hostile.goto(hostile_url)
    assert received and not any("leafwise_" in header for header in received), received
    outcome = hostile.evaluate("""(url) => new Promise((done) => {
        const socket = new WebSocket(url);
        socket.onopen = () => done("open");
        socket.onerror = () => done("refused");
    })""", f"ws://127.0.0.1:{server.port}/ws")
    assert outcome == "refused"
    assert len(server.canvases()) == 1  # no canvas started for the hostile page

    # An agent in another clone starts T-1 (a claim on the shared remote): the tab shows it within a poll (10 s).
    sent = frames(page)
    started = run_cli("start", "T-1", "--agent", "bob", cwd=second)
    assert started.code == 0, started
    wait_for_text(page, rf"⚑ bob@{re.escape(remote.clone_id(second, create=False))}", start=sent, timeout=60)
    page.screenshot(path=str(tmp_path / "claimed.png"))
    context.close()
