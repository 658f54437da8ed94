"""Holes found by the session-16 attack (helper h22, /work/helpers/h22.md) whose gateway is in another
owner's file: each reproduction is a strict xfail here while open, naming the change that closes it;
once fixed the marker goes and the reproduction stays as a test. All fixed: the doc linked hundreds of
times (commands/domain/docs.py read_docs) and the deep docs folder (context.py walks with reader.walk) in
0af8bec; a commit message naming thousands of ids (reconcile's commits_by_node, one pass) and a file
name that is no UTF-8 on the MCP server (tool_answers and the resources through text.unicode_text) after.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import time
from pathlib import Path

import pytest
from testkit import cli_fork, run_cli, write_plan

NODES = [{"id": "T-1", "title": "Epic", "status": "draft", "release": "R1"},
         {"id": "T-2", "title": "Export orders as CSV", "status": "draft", "parent": "T-1"}]


@pytest.mark.slow  # a gigabyte of reading before the fix
def test_one_doc_linked_hundreds_of_times_costs_one_read(tmp_path):
    """A 190 KB doc and diagram each linked 300 times from one node (an 8 KB node file; 256 KiB holds
    ~20,000 links): `leafwise doc` took 1 GB and 5 CPU s, MCP get_doc over 60 s and 2 GB, the canvas
    2 GB with keys answered after 66-75 s."""
    nodes = [dict(n) for n in NODES]
    nodes[1]["docs"] = ["docs/big.md"] * 300
    nodes[1]["diagrams"] = ["diagrams/big.txt"] * 300
    root = write_plan(tmp_path / "plan", nodes)
    body = "\n".join("|" * 20 + "x" * 20 for _ in range(4800)) + "\n"
    for rel in ("docs/big.md", "diagrams/big.txt"):
        (root / ".leafwise" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / ".leafwise" / rel).write_text(body)
    env = {**os.environ, "LEAFWISE_AGENT": ""}
    code, out, err, cpu, peak_kib = cli_fork.run_measured(["doc", "T-2"], root, env, None, 120)
    assert code == 0, err
    assert peak_kib < 300 * 1024 and cpu < 5, f"{peak_kib // 1024} MB, {cpu:.1f} CPU s"


def test_context_answers_on_a_deeply_nested_docs_folder(tmp_path):
    """A folder 1,100 levels deep under .leafwise/docs/ (committed and cloned like any other):
    `context` and MCP get_project_context answered internal_error (RecursionError)."""
    root = write_plan(tmp_path / "plan", NODES)
    folder = root / ".leafwise" / "docs"
    fd = os.open(folder, os.O_RDONLY)
    try:
        for _ in range(1100):  # one level at a time: a path this long is past what one call takes
            os.mkdir("a", dir_fd=fd)
            nfd = os.open("a", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = nfd
        os.close(os.open("x.md", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd))
    finally:
        os.close(fd)
    try:
        res = run_cli("context", "--json", cwd=root)
    finally:
        _remove_chain(folder)  # shutil.rmtree (pytest's cleanup) recurses too
    answer = json.loads(res.stdout)
    assert (answer.get("error") or {}).get("code") != "internal_error", answer["error"]["message"]
    assert res.code == 0


def _remove_chain(top: Path) -> None:
    """Remove top/a/a/…/x.md, deepest first, one level at a time."""
    fds = [os.open(top, os.O_RDONLY)]
    try:
        while True:
            try:
                fds.append(os.open("a", os.O_RDONLY, dir_fd=fds[-1]))
            except FileNotFoundError:
                break
        os.unlink("x.md", dir_fd=fds[-1])
        for i in range(len(fds) - 1, 0, -1):
            os.close(fds.pop())
            os.rmdir("a", dir_fd=fds[i - 1])
    finally:
        for fd in fds:
            os.close(fd)


@pytest.mark.slow
def test_a_commit_naming_thousands_of_ids_costs_reconcile_little(tmp_path):
    """Three commits (each touching a file), each message the ids P1-1 … P1-40000 (349 KB): reconcile
    always ended at its 60 s deadline; one such message alone takes over 10 minutes. The cost is ids x
    length plus a regex compiled per id: 1,000 ids in a 6 KB message 2 CPU s, 3,000 (20 KB) 11 s,
    6,000 (41 KB) 37 s. Here 1,500 ids (9 KB): about 4 s before, a few milliseconds in one pass."""
    from leafwise.commands.reconcile.checks import commits_by_node

    root = write_plan(tmp_path / "plan", NODES)
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tmp_path)}
    message = " ".join(f"T-{i}" for i in range(1, 1501))

    def git(*args: str, stdin: str | None = None) -> None:
        subprocess.run(["git", "-c", "user.name=a", "-c", "user.email=a@x", *args], cwd=root, env=env,
                       input=stdin, text=True, check=True, capture_output=True, timeout=60)

    git("init", "-q", "-b", "main")
    git("add", "-A")
    git("commit", "-qm", "plan")
    (root / "f.txt").write_text("1\n")
    git("add", "f.txt")
    git("commit", "-q", "-F", "-", stdin=message)
    start = resource.getrusage(resource.RUSAGE_SELF)
    began = time.monotonic()
    found = commits_by_node(root)
    used = resource.getrusage(resource.RUSAGE_SELF)
    cpu = used.ru_utime + used.ru_stime - start.ru_utime - start.ru_stime
    assert "T-2" in found
    assert cpu < 1, f"{cpu:.1f} CPU s ({time.monotonic() - began:.1f} s) for one commit's message"


def _undecodable_name(root: Path) -> None:
    """A node file whose name holds a byte that is no UTF-8 (`P1-9\\xff.yaml`, broken YAML inside), as a
    clone brings it: the OS lists it as `T-9\\udcff.yaml`, a lone surrogate no UTF-8 JSON can carry."""
    with open(os.fsencode(root / ".leafwise" / "nodes") + b"/T-9\xff.yaml", "wb") as out:
        out.write(b"id: [broken\n")


def test_unicode_text_makes_the_real_answer_sendable(tmp_path):
    """The function the MCP fix needs (commands/text.py unicode_text) on the real answer: validate's
    envelope for the planted name holds lone surrogates, which UTF-8 refuses; after it, none."""
    from leafwise.commands.text import unicode_text

    root = write_plan(tmp_path / "plan", NODES)
    _undecodable_name(root)
    env = json.loads(run_cli("validate", "--json", cwd=root).stdout)
    with pytest.raises(UnicodeEncodeError):
        json.dumps(env, ensure_ascii=False).encode("utf-8")
    sent = json.dumps(unicode_text(env), ensure_ascii=False).encode("utf-8")
    assert b"T-9<U+DCFF>.yaml" in sent
    assert unicode_text({"a": ["x\u202e", 1, None]}) == {"a": ["x\u202e", 1, None]}  # the rest exact


@pytest.mark.slow  # a server process, and a dead one's wait
def test_the_mcp_server_survives_a_file_name_that_is_not_utf8(tmp_path, monkeypatch):
    """A committed node file named `T-9\\xff.yaml`: MCP validate_project never answered, the stdio
    server died with PydanticSerializationError (UnicodeEncodeError), every later call failed."""
    import anyio
    from testkit.mcp_stdio import mcp_session

    root = write_plan(tmp_path / "plan", NODES)
    _undecodable_name(root)
    with open(os.fsencode(root / ".leafwise" / "docs") + b"/notes\xff.md", "wb") as out:  # the context resource lists it
        out.write(b"# notes\n")
    async def go():
        async with mcp_session(root) as session:
            first = await session.call_tool("validate_project", {})
            listed = await session.read_resource("leafwise://context")
            second = await session.call_tool("get_next_task", {})
        return first, listed, second

    first, listed, second = anyio.run(go)
    assert "notes" in listed.contents[0].text  # the resource answered (its JSON escapes the name) and the server lives
    assert "T-9<U+DCFF>.yaml" in json.dumps(first.structured_content)
    assert second.structured_content["status"] == "ok"
