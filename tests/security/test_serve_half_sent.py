"""`leafwise serve` closes connections that never finish a request's line and headers.

aiohttp arms its keep-alive timer when a connection opens, but at 3,630 s by default, so any local
process could hold one of the server's descriptors per connection for an hour by saying nothing, by
sending half a request, or by trickling a byte now and then. The server passes its own deadline
(`canvas/serve.py` `HEADER_SECONDS`) as aiohttp's `keepalive_timeout`; this drives the real CLI in a
child process with a few hundred such connections and counts its descriptors in /proc.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from leafwise.canvas.serve import HEADER_SECONDS
from testkit import write_plan

LINK = re.compile(r"Open: http://127\.0\.0\.1:(\d+)/\?token=([A-Za-z0-9_-]+)")
NODES = [{"id": "T-1", "title": "Alpha lighthouse task", "release": "R1", "status": "draft"}]


def fd_count(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def wait_until(check, seconds: float, what: str) -> None:
    end = time.monotonic() + seconds
    while not check():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def status_of(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            return answer.status
    except urllib.error.HTTPError as refused:
        return refused.code


@pytest.mark.slow
def test_connections_that_never_finish_their_headers_are_closed_and_a_real_request_still_answered(tmp_path):
    root = write_plan(tmp_path / "plan", NODES)
    errors = (tmp_path / "serve.log").open("w")
    process = subprocess.Popen([sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli", "serve", "--port", "0"],
                               cwd=root, stdout=subprocess.PIPE, stderr=errors, text=True,
                               env={**os.environ, "LEAFWISE_AGENT": ""})
    stalled: list[socket.socket] = []
    stop = threading.Event()
    try:
        assert process.stdout is not None
        found = LINK.search(process.stdout.readline())
        assert found, (tmp_path / "serve.log").read_text()
        port, token = int(found[1]), found[2]
        before = fd_count(process.pid)
        half = b"GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUser-Agent: slo" % port
        for i in range(300):
            sock = socket.create_connection(("127.0.0.1", port), timeout=HEADER_SECONDS * 4)
            if i % 3 == 1:  # half a request line and headers
                sock.sendall(half)
            elif i % 3 == 2:  # a request line, then a header trickled a byte at a time (below)
                sock.sendall(b"GET / HTTP/1.1\r\nX-Slow: ")
            stalled.append(sock)  # i % 3 == 0 says nothing at all
        opened = time.monotonic()

        def trickle() -> None:  # every trickling socket sends one more byte each second
            while not stop.wait(1.0):
                for sock in stalled[2::3]:
                    try:
                        sock.send(b"a")
                    except OSError:
                        pass
        threading.Thread(target=trickle, daemon=True).start()
        wait_until(lambda: fd_count(process.pid) >= before + 250, 30, "the server to accept them")
        # a whole request is answered meanwhile: the page, through the one-time link
        assert status_of(f"http://127.0.0.1:{port}/?token={token}") == 200
        for sock in stalled:
            try:
                assert sock.recv(1) == b"", "a stalled connection was answered instead of closed"
            except ConnectionResetError:
                pass  # closed too (a reset when unread bytes were left)
        took = time.monotonic() - opened
        assert took < HEADER_SECONDS * 3, f"the last stalled connection closed after {took:.0f} s"
        stop.set()
        for sock in stalled:
            sock.close()
        wait_until(lambda: fd_count(process.pid) <= before + 5, 30, "the descriptors to be freed")
        assert process.poll() is None
        assert status_of(f"http://127.0.0.1:{port}/") == 403  # still answering: no link, refused
    finally:
        stop.set()
        for sock in stalled:
            sock.close()
        process.terminate()
        process.wait(30)
        errors.close()

