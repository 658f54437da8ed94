"""Node files and the journal as hostile input, read by the commands through store/reader.py: a link to
/dev/zero, a FIFO (which no reader may wait on) or an oversized file answers in time, as that file's
problem, and never takes more than the reader's cap. Each hang case runs in a subprocess with a deadline."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from datetime import datetime, timezone
from pathlib import Path

import pytest
from testkit import node, run_cli, write_plan

DEADLINE = 30  # seconds: a read that waits on a FIFO or drains /dev/zero never ends within it


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"LEAFWISE_CONFIG_DIR": str(tmp_path / "config"), "LEAFWISE_CACHE_DIR": str(tmp_path / "cache")}


def plan(root: Path) -> Path:
    write_plan(root, [node("T-1", "Checkout", release="R1"), node("T-2", "Cart page", parent="T-1"),
                      node("T-3", "Pay button", "done", parent="T-1")], releases=("R1",))
    return root / ".leafwise"


def plant(path: Path, how: str) -> None:
    """`path` made hostile: a link to /dev/zero, a FIFO, or a file over every reader's cap."""
    if path.exists():
        path.unlink()
    if how == "dev-zero":
        os.symlink("/dev/zero", path)
    elif how == "fifo":
        os.mkfifo(path)
    else:
        path.write_text("parent: T-1\ntitle: " + "x" * (300 * 1024) + "\n")


HOW = ["dev-zero", "fifo", "oversized"]


@pytest.mark.parametrize("how", HOW)
def test_a_hostile_node_file_is_its_problem_and_next_answers(tmp_path, env, how):
    if how == "dev-zero" and not Path("/dev/zero").exists():
        pytest.skip("needs /dev/zero")
    lw = plan(tmp_path)
    plant(lw / "nodes" / "T-9.yaml", how)
    for args in (["next"], ["start", "--next", "--agent", "a1"]):
        res = run_cli(*args, cwd=tmp_path, env=env, timeout=DEADLINE)
        assert "internal_error" not in res.stdout + res.stderr and "Traceback" not in res.stderr, (args, res.stderr)
    res = run_cli("validate", cwd=tmp_path, env=env, timeout=DEADLINE)
    assert "T-9.yaml" in res.stdout + res.stderr, res.stdout + res.stderr


HINT_LINES = textwrap.dedent("""
    import os, sys
    from pathlib import Path
    from leafwise.commands.plan_files import find_problems
    from leafwise.store import find_root, load_plan
    root = Path(sys.argv[1])
    plan = load_plan(find_root(explicit=root), use_cache=False)
    target = root / ".leafwise" / "nodes" / "T-2.yaml"
    target.unlink()  # swapped after the load: the hint's line lookup reads it again
    if sys.argv[2] == "dev-zero":
        os.symlink("/dev/zero", target)
    elif sys.argv[2] == "fifo":
        os.mkfifo(target)
    else:
        target.write_text("release: R9\\n" + "#" * (300 * 1024) + "\\n")
    found = [p for p in find_problems(plan) if p.node == "T-2"]
    print(found[0].line if found else "none")
""")


@pytest.mark.parametrize("how", HOW)
def test_a_node_file_swapped_after_the_load_gives_its_problem_no_line(tmp_path, how):
    if how == "dev-zero" and not Path("/dev/zero").exists():
        pytest.skip("needs /dev/zero")
    plan(tmp_path)
    (tmp_path / ".leafwise" / "nodes" / "T-2.yaml").write_text(
        "id: T-2\ntitle: Cart page\nstatus: draft\nparent: T-1\nrelease: R9\n")
    proc = subprocess.run([sys.executable, "-c", HINT_LINES, str(tmp_path), how], capture_output=True,
                          text=True, timeout=DEADLINE)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "None", proc.stdout  # the problem stays; the file is not read for its line


def done_line(node_id: str, when: datetime) -> bytes:
    return json.dumps({"time": when.strftime("%Y-%m-%dT%H:%M:%SZ"), "command": "complete", "node": node_id,
                       "changes": {"status": ["in-progress", "done"]}}).encode() + b"\n"


READ_LINES = "import sys; from leafwise.commands.plan_files import read_lines; print(read_lines(sys.argv[1]))"


@pytest.mark.parametrize("how", ["dev-zero", "fifo"])
def test_a_journal_that_is_no_regular_file_is_never_read(tmp_path, env, how):
    if how == "dev-zero" and not Path("/dev/zero").exists():
        pytest.skip("needs /dev/zero")
    lw = plan(tmp_path)
    plant(lw / "journal.jsonl", how)
    proc = subprocess.run([sys.executable, "-c", READ_LINES, str(lw / "journal.jsonl")], capture_output=True,
                          text=True, timeout=DEADLINE)
    assert (proc.returncode, proc.stdout.strip()) == (0, "[]"), proc.stderr  # read as no journal
    res = run_cli("progress", "--json", cwd=tmp_path, env=env, timeout=DEADLINE)
    assert "Traceback" not in res.stderr and "internal_error" not in res.stdout, res.stderr
    if res.code == 0:  # the plan is used: its forecast knows no day T-3 was done
        (item,) = res.json["result"]["forecast"]
        assert item["done"] == 1 and item["history"]["done"] == 0
    else:  # the plan is refused until the journal is fixed: the answer names it
        assert ".leafwise/journal.jsonl" in res.json["error"]["message"], res.stdout


def test_progress_reads_an_oversized_journal_from_its_end(tmp_path, env):
    from leafwise.store import reader

    lw = plan(tmp_path)
    journal = lw / "journal.jsonl"
    with journal.open("wb") as fh:  # a sparse hole over the journal cap, then the newest line
        fh.truncate(reader.JOURNAL.cap + 4096)
        fh.seek(0, os.SEEK_END)
        fh.write(b"\n" + done_line("T-3", datetime.now(timezone.utc)))
    res = run_cli("progress", "--json", cwd=tmp_path, env=env, timeout=DEADLINE)
    assert res.code == 0, res.stderr
    (item,) = res.json["result"]["forecast"]
    assert item["done"] == 1 and item["history"]["done"] == 1  # the line at the end was read


def test_read_lines_takes_events_that_close_a_leaf(tmp_path):
    from leafwise.commands.plan_files import read_lines

    journal = tmp_path / "journal.jsonl"
    deep = b'{"node": "T-4", "changes": {"status": ["x", "done"]}, "z": ' + b"[" * 3000 + b"]" * 3000 + b"}\n"
    journal.write_bytes(done_line("T-1", datetime(2027, 1, 2, tzinfo=timezone.utc)) + b"{torn\n" + deep
                        + b'{"node": "T-2", "command": "block", "changes": {"status": ["draft", "blocked"]}}\n')
    events = read_lines(journal)
    assert [(e.node, e.change("status").new) for e in events] == [("T-1", "done")]
    assert read_lines(tmp_path / "absent.jsonl") == []
