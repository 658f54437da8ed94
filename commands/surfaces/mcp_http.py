"""`leafwise mcp --http [HOST:PORT]`: the stdio MCP server, served over the SDK's streamable HTTP.

For MCP clients that can only be given a URL. The server is `mcp_server.build_server`, the very one
stdio serves; this module adds only what a listening socket needs (docs/mcp.md, "Over HTTP"):

- a bearer token, checked before anything else on every request (401 otherwise). It lives in a 0600
  file in the person's config folder (`store.config_dirs`), made on first use; it is never printed,
  so it never lands in a terminal's scrollback or a supervisor's log: the banner names the file;
- DNS-rebinding protection by the SDK's `TransportSecuritySettings`, given exact values only: the Host
  header must be a loopback name or an `--allow-host` name with the served port (421), a browser's
  Origin the same origin (403); an `--allow-host` name also without a port (a proxy in front);
- at most `--max-sessions` stateful sessions at once (503 naming the cap): each one the SDK keeps holds
  memory for 30 idle minutes, so a client opening sessions in a loop would grow the server without bound;
- a loopback bind by default; any other bind needs `--allow-host NAME` (exit 2 with a Fix), the name
  clients put in their URL, since the Host check needs it.

One `Session` serves every client, as one serves every call on stdio: it holds the plan's paths and a
warm copy of the plan, never who calls (`Ctx.caller` is set per call from the call's own `agent`).
The one name that would reach every client is the server's own `LEAFWISE_AGENT`, so it is dropped.

Sessions are the SDK's stateful ones for clients of the 2025 protocol (their `notifications/cancelled`
must reach a running `start_task(wait)`, which `build_server` then ends claiming nothing); a
2026-07-28 client is sessionless on this transport whatever the setting, and cancels by closing its
stream.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import logging
import os
import secrets
import signal
import socket
import stat
import sys
from pathlib import Path
from typing import Any

from leafwise.commands.contract import (EXIT_FAILURE, EXIT_NOT_FOUND, EXIT_USAGE, CommandError, envelope, fix,
                                        render_text)
from leafwise.store import PlanNotFound, find_root

DEFAULT_PORT = 8765
PATH = "/mcp"
TOKEN_FILE = "mcp-http.token"
TOKEN_BYTES = 32  # secrets.token_urlsafe(32): 43 characters, 256 bits
MIN_TOKEN = 32  # a token a person wrote in the file must be at least this long
TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~+/=-")  # RFC 6750 b64token
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
COMMAND = "mcp --http"
NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789.-_")
DEFAULT_MAX_SESSIONS = 64  # about 40 KB each (measured): a few agents, and their reconnections
MOST_SESSIONS = 10_000


class Refused(Exception):
    """The server cannot start: `error` says why and what to run instead."""

    def __init__(self, error: CommandError):
        super().__init__(error.message)
        self.error = error


def _refusal(code: str, message: str, command: str, why: str, exit_code: int = EXIT_USAGE,
             source: tuple[str, str | None] = ("command", COMMAND)) -> Refused:
    return Refused(CommandError(code, message, fix(command, why), exit_code=exit_code, category="refused",
                                source=source))


# --- where to listen ---------------------------------------------------------------------------

def parse_where(where: str) -> tuple[str, int]:
    """(host, port) of `HOST:PORT`, `[V6]:PORT` or `PORT` (on 127.0.0.1); port 0 takes a free one."""
    text = where.strip()
    host, sep, port_text = text.rpartition(":")
    if not sep:
        host, port_text = "127.0.0.1", text
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not port_text.isdigit() or int(port_text) > 65535 or not host or ":" in host and "[" not in text:
        raise _refusal("bad_address", f"--http {where!r} is not HOST:PORT",
                       f"leafwise mcp --http 127.0.0.1:{DEFAULT_PORT}", "a host (or [IPv6]) and a port")
    return host, int(port_text)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a name: it may resolve anywhere


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def host_name(name: str) -> bool:
    """A bare host name or IP literal, as a URL's host (no scheme, port, path or wildcard)."""
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        return bool(name) and set(name.lower()) <= NAME_CHARS and name[0] not in ".-" and ".." not in name


def split_allowed(entry: str) -> tuple[str, int | None] | None:
    """(name, port or None) of an `--allow-host` value: `NAME`, `NAME:PORT`, `IPV6` or `[IPV6]:PORT`
    (a port: the one clients use when it differs from the served one, as through `ssh -L 9000:…`);
    None when it is not one."""
    name, port_text = entry, ""
    if entry.startswith("["):
        name, _, rest = entry[1:].partition("]")
        if rest and not rest.startswith(":"):
            return None
        port_text = rest[1:] if rest else ""
        if rest and not port_text:
            return None
    elif entry.count(":") == 1:
        name, _, port_text = entry.partition(":")
        if not port_text:
            return None
    if port_text and not (port_text.isdigit() and 1 <= int(port_text) <= 65535 and port_text[0] != "0"):
        return None
    return (name, int(port_text) if port_text else None) if host_name(name) else None


def check_bind(host: str, port: int, allow_hosts: tuple[str, ...]) -> None:
    """Refuse a bind beyond loopback that names no host: the Host check would refuse every client,
    and a server on every interface should be a decision, spelled out."""
    for name in allow_hosts:
        if split_allowed(name) is None:
            raise _refusal("bad_allow_host", f"--allow-host {name!r} is not a host name",
                           f"leafwise mcp --http {_url_host(host)}:{port} --allow-host <name>",
                           "the name (or IP) clients put in the URL, with its port when it differs; "
                           "without a scheme, path or wildcard")
    if is_loopback(host) or allow_hosts:
        return
    raise _refusal("not_loopback", f"--http {_url_host(host)}:{port} listens beyond this machine, and no "
                   "--allow-host names the host clients will use",
                   f"leafwise mcp --http {_url_host(host)}:{port} --allow-host <name>",
                   "name the host in the clients' URL; or keep 127.0.0.1 and reach it through ssh -L")


def security_settings(allow_hosts: tuple[str, ...], port: int) -> Any:
    """The SDK's DNS-rebinding check, with exact values only (its `name:*` patterns take any port, and
    any text after the colon: `localhost:evil`). Host: a loopback name or an allowed one with `port`, an
    allowed one also bare (a proxy on its scheme's port), an allowed `NAME:PORT` as written; a browser's
    Origin: `http://` + one of those, or `https://` + a bare allowed name (no Origin: not a browser)."""
    from mcp.server.transport_security import TransportSecuritySettings

    entries = [found for found in map(split_allowed, allow_hosts) if found is not None]
    bare = [_url_host(n.lower()) for n, p in entries if p is None]  # clients send Host lowercased
    hosts = [f"{n}:{port}" for n in (*LOOPBACK_HOSTS, *bare)] + bare
    hosts += [f"{_url_host(n.lower())}:{p}" for n, p in entries if p is not None]
    if port == 80:
        hosts += list(LOOPBACK_HOSTS)
    origins = [f"http://{h}" for h in hosts] + [f"https://{n}" for n in bare]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts,
                                     allowed_origins=origins)


def check_sessions(max_sessions: int) -> None:
    if not 1 <= max_sessions <= MOST_SESSIONS:
        raise _refusal("bad_max_sessions", f"--max-sessions {max_sessions} is not between 1 and {MOST_SESSIONS}",
                       f"leafwise mcp --http --max-sessions {DEFAULT_MAX_SESSIONS}",
                       "the sessions open at once (each MCP client holds one)")


def bind(host: str, port: int) -> socket.socket:
    """The listening socket, bound here so a busy port is our clear error and port 0 is a real one."""
    address = "127.0.0.1" if host == "localhost" else host
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((address, port))
    except OSError as exc:
        sock.close()
        raise _refusal("cannot_bind", f"cannot listen on {_url_host(host)}:{port}: {exc.strerror or exc}",
                       f"leafwise mcp --http {_url_host(host)}:0", "another port (0: any free one)",
                       exit_code=EXIT_FAILURE) from exc
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


# --- the token ---------------------------------------------------------------------------------

def token_path() -> Path:
    from leafwise.store.config_dirs import config_dir

    return config_dir() / TOKEN_FILE


def _check_private(path: Path) -> None:
    info = os.lstat(path)
    if not stat.S_ISREG(info.st_mode):
        raise _refusal("token_file", f"{path} is not a regular file", f"rm {path}",
                       "a new token file is made on the next start", exit_code=EXIT_FAILURE,
                       source=("file", str(path)))
    if info.st_mode & 0o077 or (hasattr(os, "getuid") and info.st_uid != os.getuid()):
        raise _refusal("token_file", f"{path} can be read by others (mode {stat.S_IMODE(info.st_mode):04o})",
                       f"chmod 600 {path}", "only you may read the token (or rm it: a new one is made)",
                       exit_code=EXIT_FAILURE, source=("file", str(path)))


def load_token() -> tuple[str, Path, bool]:
    """(the token, its file, whether it was made now). Made on first use: 0600 in a 0700 folder,
    create-only, so two servers starting at once share one."""
    from leafwise.store import atomic, reader
    from leafwise.store.config_dirs import inside_a_plan

    path = token_path()
    if inside_a_plan(path.parent):  # a repository could ship the token its author then knows
        raise _refusal("token_file", f"{path.parent} lies inside a plan's repository",
                       "export LEAFWISE_CONFIG_DIR=<a folder outside every repository>",
                       "keep the token in a folder outside every repository", exit_code=EXIT_FAILURE,
                       source=("file", str(path)))
    made = False
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        try:
            atomic.create(path, (secrets.token_urlsafe(TOKEN_BYTES) + "\n").encode(), mode=0o600)
            made = True
        except atomic.Exists:
            pass  # another server made it first: use theirs
    _check_private(path)
    token = reader.read_capped(path, reader.POINTER).decode("ascii", "replace").strip()
    if len(token) < MIN_TOKEN or not set(token) <= TOKEN_CHARS:
        raise _refusal("token_file", f"{path} holds no usable token (at least {MIN_TOKEN} characters of "
                       "A-Z a-z 0-9 . _ ~ + / = -)", f"rm {path}", "a new token file is made on the next start",
                       exit_code=EXIT_FAILURE, source=("file", str(path)))
    return token, path, made


class BearerGate:
    """ASGI middleware: every HTTP request carries exactly one `Authorization: Bearer <token>`, compared
    in constant time, or it is answered 401 before any route, Host check or MCP parsing sees it."""

    def __init__(self, app: Any, token: str):
        self.app = app
        self.expected = token.encode("ascii")

    def allowed(self, headers: list[tuple[bytes, bytes]]) -> bool:
        given = [value for key, value in headers if key.lower() == b"authorization"]
        if len(given) != 1:
            return False
        scheme, _, credentials = given[0].strip().partition(b" ")
        return scheme.lower() == b"bearer" and hmac.compare_digest(credentials.strip(), self.expected)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or self.allowed(scope.get("headers", [])):
            await self.app(scope, receive, send)  # the lifespan, and every request with the token
            return
        body = b'{"error": "invalid_token", "error_description": "Authorization: Bearer <token> required"}'
        await send({"type": "http.response.start", "status": 401, "headers": [
            (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
            (b"www-authenticate", b'Bearer realm="leafwise", error="invalid_token"')]})
        await send({"type": "http.response.body", "body": body})


class SessionCap:
    """ASGI middleware: the SDK's refusal of a new session at its cap (503) says the cap and its option,
    with a Retry-After; every other answer passes as it is."""

    def __init__(self, app: Any, cap: int):
        self.app = app
        self.cap = cap

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        opening = scope["type"] == "http" and not any(k.lower() == b"mcp-session-id" for k, _ in scope["headers"])
        if not opening:
            await self.app(scope, receive, send)
            return
        refused = False

        async def answer(message: Any) -> None:
            nonlocal refused
            if message["type"] == "http.response.start" and message["status"] == 503:
                refused = True
                return
            if refused:  # the SDK's body, replaced once it has been given
                if not message.get("more_body"):
                    await self._refuse(send)
                return
            await send(message)

        await self.app(scope, receive, answer)

    async def _refuse(self, send: Any) -> None:
        body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32000, "message": (
            f"too many open sessions: at most {self.cap} at once (leafwise mcp --http --max-sessions "
            f"{self.cap}); close one (DELETE /mcp with its mcp-session-id), or wait: an idle one ends after "
            "30 minutes")}}).encode()
        await send({"type": "http.response.start", "status": 503, "headers": [
            (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
            (b"retry-after", b"60")]})
        await send({"type": "http.response.body", "body": body})


# --- the server --------------------------------------------------------------------------------

def build_app(root: str | None, token: str, port: int, allow_hosts: tuple[str, ...] = (), cwd: Path | None = None,
              max_sessions: int = DEFAULT_MAX_SESSIONS) -> Any:
    """The ASGI app: `build_server`'s server on the SDK's streamable-HTTP transport at /mcp, behind the
    token, for clients reaching `port`. `host` is given as loopback so the SDK adds nothing of its own:
    our settings are explicit."""
    from leafwise.commands.surfaces.mcp_server import build_server

    server = build_server(root, cwd)
    app = server.streamable_http_app(streamable_http_path=PATH, host="127.0.0.1", max_sessions=max_sessions,
                                     transport_security=security_settings(allow_hosts, port))
    return BearerGate(SessionCap(app, max_sessions), token)


def _banner(url: str, plan: Path, token_file: Path, made: bool, host: str) -> list[str]:
    lines = [f"Leafwise MCP over HTTP: {url} (plan {plan})",
             f"Token: {token_file} ({'made now, ' if made else ''}0600; never printed; rm it and restart "
             "for a new one)",
             f"A client sends: Authorization: Bearer $(cat {token_file})",
             f'  e.g. claude mcp add --transport http leafwise {url} --header "Authorization: Bearer '
             f'$(cat {token_file})"']
    if not is_loopback(host):
        lines.append("Plain HTTP beyond this machine: the token crosses the network in clear; prefer "
                     "127.0.0.1 and ssh -L, or a TLS proxy in front.")
    return lines


HEADER_SECONDS = 10.0  # a connection that has not finished a request's headers by then is closed


def _header_deadline_protocol() -> type:
    """uvicorn's h11 protocol, with a deadline on a new connection's first request line and headers.

    uvicorn starts no timer before a request (its keep-alive timer runs only between requests), so
    any local process could hold a descriptor per connection by never finishing its headers; here
    such a connection is closed after HEADER_SECONDS. A request in progress (an MCP wait streaming
    its answer) is never cut: the deadline looks only at whether a request has begun."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class HeaderDeadline(H11Protocol):
        def connection_made(self, transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self.header_deadline = self.loop.call_later(HEADER_SECONDS, self.headers_overdue)

        def headers_overdue(self) -> None:
            if self.cycle is None and not self.transport.is_closing():
                self.transport.close()

        def connection_lost(self, exc: Exception | None) -> None:
            self.header_deadline.cancel()
            super().connection_lost(exc)

    return HeaderDeadline


def serve_http(root: str | None, where: str, allow_hosts: tuple[str, ...],
               max_sessions: int = DEFAULT_MAX_SESSIONS) -> int:
    """Serve until interrupted; the exit code (0 after Ctrl-C or SIGTERM, 2 for a refused address,
    1 for a port or token file that cannot be used, 5 without a plan)."""
    try:
        host, port = parse_where(where)
        check_bind(host, port, allow_hosts)
        check_sessions(max_sessions)
        try:
            plan = find_root(Path.cwd(), root).repo
        except PlanNotFound as exc:
            raise _refusal("no_plan", str(exc), "leafwise init", "make a plan here (or pass --root)",
                           exit_code=EXIT_NOT_FOUND, source=("plan", None)) from exc
        token, token_file, made = load_token()
        sock = bind(host, port)
    except Refused as refused:
        _out, err = render_text(envelope(f"leafwise {COMMAND}", refused.error), [])
        sys.stderr.write(err)
        return refused.error.exit_code
    import uvicorn

    logging.getLogger("watchfiles").setLevel(logging.WARNING)  # a batch of changes is no news to a person
    url = f"http://{_url_host(host)}:{sock.getsockname()[1]}{PATH}"
    lines = _banner(url, plan, token_file, made, host)
    if os.environ.pop("LEAFWISE_AGENT", None):  # it would name every client that names no agent
        lines.append("LEAFWISE_AGENT is ignored here: each client names its own agent.")
    app = build_app(root, token, sock.getsockname()[1], allow_hosts, max_sessions=max_sessions)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on",
                            timeout_graceful_shutdown=2, http=_header_deadline_protocol())
    server = uvicorn.Server(config)
    # uvicorn's own stop, from here on: it hands a signal it caught back to the handler it found, and
    # one that comes before its loop runs must stop it too (a clean exit 0, no traceback, no death)
    previous = {sig: signal.signal(sig, server.handle_exit) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        sys.stderr.write("\n".join(lines) + "\n")
        sys.stderr.flush()
        server.run(sockets=[sock])
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        sock.close()
    sys.stderr.write("Stopped.\n")
    return 0
