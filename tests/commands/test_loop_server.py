"""The loop server (commands/surfaces/loop_server.py, reached by loop_client.py from the console
script): a served loop line prints what the call's own run prints, sees every write made before it
(by any process, structural or not), never hands one task to two agents racing with processes that
run themselves, and is never used from a folder that is not safely the user's own.

Each call goes through the console script's entry under a probe that says on stderr whether the line
was served (the loader never imported in the calling process) or ran in the call's own process."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from testkit import node, wait_until, write_plan

pytestmark = pytest.mark.slow

PROBE = ("import atexit, sys\n"
         "atexit.register(lambda: sys.stderr.write('\\n[ran]' if 'leafwise.store.loader' in sys.modules"
         " else '\\n[served]'))\n"
         "from leafwise.commands.surfaces.entry import main\nmain()\n")


@pytest.fixture
def runtime(monkeypatch) -> Path:
    """A short runtime folder of the test's own (a socket's path has a length limit); every server
    started under it is stopped at the end."""
    folder = Path(tempfile.mkdtemp(prefix="lw", dir="/tmp"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(folder))
    yield folder
    for pid in server_pids(folder):
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    shutil.rmtree(folder, ignore_errors=True)


def server_pids(runtime: Path) -> list[int]:
    pids = []
    for lock in (runtime / "leafwise").glob("*.lock"):
        text = lock.read_text()
        if text.isdigit() and Path(f"/proc/{text}").exists():
            pids.append(int(text))
    return pids


def call(root: Path, *args: str, served: bool = True, env: dict[str, str] | None = None) -> tuple[str, str, int, str]:
    """(stdout, stderr, exit code, "served" or "ran") of `leafwise ARGS` through the console script."""
    full = {**os.environ, "LEAFWISE_AGENT": "", "LEAFWISE_MEMO": "0", "LEAFWISE_SERVER": "1" if served else "0",
            **(env or {})}
    proc = subprocess.run([sys.executable, "-P", "-c", PROBE, *args], cwd=root, env=full, stdin=subprocess.DEVNULL,
                          capture_output=True, timeout=120)
    err, _, how = proc.stderr.decode("utf-8", "surrogateescape").rpartition("\n")
    return proc.stdout.decode("utf-8", "surrogateescape"), err, proc.returncode, how.strip("[]")


def serving(root: Path) -> None:
    """Start the folder's server (a first call) and wait until a call is served."""
    call(root, "next", "--json")
    wait_until(lambda: call(root, "next", "--json")[3] == "served", timeout=60, what="the loop server",
               interval=0.2)


TIMES = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?|\b\d\d:\d\d(?::\d\d)?\b|\d+ ?[smh] ago"
                   r"|in \d+ ?(?:s|min|m|h)\b")


def same(text: str) -> str:
    return TIMES.sub("<time>", text)


def plan(root: Path) -> Path:
    return write_plan(root, [node("T-1", "Alpha", release="R1"), node("T-2", "Bravo", release="R1"),
                             node("T-3", "Charlie", release="R1"), node("T-4", "Delta", release="R2"),
                             node("T-6", "Foxtrot", release="R2", depends_on=["T-2"])])


def set_priority(root: Path, node_id: str, value: str) -> None:
    """Another process's in-place edit of a node file (no rename: the folder does not change)."""
    path = root / ".leafwise" / "nodes" / f"{node_id}.yaml"
    text = path.read_text()
    with path.open("r+") as handle:
        handle.write(text.replace("status:", f"priority: {value}\nstatus:", 1))


def add_node(root: Path, node_id: str, title: str) -> None:
    """A node file another process adds (the hierarchy changes: the server loads the plan again)."""
    path = root / ".leafwise" / "nodes" / f"{node_id}.yaml"
    path.write_text(f"id: {node_id}\ntitle: {title}\nstatus: draft\nrelease: R1\npriority: high\n")


STEPS: list[tuple[str, ...]] = [
    ("next",),
    ("start", "--next", "--agent", "a"),
    ("heartbeat", "T-1", "--agent", "a"),
    ("complete", "T-1", "--summary", "did it: é ✓\nsecond line", "--agent", "a"),
    ("@priority", "T-3", "high"),
    ("start", "--next", "--agent", "b", "--json"),
    ("next", "--agent", "c"),
    ("complete", "T-9", "--summary", "x", "--agent", "b"),
    ("complete", "T-2", "--summary", "not mine", "--agent", "a"),
    ("@add", "T-7", "Golf"),
    ("start", "--next", "--agent", "c"),
    ("complete", "T-7", "--summary", "golfed", "--agent", "c"),
    ("start", "--next", "--agent", "a", "--agent", "b"),  # two agents: click's usage answer, not the server's
    ("complete", "T-3", "--summary", "charlie", "--agent", "b", "--json"),
    ("start", "--next", "--agent", "b"),
    ("next", "--json"),
]


def test_served_lines_print_what_their_own_run_prints(tmp_path, runtime):
    served, own = plan(tmp_path / "served"), plan(tmp_path / "own")
    serving(served)
    ways = []
    for step in STEPS:
        if step[0].startswith("@"):
            for root in (served, own):
                (set_priority if step[0] == "@priority" else add_node)(root, *step[1:])
            continue
        a, b = call(served, *step), call(own, *step, served=False)
        ways.append(a[3])
        assert b[3] == "ran"
        assert (same(a[0]), same(a[1]), a[2]) == (same(b[0]), same(b[1]), b[2]), step
    assert ways.count("served") == len(ways) - 1  # all but the line with two agents, which click refuses
    assert [p.name for p in (served / ".leafwise" / "nodes").iterdir()] \
        and _statuses(served) == _statuses(own)


def _statuses(root: Path) -> dict[str, str]:
    out = {}
    for path in sorted((root / ".leafwise" / "nodes").glob("*.yaml")):
        status = re.search(r"^status: (\w+)", path.read_text(), re.M)
        out[path.stem] = status.group(1) if status else "?"
    return out


def test_a_write_by_another_process_just_before_a_served_call_is_seen(tmp_path, runtime):
    root = plan(tmp_path / "p")
    serving(root)
    steps = [(lambda: set_priority(root, "T-3", "high"), "T-3"),  # an edit in place
             (lambda: call(root, "start", "T-3", "--agent", "other", served=False), "T-1"),  # a claim
             (lambda: call(root, "start", "T-1", "--agent", "other2", served=False), "T-2"),
             (lambda: add_node(root, "T-8", "Hotel"), "T-8")]  # a new node: a structural change
    for write, expected in steps:
        write()
        out, _err, code, how = call(root, "next", "--agent", "me", "--json")
        assert (code, how) == (0, "served")
        assert re.search(r'"id": "(T-\d+)"', out).group(1) == expected


def test_agents_racing_through_the_server_and_on_their_own_never_share_a_task(tmp_path, runtime):
    root = write_plan(tmp_path / "race", [node(f"T-{i}", f"Task {i:02}", release="R1") for i in range(1, 13)])
    serving(root)
    agents = [(f"s{i}", True) for i in range(4)] + [(f"o{i}", False) for i in range(4)]
    with ThreadPoolExecutor(len(agents)) as pool:
        answers = list(pool.map(lambda a: call(root, "start", "--next", "--agent", a[0], "--json", served=a[1]),
                                agents))
    taken = [re.search(r'"id": "(T-\d+)"', out).group(1) for out, _err, code, _how in answers if code == 0]
    assert len(taken) == len(agents) and len(set(taken)) == len(taken), answers
    assert {how for *_, how in answers[:4]} <= {"served", "ran"} and "served" in {a[3] for a in answers[:4]}


@pytest.mark.parametrize("unsafe", ["others_can_write", "a_link"])
def test_no_server_from_a_folder_that_is_not_safely_the_users_own(tmp_path, runtime, unsafe):
    folder = runtime / "leafwise"
    if unsafe == "a_link":
        (tmp_path / "elsewhere").mkdir(mode=0o700)
        folder.symlink_to(tmp_path / "elsewhere")
    else:
        folder.mkdir()
        folder.chmod(0o777)
    root = plan(tmp_path / "p")
    for _ in range(3):
        assert call(root, "next", "--json")[2:] == (0, "ran")
        time.sleep(0.5)
    assert not list((tmp_path / "elsewhere").iterdir() if unsafe == "a_link" else folder.iterdir())


def test_the_server_exits_when_idle_and_when_its_plan_is_gone(tmp_path, runtime):
    idle = {"LEAFWISE_SERVER_IDLE": "1"}
    first = plan(tmp_path / "idle")
    call(first, "next", env=idle)
    wait_until(lambda: call(first, "next", env=idle)[3] == "served", timeout=60, what="a served call", interval=0.2)
    wait_until(lambda: not server_pids(runtime), timeout=30, what="the idle server to exit")
    second = plan(tmp_path / "gone")
    call(second, "next", env={"LEAFWISE_SERVER_IDLE": "5"})  # it looks for its folder every 5 s
    wait_until(lambda: server_pids(runtime), timeout=60, what="a server", interval=0.2)
    shutil.rmtree(second)
    wait_until(lambda: not server_pids(runtime), timeout=40, what="the server of a removed plan to exit")
