"""The guard in front of `leafwise serve`: who may open the page and its websocket.

A browser sends a cookie to every port of a host (cookies ignore ports), so a session cookie alone
would reach any other service on 127.0.0.1 the person's browser talks to, and that service could
replay it. The guard therefore holds two secrets, and every request needs both:

- the **path**: the page lives under a random prefix (`/<24 random bytes>/`); the browser learns it
  only from this server's answer to the one-time link, and sends it to no other server;
- the **cookie**: `HttpOnly; SameSite=Strict`, with `Path` set to that prefix, so the browser sends it
  only with requests for the prefix, which other ports never see.

Everything else: the one-time token in the printed link (good once, exchanged for the cookie and the
prefix), a loopback Host (a page that rebinds its own DNS name to 127.0.0.1 sends its own name), and
the websocket's one Origin must be the page's own (a second Origin header is refused: a proxy in
front may read the other one).
"""

from __future__ import annotations

import secrets
from typing import Awaitable, Callable

from aiohttp import web

LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "[::1]"})
TOKEN_PARAM = "token"
FORBIDDEN = ("Forbidden: open the link `leafwise serve` printed (its token is good once; "
             "restart leafwise serve for a new one).\n")
SECURITY_HEADERS = {"X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer", "Cache-Control": "no-store",
                    "X-Content-Type-Options": "nosniff"}
# After the token: a page that moves on to the prefix from this origin (a same-site navigation, so the
# SameSite=Strict cookie goes with it even when the link was opened from elsewhere).
ENTER_PAGE = ('<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url={prefix}">'
              '<title>Leafwise</title><script>location.replace("{prefix}")</script>'
              '<a href="{prefix}">Open the canvas</a>\n')

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class Guard:
    """The token, the path prefix, the session cookie and the checks every request passes."""

    def __init__(self, token: str | None = None) -> None:
        self.token: str | None = token or secrets.token_urlsafe(32)
        self.prefix = f"/{secrets.token_urlsafe(24)}/"
        self.session = secrets.token_urlsafe(32)
        # A name of its own keeps two servers on one host from overwriting each other's cookie.
        self.cookie = f"leafwise_{secrets.token_hex(4)}"

    def inside(self, path: str) -> bool:
        """Whether `path` lies under the prefix (compared in constant time: it is a secret)."""
        return same(path[:len(self.prefix)], self.prefix)

    def entered(self, request: web.Request) -> bool:
        return self.inside(request.path) and same(request.cookies.get(self.cookie, ""), self.session)

    def exchange(self, offered: str) -> web.Response:
        """The token's one use: the session cookie for the prefix, and the page that moves on to it."""
        token, self.token = self.token, None
        if token is None or not same(offered, token):
            self.token = token  # a wrong guess does not burn the real token
            raise web.HTTPForbidden(text=FORBIDDEN)
        response = web.Response(text=ENTER_PAGE.format(prefix=self.prefix), content_type="text/html")
        response.set_cookie(self.cookie, self.session, httponly=True, samesite="Strict", path=self.prefix)
        return response

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if host_name(request.host) not in LOOPBACK_NAMES:
            raise web.HTTPForbidden(text=f"Forbidden: {request.host!r} is not this machine's loopback name.\n")
        if request.path == "/" and TOKEN_PARAM in request.query:
            response: web.StreamResponse = self.exchange(request.query[TOKEN_PARAM])
        elif not self.entered(request):
            raise web.HTTPForbidden(text=FORBIDDEN)
        elif request.path == self.prefix + "ws" and request.headers.getall("Origin", []) != [f"http://{request.host}"]:
            raise web.HTTPForbidden(text="Forbidden: the websocket's Origin is not this page's.\n")
        else:
            response = await handler(request)
        if not response.prepared:  # a websocket or a download has sent its headers already
            response.headers.update(SECURITY_HEADERS)
        return response


def same(offered: str, secret: str) -> bool:
    """A constant-time compare that also takes what a client made up (any characters)."""
    return secrets.compare_digest(offered.encode("utf-8", "surrogatepass"), secret.encode())


def host_name(host: str) -> str:
    """The name of a Host header without its port ('[::1]:8000' → '[::1]')."""
    if host.startswith("["):
        return host.split("]", 1)[0] + "]"
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host
