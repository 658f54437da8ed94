"""`leafwise serve`: the canvas in a browser through textual-serve, for the person who owns this machine only.

textual-serve starts one canvas process per browser tab and has no authentication and no Origin
check (any page the person visits could drive the canvas as them). In front of it:

- it listens on 127.0.0.1 only; `serve_guard.Guard` checks every request (a loopback Host, the
  one-time link, then a secret path prefix and a cookie scoped to it, the websocket's Origin);
- at most `max_tabs` tabs at once (each is a canvas process of ~45 MB): one more is refused with a
  page naming the cap and `--max-tabs`;
- what a tab sends is bounded (`serve_input`: message size, events per message and per second);
- the page's URLs are relative, so `ssh -L 9000:127.0.0.1:8000 host` serves it on localhost:9000;
- the page says whose checkout it shows and how far behind its upstream it is (`serve_page`).

Built from textual-serve's public parts (its `AppService`, static folder) on an aiohttp app of our
own, so the guard is a middleware in front of every route.
"""

from __future__ import annotations

import asyncio
import math
import shlex
import signal
import sys
from functools import partial
from pathlib import Path
from typing import Any, Awaitable, Callable

from aiohttp import web
from leafwise.canvas.serve_guard import TOKEN_PARAM, Guard
from leafwise.canvas.serve_input import MAX_MESSAGE, cells, relay
from leafwise.canvas.serve_page import checkout_note, full_page, page
from leafwise.commands.contract import EXIT_USAGE
from leafwise.store import PlanNotFound, find_root
from leafwise.store.paths import PlanUnsafe
from textual_serve.app_service import AppService
from textual_serve.server import Server

HOST = "127.0.0.1"
QUIT_WAIT = 10.0  # seconds the server waits for its tabs' canvases to quit when it stops
CLI_MODULE = "leafwise.commands.surfaces.cli"  # the canvas each tab drives: the CLI's own, in this interpreter
MAX_TABS = 4  # tabs open at once; each runs a canvas process (~45 MB)
HEADER_SECONDS = 10.0  # an idle connection, or one that has not finished a request's headers, is closed then


def canvas_command(repo: Path, *, follow: bool, every: float | None = None) -> str:
    """The shell command textual-serve runs per tab: `leafwise canvas --root REPO [--follow] [--every S]`."""
    words = [sys.executable, "-P", "-m", CLI_MODULE, "canvas", "--root", str(repo)]
    if follow:
        words.append("--follow")
    if every is not None:
        words += ["--every", str(every)]
    return "exec " + shlex.join(words)  # exec: the canvas is the tab's process, not a shell around it


async def quietly(send: Callable[[Any], Awaitable[None]], data: Any) -> None:
    """Write to a tab, or drop the write when the tab is gone (its canvas is quitting)."""
    try:
        await send(data)
    except ConnectionError:
        pass


class CanvasServer(Server):
    """textual-serve's server for one plan: our page, at most `max_tabs` tabs, bounded input."""

    def __init__(self, repo: Path, *, follow: bool = False, every: float | None = None, max_tabs: int = MAX_TABS,
                 **options: Any) -> None:
        options.setdefault("title", f"Leafwise · {repo.name}")
        super().__init__(canvas_command(repo, follow=follow, every=every), host=HOST, port=0, **options)
        self.repo, self.follow, self.max_tabs = repo, follow, max_tabs
        self.tabs: set[AppService] = set()  # one canvas process per open tab
        self.open = 0  # tabs counted from their first request on, before any await: the cap holds under a rush

    async def handle_index(self, request: web.Request) -> web.Response:
        if self.open >= self.max_tabs:
            return web.Response(text=full_page(self.open), content_type="text/html", status=503)
        text = await asyncio.to_thread(page, self.title, self.repo, self.follow)
        return web.Response(text=text, content_type="text/html")

    async def handle_checkout(self, request: web.Request) -> web.Response:
        text, behind = await asyncio.to_thread(checkout_note, self.repo, self.follow)
        return web.json_response({"text": text, "behind": behind})

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """One tab: its own canvas process, fed the tab's keys and sizes, painting into the tab.

        textual-serve's own handler ends as soon as a write to a closed tab fails, while its canvas may
        still be starting: that canvas would outlive the server. Here writes to a gone tab are dropped
        and `stop()` waits for the canvas to quit.
        """
        if self.open >= self.max_tabs:
            raise web.HTTPServiceUnavailable(text=f"Refused: {self.open} tabs are open, the most this server "
                                             f"allows; close one, or restart with leafwise serve --max-tabs "
                                             f"{self.open * 2}.\n")
        self.open += 1
        try:
            websocket = web.WebSocketResponse(heartbeat=15, max_msg_size=MAX_MESSAGE)
            await websocket.prepare(request)
            service = AppService(self.command, write_bytes=partial(quietly, websocket.send_bytes),
                                 write_str=partial(quietly, websocket.send_str), close=websocket.close,
                                 download_manager=self.download_manager, debug=self.debug)
            self.tabs.add(service)
            try:
                await service.start(cells(request.query.get("width"), 80), cells(request.query.get("height"), 24))
                await relay(websocket, service)
            finally:
                await service.stop()
                self.tabs.discard(service)
                await websocket.close()
        finally:
            self.open -= 1
        return websocket

    async def on_shutdown(self, app: web.Application) -> None:
        """Tell every tab's canvas to quit and wait for them (bounded: a canvas that hangs is left to
        aiohttp's own shutdown)."""
        if self.tabs:
            await asyncio.wait([asyncio.ensure_future(s.stop()) for s in list(self.tabs)], timeout=QUIT_WAIT)

    def make_app(self, guard: Guard) -> web.Application:
        """The page, its note, the websocket and textual-serve's static files, under the guard's prefix
        (no download route: the canvas delivers no files)."""
        app = web.Application(middlewares=[guard.middleware])
        app.add_routes([
            web.get(guard.prefix, self.handle_index),
            web.get(guard.prefix + "checkout", self.handle_checkout),
            web.get(guard.prefix + "ws", self.handle_websocket),
            web.static(guard.prefix + "static", self.statics_path),  # no directory listing
        ])
        app.on_shutdown.append(self.on_shutdown)
        return app


async def start(server: CanvasServer, guard: Guard, port: int) -> tuple[web.AppRunner, int]:
    """Listen on 127.0.0.1:port (0: a free port); the runner and the port it got."""
    # aiohttp arms its keep-alive timer when a connection opens and closes the connection when it fires
    # while no request is in hand (a request line and headers not finished, or idle between requests);
    # its default is 3,630 s, so any local process could hold a descriptor per connection for an hour by
    # sending nothing or half a request. A running request (a tab's websocket) is never cut by it.
    runner = web.AppRunner(server.make_app(guard), shutdown_timeout=5.0, keepalive_timeout=HEADER_SECONDS)
    await runner.setup()
    try:
        await web.TCPSite(runner, HOST, port).start()
    except OSError:
        await runner.cleanup()
        raise
    return runner, runner.addresses[0][1]


async def serve_until_stopped(server: CanvasServer, guard: Guard, port: int) -> None:
    runner, bound = await start(server, guard, port)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    print(f"Serving the canvas on http://{HOST}:{bound}/ (this machine only; once per link)", file=sys.stderr)
    print(f"Open: http://{HOST}:{bound}/?{TOKEN_PARAM}={guard.token}", flush=True)
    print(f"At most {server.max_tabs} tabs at once (--max-tabs).", file=sys.stderr)
    print(f"From another machine: ssh -L {bound}:{HOST}:{bound} THIS-HOST, then open the link there. "
          "Ctrl+C stops.", file=sys.stderr, flush=True)
    try:
        await stop.wait()
    finally:
        await runner.cleanup()  # closes the websockets: each tab's canvas is told to quit


def run_serve(root: str | None, *, port: int, follow: bool, every: float | None = None,
              max_tabs: int = MAX_TABS) -> int:
    """Serve the canvas of the plan at `root` (or found from here) on 127.0.0.1:port until Ctrl+C; each
    tab's canvas polls the team's remote every `every` seconds (with `follow`), as `canvas --every`; at
    most `max_tabs` tabs at once."""
    if every is not None and not (every > 0 and math.isfinite(every)):
        print(f"Error: --every {every:g} is not a number of seconds above 0", file=sys.stderr)
        print("Fix: leafwise serve --follow --every 10", file=sys.stderr)
        return EXIT_USAGE
    try:
        paths = find_root(None, root)
    except (PlanUnsafe, PlanNotFound) as exc:
        from leafwise.canvas.launch import refused

        return refused(exc)
    if not 0 <= port <= 65535:
        print(f"Error: --port {port} is not a port (0-65535)", file=sys.stderr)
        print("Fix: leafwise serve --port 8000", file=sys.stderr)
        return EXIT_USAGE
    if max_tabs < 1:
        print(f"Error: --max-tabs {max_tabs} is not a number of tabs (1 or more)", file=sys.stderr)
        print(f"Fix: leafwise serve --max-tabs {MAX_TABS}", file=sys.stderr)
        return EXIT_USAGE
    repo = paths.repo.resolve()
    server = CanvasServer(repo, follow=follow, every=every, max_tabs=max_tabs)
    try:
        asyncio.run(serve_until_stopped(server, Guard(), port))
    except OSError as exc:  # the port is taken, or not ours to bind
        print(f"Error: cannot listen on {HOST}:{port}: {exc.strerror or exc}", file=sys.stderr)
        print("Fix: leafwise serve --port 0", file=sys.stderr)
        print("(--port 0 takes any free port; the link printed names it)", file=sys.stderr)
        return EXIT_USAGE
    return 0
