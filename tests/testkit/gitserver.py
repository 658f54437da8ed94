"""Real git servers on 127.0.0.1 for team-mode tests: a bare repository served by `git daemon`, by smart
HTTP (`git http-backend` behind a small token-checking http.server), or reached as file://; clones of it
in separate folders acting as separate machines.

Each server is a context manager that kills what it started. A `delay` (seconds) puts a `sleep` in the
bare repository's pre-receive hook, so racing pushes reach the *server* and the server decides; `strict`
makes the hook accept only refs/heads/* and refs/tags/* (a host that refuses custom refs).
"""

from __future__ import annotations

import base64
import hmac
import os
import shutil
import socket
import subprocess
import sys
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator

from testkit import DEMO_PLAN, run_cli, run_cli_in_process, wait_until

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_NOSYSTEM": "1"}
DAEMON = "/usr/lib/git-core/git-daemon"
HTTP_BACKEND = "/usr/lib/git-core/git-http-backend"
TOKEN = "s3cret-token"


def git(cwd: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    proc = subprocess.run(["git", *args], cwd=cwd, env={**env, **GIT_ENV}, capture_output=True, text=True,
                          timeout=60)
    if proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr}")
    return proc.stdout


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def bare_repo(base: Path, name: str = "plan.git", delay: float = 0.0, strict: bool = False) -> Path:
    """An empty bare repository under `base` that accepts pushes (over git daemon and HTTP too)."""
    repo = base / name
    git(base, "init", "-q", "--bare", "-b", "main", str(repo))
    git(repo, "config", "http.receivepack", "true")
    set_hook(repo, delay, strict)
    return repo


def set_hook(repo: Path, delay: float = 0.0, strict: bool = False) -> None:
    """The bare repository's pre-receive hook: a sleep of `delay`, and (strict) only heads and tags."""
    hook = repo / "hooks" / "pre-receive"
    lines = ["#!/bin/sh"]
    if strict:
        lines += ["while read old new ref; do", '  case "$ref" in', "    refs/heads/*|refs/tags/*) ;;",
                  '    *) echo "only branches and tags may be pushed here: $ref"; exit 1;;', "  esac", "done"]
    if delay:
        lines.append(f"sleep {delay}")
    if len(lines) == 1:
        hook.unlink(missing_ok=True)
        return
    hook.write_text("\n".join(lines) + "\n")
    hook.chmod(0o755)


def seed_plan(repo: Path, work: Path, plan: Path | None = None, tasks: int = 0) -> Path:
    """A first clone at `work` holding a plan (the demo's, or `tasks` plain tasks), pushed to `repo`'s main."""
    work.mkdir(parents=True)
    if plan is not None:
        shutil.copytree(plan, work, dirs_exist_ok=True)
    else:
        assert run_cli_in_process("init", "--name", "Team", "--prefix", "T", cwd=work).code == 0
        for i in range(tasks):
            assert run_cli_in_process("add", f"task {i + 1:03d} of the team", "--force", cwd=work).code == 0
    git(work, "init", "-q", "-b", "main")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "plan")
    git(work, "remote", "add", "origin", repo.as_uri())
    git(work, "push", "-q", "origin", "main")
    return work


def clone(url: str, where: Path) -> Path:
    """A clone of `url` in its own folder (a machine of the team), on main."""
    git(where.parent, "clone", "-q", "-b", "main", url, str(where))
    return where


def set_url(work: Path, url: str) -> None:
    git(work, "remote", "set-url", "origin", url)


@contextmanager
def daemon(base: Path) -> Iterator[str]:
    """`git daemon` serving every repository under `base` with pushes on; yields its URL prefix."""
    port = free_port()
    proc = subprocess.Popen([DAEMON, "--export-all", "--enable=receive-pack", f"--base-path={base}",
                             "--listen=127.0.0.1", f"--port={port}", "--reuseaddr", str(base)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_until(lambda: _listening(port), 10, what="git daemon listening")
        yield f"git://127.0.0.1:{port}"
    finally:
        _stop(proc)


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def _stop(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, 9)
    except ProcessLookupError:
        pass
    proc.wait(10)


class _Backend(BaseHTTPRequestHandler):
    """One CGI call of git http-backend per request, after a Basic-auth token check."""

    protocol_version = "HTTP/1.0"
    base: Path = Path("/nonexistent")

    def log_message(self, *args: object) -> None:  # quiet
        pass

    def _authorized(self) -> bool:
        header = self.headers.get("Authorization", "")
        if not header.startswith("Basic "):
            return False
        try:
            _, _, password = base64.b64decode(header[6:]).decode().partition(":")
        except ValueError:
            return False
        return hmac.compare_digest(password, TOKEN)

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self._cgi()

    def do_POST(self) -> None:  # noqa: N802
        self._cgi()

    def _cgi(self) -> None:
        if not self._authorized():
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="git"')
            self.end_headers()
            return
        path, _, query = self.path.partition("?")
        body = self._body()
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "GIT_PROJECT_ROOT": str(self.base),
               "GIT_HTTP_EXPORT_ALL": "1", "REQUEST_METHOD": self.command, "PATH_INFO": path,
               "QUERY_STRING": query, "CONTENT_TYPE": self.headers.get("Content-Type", ""),
               "CONTENT_LENGTH": str(len(body)), "REMOTE_USER": "team", "REMOTE_ADDR": "127.0.0.1",
               "GIT_PROTOCOL": self.headers.get("Git-Protocol", "")}
        proc = subprocess.run([HTTP_BACKEND], input=body, env=env, capture_output=True, timeout=60)
        head, _, rest = proc.stdout.partition(b"\r\n\r\n")
        status = 200
        headers = []
        for line in head.decode("latin-1").split("\r\n"):
            key, _, value = line.partition(":")
            if key.lower() == "status":
                status = int(value.strip().split()[0])
            elif key:
                headers.append((key, value.strip()))
        self.send_response(status)
        for key, value in headers:
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(rest)

    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            out = bytearray()
            while True:
                size = int(self.rfile.readline().strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return bytes(out)
                out += self.rfile.read(size)
                self.rfile.readline()
        data = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.headers.get("Content-Encoding") == "gzip":
            import gzip

            data = gzip.decompress(data)
        return data


@contextmanager
def smart_http(base: Path) -> Iterator[str]:
    """Smart HTTP for the repositories under `base`, Basic auth with `TOKEN`; yields the URL prefix
    (with the token in it, as a credential helper would give it)."""
    handler = type("Backend", (_Backend,), {"base": base})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://team:{TOKEN}@127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def leafwise(*args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 60):
    """The real CLI in a clone."""
    return run_cli(*args, cwd=cwd, env=env, timeout=timeout)


def team_clones(tmp: Path, url_of, count: int, tasks: int = 0, plan: Path | None = None) -> list[Path]:
    """`count` clones of a fresh bare repository holding a plan, team mode on, each joined; `url_of(repo)`
    gives the URL the clones use (file://, git daemon, HTTP)."""
    repo = bare_repo(tmp)
    first = seed_plan(repo, tmp / "clone-0", plan, tasks)
    set_url(first, url_of(repo))
    res = run_cli_in_process("team", "init", cwd=first)
    assert res.code == 0, res.stdout + res.stderr
    git(first, "add", "-A")
    git(first, "commit", "-q", "-m", "team mode")
    git(first, "push", "-q", "origin", "main")
    clones = [first]
    for i in range(1, count):
        other = clone(url_of(repo), tmp / f"clone-{i}")
        assert run_cli_in_process("team", "join", cwd=other).code == 0
        clones.append(other)
    return clones


def copy_team(template: Path, dest: Path) -> list[Path]:
    """A copy of a `team_clones` folder (the bare repository and its clones) at `dest`, each clone's
    origin pointed at the copy's bare repository: a fresh team for each test without building it again."""
    shutil.copytree(template, dest, symlinks=True)
    clones = sorted(dest.glob("clone-*"), key=lambda p: int(p.name.split("-")[1]))
    for work in clones:
        set_url(work, (dest / "plan.git").as_uri())
    return clones


__all__ = ["copy_team", "DEMO_PLAN", "bare_repo", "clone", "daemon", "free_port", "git", "leafwise", "seed_plan", "set_hook",
           "set_url", "smart_http", "sys", "team_clones"]


def joined_pair(tmp_path: Path, nodes: list[dict], project_extra: str) -> tuple[Path, Path]:
    """A bare remote and two clones of a plan of `nodes` whose project.yaml ends with `project_extra`
    (its settings.team for remote `origin`), each clone joined to the team as a person does once."""
    from testkit import write_plan

    bare, first, second = tmp_path / "origin.git", tmp_path / "a", tmp_path / "b"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    write_plan(first, nodes)
    project = first / ".leafwise" / "project.yaml"
    project.write_text(project.read_text() + project_extra)
    git(first, "init", "-q", "-b", "main")
    git(first, "config", "user.email", "a@example.invalid")
    git(first, "config", "user.name", "A")
    git(first, "add", "-A")
    git(first, "commit", "-qm", "plan")
    git(first, "remote", "add", "origin", str(bare))
    git(first, "push", "-q", "origin", "main")
    subprocess.run(["git", "clone", "-q", "-b", "main", str(bare), str(second)], check=True)
    git(second, "config", "user.email", "b@example.invalid")
    git(second, "config", "user.name", "B")
    for work in (first, second):
        joined = run_cli_in_process("team", "join", cwd=work)
        assert joined.code == 0, joined.stdout + joined.stderr
    return first, second
