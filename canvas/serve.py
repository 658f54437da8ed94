"""`leafwise serve`: the canvas in a browser through textual-serve, for the person who owns this machine only.

textual-serve starts one canvas process per browser tab and has no authentication and no Origin
check (any page the person visits could drive the canvas as them). The guard in front of it:

- it listens on 127.0.0.1 only, and answers only requests whose Host is a loopback name (a page
  that rebinds its own DNS name to 127.0.0.1 sends its own name);
- the one URL it prints carries a random one-time token; that request gets an HttpOnly,
  SameSite=Strict cookie holding a separate session secret and moves on to the token-free page;
  every other request without the cookie is 403, static files and the websocket included;
- the websocket's Origin must be this page's own origin (another local port is the same "site"
  to the cookie, not the same origin);
- the page's URLs are relative, so `ssh -L 9000:127.0.0.1:8000 host` serves it on localhost:9000.

Built from textual-serve's public parts (its `Server` handlers, template and static folders) on an
aiohttp app of our own, so the guard is a middleware in front of every route.
"""

from __future__ import annotations

import asyncio
import math
import secrets
import shlex
import signal
import sys
from functools import partial
from pathlib import Path
from typing import Any, Awaitable, Callable

import aiohttp_jinja2
import jinja2
from aiohttp import WSMsgType, web
from leafwise.commands.contract import EXIT_USAGE
from leafwise.store import PlanNotFound, find_root, reader
from leafwise.store.paths import PlanUnsafe
from textual_serve.app_service import AppService
from textual_serve.server import Server

HOST = "127.0.0.1"
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "[::1]"})
TOKEN_PARAM = "token"
MAX_CELLS = 1000  # columns or rows a tab may ask for
TAB_MESSAGE = reader.Kind("browser tab message", reader.MiB, 4)  # a key press, a paste, a resize
QUIT_WAIT = 10.0  # seconds the server waits for its tabs' canvases to quit when it stops
CLI_MODULE = "leafwise.commands.surfaces.cli"  # the canvas each tab drives: the CLI's own, in this interpreter
FORBIDDEN = ("Forbidden: open the link `leafwise serve` printed (its token is good once; "
             "restart leafwise serve for a new one).\n")
SECURITY_HEADERS = {"X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer", "Cache-Control": "no-store",
                    "X-Content-Type-Options": "nosniff"}
# After the token: a page that moves on to the token-free URL from this origin (a same-site
# navigation, so the SameSite=Strict cookie goes with it even when the link was opened from elsewhere).
ENTER_PAGE = ('<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=./">'
              '<title>Leafwise</title><script>location.replace("./")</script>'
              '<a href="./">Open the canvas</a>\n')

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def canvas_command(repo: Path, *, follow: bool, every: float | None = None) -> str:
    """The shell command textual-serve runs per tab: `leafwise canvas --root REPO [--follow] [--every S]`."""
    words = [sys.executable, "-m", CLI_MODULE, "canvas", "--root", str(repo)]
    if follow:
        words.append("--follow")
    if every is not None:
        words += ["--every", str(every)]
    return "exec " + shlex.join(words)  # exec: the canvas is the tab's process, not a shell around it


class Guard:
    """The token, the session cookie and the checks every request passes."""

    def __init__(self, token: str | None = None) -> None:
        self.token: str | None = token or secrets.token_urlsafe(32)
        self.session = secrets.token_urlsafe(32)
        # Cookies ignore ports: a name of its own keeps two servers on one host from overwriting each other.
        self.cookie = f"leafwise_{secrets.token_hex(4)}"

    def entered(self, request: web.Request) -> bool:
        return same(request.cookies.get(self.cookie, ""), self.session)

    def exchange(self, offered: str) -> web.Response:
        """The token's one use: the session cookie, and the page that moves on without the token."""
        token, self.token = self.token, None
        if token is None or not same(offered, token):
            self.token = token  # a wrong guess does not burn the real token
            raise web.HTTPForbidden(text=FORBIDDEN)
        response = enter_page()
        response.set_cookie(self.cookie, self.session, httponly=True, samesite="Strict", path="/")
        return response

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if host_name(request.host) not in LOOPBACK_NAMES:
            raise web.HTTPForbidden(text=f"Forbidden: {request.host!r} is not this machine's loopback name.\n")
        entered = self.entered(request)
        if request.path == "/" and TOKEN_PARAM in request.query:  # the link again, in a tab already in: on in
            response: web.StreamResponse = enter_page() if entered else self.exchange(request.query[TOKEN_PARAM])
        elif not entered:
            raise web.HTTPForbidden(text=FORBIDDEN)
        elif request.path == "/ws" and request.headers.get("Origin") != f"http://{request.host}":
            raise web.HTTPForbidden(text="Forbidden: the websocket's Origin is not this page's.\n")
        else:
            response = await handler(request)
        if not response.prepared:  # a websocket or a download has sent its headers already
            response.headers.update(SECURITY_HEADERS)
        return response


def enter_page() -> web.Response:
    return web.Response(text=ENTER_PAGE, content_type="text/html")


def same(offered: str, secret: str) -> bool:
    """A constant-time compare that also takes what a client made up (any characters)."""
    return secrets.compare_digest(offered.encode("utf-8", "surrogatepass"), secret.encode())


async def quietly(send: Callable[[Any], Awaitable[None]], data: Any) -> None:
    """Write to a tab, or drop the write when the tab is gone (its canvas is quitting)."""
    try:
        await send(data)
    except ConnectionError:
        pass


def size(request: web.Request, name: str, default: int) -> int:
    """The terminal size textual.js asks for (`?width=&height=`), within what a screen can be."""
    try:
        return min(MAX_CELLS, max(1, int(request.query.get(name, default))))
    except ValueError:
        return default


async def relay(websocket: web.WebSocketResponse, service: AppService) -> None:
    """The tab's messages to its canvas (textual.js's envelopes: ["stdin", text], ["resize", {width,
    height}], ["ping", x], ["blur"], ["focus"]); anything else is ignored."""
    async for message in websocket:
        if message.type != WSMsgType.TEXT:
            continue
        try:  # a tab's message is untrusted input: bounded size and depth, as every read
            envelope = reader.load_json(message.data, TAB_MESSAGE)
        except ValueError:
            continue
        if not isinstance(envelope, list) or not envelope:
            continue
        kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
        if kind == "stdin" and isinstance(data, str):
            await service.send_bytes(data.encode("utf-8"))
        elif kind == "resize" and isinstance(data, dict):
            width, height = data.get("width"), data.get("height")
            if isinstance(width, int) and isinstance(height, int):
                await service.set_terminal_size(min(MAX_CELLS, max(1, width)), min(MAX_CELLS, max(1, height)))
        elif kind == "ping":
            await websocket.send_json(["pong", data])
        elif kind == "blur":
            await service.blur()
        elif kind == "focus":
            await service.focus()


def host_name(host: str) -> str:
    """The name of a Host header without its port ('[::1]:8000' → '[::1]')."""
    if host.startswith("["):
        return host.split("]", 1)[0] + "]"
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


class CanvasServer(Server):
    """textual-serve's server with relative page URLs (they work behind `ssh -L` on any local port)."""

    def __init__(self, command: str, **options: Any) -> None:
        super().__init__(command, **options)
        self.tabs: set[AppService] = set()  # one canvas process per open tab

    @aiohttp_jinja2.template("app_index.html")
    async def handle_index(self, request: web.Request) -> dict[str, Any]:
        # Relative to "/": the browser resolves them against whatever host:port it used.
        # (A relative websocket URL needs a 2024 browser: Chrome 125, Firefox 124, Safari 17.3.)
        return {"font_size": 16, "app_websocket_url": "ws", "config": {"static": {"url": "static/"}},
                "application": {"name": self.title}}

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """One tab: its own canvas process, fed the tab's keys and sizes, painting into the tab.

        textual-serve's own handler ends as soon as a write to a closed tab fails, while its canvas may
        still be starting: that canvas would outlive the server. Here writes to a gone tab are dropped
        and `stop()` waits for the canvas to quit.
        """
        websocket = web.WebSocketResponse(heartbeat=15)
        await websocket.prepare(request)
        service = AppService(self.command, write_bytes=partial(quietly, websocket.send_bytes),
                             write_str=partial(quietly, websocket.send_str), close=websocket.close,
                             download_manager=self.download_manager, debug=self.debug)
        self.tabs.add(service)
        try:
            await service.start(size(request, "width", 80), size(request, "height", 24))
            await relay(websocket, service)
        finally:
            await service.stop()
            self.tabs.discard(service)
            await websocket.close()
        return websocket

    async def on_shutdown(self, app: web.Application) -> None:
        """Tell every tab's canvas to quit and wait for them (bounded: a canvas that hangs is left to
        aiohttp's own shutdown)."""
        if self.tabs:
            await asyncio.wait([asyncio.ensure_future(s.stop()) for s in list(self.tabs)], timeout=QUIT_WAIT)

    async def on_startup(self, app: web.Application) -> None:
        """Quiet: `run_serve` prints the one line a person needs (textual-serve's banner names no token)."""

    def make_app(self, guard: Guard) -> web.Application:
        """textual-serve's routes behind the guard."""
        app = web.Application(middlewares=[guard.middleware])
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path))
        app.add_routes([
            web.get("/", self.handle_index, name="index"),
            web.get("/ws", self.handle_websocket, name="websocket"),
            web.get("/download/{key}", self.handle_download, name="download"),
            web.static("/static", self.statics_path, name="static"),  # no directory listing
        ])
        app.on_shutdown.append(self.on_shutdown)
        return app


async def start(server: CanvasServer, guard: Guard, port: int) -> tuple[web.AppRunner, int]:
    """Listen on 127.0.0.1:port (0: a free port); the runner and the port it got."""
    runner = web.AppRunner(server.make_app(guard), shutdown_timeout=5.0)
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
    print(f"From another machine: ssh -L {bound}:{HOST}:{bound} THIS-HOST, then open the link there. "
          "Ctrl+C stops.", file=sys.stderr, flush=True)
    try:
        await stop.wait()
    finally:
        await runner.cleanup()  # closes the websockets: each tab's canvas is told to quit


def run_serve(root: str | None, *, port: int, follow: bool, every: float | None = None) -> int:
    """Serve the canvas of the plan at `root` (or found from here) on 127.0.0.1:port until Ctrl+C; each
    tab's canvas polls the team's remote every `every` seconds (with `follow`), as `canvas --every`."""
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
    repo = paths.repo.resolve()
    server = CanvasServer(canvas_command(repo, follow=follow, every=every), host=HOST, port=port, title=f"Leafwise · {repo.name}")
    try:
        asyncio.run(serve_until_stopped(server, Guard(), port))
    except OSError as exc:  # the port is taken, or not ours to bind
        print(f"Error: cannot listen on {HOST}:{port}: {exc.strerror or exc}", file=sys.stderr)
        print("Fix: leafwise serve --port 0", file=sys.stderr)
        print("(--port 0 takes any free port; the link printed names it)", file=sys.stderr)
        return EXIT_USAGE
    return 0
