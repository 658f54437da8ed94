"""A hostile cloned plan and a hostile caller against the loop server (h22d, issue 22): a served line
must print what its own run prints, never hold up the other callers, and never hold the user's
resources for a plan it cannot serve safely.

Each test goes through the real console script and a real server (tests/commands/test_loop_server.py's
probe and fixture), on a plan committed and cloned with real git."""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location(
    "loop_server_attack_tests", Path(__file__).parents[1] / "commands" / "test_loop_server_attacks.py")
attacks = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(attacks)
runtime = attacks.runtime  # a runtime folder of the test's own, its servers stopped at the end
call, plan, serving, server_pids = attacks.call, attacks.plan, attacks.serving, attacks.server_pids

pytestmark = pytest.mark.slow


def cloned(src: Path, dst: Path) -> Path:
    """`src` committed and cloned, as a person gets a plan someone else wrote."""
    git = ["git", "-c", "user.name=m", "-c", "user.email=m@example.com"]
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=src, check=True)
    subprocess.run([*git, "add", "-A"], cwd=src, check=True)
    subprocess.run([*git, "commit", "-qm", "plan"], cwd=src, check=True)
    subprocess.run(["git", "clone", "-q", str(src), str(dst)], check=True)
    return dst


def test_a_cloned_plan_with_thousands_of_folders_gets_no_server(tmp_path, runtime):
    """3,000 folders in a cloned plan's docs/ (one file each, 2 MB in git) took 3,054 of the user's
    inotify watches (192,543 here, shared by every tool they run) for as long as the server lived,
    and each call kept it alive: 200,000 folders take them all."""
    src = plan(tmp_path / "src")
    docs = src / ".leafwise" / "docs"
    for i in range(1_500):
        folder = docs / f"a{i % 30}" / f"b{i}"
        folder.mkdir(parents=True)
        (folder / "k.md").write_text("x\n")
    root = cloned(src, tmp_path / "clone")
    for _ in range(3):
        out, _err, code, how = call(root, "next", "--json")
        assert (code, how) == (0, "ran") and '"id": "T-1"' in out
        time.sleep(1)
    assert not server_pids(runtime)


def test_a_caller_trickling_its_request_holds_the_others_up_a_second_at_most(tmp_path, runtime):
    """The server's read timeout was per recv: a caller sending one byte every 0.5 s held it (and every
    other call, which waits for the server's first byte without a deadline) for as long as it went on,
    up to the 1 MiB request cap: days."""
    root = cloned(plan(tmp_path / "src"), tmp_path / "clone")
    serving(root)
    (path,) = (runtime / "leafwise").glob("*.sock")
    stop = threading.Event()
    trickler = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)

    def trickle() -> None:  # for 8 s at most: on the old server the call then goes on, 8 s late
        ends = time.monotonic() + 8
        try:
            while not stop.wait(0.5) and time.monotonic() < ends:
                trickler.sendall(b"x")
        except OSError:
            pass  # the server closed it: what the fix does
        trickler.shutdown(socket.SHUT_WR)

    trickler.connect(str(path))
    thread = threading.Thread(target=trickle, daemon=True)
    thread.start()
    try:
        time.sleep(0.3)  # the server is now reading the trickler's request
        started = time.monotonic()
        out, _err, code, how = call(root, "next", "--json")
        took = time.monotonic() - started
    finally:
        stop.set()
        trickler.close()
        thread.join(5)
    assert (code, how) == (0, "served") and '"id": "T-1"' in out
    assert took < 5, took


def _in_both(tmp_path: Path, change) -> tuple[Path, Path]:
    """Two clones of one plan, the first served (warm, a task started in both), then `change` made in both."""
    src = plan(tmp_path / "src")
    node_file = src / ".leafwise" / "nodes" / "T-1.yaml"
    node_file.write_text(node_file.read_text() + 'docs: ["docs/spec.tmp"]\n')
    (src / ".leafwise" / "docs").mkdir(exist_ok=True)
    (src / ".leafwise" / "docs" / "spec.tmp").write_text("# spec\n")
    served = cloned(src, tmp_path / "served")
    own = tmp_path / "own"
    subprocess.run(["git", "clone", "-q", str(src), str(own)], check=True)
    serving(served)
    for root, on in ((served, True), (own, False)):
        assert call(root, "start", "--next", "--agent", "a", served=on)[2] == 0
        assert call(root, "next", "--agent", "a", served=on)[2] == 0  # answered once the server settled
        change(root)
    return served, own



@pytest.mark.parametrize("change", ["doc gone", "node file named like no id"])
def test_a_served_complete_refuses_what_its_own_run_refuses(tmp_path, runtime, change):
    """A doc `docs/spec.tmp` (or `docs/.spec.md`) a node links to, deleted after the server is warm
    (a pull, a checkout): the own run refuses the complete (exit 4, `doc docs/spec.tmp does not exist`),
    the served one completed the task (exit 0). A node file `nodes/t-9.yaml` (no id: the loader reads
    it, validate names it) added then: the served complete left out the warning its own run prints."""
    def make(root: Path) -> None:
        if change == "doc gone":
            (root / ".leafwise" / "docs" / "spec.tmp").unlink()
        else:
            (root / ".leafwise" / "nodes" / "t-9.yaml").write_text("{\n")

    served, own = _in_both(tmp_path, make)
    line = ("complete", "T-1", "--summary", "did it", "--agent", "a")
    a, b = call(served, *line), call(own, *line, served=False)
    assert (a[3], b[3]) == ("served", "ran")
    assert (attacks.base.same(a[0]), a[2]) == (attacks.base.same(b[0]), b[2])
