"""A remembered `next` (store/memo.py, replayed by the console script commands/surfaces/entry.py) is
the computed answer: for each kind of input, a change after the answer was remembered makes the next
call compute it again, and every answer equals one computed with remembering off and an empty cache.

Each case: settle the plan (inputs older than the memo's racy window), let `next` remember its answer
and replay it (the CLI is then not even imported), change one input, and compare."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Callable

import pytest
from testkit import node, wait_until, write_plan

from leafwise.store import claims, memo
from leafwise.store.paths import find_root
from leafwise.store.writer import utc_now

pytestmark = pytest.mark.slow

# The console script's entry, with a note on stderr saying whether the CLI ran (a computed answer).
PROBE = ("import atexit, sys\n"
         "atexit.register(lambda: sys.stderr.write('\\n[computed]' if 'leafwise.commands.surfaces.cli' in sys.modules"
         " else '\\n[remembered]'))\n"
         "from leafwise.commands.surfaces.entry import main\nmain()\n")
ARGS = ("next", "--agent", "a", "--json")


def call(root: Path, *args: str, remember: bool = True, cache: Path | None = None) -> tuple[str, str, int, bool]:
    """(stdout, stderr, exit code, whether it was replayed) of `leafwise ARGS` through the console script."""
    env = {**os.environ, "LEAFWISE_AGENT": "", "LEAFWISE_MEMO": "1" if remember else "0"}
    env.pop("LEAFWISE_ROOT", None)
    if cache is not None:
        env["LEAFWISE_CACHE_DIR"] = str(cache)
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=root, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=120)
    err, _, source = proc.stderr.rpartition("\n")
    return proc.stdout, err, proc.returncode, source == "[remembered]"


def computed(root: Path, tmp: Path, *args: str) -> tuple[str, str, int]:
    """The answer with nothing remembered and no cache at all (a fresh cache folder)."""
    fresh = tmp / f"cache-{time.monotonic_ns()}"
    out, err, code, replayed = call(root, *args, remember=False, cache=fresh)
    assert not replayed
    return out, err, code


def settle(root: Path) -> None:
    """Wait until every file of the plan is older than the memo's racy window."""
    newest = max(max(st.st_mtime_ns, st.st_ctime_ns) for st in
                 (p.lstat() for p in [root, *root.rglob("*")]))
    wait_until(lambda: time.time_ns() > newest + memo.RACY_NS, timeout=30, what="the plan to settle")


def remembered(root: Path, *args: str) -> tuple[str, str, int]:
    """Call until the answer is replayed (a code file another process touches can make one miss)."""
    answers: list[tuple[str, str, int, bool]] = []
    wait_until(lambda: answers.append(call(root, *args)) or answers[-1][3], timeout=60,
               what="a replayed answer", interval=0.05)
    return answers[-1][:3]


def plan(root: Path) -> Path:
    comment = {"by": "pat", "at": "2026-12-01T10:00:00Z", "text": "use the staging database"}
    return write_plan(root, [node("T-1", "Alpha", release="R1", comments=[comment]),
                             node("T-2", "Bravo", release="R1"), node("T-3", "Charlie", release="R2")])


def node_file(root: Path, node_id: str) -> Path:
    return root / ".leafwise" / "nodes" / f"{node_id}.yaml"


def rewrite_in_place_same_size_and_mtime(root: Path) -> None:
    path = node_file(root, "T-1")
    before = path.stat()
    text = path.read_bytes()
    assert b"Alpha" in text
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.replace(b"Alpha", b"Zulu!"))  # same size, the same inode
    finally:
        os.close(fd)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (before.st_size, before.st_mtime_ns, before.st_ino)


def add_node_file(root: Path) -> None:
    node_file(root, "T-4").write_text('id: "T-4"\ntitle: "Aardvark"\nstatus: "draft"\nrelease: "R1"\n')


def remove_node_file(root: Path) -> None:
    node_file(root, "T-1").unlink()


def append_journal_line(root: Path, word: str) -> None:
    """A delivery of `word` to agent a, sealed by this machine as Leafwise writes one (`messages.deliver`)."""
    from leafwise.commands.domain.messages import delivery_payload
    from leafwise.store.cache import seal_record

    event = {"actor": "a", "command": "delivered", "node": "T-1", "words": [word],
             "seal": seal_record("delivered", delivery_payload("T-1", "a", [word]))}
    with (root / ".leafwise" / "journal.jsonl").open("a") as fh:
        fh.write(json.dumps(event) + "\n")


def take_claim(root: Path) -> None:
    claims.write(find_root(explicit=root), "T-1", "b", utc_now(), 60)


def change_settings(root: Path) -> None:
    project = root / ".leafwise" / "project.yaml"
    text = project.read_text()
    project.write_text(text.replace("  - {id: R1, title: Release R1}\n  - {id: R2, title: Release R2}\n",
                                    "  - {id: R2, title: Release R2}\n  - {id: R1, title: Release R1}\n"))


MUTATIONS: dict[str, Callable[[Path], None]] = {
    "node file rewritten in place, same size and mtime": rewrite_in_place_same_size_and_mtime,
    "a new node file": add_node_file,
    "a node file removed": remove_node_file,
    "a claim taken": take_claim,
    "the settings (release order)": change_settings,
}


@pytest.mark.parametrize("kind", list(MUTATIONS))
def test_a_changed_input_is_computed_again(tmp_path, kind) -> None:
    root = plan(tmp_path / "repo")
    settle(root)
    before = remembered(root, *ARGS)
    assert before == computed(root, tmp_path, *ARGS)
    MUTATIONS[kind](root)
    out, err, code, replayed = call(root, *ARGS)
    assert not replayed, f"{kind}: the old answer was replayed"
    assert (out, err, code) == computed(root, tmp_path, *ARGS)
    assert out != before[0], f"{kind}: the change should change the answer"


def test_a_journal_line_is_an_input(tmp_path) -> None:
    root = plan(tmp_path / "repo")
    settle(root)
    out, _err, _code = remembered(root, *ARGS)
    words = json.loads(out)["result"]["task"]["messages"]
    assert [w["text"] for w in words] == ["use the staging database"]
    append_journal_line(root, words[0]["id"])
    out2, err2, code2, replayed = call(root, *ARGS)
    assert not replayed
    assert (out2, err2, code2) == computed(root, tmp_path, *ARGS)
    assert json.loads(out2)["result"]["task"]["messages"] == []


def test_the_agent_named_is_part_of_the_call(tmp_path) -> None:
    root = plan(tmp_path / "repo")
    settle(root)
    remembered(root, *ARGS)
    other = ("next", "--agent", "pat", "--json")
    out, err, code, replayed = call(root, *other)
    assert not replayed
    assert (out, err, code) == computed(root, tmp_path, *other)
    assert json.loads(out)["result"]["task"]["messages"] == []  # pat's own word does not wait for pat


def test_a_lease_running_out_ends_the_remembered_answer(tmp_path) -> None:
    root = plan(tmp_path / "repo")
    now = utc_now()
    claim = claims.write(find_root(explicit=root), "T-1", "b", now, (memo.RACY_NS / 1e9 + 6) / 60)
    settle(root)
    held = remembered(root, *ARGS)
    assert json.loads(held[0])["result"]["task"]["id"] == "T-2"
    expires = claims.parse_time(claim.expires)
    wait_until(lambda: utc_now() > expires + timedelta(milliseconds=10), timeout=60, what="the lease to run out")
    out, err, code, replayed = call(root, *ARGS)
    assert not replayed
    assert (out, err, code) == computed(root, tmp_path, *ARGS)
    assert json.loads(out)["result"]["task"]["id"] == "T-1"


def test_a_change_just_before_the_run_is_not_remembered(tmp_path) -> None:
    """Within the racy window nothing is remembered: a write in the same timestamp tick would hide."""
    root = plan(tmp_path / "repo")
    first = call(root, *ARGS)
    second = call(root, *ARGS)
    newest = max(max(st.st_mtime_ns, st.st_ctime_ns) for st in (p.lstat() for p in root.rglob("*")))
    if time.time_ns() < newest + memo.RACY_NS:  # still inside the window (a slow machine may be past it)
        assert not second[3]
    assert first[:3] == second[:3]


def test_a_terminal_or_a_wait_is_never_remembered() -> None:
    from leafwise.commands.surfaces.entry import rememberable

    assert not rememberable(["next", "--wait", "5"])
    assert not rememberable(["next", "--help"])
    assert not rememberable(["start", "--next", "--agent", "a"])


def test_only_the_most_recent_answers_are_kept(tmp_path, monkeypatch) -> None:
    folder = tmp_path / "answers"
    for i in range(memo.MAX_ENTRIES + 5):
        entry = folder / f"{i:02x}"[-2:] / f"entry-{i}"
        entry.parent.mkdir(parents=True, exist_ok=True)
        entry.write_bytes(b"x")
        os.utime(entry, ns=(i * 10**9, i * 10**9))
    memo.prune(folder)
    kept = sorted(int(p.name.split("-")[1]) for p in folder.rglob("entry-*"))
    assert kept == list(range(5, memo.MAX_ENTRIES + 5))


def test_outside_a_plan_the_console_script_answers_as_the_cli(tmp_path) -> None:
    (tmp_path / "empty").mkdir()
    first = call(tmp_path / "empty", "next")
    again = call(tmp_path / "empty", "next")
    assert first[2] == 5 and "Fix: leafwise init" in first[1]
    assert first[:3] == again[:3] == computed(tmp_path / "empty", tmp_path, "next")


def test_an_answer_that_delivered_words_is_not_replayed(tmp_path) -> None:
    """`next` to the agent holding the task delivers its words (a journal line): that run wrote, so it
    is not remembered, and the next call no longer shows them."""
    root = plan(tmp_path / "repo")
    paths = find_root(explicit=root)
    claims.write(paths, "T-1", "a", utc_now(), 60)
    (root / ".leafwise" / "nodes" / "T-1.yaml").write_text(
        (root / ".leafwise" / "nodes" / "T-1.yaml").read_text().replace('"draft"', '"in-progress"'))
    settle(root)
    first = call(root, *ARGS)
    assert [w["text"] for w in json.loads(first[0])["result"]["task"]["messages"]] == ["use the staging database"]
    second = call(root, *ARGS)
    assert not second[3]
    assert json.loads(second[0])["result"]["task"]["messages"] == []
    assert second[:3] == computed(root, tmp_path, *ARGS)
