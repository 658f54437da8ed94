"""`leafwise mcp --http`: the real server in a subprocess, asked by raw HTTP and by the SDK's own client.

One server serves the module (starting one costs about a second): a plan of three tasks, a config
folder of its own (the token file), `--allow-host leafwise.test`, and LEAFWISE_AGENT set in its
environment, which must reach no client.
"""

from __future__ import annotations

import http.client
import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from leafwise.commands.surfaces.mcp_server import build_server
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from testkit import node, node_data, run_cli, run_cli_in_process, wait_until, write_plan

BANNER = "Leafwise MCP over HTTP: "
CAP = 8  # the module server's --max-sessions
TUNNEL = 9  # its --allow-host 127.0.0.1:9, as a client through `ssh -L 9:127.0.0.1:PORT` names it
TASKS = ("T-1", "T-2", "T-3")
INIT = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                   "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                              "clientInfo": {"name": "raw", "version": "1"}}})


@dataclass
class Served:
    plan: Path
    config: Path
    port: int
    token: str
    stderr: Path
    pid: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"


def _port_of(log: Path) -> int | None:
    text = log.read_text() if log.exists() else ""
    line = next((ln for ln in text.splitlines() if ln.startswith(BANNER)), None)
    url = line[len(BANNER):].split()[0] if line else None  # http://127.0.0.1:PORT/mcp
    return int(url.rsplit(":", 1)[1].split("/")[0]) if url else None


def raw(served: Served, method: str = "POST", path: str = "/mcp", *, token: str | None = "",
        headers: dict[str, str] | None = None, body: str | None = INIT, keep: list[str] | None = None) -> tuple[int, str]:
    """(status, body) of one plain HTTP request; `token=""`: the server's own, None: no header. A session
    it opened is closed again (the module's server has a session cap), or its id added to `keep`."""
    sent = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if token is not None:
        sent["Authorization"] = f"Bearer {token or served.token}"
    sent.update(headers or {})
    conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
    try:
        conn.request(method, path, body=body if method == "POST" else None, headers=sent)
        answer = conn.getresponse()
        status, text = answer.status, answer.read(2000).decode("utf-8", "replace")
        session = answer.getheader("mcp-session-id")
    finally:
        conn.close()
    if session and keep is not None:
        keep.append(session)
    elif session:
        close_session(served, session)
    return status, text


def close_session(served: Served, session: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
    try:
        conn.request("DELETE", "/mcp", headers={"Authorization": f"Bearer {served.token}", "mcp-session-id": session,
                                                "mcp-protocol-version": "2025-06-18"})
        return conn.getresponse().status
    finally:
        conn.close()


def _answers(served: Served) -> bool:
    try:
        return raw(served, "GET", "/", token=None)[0] == 401
    except OSError:
        return False


@contextmanager
def running(plan: Path, config: Path, *args: str, env: dict[str, str] | None = None) -> Iterator[Served]:
    """The real `leafwise mcp --http 127.0.0.1:0 ARGS` on `plan`, until the block ends; then SIGTERM,
    which must stop it cleanly."""
    log = config.parent / f"{config.name}.stderr"
    full_env = {**os.environ, "LEAFWISE_CONFIG_DIR": str(config), **(env or {})}
    full_env.pop("LEAFWISE_ROOT", None)
    with log.open("w") as err:
        proc = subprocess.Popen([sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli", "mcp", "--http",
                                 "127.0.0.1:0", *args], cwd=plan, env=full_env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=err)
    try:
        wait_until(lambda: proc.poll() is not None or _port_of(log), 30, what="the server's banner")
        assert proc.poll() is None, log.read_text()
        token = (config / "mcp-http.token").read_text().strip()
        result = Served(plan, config, _port_of(log), token, log, proc.pid)
        wait_until(lambda: _answers(result), 30, what="the port to answer")
        yield result
    finally:
        proc.terminate()
        try:
            code = proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            code = None
    assert code == 0 and log.read_text().endswith("Stopped.\n"), f"SIGTERM did not stop it cleanly: {code}"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    base = tmp_path_factory.mktemp("mcp-http")
    plan = write_plan(base / "plan", [node(t, f"Task {t}", release="R1") for t in TASKS])
    with running(plan, base / "config", "--allow-host", "leafwise.test", "--allow-host", f"127.0.0.1:{TUNNEL}",
                 "--max-sessions", str(CAP),
                 env={"LEAFWISE_AGENT": "leaky-agent"}) as s:
        yield s


def connect(served: Served, steps, *, mode: str = "auto"):
    """Run `steps(client)` in one SDK client session over HTTP with the server's token."""
    async def go():
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {served.token}"}) as http:
            async with Client(streamable_http_client(served.url, http_client=http), mode=mode) as client:
                return await steps(client)

    return anyio.run(go)


# --- the gates, by raw HTTP ---------------------------------------------------------------------

def test_every_request_without_the_token_is_401(served):
    assert raw(served, token=None)[0] == 401
    assert raw(served, token="x" * 43)[0] == 401
    assert raw(served, token=served.token[:-1])[0] == 401
    assert raw(served, headers={"Authorization": f"Basic {served.token}"})[0] == 401
    assert raw(served, "GET", "/", token=None)[0] == 401  # before any route: no path answers anything else
    assert raw(served, headers={"Host": "evil.example"}, token=None)[0] == 401


def test_a_foreign_host_is_421_and_a_foreign_origin_403(served):
    assert raw(served, headers={"Host": "evil.example"}) == (421, "Invalid Host header")
    assert raw(served, headers={"Host": f"evil.example:{served.port}"})[0] == 421
    assert raw(served, headers={"Origin": "http://evil.example"}) == (403, "Invalid Origin header")
    assert raw(served, headers={"Origin": "null"})[0] == 403
    for allowed in ({}, {"Origin": f"http://localhost:{served.port}"}, {"Host": f"leafwise.test:{served.port}"},
                    {"Host": "leafwise.test", "Origin": "https://leafwise.test"}):
        status, body = raw(served, headers=allowed)
        assert status == 200 and '"serverInfo"' in body, (allowed, status, body)


def refused_hosts(port: int) -> list[str]:
    """Host values a rebinding page or a confused client could send: each names something else."""
    other = port + 1 if port < 65535 else port - 1
    return ["localhost:evil", "localhost:", f"localhost:{port}x", f"localhost:{port}:{port}",
            f"127.0.0.1.evil.com:{port}", f"127.0.0.1:{other}", f"localhost:{other}", "localhost", "127.0.0.1",
            f"localhost.:{port}", f"leafwise.test.evil.com:{port}", f"leafwise.test:{other}", f"leafwise.test:evil",
            f"evil.leafwise.test:{port}", f"127.0.0.1:0{port}", f"[::1]:{other}", f"127.0.0.1 :{port}"]


def test_the_host_must_be_exactly_a_served_name_and_port(served):
    port = served.port
    for host in refused_hosts(port):
        assert raw(served, headers={"Host": host})[0] in (400, 421), host
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", f"leafwise.test:{port}", "leafwise.test",
                 f"127.0.0.1:{TUNNEL}"):
        assert raw(served, headers={"Host": host})[0] == 200, host
    assert raw(served, headers={"Host": f"localhost:{TUNNEL}"})[0] == 421, "the tunnel's port only as allowed"


def test_a_browsers_origin_must_be_exactly_the_served_origin(served):
    port = served.port
    refused = [f"http://localhost:{port + 1}", "http://localhost:3000", "http://localhost:evil", "http://localhost",
               f"http://127.0.0.1.evil.com:{port}", f"https://localhost:{port}", f"http://localhost.:{port}",
               f"http://LOCALHOST:{port}", "null", f"http://localhost:{port}/", f"http://leafwise.test:{port + 1}",
               "https://leafwise.test:443", "http://leafwise.test.evil.com", f"ws://localhost:{port}",
               f"https://127.0.0.1:{TUNNEL}", "http://127.0.0.1"]
    for origin in refused:
        assert raw(served, headers={"Origin": origin})[0] == 403, origin
    for origin in (f"http://127.0.0.1:{port}", f"http://localhost:{port}", f"http://leafwise.test:{port}",
                   "https://leafwise.test", f"http://127.0.0.1:{TUNNEL}"):
        assert raw(served, headers={"Origin": origin})[0] == 200, origin


def test_sessions_beyond_the_cap_are_refused_naming_it_and_a_closed_one_frees_a_place(served):
    mine: list[str] = []
    try:
        answers = [raw(served, keep=mine) for _ in range(CAP + 1)]
        refused = [body for status, body in answers if status == 503]
        assert len(mine) <= CAP and refused, answers  # (other tests' sessions may take places too)
        assert f"at most {CAP} at once" in refused[0] and f"--max-sessions {CAP}" in refused[0], refused[0]
        assert close_session(served, mine.pop()) == 200
        assert raw(served)[0] == 200, "a closed session's place is free again"
    finally:
        for session in mine:
            close_session(served, session)


def test_max_sessions_out_of_range_is_refused_with_a_fix(tmp_path):
    plan = write_plan(tmp_path / "plan", [node("T-1", "Task", release="R1")])
    env = {"LEAFWISE_CONFIG_DIR": str(tmp_path / "cfg")}
    answer = run_cli_in_process("mcp", "--http", "127.0.0.1:0", "--max-sessions", "0", cwd=plan, env=env)
    assert answer.code == 2 and "--max-sessions 0 is not between 1 and 10000" in answer.stderr, answer.stderr
    assert "Fix: leafwise mcp --http --max-sessions 64" in answer.stderr and not (tmp_path / "cfg").exists()


def test_the_token_file_is_private_and_never_printed(served):
    assert stat.S_IMODE((served.config / "mcp-http.token").stat().st_mode) == 0o600
    log = served.stderr.read_text()
    assert served.token not in log
    assert str(served.config / "mcp-http.token") in log and "Authorization: Bearer $(cat " in log


# --- the SDK's own client -----------------------------------------------------------------------

def test_the_sdk_client_sees_the_stdio_server(served):
    async def steps(client):
        return (await client.list_tools()).tools, await client.call_tool("get_next_task", {"agent": "http-a"})

    tools, answer = connect(served, steps)

    async def local(client):
        return (await client.list_tools()).tools, await client.call_tool("get_next_task", {"agent": "http-a"})

    async def in_process():
        async with Client(build_server(cwd=served.plan)) as client:
            return await local(client)

    same_tools, same_answer = anyio.run(in_process)
    assert [t.model_dump() for t in tools] == [t.model_dump() for t in same_tools]
    assert not answer.is_error and answer.structured_content == same_answer.structured_content
    assert answer.structured_content["result"]["task"]["id"] == "T-1"


def test_two_clients_racing_start_next_get_different_tasks(served):
    """One client of each protocol era (a 2025 session, a sessionless 2026-07-28 one), released at once."""
    got: dict[str, Any] = {}

    async def race():
        ready, go = [], anyio.Event()

        async def agent(name: str, mode: str) -> None:
            async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {served.token}"}) as http:
                async with Client(streamable_http_client(served.url, http_client=http), mode=mode) as client:
                    ready.append(name)
                    if len(ready) == 2:  # both connected: the two calls leave together
                        go.set()
                    await go.wait()
                    got[name] = await client.call_tool("start_task", {"next": True, "agent": name})

        async with anyio.create_task_group() as group:
            group.start_soon(agent, "alice", "legacy")
            group.start_soon(agent, "bob", "auto")

    anyio.run(race)
    started = {name: answer.structured_content["result"]["task"]["id"] for name, answer in got.items()
               if not answer.is_error}
    assert sorted(started) == ["alice", "bob"], {n: a.structured_content for n, a in got.items()}
    assert started["alice"] != started["bob"]
    for name, task in started.items():
        data = node_data(served.plan, task)
        assert (data["status"], data["assignee"]) == ("in-progress", name)


def test_no_agent_name_reaches_another_client(served):
    """Neither another client's agent nor the server's LEAFWISE_AGENT: a call naming none is answered
    for `<agent>`."""
    connect(served, lambda client: client.call_tool("get_node", {"node_id": "T-1", "agent": "carol"}))
    answer = connect(served, lambda client: client.call_tool("get_next_task", {}))
    text = json.dumps(answer.structured_content)
    assert "carol" not in text and "leaky-agent" not in text
    assert '--agent "<agent>"' in answer.structured_content["_next_action"]["command"]


# --- refused before listening -------------------------------------------------------------------

def test_a_bind_beyond_loopback_needs_allow_host(tmp_path):
    write_plan(tmp_path, [node("T-1", "A", release="R1")])
    env = {"LEAFWISE_CONFIG_DIR": str(tmp_path / "cfg")}
    for where in ("0.0.0.0:0", "[::]:0", "example.com:8765"):  # one real process; the rest in this one
        res = (run_cli if where == "0.0.0.0:0" else run_cli_in_process)("mcp", "--http", where, cwd=tmp_path, env=env)
        assert res.code == 2, res.stderr
        assert "--allow-host" in res.stderr.splitlines()[0]
        assert res.stderr.splitlines()[-1].startswith("Fix: leafwise mcp --http ")
    bad = run_cli_in_process("mcp", "--http", "127.0.0.1:http", cwd=tmp_path, env=env)
    assert bad.code == 2 and "is not HOST:PORT" in bad.stderr
    for name in ("http://box.lan", "box.lan:", "box.lan:0", "box.lan:08765", "box.lan:x", "[::1]x", "*.lan"):
        bad = run_cli_in_process("mcp", "--http", "0.0.0.0:0", "--allow-host", name, cwd=tmp_path, env=env)
        assert bad.code == 2 and "is not a host name" in bad.stderr, name
    assert not (tmp_path / "cfg").exists(), "a refused start made a token file"


def test_a_token_file_others_can_read_is_refused(tmp_path):
    write_plan(tmp_path / "plan", [node("T-1", "A", release="R1")])
    token = tmp_path / "cfg" / "mcp-http.token"  # the person's folder, outside the plan
    token.parent.mkdir()
    token.write_text("a" * 43 + "\n")
    token.chmod(0o644)
    res = run_cli_in_process("mcp", "--http", "127.0.0.1:0", cwd=tmp_path / "plan",
                             env={"LEAFWISE_CONFIG_DIR": str(token.parent)})
    assert res.code == 1 and "can be read by others (mode 0644)" in res.stderr
    assert res.stderr.splitlines()[-1] == f"Fix: chmod 600 {token}"
    assert "a" * 43 not in res.stderr


# --- a cancelled wait ---------------------------------------------------------------------------

def inotify_watches(pid: int) -> int:
    count = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            count += os.readlink(f"/proc/{pid}/fd/{fd}") == "anon_inode:inotify"
        except OSError:
            continue
    return count


@pytest.mark.slow  # a second server of its own: a plan with nothing free
def test_a_cancelled_wait_ends_and_claims_nothing(tmp_path):
    """Over both eras: a 2025 client cancels with notifications/cancelled in its session, a 2026-07-28
    one by closing its request; either way the server's wait (its second plan watch) ends."""
    plan = write_plan(tmp_path / "plan", [node("T-1", "Alpha", status="blocked", blocked_reason="creds",
                                               release="R1")])
    with running(plan, tmp_path / "config") as served:
        for mode in ("legacy", "auto"):
            async def steps(client):
                async with anyio.create_task_group() as group:
                    group.start_soon(client.call_tool, "start_task", {"next": True, "agent": "a1", "wait": 60})
                    while inotify_watches(served.pid) < 2:  # the session's own plan watch, then the wait's
                        await anyio.sleep(0.02)
                    group.cancel_scope.cancel()
                with anyio.fail_after(5):
                    while inotify_watches(served.pid) != 1:
                        await anyio.sleep(0.02)

            connect(served, steps, mode=mode)
        assert run_cli("unblock", "T-1", cwd=plan).code == 0
        offered = connect(served, lambda client: client.call_tool("get_next_task", {"agent": "a2"}))
    assert offered.structured_content["result"]["task"]["id"] == "T-1"  # a1's cancelled calls took nothing
    assert not (plan / ".leafwise/claims/T-1.json").exists()


@pytest.mark.slow
def test_connections_that_never_finish_their_headers_are_closed_and_others_still_answered(served):
    import socket
    import time

    from leafwise.commands.surfaces.mcp_http import HEADER_SECONDS

    fds = Path(f"/proc/{served.pid}/fd")
    before = len(list(fds.iterdir()))
    stalled = []
    for i in range(200):
        sock = socket.create_connection(("127.0.0.1", served.port), timeout=30)
        if i % 2:  # half a request line and headers; the other half say nothing at all
            sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAuthorization: Bea" % served.port)
        stalled.append(sock)
    wait_until(lambda: len(list(fds.iterdir())) >= before + 150, 30, what="the server to accept them")
    assert raw(served, token=None)[0] == 401  # a whole request is answered meanwhile
    started = time.monotonic()
    for sock in stalled:
        assert sock.recv(1) == b"", "a stalled connection was answered instead of closed"
        sock.close()
    assert time.monotonic() - started < HEADER_SECONDS * 3
    wait_until(lambda: len(list(fds.iterdir())) <= before + 5, 30, what="the descriptors to be freed")
    assert raw(served, token=None)[0] == 401
