"""A real `leafwise import` killed with SIGKILL at each of its rename points: the plan is detected as
interrupted, and `repair` leaves exactly the whole import or exactly the plan before, journal included."""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from testkit import run_cli, run_cli_in_process

HERE = Path(__file__).parent
SOURCE = HERE / "fixtures" / "taskmaster"
DRIVER = HERE / "killed_import.py"
MANIFEST = ".leafwise/.locks/import.json"
_TIME = re.compile(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")  # every time an import writes (node files, journal)


def _fresh(folder: Path) -> Path:
    folder.mkdir(parents=True)
    assert run_cli_in_process("init", "--name", "Adopt", "--prefix", "AD", cwd=folder).code == 0
    return folder


def _files(root: Path) -> dict[str, bytes]:
    """Every file under .leafwise/ (temp files included) but the cache and the locks folder."""
    base = root / ".leafwise"
    return {str(p.relative_to(base)): p.read_bytes() for p in sorted(base.rglob("*"))
            if p.is_file() and not str(p.relative_to(base)).startswith((".cache", ".locks"))}


def _timeless(files: dict[str, bytes]) -> dict[str, bytes]:
    return {k: _TIME.sub(b"<time>", v) for k, v in files.items()}


class _Runs:
    """The fork server of killed_import.py: real CLI runs, each SIGKILLed at a chosen point."""

    def __init__(self) -> None:
        # unbuffered: readline then takes one line from the pipe, never the lines behind it, which the
        # next select would no longer see (a loaded machine that read late waited 600 s on a buffer)
        self.server = subprocess.Popen([sys.executable, str(DRIVER)], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)

    def _said(self) -> dict:
        ready, _, _ = select.select([self.server.stdout], [], [], 600)  # a hang, not a slow machine
        assert ready, "the killed import's server said nothing for 600 s"
        line = self.server.stdout.readline()
        assert line, "the killed import's server is gone"
        return json.loads(line)

    def killed_at(self, at: int, root: Path, source: Path) -> tuple[bool, int]:
        """The import of `source` into `root`, SIGKILLed before its `at`-th rename point (0: none);
        (whether it was killed, the points it ran)."""
        request = {"at": at, "cwd": str(root), "args": ["import", "taskmaster", str(source)]}
        self.server.stdin.write((json.dumps(request) + "\n").encode())
        self.server.stdin.flush()
        said: dict = {}
        while "status" not in said:
            said.update(self._said())
            if "reached" in said and "pid" in said and not said.get("killed"):
                os.kill(said["pid"], signal.SIGKILL)
                said["killed"] = True
        if said.get("killed"):
            assert said["status"] == -signal.SIGKILL
            return True, at
        assert said["status"] == 0, said
        return False, said["points"]

    def close(self) -> None:
        self.server.stdin.close()
        self.server.wait(timeout=60)


@pytest.fixture
def runs():
    server = _Runs()
    yield server
    server.close()


def _interrupted(root: Path) -> bool:
    """What validate says after the kill: an interrupted import (exit 4, the manifest named), or not."""
    check = run_cli("validate", "--json", cwd=root)
    env = json.loads(check.stdout)
    body = env["result"] if env.get("result") else env["error"]["details"]
    mine = [p for p in body["problems"]["items"] if p["code"] == "interrupted_import"]
    if (root / MANIFEST).exists():
        assert check.code == 4 and mine and mine[0]["file"] == MANIFEST and mine[0]["fix"] == "leafwise repair"
        assert "an import was interrupted" in mine[0]["message"]
        return True
    assert not mine
    return False


def _lose_a_staged_file(root: Path) -> bool:
    """Remove the staged copy of the last file not yet put in place (a disk that lost it): repair
    must then roll back. False when every file was in place already."""
    lines = (root / MANIFEST).read_bytes().splitlines()
    head = json.loads(lines[0])
    for line in reversed(lines[1:1 + head["files"]]):
        entry = json.loads(line)
        staged = (root / ".leafwise" / entry["path"]).parent / entry["staged"]
        target = root / ".leafwise" / entry["path"]
        if staged.exists() and (not target.exists() or entry["old"] is not None
                                and target.read_bytes() != staged.read_bytes()):
            staged.unlink()
            return True
    return False


def _trial(runs: _Runs, base: Path, template: Path, source: Path, whole: dict[str, bytes], at: int,
           lose: bool) -> str:
    root = shutil.copytree(template, base / f"plan-{at}-{int(lose)}")
    before = _files(root)
    killed, _ = runs.killed_at(at, root, source)  # not killed: this run had fewer points (a cache hit)
    interrupted = _interrupted(root)
    lost = interrupted and lose and _lose_a_staged_file(root)
    repaired = run_cli("repair", "--json", cwd=root)
    assert repaired.code == 0, repaired.stdout + repaired.stderr
    ways = {c["repair"] for c in json.loads(repaired.stdout)["result"]["repairs"]}
    assert not (root / MANIFEST).exists()
    after = _files(root)
    if after == before:
        state = "before"
    else:
        assert _timeless(after) == _timeless(whole), f"point {at}: neither the plan before nor the whole import"
        state = "whole"
    if interrupted:
        assert ("roll_back_import" if lost else "roll_forward_import") in ways
        assert state == ("before" if lost else "whole")
    assert "0 error(s)" in run_cli_in_process("validate", cwd=root).stdout
    return f"{'interrupted' if interrupted else 'clean' if killed else 'finished'} {state}"


def _points(runs: _Runs, base: Path, template: Path, source: Path) -> tuple[int, dict[str, bytes]]:
    """The rename points of an import of `source` into a copy of `template`, and what it writes."""
    whole = shutil.copytree(template, base / "whole")
    killed, points = runs.killed_at(0, whole, source)
    assert not killed and points > 10
    return points, _files(whole)


@pytest.mark.slow
def test_a_first_import_killed_at_any_rename_point_is_repaired_whole_or_undone(tmp_path: Path, runs) -> None:
    template = _fresh(tmp_path / "template")
    points, whole = _points(runs, tmp_path, template, SOURCE)
    seen = [_trial(runs, tmp_path, template, SOURCE, whole, at, lose=False) for at in range(1, points + 1)]
    assert "interrupted whole" in seen and "clean before" in seen, seen
    assert set(seen) <= {"interrupted whole", "clean before", "clean whole", "finished whole"}, seen


@pytest.mark.slow
def test_a_re_import_killed_midway_rolls_forward_or_back_to_exact_bytes(tmp_path: Path, runs: _Runs) -> None:
    """An import that rewrites node files, docs and project.yaml: killed at each point, and at every
    other point a staged file lost too, so repair rolls back from the backups."""
    template = _fresh(tmp_path / "template")
    assert run_cli_in_process("import", "taskmaster", str(SOURCE), cwd=template).code == 0
    source = shutil.copytree(SOURCE, tmp_path / "source")
    tasks = source / ".taskmaster/tasks/tasks.json"
    data = json.loads(tasks.read_text())
    for tag in data.values():
        for task in tag["tasks"]:
            task["title"] += " (renamed)"
            task["details"] = "new details"
    data["release-3"] = {"tasks": [{"id": 1, "title": "Later", "status": "pending", "dependencies": []}],
                         "metadata": {"description": "A third release"}}
    tasks.write_text(json.dumps(data))
    points, whole = _points(runs, tmp_path, template, source)
    seen = [_trial(runs, tmp_path, template, source, whole, at, lose=at % 2 == 0) for at in range(1, points + 1)]
    assert {"interrupted whole", "interrupted before", "clean before"} <= set(seen), seen


def test_importing_again_finishes_an_interrupted_import_first(tmp_path: Path, runs: _Runs) -> None:
    template = _fresh(tmp_path / "template")
    points, whole = _points(runs, tmp_path, template, SOURCE)
    root = shutil.copytree(template, tmp_path / "plan")
    at = next(at for at in range(points // 2, points) if _interrupted_after(runs, root, at, template))
    res = run_cli("import", "taskmaster", str(SOURCE), "--json", cwd=root)
    env = json.loads(res.stdout)
    assert res.code == 0 and env["result"]["added"] == 0, env
    assert any(n.startswith("an import was interrupted") and "rolled forward" in n for n in env["result"]["notes"])
    assert not (root / MANIFEST).exists() and _timeless(_files(root)) == _timeless(whole), at


def _interrupted_after(runs: _Runs, root: Path, at: int, template: Path) -> bool:
    """Kill an import of the fixture into `root` at point `at`; True when it left a manifest (else
    `root` is made fresh again for the next try)."""
    runs.killed_at(at, root, SOURCE)
    if (root / MANIFEST).exists():
        return True
    shutil.rmtree(root)
    shutil.copytree(template, root)
    return False


@pytest.mark.slow
def test_a_journal_append_cut_short_by_the_kill_is_completed_after_its_fragment(tmp_path: Path, runs: _Runs) -> None:
    """A kill inside the journal's one write (a large write can stop part way): repair appends the
    lines the journal lacks; the cut line stays as a fragment readers skip, every whole line once."""
    template = _fresh(tmp_path / "template")
    points, whole = _points(runs, tmp_path, template, SOURCE)
    before = (template / ".leafwise/journal.jsonl").read_bytes()

    def killed(at: int) -> Path:
        root = tmp_path / f"plan-{at}"
        if not root.exists():
            shutil.copytree(template, root)
            runs.killed_at(at, root, SOURCE)
        return root

    low, high = 1, points + 1  # the first point after the journal's append: found by halving
    while low < high:
        mid = (low + high) // 2
        low, high = (low, mid) if (killed(mid) / ".leafwise/journal.jsonl").read_bytes() != before else (mid + 1, high)
    root = killed(low - 1)  # killed at the append itself
    assert (root / MANIFEST).exists() and (root / ".leafwise/journal.jsonl").read_bytes() == before
    lines = (root / MANIFEST).read_bytes().splitlines(keepends=True)
    block = b"".join(lines[1 + json.loads(lines[0])["files"]:])
    (root / ".leafwise/journal.jsonl").write_bytes(before + block[:len(block) // 2])  # the kill's cut, mid-line
    assert run_cli("repair", cwd=root).code == 0
    got = (root / ".leafwise/journal.jsonl").read_bytes().splitlines()
    want = whole["journal.jsonl"].splitlines()
    assert [_TIME.sub(b"", x) for x in got if _whole(x)] == [_TIME.sub(b"", x) for x in want]
    assert len(got) == len(want) + 1  # the fragment
    assert "0 error(s)" in run_cli_in_process("validate", cwd=root).stdout


def _whole(line: bytes) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False
