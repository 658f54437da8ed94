"""A repository that arrives whole (`.git/` and all: a tarball, a shared folder) brings its own config.
Its `http.proxy` and `http.sslVerify=false` sent every team-mode fetch and push (`team sync`, `next`,
`start`) through the proxy it named, unchecked, with the person's own credential helper answering for
the host: a proxy that logs CONNECT saw each one. The network entry now takes every `http.*` key the
repository's config sets from the person's own config, or a neutral value."""

from __future__ import annotations

import socket
import subprocess
import threading
from pathlib import Path

import pytest

from leafwise.store import git as runner
from testkit import run_cli
from testkit.gitserver import git, joined_pair

NODES = [{"id": "T-1", "title": "task one of the team", "status": "draft"}]
URL = "https://git.example.invalid/team/plan.git"


class Proxy:
    """A listener that records what each connection sends first (a CONNECT line) and closes it."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.seen: list[bytes] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            conn.settimeout(2)
            try:
                self.seen.append(conn.recv(4096))
            except OSError:
                pass
            conn.close()


@pytest.fixture
def proxy():
    found = Proxy()
    yield found
    found.sock.close()


def arrived_whole(tmp_path: Path, proxy: Proxy) -> Path:
    _, second = joined_pair(tmp_path, NODES, "settings:\n  team: {remote: origin}\n")
    git(second, "remote", "set-url", "origin", URL)
    git(second, "config", "http.proxy", f"http://127.0.0.1:{proxy.port}")
    git(second, "config", "http.sslVerify", "false")
    git(second, "config", "http.extraHeader", "X-Planted: 1")
    return second


def test_the_repositorys_own_proxy_never_carries_team_traffic(tmp_path, proxy):
    work = arrived_whole(tmp_path, proxy)
    plain = subprocess.run(["git", "ls-remote", URL], cwd=work, capture_output=True, timeout=30)
    assert plain.returncode != 0 and any(b"CONNECT git.example.invalid" in s for s in proxy.seen)  # live
    proxy.seen.clear()
    for args in (("team", "sync"), ("next", "--agent", "bob"), ("start", "--next", "--agent", "bob"),
                 ("team", "status"), ("team", "doctor")):
        run_cli(*args, cwd=work, timeout=60)
    assert proxy.seen == []


def test_the_persons_own_proxy_still_carries_it(tmp_path, proxy):
    work = arrived_whole(tmp_path, proxy)
    own = Proxy()
    try:
        person = tmp_path / "gitconfig"
        person.write_text(f"[http]\n\tproxy = http://127.0.0.1:{own.port}\n")
        run_cli("team", "sync", cwd=work, env={"GIT_CONFIG_GLOBAL": str(person)}, timeout=60)
        assert proxy.seen == [] and any(b"CONNECT git.example.invalid" in s for s in own.seen)
    finally:
        own.sock.close()


@pytest.mark.parametrize("name", sorted(runner.HTTP_NEUTRAL))
def test_each_planted_http_key_is_put_back(tmp_path, name):
    work = tmp_path / "w"
    work.mkdir()
    git(work, "init", "-q")
    key = f"http.{name}" if name != "sslverify" else "http.https://git.example.invalid/.sslverify"
    git(work, "config", key, "planted")
    runner.forget()
    repo = runner.pin(work)
    settings = runner.repository_http((f"--git-dir={repo.git_dir}", f"--work-tree={repo.work_tree}"),
                                       repo.work_tree, runner.time.monotonic() + 10)
    assert (key.lower() if name != "sslverify" else key, runner.HTTP_NEUTRAL[name]) in \
        [(k.lower() if name != "sslverify" else k, v) for k, v in settings], settings
